package io.cloudroute;

/** Which nodes serve reads, in which order. */
public enum Policy {
  /** Reads on the master only (the Jedis default). */
  MASTER("master"),
  /** Replicas (nearest tier first), then the master. */
  PREFER_REPLICA("prefer-replica"),
  /** Per tier, nearest first: master, then replicas. */
  LOCAL("local"),
  /** Per tier, nearest first: replicas, then master. */
  LOCAL_REPLICAS_FIRST("local-replicas-first"),
  /** By measured RTT, with a tolerance band. */
  NEAREST("nearest"),
  /** Per tier, nearest first: master and replicas share the tier's reads by weight. */
  LOCAL_SPREAD("local-spread"),
  /** Replicas only, nearest tier first; never a master. */
  REPLICA_ONLY("replica-only");

  private static final Policy[] VALUES = values();
  private final String label;

  Policy(String label) {
    this.label = label;
  }

  /** The library's name for the value ("master", ...). */
  public String label() {
    return label;
  }

  /** The value of a C code (its ordinal). */
  static Policy of(int code) {
    return VALUES[code];
  }

  /** The value named label (case-insensitive, '_' == '-'). */
  public static Policy fromLabel(String label) {
    String l = label.replace('_', '-');
    for (Policy v : VALUES) {
      if (v.label.equalsIgnoreCase(l)) return v;
    }
    throw new CloudRouteException.InvalidArgumentException(
        CloudRouteException.EINVAL, "no Policy named '" + label + "'");
  }

  @Override
  public String toString() {
    return label;
  }
}
