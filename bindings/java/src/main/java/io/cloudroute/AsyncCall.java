package io.cloudroute;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * One asynchronous call of a {@link Client}, a {@link SentinelClient} or a {@link ShardedClient} in
 * flight ({@code cr_client_submit}, {@code cr_sentinel_client_submit}, {@code
 * cr_sharded_client_submit}, their multi-key and batch forms ...), and the thread rules of every
 * such call.
 *
 * <p>The library completes a call on its engine thread (or, for a retry, a redirect or a blocking
 * command, on one of its few worker threads): threads the JVM does not know, attached once each as
 * daemons named {@code cloudroute-native}. There the reply is converted to Java objects (as {@link
 * Client#command}'s) and {@link #done} hands the call to its {@link Executor}; nothing else runs on
 * the engine thread, since completing a {@link CompletableFuture} runs the stages that depend on it
 * inline, and a user's stage there would hold up every connection of the client. The executor then
 * converts the reply to its type and completes the future. A future cancelled (or completed) by its
 * caller before its reply arrives drops the reply; the request stays on its connection, whose reply
 * is read and discarded, so the connection stays in step (a write may still apply).
 */
final class AsyncCall<T> implements Runnable {
  static {
    NativeLoader.load();
    init0();
  }

  final CompletableFuture<T> future = new CompletableFuture<>();
  private final Function<Object, ? extends T> convert;
  private final Executor executor;

  /** Keeps the client reachable while the call is in flight (its Cleaner would cancel the call). */
  @SuppressWarnings("unused")
  private final NativeResource client;

  // Set by done() before the hand-over to the executor (which orders them before run()).
  private int status;
  private Object value;
  private byte[] message;

  private AsyncCall(
      NativeResource client, Executor executor, Function<Object, ? extends T> convert) {
    this.client = client;
    this.executor = executor;
    this.convert = convert;
  }

  /** How a call is handed to the library: one of the natives below, given the AsyncCall. */
  interface Submit {
    void to(Object call);
  }

  /**
   * Submits one call of client (whose in-flight count the caller holds) through submit; the future
   * completes on executor (null: the default one) with convert's value of the reply. Throws at once
   * when the arguments or the library refuse the call (then no future exists).
   */
  static <T> CompletableFuture<T> start(
      NativeResource client,
      Executor executor,
      Function<Object, ? extends T> convert,
      Submit submit) {
    AsyncCall<T> call =
        new AsyncCall<>(client, executor == null ? defaultExecutor() : executor, convert);
    submit.to(call);
    return call.future;
  }

  /** The clients of {@link #submit0} and {@link #multi0}: which C submit serves them. */
  static final int KIND_CLUSTER = 0;

  static final int KIND_SENTINEL = 1;
  static final int KIND_SHARDED = 2;

  /**
   * Submits args (routed by args[keyIndex], access as {@link Client#command}) on client h (kind
   * {@link #KIND_CLUSTER}, {@link #KIND_SENTINEL} or {@link #KIND_SHARDED}), whose in-flight count
   * the caller holds; see {@link #start}.
   */
  static <T> CompletableFuture<T> submit(
      NativeResource client,
      int kind,
      long h,
      Executor executor,
      int timeoutMs,
      Access access,
      int keyIndex,
      Object[] args,
      Function<Object, ? extends T> convert) {
    return start(
        client,
        executor,
        convert,
        call -> submit0(kind, h, timeoutMs, access.ordinal(), keyIndex, args, call));
  }

  /**
   * The library's completion, on its engine or a worker thread: hands the call to its executor and
   * returns. An executor that refuses (shut down, saturated) hands it to the default one instead.
   */
  static void done(Object call, int status, Object value, byte[] message) {
    AsyncCall<?> c = (AsyncCall<?>) call;
    c.status = status;
    c.value = value;
    c.message = message;
    try {
      c.executor.execute(c);
    } catch (RejectedExecutionException e) {
      defaultExecutor().execute(c);
    }
  }

  /** On the executor: completes the future once (a future already done drops the reply). */
  @Override
  public void run() {
    if (future.isDone()) return;
    if (status != 0) {
      String text = message == null ? "" : new String(message, StandardCharsets.UTF_8);
      future.completeExceptionally(CloudRouteException.of(status, text));
      return;
    }
    T v;
    try {
      v = convert.apply(value);
    } catch (RuntimeException e) {
      future.completeExceptionally(e);
      return;
    }
    future.complete(v);
  }

  /**
   * The executor of clients given none ({@link ClientOptions#asyncExecutor}): one pool shared by
   * every client of the class loader, of 2 to 4 daemon threads named {@code cloudroute-async-N} (as
   * many as the JVM has processors within those bounds), idle threads ending after 30 s. Dedicated
   * rather than CompletableFuture's default asynchronous pool ({@code ForkJoinPool.commonPool()}),
   * which parallel streams share and which becomes a thread per task on a JVM with fewer than 3
   * processors.
   */
  static Executor defaultExecutor() {
    return DefaultPool.POOL;
  }

  private static final class DefaultPool {
    static final ThreadPoolExecutor POOL = create();

    private static ThreadPoolExecutor create() {
      int n = Math.max(2, Math.min(4, Runtime.getRuntime().availableProcessors()));
      AtomicInteger count = new AtomicInteger();
      ThreadFactory threads =
          r -> {
            Thread t = new Thread(r, "cloudroute-async-" + count.incrementAndGet());
            t.setDaemon(true);
            return t;
          };
      ThreadPoolExecutor pool =
          new ThreadPoolExecutor(n, n, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), threads);
      pool.allowCoreThreadTimeOut(true);
      return pool;
    }
  }

  private static native void init0();

  private static native void submit0(
      int kind, long h, int timeoutMs, int access, int keyIndex, Object[] args, Object call);

  /** The multi-key ops of {@link #multi0}. */
  static final int MGET = 0;

  static final int DEL = 1;
  static final int MSET = 2;
  static final int EXISTS = 3;

  /**
   * Submits op (MGET, DEL, MSET of keys and values, EXISTS) of keys in any slots or shards on
   * client h (kind {@link #KIND_CLUSTER} or {@link #KIND_SHARDED}), the arguments checked as the
   * blocking call of that client checks them: the reply is the blocking call's (MGET's List in key
   * order, DEL's and EXISTS's Long, MSET's "OK").
   */
  static native void multi0(int kind, long h, int op, Object[] keys, Object[] values, Object call);

  /**
   * Submits the Sentinel batch op (MGET, DEL, MSET of keys and values, EXISTS) of keys on Sentinel
   * client h, the arguments checked as SentinelClient's blocking batch checks them. The reply is
   * {@code Object[] {Object[] results, int[] statuses, Long count, String message}}, as
   * SentinelClient's batch0 gives them (a call refused as a whole fails with its status instead).
   */
  static native void batch0(long h, int op, Object[] keys, Object[] values, Object call);

  /**
   * Submits a pipeline of n commands on client h (kind 0: a Client; 1: a ShardedClient, which the
   * library refuses), as {@link Pipeline}'s execute0 takes them: the reply is {@code Object[]
   * {Object[] results, int[] statuses}}, results and statuses as execute0 gives them.
   */
  static native void pipeline0(
      int kind,
      long h,
      int[] access,
      int[] keyIndex,
      String[] hosts,
      int[] ports,
      Object[][] argv,
      Object call);
}
