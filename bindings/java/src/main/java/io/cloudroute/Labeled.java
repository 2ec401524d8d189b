package io.cloudroute;

/**
 * An enum of the C API whose values the library names ("local", "prefer-replica", ...). The enums
 * are generated from cloudroute.h by scripts/gen_tables.py; this is their one lookup.
 */
public interface Labeled {
  /** The library's name for the value. */
  String label();

  /** The value of values named label (case-insensitive, '_' == '-'); type names the enum. */
  static <E extends Labeled> E find(E[] values, String label, String type) {
    String l = label.replace('_', '-');
    for (E v : values) {
      if (v.label().equalsIgnoreCase(l)) return v;
    }
    throw new CloudRouteException.InvalidArgumentException(
        CloudRouteException.EINVAL, "no " + type + " named '" + label + "'");
  }
}
