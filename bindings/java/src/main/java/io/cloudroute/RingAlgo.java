package io.cloudroute;

/** Which client's key placement a ring reproduces. */
public enum RingAlgo {
  /** Jedis Sharded (ShardedJedis): 160 x weight points per shard. */
  JEDIS("jedis"),
  /** libmemcached / twemproxy ketama (MD5). */
  KETAMA("ketama"),
  /** Jump consistent hash of the key's hash. */
  JUMP("jump"),
  /** The key's hash modulo the shard count (not consistent). */
  MODULO("modulo");

  private static final RingAlgo[] VALUES = values();
  private final String label;

  RingAlgo(String label) {
    this.label = label;
  }

  /** The library's name for the value ("jedis", ...). */
  public String label() {
    return label;
  }

  /** The value of a C code (its ordinal). */
  static RingAlgo of(int code) {
    return VALUES[code];
  }

  /** The value named label (case-insensitive, '_' == '-'). */
  public static RingAlgo fromLabel(String label) {
    String l = label.replace('_', '-');
    for (RingAlgo v : VALUES) {
      if (v.label.equalsIgnoreCase(l)) return v;
    }
    throw new CloudRouteException.InvalidArgumentException(
        CloudRouteException.EINVAL, "no RingAlgo named '" + label + "'");
  }

  @Override
  public String toString() {
    return label;
  }
}
