package io.cloudroute.bench.e2e;

import java.util.List;
import java.util.Map;

/**
 * The driver's result as JSON, the way Python's json.dump writes driver.py's (NaN as the bare
 * token NaN, which json.loads in report.py reads back).
 */
final class Json {
  private Json() {}

  static String write(Object v) {
    StringBuilder sb = new StringBuilder();
    write(sb, v);
    return sb.append('\n').toString();
  }

  private static void write(StringBuilder sb, Object v) {
    if (v == null) {
      sb.append("null");
    } else if (v instanceof String) {
      string(sb, (String) v);
    } else if (v instanceof Double || v instanceof Float) {
      double d = ((Number) v).doubleValue();
      sb.append(Double.isNaN(d) ? "NaN" : Double.isInfinite(d) ? (d > 0 ? "Infinity" : "-Infinity")
          : Double.toString(d));
    } else if (v instanceof Number || v instanceof Boolean) {
      sb.append(v);
    } else if (v instanceof Map) {
      sb.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
        if (!first) sb.append(", ");
        first = false;
        string(sb, String.valueOf(e.getKey()));
        sb.append(": ");
        write(sb, e.getValue());
      }
      sb.append('}');
    } else if (v instanceof List || v instanceof Object[]) {
      List<?> list = v instanceof List ? (List<?>) v : List.of((Object[]) v);
      sb.append('[');
      for (int i = 0; i < list.size(); i++) {
        if (i > 0) sb.append(", ");
        write(sb, list.get(i));
      }
      sb.append(']');
    } else {
      throw new IllegalArgumentException("no JSON for " + v.getClass());
    }
  }

  private static void string(StringBuilder sb, String s) {
    sb.append('"');
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') {
        sb.append('\\').append(c);
      } else if (c < 0x20) {
        sb.append(String.format("\\u%04x", (int) c));
      } else {
        sb.append(c);
      }
    }
    sb.append('"');
  }
}
