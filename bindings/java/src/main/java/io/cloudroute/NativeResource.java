package io.cloudroute;

import java.lang.ref.Cleaner;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A native handle: closed explicitly ({@link #close()}, idempotent) or, when forgotten, freed by a
 * {@link Cleaner}. Every native call runs between {@link #acquire()} and {@link #release()}: an
 * in-flight count that {@code close()} waits to drain, so a handle is never freed under a call
 * running on another thread; calls after close throw {@link IllegalStateException}.
 *
 * <p>{@code close()} from a log handler (which may run inside a call of its own thread, or on the
 * client's refresher thread) does not wait: it would wait for itself. The handle is closed at
 * once (later calls throw) and freed by the last call in flight as it returns.
 *
 * <p>A borrowed handle (a client's router, a Sentinel client's groups) belongs to its owner: it
 * counts on the owner's in-flight count, and closing it does nothing.
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

  static {
    NativeLoader.load();
  }

  /** Native handles this class loader's program holds (made and not yet freed). */
  static final AtomicLong LIVE = new AtomicLong();

  /** In-flight calls x 2, plus 1 once closed. */
  private final AtomicLong state;

  private final NativeResource owner;
  /** Set by a close() that did not wait: the call that drains the count frees. */
  private volatile boolean freeOnRelease;
  private final Cleaner.Cleanable cleanable;
  final long ptr;

  NativeResource(long ptr, int kind) {
    this.ptr = ptr;
    this.owner = null;
    this.state = new AtomicLong();
    this.cleanable = CLEANER.register(this, new Free(kind, ptr));
    LIVE.incrementAndGet();
  }

  /** A borrowed handle, valid while owner is open. */
  NativeResource(long ptr, NativeResource owner) {
    this.ptr = ptr;
    this.owner = owner;
    this.state = owner.state;
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

  private static final class Free implements Runnable {
    private final int kind;
    private final long ptr;

    Free(int kind, long ptr) {
      this.kind = kind;
      this.ptr = ptr;
    }

    @Override
    public void run() {
      free(kind, ptr);
      LIVE.decrementAndGet();
    }
  }

  private static native void free(int kind, long ptr);
}
