package io.cloudroute;

/** How a named Jedis shard names its virtual nodes. */
public enum RingNaming {
  /** name*n (Jedis 2.10 and later). */
  JEDIS3("jedis3"),
  /** name*weight+n (Jedis 2.9 and earlier). */
  JEDIS2("jedis2");

  private static final RingNaming[] VALUES = values();
  private final String label;

  RingNaming(String label) {
    this.label = label;
  }

  /** The library's name for the value ("jedis3", ...). */
  public String label() {
    return label;
  }

  /** The value of a C code (its ordinal). */
  static RingNaming of(int code) {
    return VALUES[code];
  }

  /** The value named label (case-insensitive, '_' == '-'). */
  public static RingNaming fromLabel(String label) {
    String l = label.replace('_', '-');
    for (RingNaming v : VALUES) {
      if (v.label.equalsIgnoreCase(l)) return v;
    }
    throw new CloudRouteException.InvalidArgumentException(
        CloudRouteException.EINVAL, "no RingNaming named '" + label + "'");
  }

  @Override
  public String toString() {
    return label;
  }
}
