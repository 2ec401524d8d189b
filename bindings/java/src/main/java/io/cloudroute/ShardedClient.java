package io.cloudroute;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * A client for pre-sharded standalone Redis servers, placed on a {@link Ring} as Jedis 3's {@code
 * ShardedJedis} placed them: {@code servers.get(i)} serves ring shard i. The migration path of
 * {@code ShardedJedis} (Jedis 4 removed it) — the same shard list on a {@code Ring} built like
 * {@code ShardedJedis}'s finds every key where it put it:
 *
 * <pre>{@code
 * // before (Jedis 3): new ShardedJedis(List.of(new JedisShardInfo("10.0.0.1", 6379, "cache-a"), ...))
 * Ring ring = Ring.builder().hash(HashAlgo.MURMUR).naming(RingNaming.JEDIS3)
 *     .shard("cache-a", 1).shard("cache-b", 1).build();
 * try (ShardedClient c = new ShardedClient(List.of("10.0.0.1:6379", "10.0.0.2:6379"), ring)) {
 *   c.set("user:1", "alice");
 *   c.get("user:1"); // "alice", from the shard ShardedJedis would have asked
 * }
 * }</pre>
 *
 * <p>A server entry is {@code "host:port"} (the shard's master) or the master followed by its
 * replicas ({@code "host:port,host:port"}, or a {@code List<String>} of addresses). The C library
 * ({@code cr_sharded_client_*}) does the work: reads go to the key's shard's instances nearest
 * first (a shard whose master died keeps serving reads from its replicas), writes to its master
 * (never re-sent once they may have arrived), multi-key calls send one command per shard with every
 * shard at once. Nothing is dialed by the constructor: a server that is down is found by the first
 * command to it. Replies of {@link #command} are those of {@link Client#command}; {@code read},
 * {@code write}, {@code get} and {@code set} are {@link KeyCommands}'.
 *
 * <p>Asynchronous calls ({@link #commandAsync}, {@link #getAsync}, {@link #setAsync}, {@link
 * #incrAsync} ... and the multi-key {@link #mgetAsync(Object...)}, {@link #msetAsync}, {@link
 * #delAsync(Object...)}, {@link #existsAsync(Object...)}) are {@link Client}'s, on {@code
 * cr_sharded_client_submit} and {@code cr_sharded_client_submit_mget} ...: a {@link
 * java.util.concurrent.CompletableFuture} at once, no thread per call (the first attempt goes out
 * on the server's shared connections), completed on {@link ShardedOptions#asyncExecutor} (by
 * default a small shared pool of daemon threads, never the library's engine thread) with the
 * routing, retries, replies and exceptions of the blocking calls. {@link Access#AUTO} and bad
 * arguments are refused at once, with the blocking call's exception; a pipeline runs blocking only
 * (its {@link Pipeline#executeAsync()} is refused). Closing the client with calls in flight
 * completes each of their futures once, exceptionally with {@link
 * CloudRouteException.ConnectionException} whose message starts with "cancelled:".
 *
 * <p>Safe for any number of threads ({@link #setServers} included); close it when done.
 */
public final class ShardedClient extends AsyncKeyClient implements KeyCommands {
  private final ShardGroups groups;

  /** A client with the library's defaults, no locality config. */
  public ShardedClient(List<?> servers, Ring ring) {
    this(servers, ring, null, new ShardedOptions());
  }

  /**
   * A client for servers on ring (built, with servers.size() shards; the client keeps its own
   * reference). config (may be null) gives locality, weights and breaker settings; it is copied.
   *
   * @throws CloudRouteException.InvalidArgumentException for a ring of another shard count, a
   *     server entry that is not "host:port[,host:port...]", duplicate shard names
   */
  public ShardedClient(List<?> servers, Ring ring, Config config, ShardedOptions options) {
    super(
        create(servers, ring, config, options),
        KIND_SHARDED,
        AsyncCall.KIND_SHARDED,
        options.asyncExecutor);
    long p = acquire();
    try {
      groups = new ShardGroups(groups0(p), this);
    } finally {
      release();
    }
  }

  private static long create(List<?> servers, Ring ring, Config config, ShardedOptions options) {
    if (ring == null) throw Client.invalid("ring is null");
    if (options == null) throw Client.invalid("options is null");
    String[] addresses = addresses(servers);
    if (config == null) {
      try (Config defaults = new Config()) {
        return create(servers, ring, defaults, options);
      }
    }
    int logLevel = NativeLog.minLevel();
    long r = ring.acquire();
    try {
      return Config.copyInto(
          config,
          c -> create(c, options.u32, options.u64, options.strings, r, addresses, logLevel));
    } finally {
      ring.release();
    }
  }

  /** Each entry as the C library takes it: "host:port[,host:port...]". */
  private static String[] addresses(List<?> servers) {
    if (servers == null) throw Client.invalid("servers is null");
    String[] out = new String[servers.size()];
    for (int i = 0; i < out.length; i++) {
      Object entry = servers.get(i);
      if (entry instanceof String) {
        out[i] = (String) entry;
      } else if (entry instanceof Collection && !((Collection<?>) entry).isEmpty()) {
        List<String> parts = new ArrayList<>();
        for (Object a : (Collection<?>) entry) {
          if (!(a instanceof String)) throw badServer(i, entry);
          parts.add((String) a);
        }
        out[i] = String.join(",", parts);
      } else {
        throw badServer(i, entry);
      }
    }
    return out;
  }

  private static CloudRouteException badServer(int i, Object entry) {
    return Client.invalid(
        "servers["
            + i
            + "] must be \"host:port\" or a non-empty list of them (master first), not "
            + entry);
  }

  /**
   * New addresses for every shard (same count, same shapes as the constructor's). The ring is
   * unchanged, so no key changes shard: the way to move a shard to another server (replicate it
   * there, promote the copy, then point the client at it). Commands started afterwards use the new
   * servers; commands in flight finish where they are.
   */
  public void setServers(List<?> servers) {
    String[] addresses = addresses(servers);
    long p = acquire();
    try {
      setServers0(p, addresses);
    } finally {
      release();
    }
  }

  // ---- one key ------------------------------------------------------------------------------

  /** Any command on one key, placed by args[keyIndex] (1 for most commands: GET key ...). */
  @Override
  public Object command(Access access, int keyIndex, Object... args) {
    return command(null, access, keyIndex, args);
  }

  /** Any command on one key with call options (null: none; a timeout of its own). */
  public Object command(CallOptions options, Access access, int keyIndex, Object... args) {
    if (access == null) throw Client.invalid("access is null");
    long p = acquire();
    try {
      return command0(p, Client.timeout(options), access.ordinal(), keyIndex, args);
    } finally {
      release();
    }
  }

  /** EXPIRE key seconds: true when the timeout was set, false when the key does not exist. */
  public boolean expire(Object key, long seconds) {
    return ((Long) command(Access.WRITE, 1, "EXPIRE", key, Long.toString(seconds))) == 1L;
  }

  // ---- many keys: one command per shard, every shard at once ---------------------------------

  /** MGET of keys on any shards; values in key order, null where a key does not exist. */
  @SuppressWarnings("unchecked")
  public List<byte[]> mget(Object... keys) {
    List<Object> values = (List<Object>) multi(0, keys, null);
    List<byte[]> out = new ArrayList<>(values.size());
    for (Object v : values) out.add((byte[]) v);
    return out;
  }

  /** MSET of key/value pairs on any shards (not atomic across shards). */
  public void mset(Map<?, ?> pairs) {
    Pairs p = new Pairs(pairs);
    multi(2, p.keys, p.values);
  }

  /** DEL of keys on any shards; returns how many existed. */
  public long del(Object... keys) {
    return (Long) multi(1, keys, null);
  }

  /** How many of keys exist (a key named twice counts twice). */
  public long exists(Object... keys) {
    return (Long) multi(3, keys, null);
  }

  private Object multi(int op, Object[] keys, Object[] values) {
    long p = acquire();
    try {
      return multi0(p, op, keys, values);
    } finally {
      release();
    }
  }

  // ---- pipelines and scripts ----------------------------------------------------------------

  /**
   * A {@link Pipeline} on this client: any commands on any shards, sent by {@code execute()} as one
   * batch per shard with every shard at once, replies in queue order, errors in place.
   */
  public Pipeline pipeline() {
    return new Pipeline(this, 1);
  }

  /** EVALSHA of script on its keys' shard (NOSCRIPT recovered); keys on two shards are refused. */
  public Object eval(Script script, List<?> keys, List<?> args) {
    return eval(null, script, false, keys, args);
  }

  /** EVALSHA_RO: as eval, and a replica may serve it. */
  public Object evalReadOnly(Script script, List<?> keys, List<?> args) {
    return eval(null, script, true, keys, args);
  }

  /**
   * EVALSHA (EVALSHA_RO when readOnly) with call options (null: none), on the shard of the keys
   * (keys on different shards: InvalidArgumentException before anything is sent; no keys: any
   * shard).
   */
  public Object eval(
      CallOptions options, Script script, boolean readOnly, List<?> keys, List<?> args) {
    if (script == null) throw Client.invalid("script is null");
    Object[] k = Client.array(keys, "keys");
    Object[] a = Client.array(args, "args");
    long s = script.acquire();
    try {
      long p = acquire();
      try {
        return eval0(p, Client.timeout(options), s, readOnly, k, a);
      } finally {
        release();
      }
    } finally {
      script.release();
    }
  }

  // ---- every shard --------------------------------------------------------------------------

  /**
   * Every key of every shard matching pattern (null: every key), decoded as UTF-8, shards in ring
   * order. Each {@code iterator()} is a new {@link Scan} (closed once exhausted; close it when
   * leaving a loop early).
   */
  public Iterable<String> scan(String match) {
    ScanOptions o = new ScanOptions().match(match);
    return () -> Scan.open(this, 1, o, b -> new String(b, StandardCharsets.UTF_8));
  }

  /** A SCAN of every shard with MATCH, COUNT, TYPE and a timeout (close it, or exhaust it). */
  public Scan<byte[]> scan(ScanOptions options) {
    return Scan.open(this, 1, options, b -> b);
  }

  /** A keyless command (PING, INFO, DBSIZE ...) on the instance "host:port": its reply. */
  public Object onNode(String node, Object... args) {
    return onNode(null, node, args);
  }

  public Object onNode(CallOptions options, String node, Object... args) {
    if (node == null) throw Client.invalid("node is null");
    return Client.firstOrThrow(Client.nodes(this, 1, options, 0, node, args));
  }

  /**
   * A keyless command on every shard's master at once: {@code "host:port" -> reply} in ring order,
   * a server that failed holding its {@link CloudRouteException} in place.
   */
  public Map<String, Object> onMasters(Object... args) {
    return onMasters(null, args);
  }

  public Map<String, Object> onMasters(CallOptions options, Object... args) {
    return Client.nodes(this, 1, options, 1, null, args);
  }

  /** As onMasters, on every instance (each master followed by its replicas). */
  public Map<String, Object> onAllNodes(Object... args) {
    return onAllNodes(null, args);
  }

  public Map<String, Object> onAllNodes(CallOptions options, Object... args) {
    return Client.nodes(this, 1, options, 2, null, args);
  }

  // ---- statistics ---------------------------------------------------------------------------

  /** Counters since the client was created (moved, ask and refreshes stay 0 on a ring). */
  public ClientStats stats() {
    return Client.stats(this, 1);
  }

  /** The statistics as Prometheus text (the cluster client's metric names). */
  public String metricsText() {
    return Client.metricsText(this, 1);
  }

  /** Per-instance statistics of every server the client has talked to. */
  public List<NodeStats> nodeStats() {
    return Client.nodeStats(this, 1);
  }

  // ---- placement ----------------------------------------------------------------------------

  /**
   * The client's table (one group per ring shard, named as the shard): routes and read order, for
   * inspection. Valid until the client is closed.
   */
  public ShardGroups groups() {
    return groups;
  }

  /** The ring shard of key (String or byte[]). */
  public int locate(Object key) {
    return groups.locate(key);
  }

  @Override
  public String toString() {
    return isClosed() ? "ShardedClient(closed)" : "ShardedClient(" + groups.count() + " shards)";
  }

  private static native long create(
      long config,
      int[] u32,
      long[] u64,
      String[] strings,
      long ring,
      String[] servers,
      int logLevel);

  private static native void setServers0(long h, String[] servers);

  private static native Object command0(
      long h, int timeoutMs, int access, int keyIndex, Object[] args);

  private static native Object multi0(long h, int op, Object[] keys, Object[] values);

  private static native Object eval0(
      long h, int timeoutMs, long script, boolean readOnly, Object[] keys, Object[] args);

  private static native long groups0(long h);
}
