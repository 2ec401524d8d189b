package io.cloudroute.jedis;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import redis.clients.jedis.util.KeyValue;

/**
 * Jedis's parsed reply (lists, byte arrays, longs; a RESP3 map as Jedis's list of KeyValue) back to
 * RESP bytes, so libcloudroute's own CLUSTER SHARDS / CLUSTER SLOTS parser reads exactly what the
 * server said.
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
      if (!l.isEmpty() && l.get(0) instanceof KeyValue) {
        line(out, '%', Integer.toString(l.size()));
        for (Object e : l) {
          write(out, ((KeyValue<?, ?>) e).getKey());
          write(out, ((KeyValue<?, ?>) e).getValue());
        }
        return;
      }
      line(out, '*', Integer.toString(l.size()));
      for (Object e : l) write(out, e);
    } else if (o instanceof String) {
      write(out, ((String) o).getBytes(StandardCharsets.UTF_8));
    } else {
      throw new IllegalArgumentException("unexpected reply element " + o.getClass().getName());
    }
  }
}
