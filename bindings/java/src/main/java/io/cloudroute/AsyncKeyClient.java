package io.cloudroute;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * The asynchronous calls of the clients the library completes without a thread per call ({@link
 * Client} on {@code cr_client_submit}, {@link SentinelClient} on {@code cr_sentinel_client_submit},
 * {@link ShardedClient} on {@code cr_sharded_client_submit}, and their multi-key forms): one
 * implementation on one completion path ({@link AsyncCall}). Each returns a {@link
 * CompletableFuture} at once, completed on the client's executor (never the library's engine
 * thread) with the reply the blocking call returns, or failed with the exception it throws; bad
 * arguments and a closed client throw at once (the blocking call's exception), nothing sent.
 * Closing the client with calls in flight completes each of their futures once, exceptionally with
 * {@link CloudRouteException.ConnectionException} whose message starts with "cancelled:" (a
 * Sentinel batch's names the C function and every failed group first, then "cancelled:"). Safe for
 * any number of threads, as the client; the keys and values are copied before a call returns.
 *
 * <p>Public so that the methods are declared by a public class: a package-private one would leave
 * only compiler-made bridge methods in its subclasses, which Clojure's method resolution passes
 * over when a subclass declares an overload of the same arity ({@link Client#delAsync(Object...)}
 * beside {@link #delAsync(String)}). Only this package's clients extend it (its constructor is
 * package-private).
 */
public abstract class AsyncKeyClient extends NativeResource {
  /** Which submit of {@link AsyncCall#submit0} serves the client (AsyncCall.KIND_CLUSTER ...). */
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
   * SentinelClient} and a {@link ShardedClient} refuse AUTO (at once), as their blocking calls do.
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

  /** INCR key without waiting: the new value. */
  public CompletableFuture<Long> incrAsync(String key) {
    return runAsync(Command.incrBy(key, 1));
  }

  /** INCRBY key by without waiting: the new value. */
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

  /** HGET key field without waiting: the value as UTF-8, null when none. */
  public CompletableFuture<String> hgetAsync(String key, String field) {
    return runAsync(Command.hget(key, field));
  }

  /** HSET key field value: fields added. */
  public CompletableFuture<Long> hsetAsync(String key, String field, String value) {
    return runAsync(Command.hset(key, Collections.singletonMap(field, value)));
  }

  // ---- many keys: the client's blocking mget / mset / del / exists without waiting --------------

  /**
   * MGET of keys (Strings or byte[]s) without waiting, as the client's blocking {@code mget}: every
   * node's, shard's or group's share in flight at once; the values in key order, null where a key
   * has none. A failed share fails the future with the exception the blocking call throws — for a
   * {@link SentinelClient} that exception carries {@link CloudRouteException#failedKeys()} and
   * {@link CloudRouteException#results()} (the other keys' values, each failed key's exception in
   * its place), exactly as its blocking batch's.
   *
   * @throws CloudRouteException.InvalidArgumentException at once, nothing sent: no keys, a null
   *     array or key, a key that is neither a String nor a byte[]
   * @throws IllegalStateException when the client is closed
   */
  public CompletableFuture<List<byte[]>> mgetAsync(Object... keys) {
    return multiAsync(
        AsyncCall.MGET,
        keys,
        null,
        v -> {
          List<byte[]> out = new ArrayList<>();
          for (Object e : (List<?>) v) out.add((byte[]) e);
          return out;
        });
  }

  /** {@link #mgetAsync(Object...)} of a list of keys. */
  public CompletableFuture<List<byte[]>> mgetAsync(List<?> keys) {
    if (keys == null) throw Client.invalid("keys is null");
    return mgetAsync(keys.toArray());
  }

  /**
   * MSET of every pair without waiting, as the client's blocking {@code mset}: the future gets null
   * once every share was written. Not atomic across shares: a failed share fails the future as
   * {@link #mgetAsync(Object...)} says (a {@link SentinelClient}'s exception names the failed
   * keys), and the other shares' writes stand.
   *
   * @throws CloudRouteException.InvalidArgumentException at once, nothing sent: a null or empty
   *     map, a null key or value
   */
  public CompletableFuture<Void> msetAsync(Map<?, ?> pairs) {
    Pairs kv = new Pairs(pairs);
    return multiAsync(AsyncCall.MSET, kv.keys, kv.values, v -> null);
  }

  /**
   * DEL of keys without waiting, as the client's blocking {@code del}: how many existed. Fails as
   * {@link #mgetAsync(Object...)}; throws at once as it.
   */
  public CompletableFuture<Long> delAsync(Object... keys) {
    return multiAsync(AsyncCall.DEL, keys, null, v -> (Long) v);
  }

  /**
   * EXISTS of keys without waiting, as the client's blocking {@code exists}: how many exist (a key
   * named twice counts twice). Fails as {@link #mgetAsync(Object...)}; throws at once as it.
   */
  public CompletableFuture<Long> existsAsync(Object... keys) {
    return multiAsync(AsyncCall.EXISTS, keys, null, v -> (Long) v);
  }

  /**
   * Submits the multi-key op of keys (and MSET's values); convert gets the reply as the cluster
   * client's blocking multi-key call gives it (MGET's List in key order, DEL's and EXISTS's Long,
   * MSET's "OK"). {@link SentinelClient} overrides it with its batches.
   */
  <T> CompletableFuture<T> multiAsync(
      int op, Object[] keys, Object[] values, Function<Object, ? extends T> convert) {
    long p = acquire();
    try {
      return AsyncCall.start(
          this,
          asyncExecutor,
          convert,
          call -> AsyncCall.multi0(submitKind, p, op, keys, values, call));
    } finally {
      release();
    }
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
