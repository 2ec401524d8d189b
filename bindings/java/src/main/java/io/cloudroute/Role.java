package io.cloudroute;

/** A node's role in its shard. */
public enum Role {
  /** The shard's master. */
  MASTER("master"),
  /** A replica of the master. */
  REPLICA("replica");

  private static final Role[] VALUES = values();
  private final String label;

  Role(String label) {
    this.label = label;
  }

  /** The library's name for the value ("master", ...). */
  public String label() {
    return label;
  }

  /** The value of a C code (its ordinal). */
  static Role of(int code) {
    return VALUES[code];
  }

  /** The value named label (case-insensitive, '_' == '-'). */
  public static Role fromLabel(String label) {
    String l = label.replace('_', '-');
    for (Role v : VALUES) {
      if (v.label.equalsIgnoreCase(l)) return v;
    }
    throw new CloudRouteException.InvalidArgumentException(
        CloudRouteException.EINVAL, "no Role named '" + label + "'");
  }

  @Override
  public String toString() {
    return label;
  }
}
