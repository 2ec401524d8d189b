package io.cloudroute;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * Shard groups kept current by Redis Sentinel: one group per Sentinel master name, keys placed by a
 * built {@link Ring} (ring shard i is group i). Reads go to the key's group's instances nearest
 * first, writes to its master. The batches ({@link #mget}, {@link #mset}, {@link #del}, {@link
 * #exists}) send one command per group, every group at once, and say which keys failed. Safe for
 * any number of threads. Replies as {@link Client#command}; {@code read}, {@code write}, {@code
 * get} and {@code set} (reads on the group's instances nearest first, writes on its master) are
 * {@link KeyCommands}'.
 *
 * <p>Asynchronous single-key calls ({@link #commandAsync}, {@link #getAsync}, {@link #setAsync},
 * {@link #incrAsync}, {@link #hgetAsync} ...) are {@link Client}'s, on {@code
 * cr_sentinel_client_submit}: a {@link CompletableFuture} at once, no thread per call, completed on
 * {@link SentinelOptions#asyncExecutor} (by default a small shared pool of daemon threads, never
 * the library's engine thread), with the routing, retries and exceptions of {@link #command};
 * {@link Access#AUTO} is refused at once, as by command. Closing the client with calls in flight
 * completes each of their futures once, exceptionally with {@link
 * CloudRouteException.ConnectionException} whose message starts with "cancelled:".
 *
 * <p>The batches without waiting ({@link #mgetAsync(Object...)}, {@link #msetAsync}, {@link
 * #delAsync(Object...)}, {@link #existsAsync(Object...)}, on {@code cr_sentinel_client_submit_mget}
 * ...): one command per group, every group at once on the groups' shared connections, and the
 * blocking batch's outcome — the same values, and when keys failed the same exception with the same
 * {@link CloudRouteException#failedKeys()} and {@link CloudRouteException#results()}. Closed with a
 * batch in flight, every key fails: the future fails with a ConnectionException whose message names
 * every failed group with "cancelled: ...", every key in failedKeys().
 */
public final class SentinelClient extends AsyncKeyClient implements KeyCommands {
  private final ShardGroups groups;

  private SentinelClient(long ptr, Executor asyncExecutor) {
    super(ptr, KIND_SENTINEL, AsyncCall.KIND_SENTINEL, asyncExecutor);
    long p = acquire();
    try {
      groups = new ShardGroups(groups0(p), this);
    } finally {
      release();
    }
  }

  /**
   * Connects through sentinels ("host:port[,host:port...]") for the masters names (group i is
   * names.get(i)); ring must be built with names.size() shards. config may be null.
   */
  public static SentinelClient connect(
      String sentinels, List<String> names, Ring ring, Config config, SentinelOptions options) {
    String[] groupNames = names.toArray(new String[0]);
    long r = ring.acquire();
    try {
      return new SentinelClient(
          Config.copyInto(
              config,
              c -> create(c, options.u32, options.u64, options.strings, r, groupNames, sentinels)),
          options.asyncExecutor);
    } finally {
      ring.release();
    }
  }

  /** Any command on one key, placed by args[keyIndex]. */
  @Override
  public Object command(Access access, int keyIndex, Object... args) {
    if (access == null) throw Client.invalid("access is null");
    long p = acquire();
    try {
      return Client.command0(1, p, access.ordinal(), keyIndex, args);
    } finally {
      release();
    }
  }

  /** PEXPIRE key (seconds x 1000): true when the time to live was set, false without the key. */
  public boolean expire(Object key, long seconds) {
    if (seconds <= 0 || seconds > Long.MAX_VALUE / 1000) {
      throw Client.invalid("expire: seconds must be in 1 .. " + Long.MAX_VALUE / 1000);
    }
    long p = acquire();
    try {
      return expire0(p, key, seconds * 1000);
    } finally {
      release();
    }
  }

  // ---- batches: one command per group, every group at once ---------------------------------
  //
  // A batch is not a transaction: each group's command succeeds or fails on its own. When keys
  // failed, the call throws the exception of the first failed key's status (its message names
  // every failed group, its keys' positions and its error), whose failedKeys() and results()
  // say which keys failed and give every key's result; the other keys' writes stand.

  /**
   * MGET: each key's value or null, in key order — one MGET per group (the groups' instances
   * nearest first).
   *
   * @throws CloudRouteException when a group failed: {@link CloudRouteException#results()} holds
   *     the other keys' values, the failed keys' exceptions in their places
   */
  public List<byte[]> mget(Object... keys) {
    List<Object> results = batch(OP_MGET, keys, null).results;
    List<byte[]> out = new ArrayList<>(results.size());
    for (Object v : results) out.add((byte[]) v);
    return out;
  }

  /** MSET of every pair — one MSET per group, on its master. Throws as {@link #mget}. */
  public void mset(Map<?, ?> pairs) {
    Pairs p = new Pairs(pairs);
    batch(OP_MSET, p.keys, p.values);
  }

  /** DEL — one DEL per group: how many of keys existed. Throws as {@link #mget}. */
  public long del(Object... keys) {
    return batch(OP_DEL, keys, null).count;
  }

  /** How many of keys exist (a key given twice counts twice) — one EXISTS per group. */
  public long exists(Object... keys) {
    return batch(OP_EXISTS, keys, null).count;
  }

  private static final int OP_MGET = 0;
  private static final int OP_DEL = 1;
  private static final int OP_MSET = 2;
  private static final int OP_EXISTS = 3;

  /** A batch's per-key results and its count (DEL, EXISTS). */
  private static final class Batch {
    final List<Object> results;
    final long count;

    Batch(List<Object> results, long count) {
      this.results = results;
      this.count = count;
    }
  }

  private Batch batch(int op, Object[] keys, Object[] values) {
    int n = keys == null ? 0 : keys.length;
    int[] statuses = new int[n];
    long[] count = new long[1];
    String[] message = new String[1];
    Object[] replies;
    long p = acquire();
    try {
      replies = batch0(p, op, keys, values, statuses, count, message);
    } finally {
      release();
    }
    return outcome(op, keys, replies, statuses, count[0], message[0]);
  }

  /**
   * The batches without waiting (AsyncKeyClient's mgetAsync ...): convert gets what the cluster
   * client's multi-key reply would be (MGET's List, DEL's and EXISTS's Long) once {@link #outcome}
   * found no key failed; else the future fails with its exception. The keys are copied: the
   * exception's failedKeys() are the keys as given, whatever the caller's array holds later.
   */
  @Override
  <T> CompletableFuture<T> multiAsync(
      int op, Object[] keys, Object[] values, Function<Object, ? extends T> convert) {
    Object[] given = keys == null ? null : keys.clone();
    long p = acquire();
    try {
      return AsyncCall.start(
          this,
          asyncExecutor(),
          v -> convert.apply(batchReply(op, given, (Object[]) v)),
          call -> AsyncCall.batch0(p, op, given, values, call));
    } finally {
      release();
    }
  }

  /** A submitted batch's reply (AsyncCall.batch0's) as the cluster client's multi-key reply. */
  private static Object batchReply(int op, Object[] keys, Object[] reply) {
    Batch b =
        outcome(
            op, keys, (Object[]) reply[0], (int[]) reply[1], (Long) reply[2], (String) reply[3]);
    return op == OP_MGET ? b.results : Long.valueOf(b.count);
  }

  /**
   * A batch's results (replies and statuses as batch0 gives them), or the exception of the first
   * failed key's status with every key's result in place — the blocking and the asynchronous
   * batches alike.
   */
  private static Batch outcome(
      int op, Object[] keys, Object[] replies, int[] statuses, long count, String message) {
    int n = statuses.length;
    List<Object> results = new ArrayList<>(n);
    List<Object> failedKeys = new ArrayList<>();
    int first = 0;
    for (int i = 0; i < n; i++) {
      if (statuses[i] == 0) {
        results.add(replies[i]);
        continue;
      }
      if (first == 0) first = statuses[i];
      failedKeys.add(keys[i]);
      String why = op == OP_MGET ? (String) replies[i] : message;
      results.add(CloudRouteException.of(statuses[i], why));
    }
    if (first != 0) {
      throw CloudRouteException.of(first, message).withBatch(failedKeys, results);
    }
    return new Batch(results, count);
  }

  /** Asks the sentinels about every group now. */
  public void refresh() {
    long p = acquire();
    try {
      Client.refresh0(1, p);
    } finally {
      release();
    }
  }

  /** The client's table (inspection, health feedback); valid until the client is closed. */
  public ShardGroups groups() {
    return groups;
  }

  /** Per-instance statistics of every data node the client has talked to. */
  public List<NodeStats> nodeStats() {
    return Client.nodeStats(this, 2);
  }

  /** Counters since the client was created. */
  public SentinelStats stats() {
    long[] v = new long[13];
    long p = acquire();
    try {
      stats0(p, v);
    } finally {
      release();
    }
    return new SentinelStats(v);
  }

  private static native long create(
      long config,
      int[] u32,
      long[] u64,
      String[] strings,
      long ring,
      String[] names,
      String sentinels);

  private static native long groups0(long h);

  private static native Object[] batch0(
      long h,
      int op,
      Object[] keys,
      Object[] values,
      int[] statuses,
      long[] count,
      String[] message);

  private static native boolean expire0(long h, Object key, long ms);

  private static native void stats0(long h, long[] out);
}
