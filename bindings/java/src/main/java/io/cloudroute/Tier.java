package io.cloudroute;

/** How far a node is from the client: the first level at which their locations differ. */
public enum Tier {
  /** Same zone (or matched by a local CIDR). */
  LOCAL("local"),
  /** Same cloud and region, other zone. */
  SAME_REGION("same-region"),
  /** Same cloud, other region. */
  SAME_CLOUD("same-cloud"),
  /** Another cloud. */
  OTHER_CLOUD("other-cloud"),
  /** The node's or the client's location is unknown. */
  UNKNOWN("unknown");

  private static final Tier[] VALUES = values();
  private final String label;

  Tier(String label) {
    this.label = label;
  }

  /** The library's name for the value ("local", ...). */
  public String label() {
    return label;
  }

  /** The value of a C code (its ordinal). */
  static Tier of(int code) {
    return VALUES[code];
  }

  /** The value named label (case-insensitive, '_' == '-'). */
  public static Tier fromLabel(String label) {
    String l = label.replace('_', '-');
    for (Tier v : VALUES) {
      if (v.label.equalsIgnoreCase(l)) return v;
    }
    throw new CloudRouteException.InvalidArgumentException(
        CloudRouteException.EINVAL, "no Tier named '" + label + "'");
  }

  @Override
  public String toString() {
    return label;
  }
}
