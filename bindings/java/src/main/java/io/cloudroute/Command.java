package io.cloudroute;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * One typed command: its arguments, how it is routed (access, key position) and how its reply
 * becomes a Java value. The typed calls of {@link Client} (which run one) and of {@link Pipeline}
 * (which queue one) are built here, once.
 *
 * <p>Keys, fields, members and values are Strings (sent as UTF-8); replies come back as {@code
 * String} (bulk strings decoded as UTF-8), {@code Long}, {@code Boolean}, {@code Double}, {@code
 * List<String>}, {@code Set<String>} or {@code Map<String, ...>}.
 */
final class Command<T> {
  final Access access;
  final int keyIndex;
  final Object[] args;
  private final Function<Object, T> convert;

  private Command(Access access, Function<Object, T> convert, Object... args) {
    for (Object a : args) {
      if (a == null) {
        throw new CloudRouteException.InvalidArgumentException(
            CloudRouteException.EINVAL, args[0] + ": a key or argument is null");
      }
    }
    this.access = access;
    this.keyIndex = 1;
    this.args = args;
    this.convert = convert;
  }

  T convert(Object reply) {
    return convert.apply(reply);
  }

  // ---- reply conversions ----------------------------------------------------------------

  static String text(Object reply) {
    if (reply instanceof byte[]) return new String((byte[]) reply, StandardCharsets.UTF_8);
    return reply == null ? null : reply.toString();
  }

  static Long integer(Object reply) {
    return (Long) reply;
  }

  static Boolean one(Object reply) {
    return reply instanceof Boolean ? (Boolean) reply : Long.valueOf(1).equals(reply);
  }

  static Double number(Object reply) {
    if (reply == null || reply instanceof Double) return (Double) reply;
    String s = text(reply);
    if (s.equals("inf") || s.equals("+inf")) return Double.POSITIVE_INFINITY;
    if (s.equals("-inf")) return Double.NEGATIVE_INFINITY;
    return Double.valueOf(s);
  }

  static List<String> texts(Object reply) {
    List<?> in = (List<?>) reply;
    if (in == null) return null;
    List<String> out = new ArrayList<>(in.size());
    for (Object o : in) out.add(text(o));
    return out;
  }

  static Set<String> textSet(Object reply) {
    return new LinkedHashSet<>(texts(reply));
  }

  /** A flat key, value, ... list (RESP2) or a map (RESP3, also flat here) as an ordered map. */
  static Map<String, String> textMap(Object reply) {
    List<String> flat = texts(reply);
    Map<String, String> out = new LinkedHashMap<>();
    for (int i = 0; i + 1 < flat.size(); i += 2) out.put(flat.get(i), flat.get(i + 1));
    return out;
  }

  /** Members with scores: flat member, score, ... (RESP2) or [member, score] pairs (RESP3). */
  static Map<String, Double> scores(Object reply) {
    List<?> in = (List<?>) reply;
    Map<String, Double> out = new LinkedHashMap<>();
    for (int i = 0; i < in.size(); i++) {
      if (in.get(i) instanceof List) {
        List<?> pair = (List<?>) in.get(i);
        out.put(text(pair.get(0)), number(pair.get(1)));
      } else {
        out.put(text(in.get(i)), number(in.get(++i)));
      }
    }
    return out;
  }

  private static Object[] with(Object[] head, Object[] tail) {
    if (tail == null) {
      throw new CloudRouteException.InvalidArgumentException(
          CloudRouteException.EINVAL, head[0] + ": its arguments are null");
    }
    if (tail.length == 0) {
      throw new CloudRouteException.InvalidArgumentException(
          CloudRouteException.EINVAL,
          head[0] + " needs at least one " + (head[0].equals("HDEL") ? "field" : "member"));
    }
    Object[] out = new Object[head.length + tail.length];
    System.arraycopy(head, 0, out, 0, head.length);
    System.arraycopy(tail, 0, out, head.length, tail.length);
    return out;
  }

  private static Object[] pairs(String command, String key, Map<String, ?> map, boolean swap) {
    if (map == null || map.isEmpty()) {
      throw new CloudRouteException.InvalidArgumentException(
          CloudRouteException.EINVAL, command + " needs at least one pair");
    }
    Object[] out = new Object[2 + 2 * map.size()];
    out[0] = command;
    out[1] = key;
    int i = 2;
    for (Map.Entry<String, ?> e : map.entrySet()) {
      Object v = e.getValue() instanceof Double ? score((Double) e.getValue()) : e.getValue();
      out[i++] = swap ? v : e.getKey();
      out[i++] = swap ? e.getKey() : v;
    }
    return out;
  }

  private static String score(double s) {
    if (Double.isNaN(s)) {
      throw new CloudRouteException.InvalidArgumentException(
          CloudRouteException.EINVAL, "a score is NaN");
    }
    return s == Double.POSITIVE_INFINITY
        ? "+inf"
        : s == Double.NEGATIVE_INFINITY ? "-inf" : Double.toString(s);
  }

  // ---- strings ---------------------------------------------------------------------------

  static Command<String> get(String key) {
    return new Command<>(Access.READ, Command::text, "GET", key);
  }

  static Command<Boolean> set(String key, String value, long ttlMs) {
    if (ttlMs < 0) {
      throw new CloudRouteException.InvalidArgumentException(
          CloudRouteException.EINVAL, "negative time to live");
    }
    return ttlMs == 0
        ? new Command<>(Access.WRITE, r -> r != null, "SET", key, value)
        : new Command<>(
            Access.WRITE, r -> r != null, "SET", key, value, "PX", Long.toString(ttlMs));
  }

  static Command<Boolean> setNx(String key, String value) {
    return new Command<>(Access.WRITE, r -> r != null, "SET", key, value, "NX");
  }

  static Command<String> getSet(String key, String value) {
    return new Command<>(Access.WRITE, Command::text, "SET", key, value, "GET");
  }

  static Command<Long> incrBy(String key, long by) {
    return new Command<>(Access.WRITE, Command::integer, "INCRBY", key, Long.toString(by));
  }

  static Command<Long> append(String key, String value) {
    return new Command<>(Access.WRITE, Command::integer, "APPEND", key, value);
  }

  static Command<Long> strlen(String key) {
    return new Command<>(Access.READ, Command::integer, "STRLEN", key);
  }

  // ---- keys and expiry --------------------------------------------------------------------

  static Command<Long> exists(String key) {
    return new Command<>(Access.READ, Command::integer, "EXISTS", key);
  }

  static Command<Long> del(String key) {
    return new Command<>(Access.WRITE, Command::integer, "DEL", key);
  }

  static Command<Boolean> expire(String key, long seconds) {
    return new Command<>(Access.WRITE, Command::one, "EXPIRE", key, Long.toString(seconds));
  }

  static Command<Boolean> pexpire(String key, long ms) {
    return new Command<>(Access.WRITE, Command::one, "PEXPIRE", key, Long.toString(ms));
  }

  static Command<Boolean> persist(String key) {
    return new Command<>(Access.WRITE, Command::one, "PERSIST", key);
  }

  static Command<Long> ttl(String key) {
    return new Command<>(Access.READ, Command::integer, "TTL", key);
  }

  static Command<Long> pttl(String key) {
    return new Command<>(Access.READ, Command::integer, "PTTL", key);
  }

  static Command<String> type(String key) {
    return new Command<>(Access.READ, Command::text, "TYPE", key);
  }

  // ---- hashes ---------------------------------------------------------------------------

  static Command<String> hget(String key, String field) {
    return new Command<>(Access.READ, Command::text, "HGET", key, field);
  }

  static Command<Long> hset(String key, Map<String, String> fields) {
    return new Command<>(Access.WRITE, Command::integer, pairs("HSET", key, fields, false));
  }

  static Command<Long> hdel(String key, String... fields) {
    return new Command<>(Access.WRITE, Command::integer, with(new Object[] {"HDEL", key}, fields));
  }

  static Command<Map<String, String>> hgetAll(String key) {
    return new Command<>(Access.READ, Command::textMap, "HGETALL", key);
  }

  static Command<Long> hincrBy(String key, String field, long by) {
    return new Command<>(Access.WRITE, Command::integer, "HINCRBY", key, field, Long.toString(by));
  }

  static Command<Boolean> hexists(String key, String field) {
    return new Command<>(Access.READ, Command::one, "HEXISTS", key, field);
  }

  static Command<Long> hlen(String key) {
    return new Command<>(Access.READ, Command::integer, "HLEN", key);
  }

  // ---- lists ----------------------------------------------------------------------------

  static Command<Long> push(String command, String key, String... values) {
    return new Command<>(Access.WRITE, Command::integer, with(new Object[] {command, key}, values));
  }

  static Command<String> pop(String command, String key) {
    return new Command<>(Access.WRITE, Command::text, command, key);
  }

  static Command<List<String>> lrange(String key, long start, long stop) {
    return new Command<>(
        Access.READ, Command::texts, "LRANGE", key, Long.toString(start), Long.toString(stop));
  }

  static Command<Long> llen(String key) {
    return new Command<>(Access.READ, Command::integer, "LLEN", key);
  }

  static Command<String> lindex(String key, long index) {
    return new Command<>(Access.READ, Command::text, "LINDEX", key, Long.toString(index));
  }

  /** BLPOP key timeout: the value, or null when none came within timeoutS seconds. */
  static Command<String> blpop(String key, double timeoutS) {
    if (!(timeoutS >= 0) || Double.isInfinite(timeoutS)) {
      throw new CloudRouteException.InvalidArgumentException(
          CloudRouteException.EINVAL, "BLPOP: timeout must be a finite number of seconds >= 0");
    }
    return new Command<>(
        Access.WRITE,
        r -> r == null ? null : text(((List<?>) r).get(1)),
        "BLPOP",
        key,
        Double.toString(timeoutS));
  }

  // ---- sets -----------------------------------------------------------------------------

  static Command<Long> sadd(String key, String... members) {
    return new Command<>(Access.WRITE, Command::integer, with(new Object[] {"SADD", key}, members));
  }

  static Command<Long> srem(String key, String... members) {
    return new Command<>(Access.WRITE, Command::integer, with(new Object[] {"SREM", key}, members));
  }

  static Command<Set<String>> smembers(String key) {
    return new Command<>(Access.READ, Command::textSet, "SMEMBERS", key);
  }

  static Command<Boolean> sismember(String key, String member) {
    return new Command<>(Access.READ, Command::one, "SISMEMBER", key, member);
  }

  static Command<Long> scard(String key) {
    return new Command<>(Access.READ, Command::integer, "SCARD", key);
  }

  // ---- sorted sets ------------------------------------------------------------------------

  static Command<Long> zadd(String key, Map<String, Double> scores) {
    return new Command<>(Access.WRITE, Command::integer, pairs("ZADD", key, scores, true));
  }

  static Command<Double> zincrBy(String key, double by, String member) {
    return new Command<>(Access.WRITE, Command::number, "ZINCRBY", key, score(by), member);
  }

  static Command<Double> zscore(String key, String member) {
    return new Command<>(Access.READ, Command::number, "ZSCORE", key, member);
  }

  static Command<List<String>> zrange(String key, long start, long stop) {
    return new Command<>(
        Access.READ, Command::texts, "ZRANGE", key, Long.toString(start), Long.toString(stop));
  }

  static Command<Map<String, Double>> zrangeWithScores(String key, long start, long stop) {
    return new Command<>(
        Access.READ,
        Command::scores,
        "ZRANGE",
        key,
        Long.toString(start),
        Long.toString(stop),
        "WITHSCORES");
  }

  static Command<Long> zrem(String key, String... members) {
    return new Command<>(Access.WRITE, Command::integer, with(new Object[] {"ZREM", key}, members));
  }

  static Command<Long> zcard(String key) {
    return new Command<>(Access.READ, Command::integer, "ZCARD", key);
  }

  static Command<Long> zrank(String key, String member) {
    return new Command<>(Access.READ, Command::integer, "ZRANK", key, member);
  }
}
