package io.cloudroute;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Pure functions of libcloudroute: Redis Cluster key slots, the Jedis ring hashes, family keys.
 * Strings are hashed as their UTF-8 bytes (as Jedis and redis-cli do). Thread-safe.
 */
public final class CloudRoute {
  /** Slots of a Redis Cluster (0-16383). */
  public static final int SLOT_COUNT = 16384;

  static {
    NativeLoader.load();
  }

  private CloudRoute() {}

  /** The slot of a key: CRC16/XMODEM mod 16384 of the key, or of its {hash tag}. */
  public static int keyslot(byte[] key) {
    return keyslotBytes(key, 0, key == null ? 0 : key.length);
  }

  /** The slot of key[off .. off+len). */
  public static int keyslot(byte[] key, int off, int len) {
    return keyslotBytes(key, off, len);
  }

  /** The slot of a String key (its UTF-8 bytes). */
  public static int keyslot(String key) {
    return keyslotString(key);
  }

  /**
   * Slots of many keys (each a String or a byte[]) in one native call: the keys are packed into one
   * array here (ASCII Strings without an intermediate byte[]), so the call reads them all from one
   * critical region.
   */
  public static int[] keyslots(Object... keys) {
    int[] ends = new int[keys.length];
    byte[] data = pack(keys, ends);
    int[] out = new int[keys.length];
    keyslotPacked(data, ends, keys.length, out);
    return out;
  }

  /** keys (String as UTF-8, byte[]) back to back; ends[i] receives the end of key i. */
  @SuppressWarnings("deprecation") // String.getBytes(int, int, byte[], int): exact for ASCII
  static byte[] pack(Object[] keys, int[] ends) {
    int size = 0;
    for (Object k : keys) {
      if (k instanceof String) size += ((String) k).length();
      else if (k instanceof byte[]) size += ((byte[]) k).length;
      else
        throw CloudRouteException.of(
            CloudRouteException.EINVAL,
            "a key must be a String or a byte[], not " + (k == null ? "null" : k.getClass()));
    }
    byte[] buf = new byte[size];
    int at = 0;
    for (int i = 0; i < keys.length; i++) {
      byte[] bytes = null;
      int len;
      if (keys[i] instanceof String) {
        String s = (String) keys[i];
        len = s.length();
        boolean ascii = true;
        for (int c = 0; c < len && ascii; c++) ascii = s.charAt(c) < 0x80;
        if (ascii) {
          if (at + len > buf.length) buf = Arrays.copyOf(buf, Math.max(buf.length * 2, at + len));
          s.getBytes(0, len, buf, at);
          ends[i] = at += len;
          continue;
        }
        bytes = s.getBytes(StandardCharsets.UTF_8);
      } else {
        bytes = (byte[]) keys[i];
      }
      len = bytes.length;
      if (at + len > buf.length) buf = Arrays.copyOf(buf, Math.max(buf.length * 2, at + len));
      System.arraycopy(bytes, 0, buf, at, len);
      ends[i] = at += len;
    }
    return buf;
  }

  /** Slots of many keys (Strings or byte[]s) in one native call. */
  public static int[] keyslots(List<?> keys) {
    return keyslots(keys.toArray());
  }

  /**
   * Slots of n keys packed back to back in data, key i being data[ends[i-1] .. ends[i]) (with
   * ends[-1] = 0), written to out[0 .. n): the fastest form, with no per-key object.
   */
  public static void keyslots(byte[] data, int[] ends, int n, int[] out) {
    keyslotPacked(data, ends, n, out);
  }

  /** CRC16/XMODEM of data (the checksum of key slots). */
  public static int crc16(byte[] data) {
    return crc16(data, 0, data == null ? 0 : data.length);
  }

  /**
   * Jedis's {@code Hashing.<algo>.hash(key)}: MURMUR gives the signed long of MurmurHash64A, MD5 a
   * value in 0 .. 2^32-1. A String is hashed as its UTF-8 bytes, as Jedis does.
   */
  public static long jedisHash(HashAlgo algo, byte[] key) {
    return jedisHashOf(algo.ordinal(), key);
  }

  /** {@link #jedisHash(HashAlgo, byte[])} of a String's UTF-8 bytes. */
  public static long jedisHash(HashAlgo algo, String key) {
    return jedisHashOf(algo.ordinal(), key);
  }

  /**
   * Jump consistent hash: the bucket (0 .. buckets-1) of a 64-bit key, as Guava's {@code
   * Hashing.consistentHash(long, int)} computes it.
   */
  public static int jumpHash(long key, int buckets) {
    return jumpHashOf(key, buckets);
  }

  /**
   * The key to store for (family, key) in the family-key design: the decimal text of the Jedis
   * MurmurHash of {@code family + ":" + key}. It hides the original key from Redis (SCAN and KEYS
   * show numbers only). family is non-empty and has no ':'.
   */
  public static String familyKey(String family, byte[] key) {
    return familyKeyOf(family, key);
  }

  /** {@link #familyKey(String, byte[])} of a String key's UTF-8 bytes. */
  public static String familyKey(String family, String key) {
    return familyKeyOf(family, key);
  }

  /** The version of the native library ("0.2.0"). */
  public static String version() {
    return nativeVersion();
  }

  /**
   * How many native handles are open: made and neither closed nor yet freed by the Cleaner after
   * the program forgot them (a diagnostic for leaks).
   */
  public static long openHandles() {
    return NativeResource.LIVE.get();
  }

  /** The policy named name ("local-replicas-first", case-insensitive, '_' == '-'). */
  public static Policy policy(String name) {
    return Policy.of(policyFromName(name));
  }

  private static native int keyslotBytes(byte[] key, int off, int len);

  private static native int keyslotString(String key);

  private static native void keyslotPacked(byte[] data, int[] ends, int n, int[] out);

  private static native int crc16(byte[] data, int off, int len);

  private static native long jedisHashOf(int algo, Object key);

  private static native int jumpHashOf(long key, int buckets);

  private static native String familyKeyOf(String family, Object key);

  private static native String nativeVersion();

  private static native int policyFromName(String name);
}
