package io.cloudroute;

import java.lang.ref.Cleaner;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A native handle: closed explicitly ({@link #close()}, idempotent) or, when forgotten, freed by a
 * {@link Cleaner}. Every native call runs between {@link #acquire()} and {@link #release()}: an
 * in-flight count that {@code close()} waits to drain, so a handle is never freed under a call
 * running on another thread; calls after close throw {@link IllegalStateException}.
 *
 * <p>{@code close()} from a log handler (which may run inside a call of its own thread, or on the
 * client's refresher thread) does not wait: it would wait for itself. The handle is closed at once
 * (later calls throw) and freed by the last call in flight as it returns.
 *
 * <p>A borrowed handle (a client's router, a Sentinel client's groups) belongs to its owner: it
 * counts on the owner's in-flight count, and closing it does nothing.
 *
 * <p>A dependent handle (a client's {@link Scan}, {@link Transaction}, {@link Subscription}) has
 * its own count and is closed on its own, but the C library needs it freed before its parent: the
 * parent's free (by close or by the Cleaner) frees every dependent still open first. Its calls run
 * inside a call of the parent (see {@link #acquireWithParent}), so they are drained by the parent's
 * close.
 */
abstract class NativeResource implements AutoCloseable {
  static final Cleaner CLEANER = Cleaner.create();

  static final int KIND_TOPOLOGY = 0;
  static final int KIND_CONFIG = 1;
  static final int KIND_ROUTER = 2;
  static final int KIND_SNAPSHOT = 3;
  static final int KIND_RING = 4;
  static final int KIND_SHARD_GROUPS = 5;
  static final int KIND_CLIENT = 6;
  static final int KIND_SENTINEL = 7;
  static final int KIND_SCAN = 8;
  static final int KIND_SCRIPT = 9;
  static final int KIND_PINNED = 10;
  static final int KIND_SHARDED = 11;
  static final int KIND_SUBSCRIPTION = 12;

  static {
    NativeLoader.load();
  }

  /** Native handles this class loader's program holds (made and not yet freed). */
  static final AtomicLong LIVE = new AtomicLong();

  /** In-flight calls x 2, plus 1 once closed. */
  private final AtomicLong state;

  private final NativeResource owner;

  /** The handle this one depends on (freed after it); null for none. */
  private final NativeResource parent;

  /** Set by a close() that did not wait: the call that drains the count frees. */
  private volatile boolean freeOnRelease;

  private final Free free;
  private final Cleaner.Cleanable cleanable;
  final long ptr;

  NativeResource(long ptr, int kind) {
    this(ptr, kind, null);
  }

  /**
   * A handle that must be freed before parent's (null: none). Made inside a call of parent, so
   * parent's close cannot free parent before this one is registered.
   */
  NativeResource(long ptr, int kind, NativeResource parent) {
    this.ptr = ptr;
    this.owner = null;
    this.parent = parent;
    this.state = new AtomicLong();
    this.free = new Free(kind, ptr, parent == null ? null : parent.free.dependents);
    if (parent != null) parent.free.dependents.add(free);
    this.cleanable = CLEANER.register(this, free);
    LIVE.incrementAndGet();
  }

  /** A borrowed handle, valid while owner is open. */
  NativeResource(long ptr, NativeResource owner) {
    this.ptr = ptr;
    this.owner = owner;
    this.parent = null;
    this.state = owner.state;
    this.free = null;
    this.cleanable = null;
  }

  /** Marks a call in flight; returns the pointer. Throws once closed. */
  final long acquire() {
    long s = state.getAndAdd(2);
    if ((s & 1) != 0) {
      state.getAndAdd(-2);
      throw new IllegalStateException(getClass().getSimpleName() + " is closed");
    }
    return ptr;
  }

  /**
   * acquire() on the parent, then on this handle: a dependent's call. Throws once either is closed;
   * pair with {@link #releaseWithParent}.
   */
  final long acquireWithParent() {
    parent.acquire();
    try {
      return acquire();
    } catch (RuntimeException e) {
      parent.release();
      throw e;
    }
  }

  final void releaseWithParent() {
    release();
    parent.release();
  }

  final void release() {
    if (state.addAndGet(-2) == 1) {
      NativeResource root = owner != null ? owner : this;
      if (root.freeOnRelease) root.cleanable.clean(); // clean() runs its action once at most
    }
  }

  /** Frees the native handle once no call is in flight; later calls throw. Idempotent. */
  @Override
  public void close() {
    if (owner != null) return;
    long s = state.getAndUpdate(v -> v | 1);
    if ((s & 1) != 0) return;
    if (NativeLog.inHandler()) {
      // Maybe inside a call of this very thread: the last call out frees (see release()).
      freeOnRelease = true;
      if (state.get() == 1) cleanable.clean();
      return;
    }
    for (int spins = 0; state.get() != 1; spins++) {
      if (spins < 1000) Thread.onSpinWait();
      else LockSupport.parkNanos(100_000L); // a live command may take a while
    }
    cleanable.clean();
  }

  /** Whether close() was called (on this handle, or on the owner of a borrowed one). */
  public final boolean isClosed() {
    return (state.get() & 1) != 0;
  }

  /**
   * Frees one handle once, its dependents first. Synchronized: a parent's free that meets a
   * dependent being freed on the Cleaner's thread waits for it, so the parent is never freed under
   * it. Holds no reference to the Java object (the Cleaner would never see it unreachable).
   */
  private static final class Free implements Runnable {
    private final int kind;
    private final long ptr;

    /** Open dependents of this handle (freed first). */
    final Set<Free> dependents = ConcurrentHashMap.newKeySet();

    /** The parent's set this one is in; null for none. */
    private final Set<Free> siblings;

    private boolean done;

    Free(int kind, long ptr, Set<Free> siblings) {
      this.kind = kind;
      this.ptr = ptr;
      this.siblings = siblings;
    }

    @Override
    public synchronized void run() {
      if (done) return;
      done = true;
      for (Free d : dependents) d.run();
      free(kind, ptr);
      if (siblings != null) siblings.remove(this);
      LIVE.decrementAndGet();
    }
  }

  private static native void free(int kind, long ptr);
}
