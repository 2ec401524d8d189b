package io.cloudroute;

import java.nio.charset.StandardCharsets;

/**
 * The single-key calls every live client has ({@link Client}, {@link ShardedClient}, {@link
 * SentinelClient}), so code can be written against any of them. Keys and values are Strings (sent
 * as UTF-8) or byte[]s; replies of {@link #command} are those of {@link Client#command}.
 */
public interface KeyCommands {
  /** Any command on one key, placed by args[keyIndex] (1 for most commands: GET key ...). */
  Object command(Access access, int keyIndex, Object... args);

  /** A read command whose key is its first argument: {@code read("HGET", "h", "f")}. */
  default Object read(Object... args) {
    return command(Access.READ, 1, args);
  }

  /** A write command whose key is its first argument: {@code write("HSET", "h", "f", "v")}. */
  default Object write(Object... args) {
    return command(Access.WRITE, 1, args);
  }

  /** GET (a read); null when the key does not exist. */
  default byte[] get(byte[] key) {
    return (byte[]) command(Access.READ, 1, "GET", key);
  }

  /** GET of a String key, the value decoded as UTF-8; null when the key does not exist. */
  default String get(String key) {
    byte[] v = (byte[]) command(Access.READ, 1, "GET", key);
    return v == null ? null : new String(v, StandardCharsets.UTF_8);
  }

  /** SET key value on the key's master. */
  default void set(Object key, Object value) {
    command(Access.WRITE, 1, "SET", key, value);
  }

  /** SET key value PX ttlMs (ttlMs 0: no expiry). */
  default void set(Object key, Object value, long ttlMs) {
    if (ttlMs < 0) {
      throw new CloudRouteException.InvalidArgumentException(
          CloudRouteException.EINVAL, "negative time to live");
    }
    if (ttlMs == 0) set(key, value);
    else command(Access.WRITE, 1, "SET", key, value, "PX", Long.toString(ttlMs));
  }
}
