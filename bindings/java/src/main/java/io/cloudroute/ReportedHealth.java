package io.cloudroute;

/** A node's health as the server reported it (CLUSTER SHARDS; CLUSTER SLOTS gives ONLINE). */
public enum ReportedHealth {
  /** Serving. */
  ONLINE("online"),
  /** Loading its data set. */
  LOADING("loading"),
  /** Failed. */
  FAILED("failed");

  private static final ReportedHealth[] VALUES = values();
  private final String label;

  ReportedHealth(String label) {
    this.label = label;
  }

  /** The library's name for the value ("online", ...). */
  public String label() {
    return label;
  }

  /** The value of a C code (its ordinal). */
  static ReportedHealth of(int code) {
    return VALUES[code];
  }

  /** The value named label (case-insensitive, '_' == '-'). */
  public static ReportedHealth fromLabel(String label) {
    String l = label.replace('_', '-');
    for (ReportedHealth v : VALUES) {
      if (v.label.equalsIgnoreCase(l)) return v;
    }
    throw new CloudRouteException.InvalidArgumentException(
        CloudRouteException.EINVAL, "no ReportedHealth named '" + label + "'");
  }

  @Override
  public String toString() {
    return label;
  }
}
