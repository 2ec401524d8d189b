package io.cloudroute;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

/**
 * A live Redis Cluster client: reads go to the key's read candidates in order (local ones first),
 * writes to the master; the topology is kept fresh by a background thread. Safe for any number of
 * threads. Keys and values are Strings (sent as UTF-8) or byte[]s.
 *
 * <p>Replies of {@link #command}: a bulk string is a {@code byte[]}, a status a {@code String}, an
 * integer a {@code Long}, nil {@code null}, an array (or RESP3 set, or map as key, value, ...) a
 * {@code List<Object>}, an error element a {@link ReplyError}, RESP3 double / boolean / big number
 * a {@code Double} / {@code Boolean} / {@code BigInteger}. A top-level error reply throws {@link
 * CloudRouteException.ServerErrorException} with the server's text.
 *
 * <p>Beyond {@link #command}: typed everyday commands on String keys and values (strings, expiry,
 * hashes, lists, sets, sorted sets: {@link #hgetAll} gives a {@code Map<String, String>}, {@link
 * #zscore} a {@code Double} ...), {@link #pipeline()} (any commands in any slots at once), {@link
 * #scan} (every key of the cluster), {@link #eval} / {@link #fcall} (scripts and functions routed
 * by their keys, NOSCRIPT recovered), {@link #transaction} (MULTI / EXEC / WATCH on a connection
 * pinned to one slot's master) and node commands ({@link #onNode}, {@link #onMasters}, {@link
 * #onAllNodes}). Per-call timeouts: {@link CallOptions}. Publish / subscribe: {@link #subscribe()}
 * (a {@link Subscription}, read with {@link Subscription#next}), {@link
 * #subscribe(Subscription.Listener)} (a listener called on the subscription's thread), {@link
 * #publish}, {@link #spublish}. Closing the client closes its open scans, transactions and
 * subscriptions.
 *
 * <p>Asynchronous calls ({@link #commandAsync}, {@link #getAsync}, {@link #setAsync}, typed ones
 * such as {@link #incrAsync}, the multi-key {@link #mgetAsync(Object...)}, {@link #msetAsync},
 * {@link #delAsync(Object...)}, {@link #existsAsync(Object...)} and {@link
 * Pipeline#executeAsync()}) return a {@link CompletableFuture} at once, with no thread per call:
 * the library sends the command on the engine thread's shared connections and completes it there
 * (or on one of its few worker threads for a retry, a redirect or a blocking command). The future
 * itself is completed on an {@link Executor} ({@link ClientOptions#asyncExecutor}; by default a
 * small shared pool of daemon threads {@code cloudroute-async-N}), never on the engine thread, so
 * the stages that depend on it may block. Replies, typed conversions, routing, retries and
 * exception classes are the blocking calls'; the future fails with the exception the blocking call
 * would throw. Bad arguments (null access or argument, a key index outside the arguments, a
 * negative timeout, a command AUTO cannot place) and a closed client throw at once, before anything
 * is sent. Cancelling a future drops its reply when it comes (the connection stays in step; a write
 * may still be applied). Closing the client with calls in flight completes each of their futures
 * once, exceptionally with {@link CloudRouteException.ConnectionException} whose message starts
 * with "cancelled:" (a write already sent may have run).
 */
public final class Client extends AsyncKeyClient implements KeyCommands {
  private final Router router;

  /** Open subscriptions: closed (their waiters woken) before the client is freed. */
  private final Set<Subscription> subscriptions = ConcurrentHashMap.newKeySet();

  private Client(long ptr, Executor asyncExecutor) {
    super(ptr, KIND_CLIENT, AsyncCall.KIND_CLUSTER, asyncExecutor);
    long r = acquire();
    try {
      router = new Router(router0(r), this);
    } finally {
      release();
    }
  }

  /** Connects to the cluster through seeds ("host:port[,host:port...]") with defaults. */
  public static Client connect(String seeds, Config config) {
    return connect(seeds, config, new ClientOptions());
  }

  /**
   * Connects to the cluster through seeds; config (may be null) is copied into the client's router.
   * Returns once the topology was read from a seed.
   *
   * <p>The client's log events go to the SLF4J logger {@code io.cloudroute} at the levels it has
   * enabled now; with a config, clients made from it later share that routing (the config remembers
   * it).
   */
  public static Client connect(String seeds, Config config, ClientOptions options) {
    if (config == null) {
      try (Config defaults = new Config()) {
        return connect(seeds, defaults, options);
      }
    }
    int logLevel = NativeLog.minLevel();
    return new Client(
        Config.copyInto(
            config, c -> create(c, seeds, options.u32, options.u64, options.strings, logLevel)),
        options.asyncExecutor);
  }

  /** Any command on one key, routed by args[keyIndex] (1 for most commands: GET key ...). */
  public Object command(Access access, int keyIndex, Object... args) {
    if (access == null) throw invalid("access is null");
    long p = acquire();
    try {
      return command0(0, p, access.ordinal(), keyIndex, args);
    } finally {
      release();
    }
  }

  /**
   * Any command on one key with call options (a timeout of its own: {@code command(new
   * CallOptions().timeoutMs(5000), Access.WRITE, 1, "BLPOP", "q", "4")}).
   */
  public Object command(CallOptions options, Access access, int keyIndex, Object... args) {
    if (access == null) throw invalid("access is null");
    long p = acquire();
    try {
      return commandOpts0(p, timeout(options), access.ordinal(), keyIndex, args);
    } finally {
      release();
    }
  }

  /** A read command whose key is its first argument: {@code read("HGET", "h", "f")}. */
  public Object read(Object... args) {
    return command(Access.READ, 1, args);
  }

  /** A write command whose key is its first argument: {@code write("HSET", "h", "f", "v")}. */
  public Object write(Object... args) {
    return command(Access.WRITE, 1, args);
  }

  /**
   * Any keyed command, classed and placed as the server's command table says ({@link Access#AUTO}):
   * {@code exec("HTTL", "h", "FIELDS", "1", "f")} is a read where the server flags it readonly.
   */
  public Object exec(Object... args) {
    return command(Access.AUTO, 0, args);
  }

  /** GET; null when the key does not exist. */
  public byte[] get(byte[] key) {
    return (byte[]) get0(key);
  }

  /** GET of a String key, the value decoded as UTF-8; null when the key does not exist. */
  public String get(String key) {
    byte[] v = (byte[]) get0(key);
    return v == null ? null : new String(v, StandardCharsets.UTF_8);
  }

  private Object get0(Object key) {
    long p = acquire();
    try {
      return get0(p, key);
    } finally {
      release();
    }
  }

  /** SET key value (key and value: String or byte[]). */
  public void set(Object key, Object value) {
    set(key, value, 0);
  }

  /** SET key value PX ttlMs (ttlMs 0: no expiry). */
  public void set(Object key, Object value, long ttlMs) {
    long p = acquire();
    try {
      set0(p, key, value, ttlMs);
    } finally {
      release();
    }
  }

  /** MGET of keys in any slots (split by slot, pipelined); values in key order, null if none. */
  @SuppressWarnings("unchecked")
  public List<byte[]> mget(Object... keys) {
    long p = acquire();
    try {
      List<Object> values = (List<Object>) multi0(p, 0, keys, null);
      List<byte[]> out = new ArrayList<>(values.size());
      for (Object v : values) out.add((byte[]) v);
      return out;
    } finally {
      release();
    }
  }

  /** MSET of key/value pairs in any slots (not atomic across slots). */
  public void mset(Map<?, ?> pairs) {
    Pairs kv = new Pairs(pairs);
    long p = acquire();
    try {
      multi0(p, 2, kv.keys, kv.values);
    } finally {
      release();
    }
  }

  /** DEL of keys in any slots; returns how many existed. */
  public long del(Object... keys) {
    long p = acquire();
    try {
      return (Long) multi0(p, 1, keys, null);
    } finally {
      release();
    }
  }

  // ---- typed commands (String keys and values, UTF-8; see Command) --------------------------

  private <T> T run(Command<T> c) {
    return c.convert(command(c.access, c.keyIndex, c.args));
  }

  /** SET key value NX: true when set, false when the key existed. */
  public boolean setNx(String key, String value) {
    return run(Command.setNx(key, value));
  }

  /** SET key value GET: the old value (null for none). */
  public String getSet(String key, String value) {
    return run(Command.getSet(key, value));
  }

  public long incr(String key) {
    return run(Command.incrBy(key, 1));
  }

  public long incrBy(String key, long by) {
    return run(Command.incrBy(key, by));
  }

  public long decr(String key) {
    return run(Command.incrBy(key, -1));
  }

  public long decrBy(String key, long by) {
    return run(Command.incrBy(key, -by));
  }

  public long append(String key, String value) {
    return run(Command.append(key, value));
  }

  public long strlen(String key) {
    return run(Command.strlen(key));
  }

  /** How many of keys exist (one EXISTS per key: they may be in any slots). */
  public long exists(String... keys) {
    if (keys == null || keys.length == 0) {
      throw new CloudRouteException.InvalidArgumentException(
          CloudRouteException.EINVAL, "EXISTS needs a key");
    }
    long n = 0;
    for (String k : keys) n += run(Command.exists(k));
    return n;
  }

  /** EXPIRE key seconds: true when the timeout was set. */
  public boolean expire(String key, long seconds) {
    return run(Command.expire(key, seconds));
  }

  public boolean pexpire(String key, long ms) {
    return run(Command.pexpire(key, ms));
  }

  public boolean persist(String key) {
    return run(Command.persist(key));
  }

  /** TTL: seconds left, -1 without a timeout, -2 when the key is missing. */
  public long ttl(String key) {
    return run(Command.ttl(key));
  }

  public long pttl(String key) {
    return run(Command.pttl(key));
  }

  /** TYPE: "string", "hash" ..., "none" when missing. */
  public String type(String key) {
    return run(Command.type(key));
  }

  public String hget(String key, String field) {
    return run(Command.hget(key, field));
  }

  /** HSET key field value: fields added. */
  public long hset(String key, String field, String value) {
    return run(Command.hset(key, Collections.singletonMap(field, value)));
  }

  /** HSET of every pair: fields added. */
  public long hset(String key, Map<String, String> fields) {
    return run(Command.hset(key, fields));
  }

  public long hdel(String key, String... fields) {
    return run(Command.hdel(key, fields));
  }

  /** HGETALL as an ordered map (empty when the key is missing). */
  public Map<String, String> hgetAll(String key) {
    return run(Command.hgetAll(key));
  }

  public long hincrBy(String key, String field, long by) {
    return run(Command.hincrBy(key, field, by));
  }

  public boolean hexists(String key, String field) {
    return run(Command.hexists(key, field));
  }

  public long hlen(String key) {
    return run(Command.hlen(key));
  }

  /** LPUSH: the list's length. */
  public long lpush(String key, String... values) {
    return run(Command.push("LPUSH", key, values));
  }

  /** RPUSH: the list's length. */
  public long rpush(String key, String... values) {
    return run(Command.push("RPUSH", key, values));
  }

  public String lpop(String key) {
    return run(Command.pop("LPOP", key));
  }

  public String rpop(String key) {
    return run(Command.pop("RPOP", key));
  }

  public List<String> lrange(String key, long start, long stop) {
    return run(Command.lrange(key, start, stop));
  }

  public long llen(String key) {
    return run(Command.llen(key));
  }

  public String lindex(String key, long index) {
    return run(Command.lindex(key, index));
  }

  /**
   * BLPOP key timeoutS: the value popped, or null when none came within timeoutS seconds (0: wait
   * forever, which needs {@link #command(CallOptions, Access, int, Object...)} with a call timeout
   * longer than the wait, as any wait beyond the tier timeout does). The wait is not a node
   * failure.
   */
  public String blpop(String key, double timeoutS) {
    return run(Command.blpop(key, timeoutS));
  }

  /** BLPOP key timeoutS within a call timeout of its own. */
  public String blpop(CallOptions options, String key, double timeoutS) {
    Command<String> c = Command.blpop(key, timeoutS);
    return c.convert(command(options, c.access, c.keyIndex, c.args));
  }

  public long sadd(String key, String... members) {
    return run(Command.sadd(key, members));
  }

  public long srem(String key, String... members) {
    return run(Command.srem(key, members));
  }

  public Set<String> smembers(String key) {
    return run(Command.smembers(key));
  }

  public boolean sismember(String key, String member) {
    return run(Command.sismember(key, member));
  }

  public long scard(String key) {
    return run(Command.scard(key));
  }

  /** ZADD key score member: members added. */
  public long zadd(String key, double score, String member) {
    return run(Command.zadd(key, Collections.singletonMap(member, score)));
  }

  /** ZADD of member -> score pairs: members added. */
  public long zadd(String key, Map<String, Double> scores) {
    return run(Command.zadd(key, scores));
  }

  /** ZINCRBY: the member's new score. */
  public double zincrBy(String key, double by, String member) {
    return run(Command.zincrBy(key, by, member));
  }

  /** ZSCORE: null when the member is missing. */
  public Double zscore(String key, String member) {
    return run(Command.zscore(key, member));
  }

  public List<String> zrange(String key, long start, long stop) {
    return run(Command.zrange(key, start, stop));
  }

  /** ZRANGE ... WITHSCORES: members in order with their scores. */
  public Map<String, Double> zrangeWithScores(String key, long start, long stop) {
    return run(Command.zrangeWithScores(key, start, stop));
  }

  public long zrem(String key, String... members) {
    return run(Command.zrem(key, members));
  }

  public long zcard(String key) {
    return run(Command.zcard(key));
  }

  /** ZRANK: the member's rank from 0, null when it is missing. */
  public Long zrank(String key, String member) {
    return run(Command.zrank(key, member));
  }

  // ---- pipelines, SCAN, scripts, transactions, node commands ------------------------------

  /** A new {@link Pipeline} on this client: commands in any slots, run at once by execute(). */
  public Pipeline pipeline() {
    return new Pipeline(this);
  }

  /**
   * Every key of the cluster matching pattern (null: every key), decoded as UTF-8: each shard
   * scanned once, on the node a read would use. Each {@code iterator()} is a new {@link Scan}
   * (closed once exhausted; close it when leaving a loop early).
   */
  public Iterable<String> scan(String match) {
    ScanOptions o = new ScanOptions().match(match);
    return () -> Scan.open(this, 0, o, b -> new String(b, StandardCharsets.UTF_8));
  }

  /** A SCAN with MATCH, COUNT, TYPE and a timeout ({@link Scan}: close it, or exhaust it). */
  public Scan<byte[]> scan(ScanOptions options) {
    return Scan.open(this, 0, options, b -> b);
  }

  /** EVALSHA of script with keys (all in one slot) and args, NOSCRIPT recovered (see Script). */
  public Object eval(Script script, List<?> keys, List<?> args) {
    return eval(null, script, false, keys, args);
  }

  /** EVALSHA_RO: as eval, and a replica may serve it. */
  public Object evalReadOnly(Script script, List<?> keys, List<?> args) {
    return eval(null, script, true, keys, args);
  }

  /**
   * EVALSHA (EVALSHA_RO when readOnly) with call options (null: none): routed by the keys, which
   * must all hash to one slot (else CROSSSLOT before anything is sent); with no keys, any shard.
   */
  public Object eval(
      CallOptions options, Script script, boolean readOnly, List<?> keys, List<?> args) {
    if (script == null) throw invalid("script is null");
    long s = script.acquire();
    try {
      long p = acquire();
      try {
        return eval0(p, timeout(options), s, readOnly, array(keys, "keys"), array(args, "args"));
      } finally {
        release();
      }
    } finally {
      script.release();
    }
  }

  /** SCRIPT LOAD of body on every master: its SHA1. */
  public String scriptLoad(String body) {
    Object sha = firstOrThrow(onMasters("SCRIPT", "LOAD", body));
    return Command.text(sha);
  }

  /** FCALL function with keys (one slot) and args; the function must be loaded on the masters. */
  public Object fcall(String function, List<?> keys, List<?> args) {
    return fcall(null, function, false, keys, args);
  }

  /** FCALL_RO: as fcall, and a replica may serve it. */
  public Object fcallRo(String function, List<?> keys, List<?> args) {
    return fcall(null, function, true, keys, args);
  }

  /** FCALL (FCALL_RO when readOnly) with call options (null: none), routed as eval. */
  public Object fcall(
      CallOptions options, String function, boolean readOnly, List<?> keys, List<?> args) {
    long p = acquire();
    try {
      return fcall0(
          p, timeout(options), function, readOnly, array(keys, "keys"), array(args, "args"));
    } finally {
      release();
    }
  }

  /** A {@link Transaction} on a connection pinned to the master of key's slot. */
  public Transaction transaction(Object key) {
    if (key == null) throw invalid("key is null");
    return Transaction.pin(this, key, 0);
  }

  /** A {@link Transaction} on a connection pinned to the master of slot (0-16383). */
  public Transaction transactionOnSlot(int slot) {
    return Transaction.pin(this, null, slot);
  }

  /**
   * A keyless command on the node "host:port" (as the topology announces it): its reply. Nothing is
   * redirected or retried. Throws for an error reply or a node that did not answer, and {@link
   * CloudRouteException.InvalidArgumentException} (CR_ENOTFOUND) for a node the topology lacks.
   */
  public Object onNode(String node, Object... args) {
    return onNode(null, node, args);
  }

  public Object onNode(CallOptions options, String node, Object... args) {
    if (node == null) throw invalid("node is null");
    return firstOrThrow(nodes(options, 0, node, args));
  }

  /**
   * A keyless command (DBSIZE, FLUSHALL, SCRIPT LOAD, CONFIG SET ...) on every master at once:
   * {@code "host:port" -> reply} in slot order, a node that failed holding its {@link
   * CloudRouteException} in place.
   */
  public Map<String, Object> onMasters(Object... args) {
    return nodes(null, 1, null, args);
  }

  public Map<String, Object> onMasters(CallOptions options, Object... args) {
    return nodes(options, 1, null, args);
  }

  /** As onMasters, on every master and replica (each master followed by its replicas). */
  public Map<String, Object> onAllNodes(Object... args) {
    return nodes(null, 2, null, args);
  }

  public Map<String, Object> onAllNodes(CallOptions options, Object... args) {
    return nodes(options, 2, null, args);
  }

  /** DBSIZE summed over every master: the keys of the cluster. */
  public long dbSize() {
    long n = 0;
    for (Object v : onMasters("DBSIZE").values()) {
      if (v instanceof CloudRouteException) throw (CloudRouteException) v;
      n += (Long) v;
    }
    return n;
  }

  private Map<String, Object> nodes(CallOptions options, int target, String node, Object[] args) {
    return nodes(this, 0, options, target, node, args);
  }

  /**
   * A keyless command on client c's nodes (kind 0: a Client, 1: a ShardedClient; target 0: node, 1:
   * every master, 2: every node): "host:port" -> reply, a failure in place.
   */
  static Map<String, Object> nodes(
      NativeResource c, int kind, CallOptions options, int target, String node, Object[] args) {
    Object[] flat;
    long p = c.acquire();
    try {
      flat = nodes0(kind, p, timeout(options), target, node, args);
    } finally {
      c.release();
    }
    Map<String, Object> out = new LinkedHashMap<>();
    for (int i = 0; i + 2 < flat.length; i += 3) {
      int status = ((Long) flat[i + 1]).intValue();
      out.put(
          (String) flat[i],
          status == 0 ? flat[i + 2] : CloudRouteException.of(status, (String) flat[i + 2]));
    }
    return out;
  }

  static Object firstOrThrow(Map<String, Object> replies) {
    for (Object v : replies.values()) {
      if (v instanceof CloudRouteException) throw (CloudRouteException) v;
    }
    return replies.values().iterator().next();
  }

  static int timeout(CallOptions options) {
    return options == null ? 0 : options.timeoutMs;
  }

  static Object[] array(List<?> list, String what) {
    if (list == null) throw invalid(what + " is null");
    return list.toArray();
  }

  // ---- publish / subscribe ----

  /**
   * A new {@link Subscription} with no names, read with {@link Subscription#next}: {@code
   * client.subscribe().add(ChannelKind.CHANNEL, "news")}. Close it (try-with-resources).
   *
   * @return the subscription: connections and a thread of its own
   */
  public Subscription subscribe() {
    return Subscription.open(this, null);
  }

  /**
   * A new {@link Subscription} with no names whose daemon thread hands every message to {@code
   * listener.onMessage} and every event to {@code listener.onEvent}: {@code client.subscribe(m ->
   * handle(m)).add(ChannelKind.SHARD, "{eu}orders")}. Closing it stops and joins the thread.
   *
   * @param listener what receives the messages
   * @return the subscription
   */
  public Subscription subscribe(Subscription.Listener listener) {
    if (listener == null) throw invalid("listener is null");
    return Subscription.open(this, listener);
  }

  /**
   * PUBLISH channel message (String, sent as UTF-8, or byte[]), on the master of the channel's slot
   * (the cluster forwards it to every node). Not re-sent after a failure that may have reached the
   * server.
   *
   * @param channel the channel
   * @param message the payload
   * @return how many subscribers of that node got it
   */
  public long publish(Object channel, Object message) {
    return publish(false, channel, message);
  }

  /**
   * SPUBLISH shard channel message, on the master of the channel's slot (MOVED is followed).
   *
   * @param channel the shard channel
   * @param message the payload
   * @return how many subscribers in that shard got it
   */
  public long spublish(Object channel, Object message) {
    return publish(true, channel, message);
  }

  private long publish(boolean sharded, Object channel, Object message) {
    if (channel == null) throw invalid("channel is null");
    if (message == null) throw invalid("message is null");
    long p = acquire();
    try {
      return publish0(p, sharded, channel, message);
    } finally {
      release();
    }
  }

  void opened(Subscription s) {
    subscriptions.add(s);
  }

  void closed(Subscription s) {
    subscriptions.remove(s);
  }

  /**
   * Closes the client: its subscriptions first (their waiters return null, listener threads are
   * joined), then, once no call is running, its connections and threads. Idempotent.
   */
  @Override
  public void close() {
    for (Subscription s : subscriptions) s.close();
    super.close();
  }

  static CloudRouteException invalid(String message) {
    return new CloudRouteException.InvalidArgumentException(CloudRouteException.EINVAL, message);
  }

  /** Re-reads the topology now. */
  public void refresh() {
    long p = acquire();
    try {
      refresh0(0, p);
    } finally {
      release();
    }
  }

  /**
   * The client's router, for inspection (candidates, explain, snapshot) and feedback; valid until
   * the client is closed (closing it does nothing).
   */
  public Router router() {
    return router;
  }

  public ClientStats stats() {
    return stats(this, 0);
  }

  /** The counters of client c (kind 0: a Client, 1: a ShardedClient). */
  static ClientStats stats(NativeResource c, int kind) {
    long[] v = new long[ClientStats.FIELDS];
    long p = c.acquire();
    try {
      stats0(kind, p, v);
    } finally {
      c.release();
    }
    return new ClientStats(v);
  }

  /**
   * The client's statistics as Prometheus text exposition (version 0.0.4): reads by tier ({@code
   * cloudroute_reads_total{tier="other-cloud"}} over their sum is the share of reads that crossed
   * clouds), writes, fallbacks, redirects, retries, timeouts, errors, refreshes, connections, and
   * per node reads, writes, errors, up and a latency histogram.
   */
  public String metricsText() {
    return metricsText(this, 0);
  }

  static String metricsText(NativeResource c, int kind) {
    long p = c.acquire();
    try {
      return metrics0(kind, p);
    } finally {
      c.release();
    }
  }

  /** Statistics of every node the client has talked to. */
  public List<NodeStats> nodeStats() {
    return nodeStats(this, 0);
  }

  static List<NodeStats> nodeStats(NativeResource c, int kind) {
    long p = c.acquire();
    try {
      String[][] names = new String[1][];
      long[] values = nodeStats0(kind, p, names);
      return NodeStats.unpack(values, names[0]);
    } finally {
      c.release();
    }
  }

  private static native long create(
      long config, String seeds, int[] u32, long[] u64, String[] strings, int logLevel);

  static native Object command0(int kind, long h, int access, int keyIndex, Object[] args);

  private static native Object commandOpts0(
      long h, int timeoutMs, int access, int keyIndex, Object[] args);

  private static native String metrics0(int kind, long h);

  private static native Object[] nodes0(
      int kind, long h, int timeoutMs, int target, String node, Object[] args);

  private static native Object eval0(
      long h, int timeoutMs, long script, boolean readOnly, Object[] keys, Object[] args);

  private static native Object fcall0(
      long h, int timeoutMs, String function, boolean readOnly, Object[] keys, Object[] args);

  private static native Object get0(long h, Object key);

  private static native long publish0(long h, boolean sharded, Object channel, Object message);

  private static native void set0(long h, Object key, Object value, long ttlMs);

  private static native Object multi0(long h, int op, Object[] keys, Object[] values);

  static native void refresh0(int kind, long h);

  private static native long router0(long h);

  private static native void stats0(int kind, long h, long[] out);

  /** Values per node (see NodeStats); names[0] gets the hosts, copied during the call. */
  private static native long[] nodeStats0(int kind, long h, String[][] names);
}
