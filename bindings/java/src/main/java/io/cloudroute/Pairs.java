package io.cloudroute;

import java.util.Map;

/** The keys and the values of an MSET's map, as the native batch calls take them. */
final class Pairs {
  final Object[] keys;
  final Object[] values;

  /** pairs' keys and values in its iteration order. */
  Pairs(Map<?, ?> pairs) {
    if (pairs == null) throw Client.invalid("pairs is null");
    keys = new Object[pairs.size()];
    values = new Object[pairs.size()];
    int i = 0;
    for (Map.Entry<?, ?> e : pairs.entrySet()) {
      keys[i] = e.getKey();
      values[i++] = e.getValue();
    }
  }
}
