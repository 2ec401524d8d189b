package io.cloudroute;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Messages of channels (SUBSCRIBE), patterns (PSUBSCRIBE) and shard channels (SSUBSCRIBE) of one
 * {@link Client}, on connections and a thread of the subscription's own ({@link Client#subscribe()}
 * and {@link Client#subscribe(Listener)}):
 *
 * <pre>{@code
 * try (Subscription sub = client.subscribe().add(ChannelKind.CHANNEL, "news")) {
 *   for (Message m; (m = sub.next(Duration.ofSeconds(1))) != null; ) {
 *     if (m.type() == MessageType.MESSAGE) handle(m.channelString(), m.payload());
 *   }
 * }
 * }</pre>
 *
 * <p>Channels and patterns share one connection to the node a read would use first (the read
 * policy's order: a local replica first); a shard channel is subscribed on its slot's shard, on the
 * node a read of the slot would use. A name that loses its subscription — its node failed, its slot
 * moved — gives a {@link MessageType#MOVING} event with the reason, then, once it is subscribed on
 * the next node, a {@link MessageType#RESUBSCRIBED} event naming that node: every message published
 * after that event is delivered (messages published while it was moving may be lost).
 *
 * <p>Thread-safe: {@link #add}, {@link #remove} and {@link #close} may be called from any thread
 * while others wait in {@link #next}. The listener form runs a daemon thread ({@code
 * cloudroute-subscription-N}) that hands every message to {@link Listener#onMessage} and every
 * event to {@link Listener#onEvent}; closing wakes and joins it. Closing the client closes its
 * subscriptions.
 */
public final class Subscription extends NativeResource {
  /** No bound: what cr_subscription_next reads as "wait until something comes". */
  private static final long FOREVER = 0xFFFFFFFFL;

  private static final AtomicInteger THREADS = new AtomicInteger();

  /**
   * Receives a subscription's messages and events, in order, on the subscription's thread. A
   * callback may call {@link Subscription#add}, {@link Subscription#remove} and {@link
   * Subscription#close} (the thread then ends after it returns).
   */
  @FunctionalInterface
  public interface Listener {
    /**
     * A published message ({@link MessageType#MESSAGE}).
     *
     * @param message the message
     */
    void onMessage(Message message);

    /**
     * An event about a subscribed name (SUBSCRIBED, RESUBSCRIBED, MOVING, UNSUBSCRIBED). Ignored by
     * default.
     *
     * @param event the event
     */
    default void onEvent(Message event) {}

    /**
     * What a callback threw (the thread goes on with the next message). By default, handed to the
     * thread's uncaught exception handler.
     *
     * @param error what {@link #onMessage} or {@link #onEvent} threw
     */
    default void onError(RuntimeException error) {
      Thread t = Thread.currentThread();
      t.getUncaughtExceptionHandler().uncaughtException(t, error);
    }
  }

  private final Client client;
  private final AtomicInteger waiting = new AtomicInteger();
  private volatile boolean closing;
  private final Thread thread;

  private Subscription(Client client, long ptr, Listener listener) {
    super(ptr, KIND_SUBSCRIPTION, client);
    this.client = client;
    if (listener == null) {
      thread = null;
    } else {
      thread = new Thread(() -> dispatch(listener));
      thread.setName("cloudroute-subscription-" + THREADS.incrementAndGet());
      thread.setDaemon(true);
    }
  }

  /** A new subscription of client, with no names; listener (may be null) gets a thread. */
  static Subscription open(Client client, Listener listener) {
    long c = client.acquire();
    Subscription s;
    try {
      s = new Subscription(client, create0(c), listener);
    } finally {
      client.release();
    }
    client.opened(s);
    if (s.thread != null) s.thread.start();
    return s;
  }

  /**
   * Subscribes names (Strings, sent as UTF-8, or byte[]s) of one kind. Returns at once: each name's
   * {@link MessageType#SUBSCRIBED} event (or MOVING, while its node cannot be reached) follows. A
   * name already subscribed is left as it is.
   *
   * @param kind channels, patterns or shard channels
   * @param names at least one, none empty
   * @return this subscription
   * @throws IllegalStateException once closed
   */
  public Subscription add(ChannelKind kind, Object... names) {
    names(true, kind, names);
    return this;
  }

  /**
   * Unsubscribes names of one kind; each subscribed one gives an {@link MessageType#UNSUBSCRIBED}
   * event (its messages already received stay to be read). A name not subscribed is ignored.
   *
   * @param kind channels, patterns or shard channels
   * @param names at least one
   * @return this subscription
   * @throws IllegalStateException once closed
   */
  public Subscription remove(ChannelKind kind, Object... names) {
    names(false, kind, names);
    return this;
  }

  private void names(boolean add, ChannelKind kind, Object[] names) {
    if (kind == null) {
      throw new CloudRouteException.InvalidArgumentException(
          CloudRouteException.EINVAL, "kind is null");
    }
    long s = acquireWithParent();
    try {
      names0(s, add, kind.ordinal(), names);
    } finally {
      releaseWithParent();
    }
  }

  /**
   * The next message or event, in arrival order, waiting for one at most timeout.
   *
   * @param timeout how long to wait (zero: not at all; null: until one comes)
   * @return the message or event; null when none came in time, or once the subscription is closed
   *     (also by another thread while this one waits)
   */
  public Message next(Duration timeout) {
    long ms = FOREVER;
    if (timeout != null) {
      if (timeout.isNegative()) {
        throw new CloudRouteException.InvalidArgumentException(
            CloudRouteException.EINVAL, "timeout is negative");
      }
      ms = timeout.compareTo(Duration.ofMillis(FOREVER - 1)) > 0 ? FOREVER - 1 : timeout.toMillis();
    }
    return take(ms);
  }

  /** One cr_subscription_next; null when closed (or closing). */
  private Message take(long ms) {
    waiting.incrementAndGet();
    try {
      // close() sets closing, then wakes until no one waits: a waiter sees closing here,
      // or is counted and woken.
      if (closing || isClosed()) return null;
      long s;
      try {
        s = acquireWithParent();
      } catch (IllegalStateException closed) {
        return null;
      }
      try {
        return next0(s, ms);
      } finally {
        releaseWithParent();
      }
    } finally {
      waiting.decrementAndGet();
    }
  }

  private void dispatch(Listener listener) {
    while (!closing) {
      Message m;
      try {
        m = take(FOREVER);
      } catch (RuntimeException e) {
        listener.onError(e);
        continue;
      }
      if (m == null) continue; // woken: closing, or a spurious wake
      try {
        if (m.type() == MessageType.MESSAGE) {
          listener.onMessage(m);
        } else {
          listener.onEvent(m);
        }
      } catch (RuntimeException e) {
        try {
          listener.onError(e);
        } catch (RuntimeException ignored) {
          // the listener's own handler failed: the thread goes on
        }
      }
    }
  }

  /**
   * Closes the subscription's connections and thread (nothing is sent to unsubscribe: the servers
   * see the connections close) and drops the messages not read yet: every {@link #next} waiting
   * returns null, and the listener's thread is joined (unless this is called on it). Idempotent.
   */
  @Override
  public void close() {
    if (!closing) {
      closing = true;
      // Every waiter leaves cr_subscription_next (a wake reaches one at a time).
      while (waiting.get() > 0) {
        wake0(ptr);
        LockSupport.parkNanos(1_000_000L);
      }
      if (thread != null && thread != Thread.currentThread()) {
        boolean interrupted = false;
        while (thread.isAlive()) {
          try {
            thread.join();
          } catch (InterruptedException e) {
            interrupted = true;
          }
        }
        if (interrupted) Thread.currentThread().interrupt();
      }
      client.closed(this);
    }
    super.close();
  }

  private static native long create0(long client);

  private static native void names0(long sub, boolean add, int kind, Object[] names);

  private static native Message next0(long sub, long timeoutMs);

  private static native void wake0(long sub);
}
