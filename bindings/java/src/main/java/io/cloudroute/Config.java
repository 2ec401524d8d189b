package io.cloudroute;

import java.util.function.LongUnaryOperator;

/**
 * Where the client is, where the nodes are, and how reads are ranked: the configuration a {@link
 * Router}, {@link Client}, {@link ShardGroups} or {@link SentinelClient} copies when it is created
 * (later changes do not affect them). Setters return this, for chaining; a malformed location, CIDR
 * or address throws {@link CloudRouteException.ParseException}. Methods are synchronized (the
 * native builder is single-threaded).
 */
public final class Config extends NativeResource {
  private Policy policy = Policy.LOCAL;
  private Selection selection = Selection.RANDOM;
  private int nearestMarginUs = 1000;
  private int failureThreshold = 3;
  private int downCooldownMs = 2000;
  private long seed;

  public Config() {
    super(create(), KIND_CONFIG);
  }

  /**
   * Runs make with config's native handle, held and locked for the call, so that no setter runs
   * while the native side copies it; a null config passes 0 (the defaults). Returns what make
   * returns: the handle of the object made from the copy.
   */
  static long copyInto(Config config, LongUnaryOperator make) {
    if (config == null) return make.applyAsLong(0L);
    long c = config.acquire();
    try {
      synchronized (config) {
        return make.applyAsLong(c);
      }
    } finally {
      config.release();
    }
  }

  private synchronized Config call(int op, String a, String b, int number) {
    long p = acquire();
    try {
      set(p, op, a, b, number);
    } finally {
      release();
    }
    return this;
  }

  /** The client's own location: "cloud[/region[/zone]]" (e.g. "aws/us-east-1/use1-az1"). */
  public Config clientLocation(String location) {
    return call(0, location, null, 0);
  }

  /**
   * The client's zone as the servers name it (their availability-zone, e.g. "use1-az2"; GLIDE's
   * clientAz): nodes reporting it are {@link Tier#LOCAL}, nodes reporting another zone {@link
   * Tier#SAME_REGION} (one cluster's zones are taken as one region's). No zone table needed.
   */
  public Config clientZone(String zone) {
    return call(7, zone, null, 0);
  }

  /** Nodes whose address is in cidr ("10.0.0.0/24", "fd00::/8") are in the client's zone. */
  public Config localCidr(String cidr) {
    return call(1, cidr, null, 0);
  }

  /** Nodes whose address is in cidr are at location; the longest matching prefix wins. */
  public Config locationRule(String cidr, String location) {
    return call(2, cidr, location, 0);
  }

  /** An exact location for one node, by "host:port" or node id (highest precedence). */
  public Config nodeLocation(String node, String location) {
    return call(3, node, location, 0);
  }

  /** What a server-reported zone name means: zone "use1-az1" is at "aws/us-east-1/use1-az1". */
  public Config zone(String zone, String location) {
    return call(4, zone, location, 0);
  }

  /** Read weight of a node ("host:port" or id) among candidates of equal rank; default 1. */
  public Config weight(String node, int weight) {
    if (weight < 0) throw CloudRouteException.of(CloudRouteException.EINVAL, "negative weight");
    return call(5, node, null, weight);
  }

  /** Dial the node announced as "host:port" at another "host:port" (NAT, proxies). */
  public Config addressRemap(String announced, String dial) {
    return call(6, announced, dial, 0);
  }

  /**
   * How a read picks among candidates of equal rank (default RANDOM): ROUND_ROBIN, or LEAST_LOADED
   * (the less loaded — requests in flight times recent latency — of two weighted random draws; a
   * live {@link Client} feeds the loads).
   */
  public synchronized Config selection(Selection selection) {
    call(8, null, null, selection.ordinal());
    this.selection = selection;
    return this;
  }

  /** The selection set. */
  public synchronized Selection selection() {
    return selection;
  }

  /** The read policy (default LOCAL). */
  public synchronized Config policy(Policy policy) {
    return routerOptions(policy, nearestMarginUs, failureThreshold, downCooldownMs, seed);
  }

  /** NEAREST: nodes within this many microseconds of the fastest are equal (default 1000). */
  public synchronized Config nearestMarginUs(int us) {
    return routerOptions(policy, us, failureThreshold, downCooldownMs, seed);
  }

  /**
   * Health breaker: threshold consecutive failures skip a node for cooldownMs, then one probe is
   * let through (defaults 3 and 2000).
   */
  public synchronized Config breaker(int threshold, int cooldownMs) {
    return routerOptions(policy, nearestMarginUs, threshold, cooldownMs, seed);
  }

  /** Seed of the weighted choice among equal candidates; 0 (default) seeds from the clock. */
  public synchronized Config seed(long seed) {
    return routerOptions(policy, nearestMarginUs, failureThreshold, downCooldownMs, seed);
  }

  /** Sets the router options; the fields change only when the library accepted them. */
  private Config routerOptions(Policy p, int margin, int threshold, int cooldown, long s) {
    long h = acquire();
    try {
      routerOptions(h, p.ordinal(), margin, threshold, cooldown, s);
    } finally {
      release();
    }
    policy = p;
    nearestMarginUs = margin;
    failureThreshold = threshold;
    downCooldownMs = cooldown;
    seed = s;
    return this;
  }

  /** The read policy set. */
  public synchronized Policy policy() {
    return policy;
  }

  private static native long create();

  private static native void set(long h, int op, String a, String b, int number);

  private static native void routerOptions(
      long h, int policy, int marginUs, int threshold, int cooldownMs, long seed);
}
