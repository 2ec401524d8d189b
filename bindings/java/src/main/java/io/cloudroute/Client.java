package io.cloudroute;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A live Redis Cluster client: reads go to the key's read candidates in order (local ones first),
 * writes to the master; the topology is kept fresh by a background thread. Safe for any number of
 * threads. Keys and values are Strings (sent as UTF-8) or byte[]s.
 *
 * <p>Replies of {@link #command}: a bulk string is a {@code byte[]}, a status a {@code String},
 * an integer a {@code Long}, nil {@code null}, an array (or RESP3 set, or map as key, value, ...)
 * a {@code List<Object>}, an error element a {@link ReplyError}, RESP3 double / boolean / big
 * number a {@code Double} / {@code Boolean} / {@code BigInteger}. A top-level error reply throws
 * {@link CloudRouteException.ServerErrorException} with the server's text.
 */
public final class Client extends NativeResource {
  private final Router router;

  private Client(long ptr) {
    super(ptr, KIND_CLIENT);
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
   * Connects to the cluster through seeds; config (may be null) is copied into the client's
   * router. Returns once the topology was read from a seed.
   *
   * <p>The client's log events go to the SLF4J logger {@code io.cloudroute} at the levels it has
   * enabled now; with a config, clients made from it later share that routing (the config
   * remembers it).
   */
  public static Client connect(String seeds, Config config, ClientOptions options) {
    if (config == null) {
      try (Config defaults = new Config()) {
        return connect(seeds, defaults, options);
      }
    }
    int logLevel = NativeLog.minLevel();
    return new Client(Config.copyInto(config, c -> create(c, seeds, options.u32, options.u64,
        options.strings, options.tls, options.tlsVerify, logLevel)));
  }

  /** Any command on one key, routed by args[keyIndex] (1 for most commands: GET key ...). */
  public Object command(Access access, int keyIndex, Object... args) {
    long p = acquire();
    try {
      return command0(0, p, access.ordinal(), keyIndex, args);
    } finally {
      release();
    }
  }

  /**
   * Any command on one key with call options (a timeout of its own: {@code
   * command(new CallOptions().timeoutMs(5000), Access.WRITE, 1, "BLPOP", "q", "4")}).
   */
  public Object command(CallOptions options, Access access, int keyIndex, Object... args) {
    long p = acquire();
    try {
      return commandOpts0(p, options.timeoutMs, access.ordinal(), keyIndex, args);
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
    Object[] keys = new Object[pairs.size()];
    Object[] values = new Object[pairs.size()];
    int i = 0;
    for (Map.Entry<?, ?> e : pairs.entrySet()) {
      keys[i] = e.getKey();
      values[i++] = e.getValue();
    }
    long p = acquire();
    try {
      multi0(p, 2, keys, values);
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
    long[] v = new long[ClientStats.FIELDS];
    long p = acquire();
    try {
      stats0(p, v);
    } finally {
      release();
    }
    return new ClientStats(v);
  }

  /**
   * The client's statistics as Prometheus text exposition (version 0.0.4): reads by tier
   * ({@code cloudroute_reads_total{tier="other-cloud"}} over their sum is the share of reads
   * that crossed clouds), writes, fallbacks, redirects, retries, timeouts, errors, refreshes,
   * connections, and per node reads, writes, errors, up and a latency histogram.
   */
  public String metricsText() {
    long p = acquire();
    try {
      return metrics0(p);
    } finally {
      release();
    }
  }

  /** Statistics of every node the client has talked to. */
  public List<NodeStats> nodeStats() {
    long p = acquire();
    try {
      String[][] names = new String[1][];
      long[] values = nodeStats0(p, names);
      return NodeStats.unpack(values, names[0]);
    } finally {
      release();
    }
  }

  private static native long create(long config, String seeds, int[] u32, long[] u64,
      String[] strings, boolean tls, boolean tlsVerify, int logLevel);

  static native Object command0(int kind, long h, int access, int keyIndex, Object[] args);

  private static native Object commandOpts0(long h, int timeoutMs, int access, int keyIndex,
      Object[] args);

  private static native String metrics0(long h);

  private static native Object get0(long h, Object key);

  private static native void set0(long h, Object key, Object value, long ttlMs);

  private static native Object multi0(long h, int op, Object[] keys, Object[] values);

  static native void refresh0(int kind, long h);

  private static native long router0(long h);

  private static native void stats0(long h, long[] out);

  /** Values per node (see NodeStats); names[0] gets the hosts, copied during the call. */
  private static native long[] nodeStats0(long h, String[][] names);
}
