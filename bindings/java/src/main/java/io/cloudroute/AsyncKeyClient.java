package io.cloudroute;

import java.util.Collections;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * The asynchronous single-key calls of the clients the library completes without a thread per call
 * ({@link Client} on {@code cr_client_submit}, {@link SentinelClient} on {@code
 * cr_sentinel_client_submit}): one implementation on one completion path ({@link AsyncCall}). Each
 * returns a {@link CompletableFuture} at once, completed on the client's executor (never the
 * library's engine thread) with the reply the blocking call returns, or failed with the exception
 * it throws; bad arguments and a closed client throw at once. Closing the client with calls in
 * flight completes each of their futures once, exceptionally ("cancelled: ...").
 *
 * <p>Public so that the methods are declared by a public class: a package-private one would leave
 * only compiler-made bridge methods in its subclasses, which Clojure's method resolution passes
 * over when a subclass declares an overload of the same arity ({@link Client#delAsync(Object...)}
 * beside {@link #delAsync(String)}). Only this package's clients extend it (its constructor is
 * package-private).
 */
public abstract class AsyncKeyClient extends NativeResource {
  /** Which submit of {@link AsyncCall#submit0} serves the client (0 cluster, 1 Sentinel). */
  private final int submitKind;

  private final Executor asyncExecutor; // null: AsyncCall's default pool

  AsyncKeyClient(long ptr, int resourceKind, int submitKind, Executor asyncExecutor) {
    super(ptr, resourceKind);
    this.submitKind = submitKind;
    this.asyncExecutor = asyncExecutor;
  }

  /**
   * Any command on one key, routed by args[keyIndex] as the blocking {@code command}, without
   * waiting: the future gets its reply as command returns it. {@link Access#AUTO}: a {@link
   * Client}'s first AUTO call reads the server's command table before it returns; a {@link
   * SentinelClient} refuses AUTO (at once), as its blocking call does.
   */
  public CompletableFuture<Object> commandAsync(Access access, int keyIndex, Object... args) {
    return commandAsync(null, access, keyIndex, args);
  }

  /** commandAsync with call options (null: none): a timeout of its own, as command's. */
  public CompletableFuture<Object> commandAsync(
      CallOptions options, Access access, int keyIndex, Object... args) {
    return submit(options, access, keyIndex, args, Function.identity());
  }

  /** GET without waiting; null when the key does not exist. */
  public CompletableFuture<byte[]> getAsync(byte[] key) {
    return submit(null, Access.READ, 1, new Object[] {"GET", key}, v -> (byte[]) v);
  }

  /** GET of a String key without waiting, the value decoded as UTF-8. */
  public CompletableFuture<String> getAsync(String key) {
    return submit(null, Access.READ, 1, new Object[] {"GET", key}, Command::text);
  }

  /** SET key value (String or byte[]) without waiting. */
  public CompletableFuture<Void> setAsync(Object key, Object value) {
    return submit(null, Access.WRITE, 1, new Object[] {"SET", key, value}, v -> null);
  }

  /** SET key value PX ttlMs without waiting (ttlMs 0: no expiry). */
  public CompletableFuture<Void> setAsync(Object key, Object value, long ttlMs) {
    if (ttlMs == 0) return setAsync(key, value);
    if (ttlMs < 0) throw Client.invalid("negative ttl");
    Object[] args = {"SET", key, value, "PX", Long.toString(ttlMs)};
    return submit(null, Access.WRITE, 1, args, v -> null);
  }

  public CompletableFuture<Long> incrAsync(String key) {
    return runAsync(Command.incrBy(key, 1));
  }

  public CompletableFuture<Long> incrByAsync(String key, long by) {
    return runAsync(Command.incrBy(key, by));
  }

  /** EXISTS of one key: 1 when it exists, else 0. */
  public CompletableFuture<Long> existsAsync(String key) {
    return runAsync(Command.exists(key));
  }

  /** DEL of one key: 1 when it existed, else 0. */
  public CompletableFuture<Long> delAsync(String key) {
    return runAsync(Command.del(key));
  }

  public CompletableFuture<String> hgetAsync(String key, String field) {
    return runAsync(Command.hget(key, field));
  }

  /** HSET key field value: fields added. */
  public CompletableFuture<Long> hsetAsync(String key, String field, String value) {
    return runAsync(Command.hset(key, Collections.singletonMap(field, value)));
  }

  /** The executor of this client's asynchronous calls (null: AsyncCall's default pool). */
  Executor asyncExecutor() {
    return asyncExecutor;
  }

  private <T> CompletableFuture<T> runAsync(Command<T> c) {
    return submit(null, c.access, c.keyIndex, c.args, c::convert);
  }

  private <T> CompletableFuture<T> submit(
      CallOptions options,
      Access access,
      int keyIndex,
      Object[] args,
      Function<Object, ? extends T> convert) {
    if (access == null) throw Client.invalid("access is null");
    long p = acquire();
    try {
      return AsyncCall.submit(
          this,
          submitKind,
          p,
          asyncExecutor,
          Client.timeout(options),
          access,
          keyIndex,
          args,
          convert);
    } finally {
      release();
    }
  }
}
