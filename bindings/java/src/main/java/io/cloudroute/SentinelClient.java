package io.cloudroute;

import java.util.List;

/**
 * Shard groups kept current by Redis Sentinel: one group per Sentinel master name, keys placed by a
 * built {@link Ring} (ring shard i is group i). Reads go to the key's group's instances nearest
 * first, writes to its master. Safe for any number of threads. Replies as {@link Client#command}.
 */
public final class SentinelClient extends NativeResource {
  private final ShardGroups groups;

  private SentinelClient(long ptr) {
    super(ptr, KIND_SENTINEL);
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
              c -> create(c, options.u32, options.u64, options.strings, r, groupNames, sentinels)));
    } finally {
      ring.release();
    }
  }

  /** Any command on one key, placed by args[keyIndex]. */
  public Object command(Access access, int keyIndex, Object... args) {
    long p = acquire();
    try {
      return Client.command0(1, p, access.ordinal(), keyIndex, args);
    } finally {
      release();
    }
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

  private static native void stats0(long h, long[] out);
}
