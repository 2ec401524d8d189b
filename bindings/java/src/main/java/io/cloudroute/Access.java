package io.cloudroute;

/** Whether a command only reads (replicas may serve it) or writes (the master only). */
public enum Access {
  /** Reads only: routed to the key's read candidates in order. */
  READ("read"),
  /** Writes: the master only, never re-sent once it may have arrived. */
  WRITE("write");

  private static final Access[] VALUES = values();
  private final String label;

  Access(String label) {
    this.label = label;
  }

  /** The library's name for the value ("read", ...). */
  public String label() {
    return label;
  }

  /** The value of a C code (its ordinal). */
  static Access of(int code) {
    return VALUES[code];
  }

  /** The value named label (case-insensitive, '_' == '-'). */
  public static Access fromLabel(String label) {
    String l = label.replace('_', '-');
    for (Access v : VALUES) {
      if (v.label.equalsIgnoreCase(l)) return v;
    }
    throw new CloudRouteException.InvalidArgumentException(
        CloudRouteException.EINVAL, "no Access named '" + label + "'");
  }

  @Override
  public String toString() {
    return label;
  }
}
