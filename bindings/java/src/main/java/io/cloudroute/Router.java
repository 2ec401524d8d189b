package io.cloudroute;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;

/**
 * Routes keys to nodes on the current topology: reads to the key's shard's candidates (nearest
 * first, by policy), writes to the master. Safe for any number of threads, concurrently with {@link
 * #update} and the report calls; routing is lock-free in the library.
 */
public final class Router extends NativeResource {
  private final HostCache hosts = new HostCache();

  /** A router with a copy of config (null for defaults); it has no topology until update(). */
  public Router(Config config) {
    super(Config.copyInto(config, Router::create), KIND_ROUTER);
  }

  /** A router with config, on topology. */
  public Router(Config config, Topology topology) {
    this(config);
    update(topology);
  }

  /** The borrowed router of a live client. */
  Router(long ptr, NativeResource owner) {
    super(ptr, owner);
  }

  /** Installs a topology (the router keeps its own reference; the caller may close its own). */
  public void update(Topology topology) {
    long t = topology.acquire();
    try {
      long p = acquire();
      try {
        update0(p, t);
        hosts.clear(); // the update may have reclaimed nodes (see HostCache)
      } finally {
        release();
      }
    } finally {
      topology.release();
    }
  }

  private Route route(int op, byte[] key, int off, int len) {
    long[] out = new long[3];
    long p = acquire();
    try {
      routeBytes(p, op, key, off, len, out);
      return Route.unpack(out, 0, hosts);
    } finally {
      release();
    }
  }

  private Route route(int op, String key) {
    long[] out = new long[3];
    long p = acquire();
    try {
      routeString(p, op, key, out);
      return Route.unpack(out, 0, hosts);
    } finally {
      release();
    }
  }

  private Route routeSlot(int write, int slot) {
    long[] out = new long[3];
    long p = acquire();
    try {
      routeSlot(p, write, slot, out);
      return Route.unpack(out, 0, hosts);
    } finally {
      release();
    }
  }

  /** The node to read key from. */
  public Route routeRead(byte[] key) {
    return route(0, key, 0, key == null ? 0 : key.length);
  }

  /** The node to read key[off .. off+len) from. */
  public Route routeRead(byte[] key, int off, int len) {
    return route(0, key, off, len);
  }

  /** The node to read a String key (its UTF-8 bytes) from. */
  public Route routeRead(String key) {
    return route(0, key);
  }

  /** The node to write key to: the master of its shard. */
  public Route routeWrite(byte[] key) {
    return route(1, key, 0, key == null ? 0 : key.length);
  }

  public Route routeWrite(String key) {
    return route(1, key);
  }

  /** The node to read a slot (0-16383) from. */
  public Route routeReadSlot(int slot) {
    return routeSlot(0, slot);
  }

  /** The master of a slot (0-16383). */
  public Route routeWriteSlot(int slot) {
    return routeSlot(1, slot);
  }

  /**
   * Reads of many keys (Strings or byte[]s) on one snapshot, in one native call. An element is null
   * where that key could not be routed (no topology, an uncovered slot, every candidate down:
   * routeRead of that key says which).
   */
  public List<Route> routeReadBatch(Object... keys) {
    int[] ends = new int[keys.length];
    byte[] data = CloudRoute.pack(keys, ends);
    long[] out = new long[keys.length * 3];
    int[] statuses = new int[keys.length];
    List<Route> routes = new ArrayList<>(keys.length);
    long p = acquire();
    try {
      routeReadPacked(p, data, ends, keys.length, out, statuses);
      for (int i = 0; i < keys.length; i++) {
        routes.add(statuses[i] == 0 ? Route.unpack(out, i * 3, hosts) : null);
      }
    } finally {
      release();
    }
    return routes;
  }

  /** The key's shard's read candidates in rank order (the order the policy ranks them). */
  public List<Candidate> candidates(byte[] key) {
    return candidates((Object) key, -1);
  }

  public List<Candidate> candidates(String key) {
    return candidates((Object) key, -1);
  }

  /** The slot's read candidates in rank order. */
  public List<Candidate> candidatesSlot(int slot) {
    if (slot < 0 || slot > 16383) {
      throw CloudRouteException.of(CloudRouteException.EINVAL, "slot outside 0-16383");
    }
    return candidates(null, slot);
  }

  private List<Candidate> candidates(Object key, int slot) {
    long p = acquire();
    try {
      return Candidate.unpack(candidates0(p, key, slot), hosts);
    } finally {
      release();
    }
  }

  /**
   * Why each candidate of the key sits where it does (what `cloudroute route --explain` prints).
   */
  public String explain(byte[] key) {
    return explain((Object) key);
  }

  public String explain(String key) {
    return explain((Object) key);
  }

  private String explain(Object key) {
    long p = acquire();
    try {
      return explain0(p, key);
    } finally {
      release();
    }
  }

  /** A MOVED reply: slot now lives at host:port (patched at once; a refresh is flagged). */
  public void reportMoved(int slot, String host, int port) {
    long p = acquire();
    try {
      redirect(p, 0, slot, host, port, null);
    } finally {
      release();
    }
  }

  /**
   * An ASK reply: returns the node to send ASKING + the command to, once; reads of the slot go to
   * its master while it is marked migrating.
   */
  public Route reportAsk(int slot, String host, int port) {
    long[] out = new long[3];
    long p = acquire();
    try {
      redirect(p, 1, slot, host, port, out);
      return Route.unpack(out, 0, hosts);
    } finally {
      release();
    }
  }

  private void feedback(int op, int handle, int value) {
    long p = acquire();
    try {
      feedback(p, op, handle, value);
    } finally {
      release();
    }
  }

  /** A failed attempt on a node (its breaker opens after the failure threshold). */
  public void reportFailure(int nodeHandle) {
    feedback(0, nodeHandle, 0);
  }

  /** A successful attempt on a node (closes its breaker). */
  public void reportSuccess(int nodeHandle) {
    feedback(1, nodeHandle, 0);
  }

  /** A measured round-trip time, for the NEAREST policy. */
  public void setRtt(int nodeHandle, int rttUs) {
    feedback(2, nodeHandle, rttUs);
  }

  /** Marks (or clears) slot as migrating: its reads then go to its master. */
  public void setSlotMigrating(int slot, boolean migrating) {
    feedback(3, slot, migrating ? 1 : 0);
  }

  private long nodeOp(int op, String host, int port, String text, int flag) {
    long p = acquire();
    try {
      return nodeOp(p, op, host, port, text, flag);
    } finally {
      release();
    }
  }

  /** A zone a node reported about itself (HELLO / INFO). */
  public void setNodeZone(String host, int port, String zone) {
    nodeOp(0, host, port, zone, 0);
  }

  /** Marks a replica as lagging (read only after every other candidate), or clears the mark. */
  public void setReplicaLagging(String host, int port, boolean lagging) {
    nodeOp(1, host, port, null, lagging ? 1 : 0);
  }

  /** The stable handle of host:port, empty when the router never saw it. */
  public OptionalInt findNode(String host, int port) {
    long h = nodeOp(-1, host, port, null, 0);
    return h < 0 ? OptionalInt.empty() : OptionalInt.of((int) h);
  }

  private boolean flag(int op, int arg) {
    long p = acquire();
    try {
      return flag(p, op, arg);
    } finally {
      release();
    }
  }

  /** Whether a MOVED asked for a topology refresh since the last update(). */
  public boolean isRefreshNeeded() {
    return flag(0, 0);
  }

  /** Whether reads of slot go to its master because it is marked migrating. */
  public boolean isSlotMigrating(int slot) {
    return flag(1, slot);
  }

  /** The current snapshot: routing on it needs no synchronisation at all (take one per batch). */
  public Snapshot snapshot() {
    long p = acquire();
    try {
      return new Snapshot(snapshot0(p), hosts);
    } finally {
      release();
    }
  }

  private static native long create(long config);

  private static native void update0(long h, long topology);

  static native void routeBytes(long h, int op, byte[] key, int off, int len, long[] out);

  static native void routeString(long h, int op, String key, long[] out);

  private static native void routeSlot(long h, int write, int slot, long[] out);

  private static native void routeReadPacked(
      long h, byte[] data, int[] ends, int n, long[] out, int[] statuses);

  private static native long[] candidates0(long h, Object key, int slot);

  private static native String explain0(long h, Object key);

  private static native void redirect(long h, int ask, int slot, String host, int port, long[] out);

  private static native void feedback(long h, int op, int handle, int value);

  private static native long nodeOp(long h, int op, String host, int port, String text, int flag);

  private static native boolean flag(long h, int op, int arg);

  private static native long snapshot0(long h);
}
