// A model of Jedis's Sharded ring on the JDK's own TreeMap, String
// concatenation, MessageDigest and java.util.regex, used to cross-check the
// Jedis cases of tests/vectors/rings.json (check_jedis_model.py runs it).
// Not Jedis itself: the jar is not available here.
//
//   java JedisModel.java murmur|md5 jedis3|jedis2 tags|notags NAME=WEIGHT,... < keys.hex
// prints each key's shard index; keys are hex, one per line ("-" for empty).
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class JedisModel {
  static long murmur(byte[] data, int seed) {
    ByteBuffer buf = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
    long m = 0xc6a4a7935bd1e995L;
    int r = 47;
    long h = seed ^ (buf.remaining() * m);
    while (buf.remaining() >= 8) {
      long k = buf.getLong();
      k *= m;
      k ^= k >>> r;
      k *= m;
      h ^= k;
      h *= m;
    }
    if (buf.remaining() > 0) {
      ByteBuffer last = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
      last.put(buf).rewind();
      h ^= last.getLong();
      h *= m;
    }
    h ^= h >>> r;
    h *= m;
    h ^= h >>> r;
    return h;
  }

  static long md5(byte[] data) throws Exception {
    byte[] d = MessageDigest.getInstance("MD5").digest(data);
    return ((long) (d[3] & 0xFF) << 24) | ((long) (d[2] & 0xFF) << 16) | ((long) (d[1] & 0xFF) << 8)
        | (long) (d[0] & 0xFF);
  }

  public static void main(String[] args) throws Exception {
    final boolean isMd5 = args[0].equals("md5");
    final boolean jedis2 = args[1].equals("jedis2");
    final boolean tags = args[2].equals("tags");
    List<String> names = new ArrayList<>();
    List<Integer> weights = new ArrayList<>();
    for (String item : args[3].split(",")) {
      int eq = item.lastIndexOf('=');
      names.add(eq == 0 ? null : item.substring(0, eq));
      weights.add(Integer.parseInt(item.substring(eq + 1)));
    }
    TreeMap<Long, Integer> nodes = new TreeMap<>();
    for (int i = 0; i != names.size(); ++i) {
      String name = names.get(i);
      int weight = weights.get(i);
      for (int n = 0; n < 160 * weight; n++) {
        String point = name == null ? "SHARD-" + i + "-NODE-" + n
            : jedis2 ? name + "*" + weight + n : name + "*" + n;
        byte[] b = point.getBytes(StandardCharsets.UTF_8);
        nodes.put(isMd5 ? md5(b) : murmur(b, 0x1234ABCD), i);
      }
    }
    Pattern tagPattern = Pattern.compile("\\{(.+?)\\}");
    java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in));
    StringBuilder out = new StringBuilder();
    for (String line; (line = in.readLine()) != null;) {
      String key = new String(line.equals("-") ? new byte[0] : HexFormat.of().parseHex(line),
          StandardCharsets.UTF_8);
      if (tags) {
        Matcher mt = tagPattern.matcher(key);
        if (mt.find()) key = mt.group(1);
      }
      byte[] kb = key.getBytes(StandardCharsets.UTF_8);
      long h = isMd5 ? md5(kb) : murmur(kb, 0x1234ABCD);
      SortedMap<Long, Integer> tail = nodes.tailMap(h);
      out.append(tail.isEmpty() ? nodes.get(nodes.firstKey()) : tail.get(tail.firstKey())).append('\n');
    }
    System.out.print(out);
  }
}
