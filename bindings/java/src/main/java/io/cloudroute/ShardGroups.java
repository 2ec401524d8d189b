package io.cloudroute;

import java.util.List;
import java.util.OptionalInt;

/**
 * N shard groups (each a master plus replicas, as Redis Sentinel reports them) with a {@link Ring}
 * placing keys: ring shard i is group i. Reads go to the key's group's instances nearest first,
 * writes to its master. Safe for any number of threads.
 */
public final class ShardGroups extends NativeResource {
  private final HostCache hosts = new HostCache();

  /** A table with a copy of config's locality, weights and breaker settings (null: defaults). */
  public ShardGroups(Config config) {
    super(Config.copyInto(config, ShardGroups::create), KIND_SHARD_GROUPS);
  }

  /** The borrowed table of a Sentinel client. */
  ShardGroups(long ptr, NativeResource owner) {
    super(ptr, owner);
  }

  private int named(int op, int group, String name, int port) {
    long p = acquire();
    try {
      return named(p, op, group, name, port);
    } finally {
      release();
    }
  }

  /** Adds a group (typically its Sentinel master name); returns its index. */
  public int add(String name) {
    return named(0, 0, name, 0);
  }

  /** The index of a group by name, empty when there is none. */
  public OptionalInt find(String name) {
    int g = named(1, 0, name, 0);
    return g < 0 ? OptionalInt.empty() : OptionalInt.of(g);
  }

  public int count() {
    long p = acquire();
    try {
      return count0(p);
    } finally {
      release();
    }
  }

  /** Key to group: ring shard i is group i (the table keeps its own reference to the ring). */
  public void setRing(Ring ring) {
    long r = ring.acquire();
    try {
      long p = acquire();
      try {
        setRing0(p, r);
      } finally {
        release();
      }
    } finally {
      ring.release();
    }
  }

  /** The group's master; host null forgets it (writes then fail as unavailable). */
  public void setMaster(int group, String host, int port) {
    named(2, group, host, port);
  }

  /** Replaces the group's replicas with "host:port" addresses ("[v6]:port" for IPv6). */
  public void setReplicas(int group, List<String> replicas) {
    String[] hs = new String[replicas.size()];
    int[] ports = new int[hs.length];
    for (int i = 0; i < hs.length; i++) {
      String a = replicas.get(i);
      int colon = a.lastIndexOf(':');
      if (colon <= 0) {
        throw CloudRouteException.of(CloudRouteException.EINVAL, "not host:port: '" + a + "'");
      }
      String host = a.substring(0, colon);
      if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
      hs[i] = host;
      try {
        ports[i] = Integer.parseInt(a.substring(colon + 1));
      } catch (NumberFormatException e) {
        throw CloudRouteException.of(CloudRouteException.EINVAL, "bad port in '" + a + "'");
      }
    }
    long p = acquire();
    try {
      setReplicas0(p, group, hs, ports);
    } finally {
      release();
    }
  }

  private int keyOp(int op, Object key, long[] out) {
    long p = acquire();
    try {
      return keyOp(p, op, key, out);
    } finally {
      release();
    }
  }

  private Route route(int op, Object key) {
    long[] out = new long[3];
    long p = acquire();
    try {
      keyOp(p, op, key, out);
      return Route.unpack(out, 0, hosts);
    } finally {
      release();
    }
  }

  /** The group of a key (a String or a byte[]). */
  public int locate(Object key) {
    return keyOp(0, key, null);
  }

  /** An instance of the key's group to read from (nearest tier, weighted). */
  public Route routeRead(Object key) {
    return route(1, key);
  }

  /** The key's group's master. */
  public Route routeWrite(Object key) {
    return route(2, key);
  }

  /** The key's group's instances in the order to try them (one weighted draw per call). */
  public List<Candidate> candidates(Object key) {
    long p = acquire();
    try {
      return Candidate.unpack(candidates0(p, key), hosts);
    } finally {
      release();
    }
  }

  public void reportFailure(int nodeHandle) {
    report(false, nodeHandle);
  }

  public void reportSuccess(int nodeHandle) {
    report(true, nodeHandle);
  }

  private void report(boolean ok, int handle) {
    long p = acquire();
    try {
      report0(p, ok, handle);
    } finally {
      release();
    }
  }

  private static native long create(long config);

  private static native int named(long h, int op, int group, String name, int port);

  private static native int count0(long h);

  private static native void setRing0(long h, long ring);

  private static native void setReplicas0(long h, int group, String[] hosts, int[] ports);

  private static native int keyOp(long h, int op, Object key, long[] out);

  private static native long[] candidates0(long h, Object key);

  private static native void report0(long h, boolean ok, int handle);
}
