package io.cloudroute.jedis;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Jedis's parsed reply (lists, byte arrays, longs) back to RESP2 bytes, so libcloudroute's own
 * CLUSTER SLOTS parser reads exactly what the server said.
 */
final class RespEncoder {
  private RespEncoder() {}

  static byte[] encode(Object reply) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    write(out, reply);
    return out.toByteArray();
  }

  private static void line(ByteArrayOutputStream out, char type, String text) {
    out.write(type);
    byte[] b = text.getBytes(StandardCharsets.UTF_8);
    out.write(b, 0, b.length);
    out.write('\r');
    out.write('\n');
  }

  private static void write(ByteArrayOutputStream out, Object o) {
    if (o == null) {
      line(out, '$', "-1");
    } else if (o instanceof byte[]) {
      byte[] b = (byte[]) o;
      line(out, '$', Integer.toString(b.length));
      out.write(b, 0, b.length);
      out.write('\r');
      out.write('\n');
    } else if (o instanceof Long || o instanceof Integer) {
      line(out, ':', o.toString());
    } else if (o instanceof List) {
      List<?> l = (List<?>) o;
      line(out, '*', Integer.toString(l.size()));
      for (Object e : l) write(out, e);
    } else if (o instanceof String) {
      write(out, ((String) o).getBytes(StandardCharsets.UTF_8));
    } else {
      throw new IllegalArgumentException("unexpected reply element " + o.getClass().getName());
    }
  }
}
