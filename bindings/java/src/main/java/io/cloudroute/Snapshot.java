package io.cloudroute;

/**
 * A router's snapshot at one moment: routing on it is exactly routing on the router then, with no
 * synchronisation. Immutable; it stays valid after its router is closed.
 */
public final class Snapshot extends NativeResource {
  private final HostCache hosts;

  Snapshot(long ptr, HostCache hosts) {
    super(ptr, KIND_SNAPSHOT);
    this.hosts = hosts;
  }

  /** Increases by one with every snapshot the router installs. */
  public long generation() {
    long p = acquire();
    try {
      return generation0(p);
    } finally {
      release();
    }
  }

  /** The topology the snapshot was built from (a new reference: close it). */
  public Topology topology() {
    long p = acquire();
    try {
      return Topology.adopt(topology0(p));
    } finally {
      release();
    }
  }

  private Route route(int op, byte[] key) {
    long[] out = new long[3];
    long p = acquire();
    try {
      Router.routeBytes(p, op, key, 0, key == null ? 0 : key.length, out);
      return Route.unpack(out, 0, hosts);
    } finally {
      release();
    }
  }

  private Route route(int op, String key) {
    long[] out = new long[3];
    long p = acquire();
    try {
      Router.routeString(p, op, key, out);
      return Route.unpack(out, 0, hosts);
    } finally {
      release();
    }
  }

  public Route routeRead(byte[] key) {
    return route(2, key);
  }

  public Route routeRead(String key) {
    return route(2, key);
  }

  public Route routeWrite(byte[] key) {
    return route(3, key);
  }

  public Route routeWrite(String key) {
    return route(3, key);
  }

  private static native long generation0(long h);

  private static native long topology0(long h);
}
