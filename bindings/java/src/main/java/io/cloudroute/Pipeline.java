package io.cloudroute;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * Commands queued for one {@link Client} and run together by {@link #execute()} — any mix, in any
 * slots:
 *
 * <pre>{@code
 * Pipeline p = client.pipeline();
 * p.set("user:1", "alice").get("user:1").hgetAll("profile:1").zrange("scores", 0, 9);
 * List<Object> replies = p.execute(); // [true, "alice", {...}, [...]]
 * }</pre>
 *
 * <p>{@code execute()} runs in the C library ({@code cr_pipeline_*}): each command is routed by its
 * key and its access (a read may be served by a replica, local ones first; a write goes to the
 * master), the commands are grouped per node, every node's group is written on one connection and
 * all nodes are in flight at once. A MOVED or ASK is followed for the commands it concerns only, a
 * read whose node fails goes to its next candidate, and a write that may have reached its node is
 * never re-sent. A read of a slot that an earlier command of the same pipeline writes goes to that
 * slot's master, after the write: {@code p.set(k, v).get(k)} reads {@code v}. The commands are not
 * a transaction (see {@link Client#transaction}).
 *
 * <p>Results come back in queue order, one per call: the typed calls convert theirs as {@link
 * Client}'s do ({@code get} a String, {@code hgetAll} a Map ...), {@link #command} gives the raw
 * reply. A command that failed has its exception in its place — not thrown — mapped as every error
 * of this binding ({@link CloudRouteException#of}): a {@link
 * CloudRouteException.ServerErrorException} for an error reply (its message the server's text), a
 * {@link CloudRouteException.ConnectionException} for a node that failed. The multi-key calls
 * ({@link #mget}, {@link #del}, {@link #exists}) queue one command per key (the keys may be in any
 * slots) and give one result (the first failure, if any).
 *
 * <p>Not thread-safe: one pipeline per thread (the client itself is shared). The queue lives in
 * Java until execute() or executeAsync() (a {@link java.util.concurrent.CompletableFuture} of the
 * same results), which empty it; a pipeline holds no native resource.
 */
public final class Pipeline {
  // A Client (kind 0) or a ShardedClient (kind 1: commands placed by their key's shard).
  private final NativeResource client;
  private final int kind;
  // One entry per queued command.
  private final List<Object[]> args = new ArrayList<>();
  private final IntList access = new IntList();
  private final IntList keyIndex = new IntList(); // -1: sent to the node in hosts/ports
  private final List<String> hosts = new ArrayList<>();
  private final IntList ports = new IntList();
  // One entry per queued call: how many commands it queued, and how their replies make its
  // result.
  private final IntList counts = new IntList();
  private final List<Function<List<Object>, Object>> combines = new ArrayList<>();

  Pipeline(Client client) {
    this(client, 0);
  }

  Pipeline(NativeResource client, int kind) {
    this.client = client;
    this.kind = kind;
  }

  /** Queued calls (a multi-key call counts once). */
  public int size() {
    return counts.size;
  }

  /** Empties the queue without sending it. */
  public void clear() {
    args.clear();
    access.size = 0;
    keyIndex.size = 0;
    hosts.clear();
    ports.size = 0;
    counts.size = 0;
    combines.clear();
  }

  private void add(Access a, int key, String host, int port, Object[] argv) {
    if (a == null) throw invalid("access is null");
    if (argv == null || argv.length == 0) throw invalid("a command needs at least its name");
    for (Object o : argv) {
      if (!(o instanceof String || o instanceof byte[])) {
        throw invalid(
            o == null
                ? "a key or argument is null"
                : "a key or argument must be a String or a byte[]");
      }
    }
    if (host == null && (key < 0 || key >= argv.length)) {
      throw invalid(
          argv[0] + " has no key at index " + key + ": a keyless command needs onNode(...)");
    }
    args.add(argv.clone());
    access.add(a.ordinal());
    keyIndex.add(host == null ? key : -1);
    hosts.add(host);
    ports.add(port);
  }

  private Pipeline call(int count, Function<List<Object>, Object> combine) {
    counts.add(count);
    combines.add(combine);
    return this;
  }

  private static CloudRouteException invalid(String message) {
    return new CloudRouteException.InvalidArgumentException(CloudRouteException.EINVAL, message);
  }

  private Pipeline queue(Command<?> c) {
    add(c.access, c.keyIndex, null, 0, c.args);
    return call(1, replies -> c.convert(replies.get(0)));
  }

  /** One command per key, their results combined into one. */
  private <T> Pipeline each(
      String[] keys, Function<String, Command<T>> command, Function<List<T>, Object> combine) {
    if (keys == null || keys.length == 0) throw invalid("a multi-key command needs a key");
    List<Command<T>> cs = new ArrayList<>(keys.length);
    for (String k : keys) cs.add(command.apply(k));
    for (Command<T> c : cs) add(c.access, c.keyIndex, null, 0, c.args);
    return call(
        keys.length,
        replies -> {
          List<T> values = new ArrayList<>(replies.size());
          for (int i = 0; i < replies.size(); i++) values.add(cs.get(i).convert(replies.get(i)));
          return combine.apply(values);
        });
  }

  // ---- any command --------------------------------------------------------------------------

  /** Any command routed by args[keyIndex] (1 for most commands); its raw reply. */
  public Pipeline command(Access access, int keyIndex, Object... args) {
    add(access, keyIndex, null, 0, args);
    return call(1, replies -> replies.get(0));
  }

  /** A read whose key is its first argument: {@code read("HGET", "h", "f")}. */
  public Pipeline read(Object... args) {
    return command(Access.READ, 1, args);
  }

  /** A write whose key is its first argument: {@code write("HSET", "h", "f", "v")}. */
  public Pipeline write(Object... args) {
    return command(Access.WRITE, 1, args);
  }

  /** Any keyed command, classed and placed as the server's command table says (Access.AUTO). */
  public Pipeline exec(Object... args) {
    return command(Access.AUTO, 0, args);
  }

  /**
   * A command for the node "host:port" only ({@code [v6]:port} for IPv6) — a keyless command (PING,
   * INFO, DBSIZE ...) or a key placed by the caller. Sent once: a redirect, an error or a failure
   * is its result.
   */
  public Pipeline onNode(Access access, String node, Object... args) {
    if (node == null) throw invalid("node is null");
    int colon = node.lastIndexOf(':');
    int port;
    try {
      port = colon < 0 ? -1 : Integer.parseInt(node.substring(colon + 1));
    } catch (NumberFormatException e) {
      port = -1;
    }
    if (port < 1 || port > 65535) throw invalid("node '" + node + "' is not host:port");
    String host = node.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
    add(access, 0, host, port, args);
    return call(1, replies -> replies.get(0));
  }

  // ---- strings ----------------------------------------------------------------------------

  public Pipeline get(String key) {
    return queue(Command.get(key));
  }

  /** SET key value; its result is true. */
  public Pipeline set(String key, String value) {
    return queue(Command.set(key, value, 0));
  }

  /** SET key value PX ttlMs (0: no expiry); its result is true. */
  public Pipeline set(String key, String value, long ttlMs) {
    return queue(Command.set(key, value, ttlMs));
  }

  /** SET key value NX: true when set, false when the key existed. */
  public Pipeline setNx(String key, String value) {
    return queue(Command.setNx(key, value));
  }

  public Pipeline incr(String key) {
    return queue(Command.incrBy(key, 1));
  }

  public Pipeline incrBy(String key, long by) {
    return queue(Command.incrBy(key, by));
  }

  public Pipeline decr(String key) {
    return queue(Command.incrBy(key, -1));
  }

  /** Values of keys in any slots, as one List (one GET per key). */
  public Pipeline mget(String... keys) {
    return each(keys, Command::get, values -> values);
  }

  /** Keys in any slots set (one SET per key; not atomic); its result is true. */
  public Pipeline mset(Map<String, String> pairs) {
    if (pairs == null || pairs.isEmpty()) throw invalid("MSET needs a pair");
    for (Map.Entry<String, String> e : pairs.entrySet()) {
      Command<Boolean> c = Command.set(e.getKey(), e.getValue(), 0);
      add(c.access, c.keyIndex, null, 0, c.args);
    }
    return call(pairs.size(), replies -> Boolean.TRUE);
  }

  // ---- keys -------------------------------------------------------------------------------

  /** How many of keys existed (one DEL per key). */
  public Pipeline del(String... keys) {
    return each(keys, Command::del, Pipeline::sum);
  }

  /** How many of keys exist (one EXISTS per key). */
  public Pipeline exists(String... keys) {
    return each(keys, Command::exists, Pipeline::sum);
  }

  public Pipeline expire(String key, long seconds) {
    return queue(Command.expire(key, seconds));
  }

  public Pipeline pexpire(String key, long ms) {
    return queue(Command.pexpire(key, ms));
  }

  public Pipeline ttl(String key) {
    return queue(Command.ttl(key));
  }

  public Pipeline pttl(String key) {
    return queue(Command.pttl(key));
  }

  private static Long sum(List<Long> values) {
    long n = 0;
    for (Long v : values) n += v;
    return n;
  }

  // ---- hashes -----------------------------------------------------------------------------

  public Pipeline hget(String key, String field) {
    return queue(Command.hget(key, field));
  }

  public Pipeline hset(String key, String field, String value) {
    return queue(Command.hset(key, Collections.singletonMap(field, value)));
  }

  public Pipeline hset(String key, Map<String, String> fields) {
    return queue(Command.hset(key, fields));
  }

  public Pipeline hdel(String key, String... fields) {
    return queue(Command.hdel(key, fields));
  }

  public Pipeline hgetAll(String key) {
    return queue(Command.hgetAll(key));
  }

  public Pipeline hincrBy(String key, String field, long by) {
    return queue(Command.hincrBy(key, field, by));
  }

  // ---- lists, sets, sorted sets -------------------------------------------------------------

  public Pipeline lpush(String key, String... values) {
    return queue(Command.push("LPUSH", key, values));
  }

  public Pipeline rpush(String key, String... values) {
    return queue(Command.push("RPUSH", key, values));
  }

  public Pipeline lpop(String key) {
    return queue(Command.pop("LPOP", key));
  }

  public Pipeline rpop(String key) {
    return queue(Command.pop("RPOP", key));
  }

  public Pipeline lrange(String key, long start, long stop) {
    return queue(Command.lrange(key, start, stop));
  }

  public Pipeline sadd(String key, String... members) {
    return queue(Command.sadd(key, members));
  }

  /** SMEMBERS: a {@code Set<String>}. */
  public Pipeline smembers(String key) {
    return queue(Command.smembers(key));
  }

  public Pipeline zadd(String key, double score, String member) {
    return queue(Command.zadd(key, Collections.singletonMap(member, score)));
  }

  public Pipeline zadd(String key, Map<String, Double> scores) {
    return queue(Command.zadd(key, scores));
  }

  public Pipeline zrange(String key, long start, long stop) {
    return queue(Command.zrange(key, start, stop));
  }

  /** ZRANGE ... WITHSCORES: members in order with their scores (a LinkedHashMap). */
  public Pipeline zrangeWithScores(String key, long start, long stop) {
    return queue(Command.zrangeWithScores(key, start, stop));
  }

  /** ZSCORE: a Double, null when the member is missing. */
  public Pipeline zscore(String key, String member) {
    return queue(Command.zscore(key, member));
  }

  // ---- running ----------------------------------------------------------------------------

  /**
   * Runs every queued command at once and empties the queue: one result per queued call, in order,
   * a failed command's {@link CloudRouteException} in its place. An empty pipeline gives an empty
   * list without a network call. Throws only when nothing could run (the client is closed, or no
   * memory).
   */
  public List<Object> execute() {
    if (args.isEmpty()) return new ArrayList<>();
    Queued q = new Queued();
    clear();
    int[] statuses = new int[q.argv.length];
    Object[] replies;
    long p = client.acquire();
    try {
      replies = execute0(kind, p, q.access, q.keys, q.hosts, q.ports, q.argv, statuses);
    } finally {
      client.release();
    }
    return q.results(replies, statuses);
  }

  /**
   * {@link #execute()} without waiting ({@code cr_pipeline_submit}): the future gets the same list
   * — one result per queued call, in order, a failed command's exception in its place — completed
   * on the client's executor as {@link Client}'s other asynchronous calls, never on the engine
   * thread. Each node's share is one request on the client's shared connections; redirects, retries
   * and failovers run as for execute(). The queue is emptied when the submit is accepted, so the
   * pipeline may be filled and run again at once. An empty pipeline gives a completed future with
   * an empty list.
   *
   * <p>Throws at once (the queue kept, nothing sent): {@link
   * CloudRouteException.InvalidArgumentException} for a pipeline of a {@link ShardedClient}, whose
   * pipelines only run blocking; IllegalStateException when the client is closed. Closing the
   * client with the pipeline in flight fails the future with a {@link
   * CloudRouteException.ConnectionException} whose message starts with "cancelled:" (commands
   * already sent may have run).
   */
  public CompletableFuture<List<Object>> executeAsync() {
    if (args.isEmpty()) return CompletableFuture.completedFuture(new ArrayList<>());
    Queued q = new Queued();
    Executor executor =
        client instanceof AsyncKeyClient ? ((AsyncKeyClient) client).asyncExecutor() : null;
    CompletableFuture<List<Object>> future;
    long p = client.acquire();
    try {
      future =
          AsyncCall.start(
              client,
              executor,
              q::results,
              call ->
                  AsyncCall.pipeline0(kind, p, q.access, q.keys, q.hosts, q.ports, q.argv, call));
    } finally {
      client.release();
    }
    clear();
    return future;
  }

  /** The queue as the natives take it, and how its replies make the calls' results. */
  private final class Queued {
    final Object[][] argv = args.toArray(new Object[0][]);
    final int[] access = Pipeline.this.access.toArray();
    final int[] keys = keyIndex.toArray();
    final String[] hosts = Pipeline.this.hosts.toArray(new String[0]);
    final int[] ports = Pipeline.this.ports.toArray();
    final int[] callCounts = counts.toArray();
    final List<Function<List<Object>, Object>> calls = new ArrayList<>(combines);

    /**
     * An asynchronous run's reply (AsyncCall.pipeline0: {results, statuses}) as execute()'s list;
     * every command cancelled by the client's close fails the whole run instead.
     */
    List<Object> results(Object reply) {
      Object[] pair = (Object[]) reply;
      Object[] replies = (Object[]) pair[0];
      int[] statuses = (int[]) pair[1];
      boolean cancelled = true;
      for (int i = 0; i < statuses.length && cancelled; i++) {
        cancelled =
            statuses[i] == CloudRouteException.ECONN
                && replies[i] instanceof String
                && ((String) replies[i]).startsWith("cancelled:");
      }
      if (cancelled) throw CloudRouteException.of(statuses[0], (String) replies[0]);
      return results(replies, statuses);
    }

    /** One result per queued call from the commands' replies and statuses. */
    List<Object> results(Object[] replies, int[] statuses) {
      List<Object> out = new ArrayList<>(calls.size());
      int at = 0;
      for (int c = 0; c < calls.size(); c++) {
        int count = callCounts[c];
        Object failed = null;
        for (int i = at; i < at + count && failed == null; i++) {
          if (statuses[i] != 0) failed = CloudRouteException.of(statuses[i], (String) replies[i]);
        }
        out.add(
            failed != null
                ? failed
                : calls.get(c).apply(Arrays.asList(replies).subList(at, at + count)));
        at += count;
      }
      return out;
    }
  }

  @Override
  public String toString() {
    return "Pipeline(" + size() + " calls)";
  }

  /** A growable int array (the queue's per-command numbers, handed to JNI as int[]). */
  private static final class IntList {
    int[] values = new int[8];
    int size;

    void add(int v) {
      if (size == values.length) values = Arrays.copyOf(values, size * 2);
      values[size++] = v;
    }

    int[] toArray() {
      return Arrays.copyOf(values, size);
    }
  }

  /**
   * Runs argv[i] for i < n on client h (kind 0: a Client, 1: a ShardedClient; access[i];
   * keyIndex[i], or the node hosts[i]:ports[i] when it is -1): each result in place, its status in
   * statuses[i] (a failed command's place holds its message).
   */
  private static native Object[] execute0(
      int kind,
      long h,
      int[] access,
      int[] keyIndex,
      String[] hosts,
      int[] ports,
      Object[][] argv,
      int[] statuses);
}
