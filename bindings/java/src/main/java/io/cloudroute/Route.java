package io.cloudroute;

/** The outcome of a routing decision: the node to send a command to. */
public final class Route {
  /** {@link #shard()} of a route that names no shard of the snapshot (an ASK target). */
  public static final int SHARD_NONE = -1;

  private final int slot;
  private final int shard;
  private final int nodeHandle;
  private final String host;
  private final int port;
  private final Role role;
  private final Tier tier;

  Route(int slot, int shard, int nodeHandle, String host, int port, Role role, Tier tier) {
    this.slot = slot;
    this.shard = shard;
    this.nodeHandle = nodeHandle;
    this.host = host;
    this.port = port;
    this.role = role;
    this.tier = tier;
  }

  /** From the glue's packing (jni_route.h); the host by handle from cache. */
  static Route unpack(long[] p, int at, HostCache cache) {
    long a = p[at];
    long b = p[at + 1];
    int handle = (int) a;
    return new Route(
        (int) (a >>> 48) & 0x3FFF,
        (int) b,
        handle,
        cache.host(handle, p[at + 2]),
        (int) (a >>> 32) & 0xFFFF,
        Role.of((int) (a >>> 62) & 1),
        Tier.of((int) (b >>> 32)));
  }

  /** The key's slot (0 for shard-group routes). */
  public int slot() {
    return slot;
  }

  /** The shard (or group) index; SHARD_NONE for an ASK target. */
  public int shard() {
    return shard;
  }

  /**
   * The router's number for the node: the argument of the report and RTT calls. Once the node has
   * left the router's current and previous topology it is reclaimed and reports on this number
   * throw (CR_ENOTFOUND).
   */
  public int nodeHandle() {
    return nodeHandle;
  }

  public String host() {
    return host;
  }

  public int port() {
    return port;
  }

  public Role role() {
    return role;
  }

  public Tier tier() {
    return tier;
  }

  /** "host:port" ("[v6]:port" for an IPv6 host). */
  public String address() {
    return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof Route)) return false;
    Route r = (Route) o;
    return r.slot == slot
        && r.shard == shard
        && r.nodeHandle == nodeHandle
        && r.host.equals(host)
        && r.port == port
        && r.role == role
        && r.tier == tier;
  }

  @Override
  public int hashCode() {
    return (slot * 31 + nodeHandle) * 31 + port;
  }

  @Override
  public String toString() {
    return address() + " (" + role + ", " + tier + ", slot " + slot + ", shard " + shard + ")";
  }
}
