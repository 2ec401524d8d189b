package io.cloudroute;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Pure functions of libcloudroute: Redis Cluster key slots, the Jedis ring hashes, family keys.
 * Strings are hashed as their UTF-8 bytes (as Jedis and redis-cli do; an unpaired surrogate is the
 * byte '?', as {@code String.getBytes(UTF_8)} writes it). Thread-safe.
 *
 * <p>One key's slot ({@link #keyslot(byte[])}, {@link #keyslot(String)}) is computed here in Java
 * when the key has at most {@link #SHORT_KEY_MAX} bytes (or, for a String of ASCII characters, at
 * most that many characters) — a call into the C library costs more than hashing so few bytes — and
 * by the C library beyond that, and for every batch ({@link #keyslots}). Both give the same slot
 * for every key (tests/vectors/keyslot.json, CLUSTER KEYSLOT's answers, is checked against each).
 */
public final class CloudRoute {
  /** Slots of a Redis Cluster (0-16383). */
  public static final int SLOT_COUNT = 16384;

  static {
    NativeLoader.load();
  }

  private CloudRoute() {}

  /**
   * Keys of at most this many bytes get their slot from Java ({@link #keyslot(byte[])}): below it
   * the JNI transition costs more than the checksum (bench/jmh, KeyslotBench).
   */
  public static final int SHORT_KEY_MAX = 32;

  /** The slot of a key: CRC16/XMODEM mod 16384 of the key, or of its {hash tag}. */
  public static int keyslot(byte[] key) {
    if (key != null && key.length <= SHORT_KEY_MAX) return shortSlot(key, 0, key.length);
    return keyslotBytes(key, 0, key == null ? 0 : key.length);
  }

  /** The slot of key[off .. off+len). */
  public static int keyslot(byte[] key, int off, int len) {
    if (key != null && off >= 0 && len >= 0 && len <= SHORT_KEY_MAX && off <= key.length - len) {
      return shortSlot(key, off, len);
    }
    return keyslotBytes(key, off, len); // longer, or refused there (null, out of bounds)
  }

  /** The slot of a String key (its UTF-8 bytes). */
  public static int keyslot(String key) {
    if (key == null || key.length() > SHORT_KEY_MAX) return keyslotString(key);
    int n = key.length();
    for (int i = 0; i < n; i++) {
      if (key.charAt(i) >= 0x80) return keyslot(key.getBytes(StandardCharsets.UTF_8));
    }
    return shortAsciiSlot(key, n);
  }

  // ---- the Java path of short keys ---------------------------------------------------------

  /**
   * CRC16/XMODEM (polynomial 0x1021, initial 0) tables: CRC16_ONE[v] is the checksum of the byte v
   * from state 0, CRC16_TWO[v] that of the two bytes v, 0. The checksum being linear, two bytes b0,
   * b1 taken from state (hi, lo) leave CRC16_TWO[hi ^ b0] ^ CRC16_ONE[lo ^ b1]: two bytes per step,
   * their two lookups independent of each other.
   */
  private static final int[] CRC16_ONE = new int[256];

  private static final int[] CRC16_TWO = new int[256];

  static {
    for (int b = 0; b < 256; b++) {
      int crc = b << 8;
      for (int bit = 0; bit < 8; bit++) {
        crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
      }
      CRC16_ONE[b] = crc & 0xFFFF;
    }
    for (int b = 0; b < 256; b++) {
      int one = CRC16_ONE[b];
      CRC16_TWO[b] = ((one << 8) & 0xFFFF) ^ CRC16_ONE[one >>> 8];
    }
  }

  /**
   * The slot of key[off .. off+len) computed in Java (bounds already checked): the checksum of the
   * hash tag — the bytes between the first '{' and the first '}' after it, when not empty — else of
   * the whole key, as Redis Cluster defines it. Package-private for the tests that hold it to the C
   * library's answer.
   */
  static int shortSlot(byte[] key, int off, int len) {
    int start = off;
    int end = off + len;
    for (int i = off; i < end; i++) {
      if (key[i] != '{') continue;
      for (int j = i + 1; j < end; j++) {
        if (key[j] != '}') continue;
        if (j > i + 1) {
          start = i + 1;
          end = j;
        }
        break;
      }
      break;
    }
    int crc = 0;
    int i = start;
    for (; i + 1 < end; i += 2) {
      crc = CRC16_TWO[((crc >>> 8) ^ key[i]) & 0xFF] ^ CRC16_ONE[(crc ^ key[i + 1]) & 0xFF];
    }
    if (i < end) crc = ((crc << 8) ^ CRC16_ONE[((crc >>> 8) ^ key[i]) & 0xFF]) & 0xFFFF;
    return crc & (SLOT_COUNT - 1);
  }

  /** shortSlot of an ASCII String's first n characters (each its own byte in UTF-8). */
  private static int shortAsciiSlot(String key, int n) {
    int start = 0;
    int end = n;
    int open = key.indexOf('{');
    if (open >= 0) {
      int close = key.indexOf('}', open + 1);
      if (close > open + 1) {
        start = open + 1;
        end = close;
      }
    }
    int crc = 0;
    int i = start;
    for (; i + 1 < end; i += 2) {
      crc =
          CRC16_TWO[((crc >>> 8) ^ key.charAt(i)) & 0xFF]
              ^ CRC16_ONE[(crc ^ key.charAt(i + 1)) & 0xFF];
    }
    if (i < end) crc = ((crc << 8) ^ CRC16_ONE[((crc >>> 8) ^ key.charAt(i)) & 0xFF]) & 0xFFFF;
    return crc & (SLOT_COUNT - 1);
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

  // The C library's slot of one key (package-private for the tests that compare it to Java's).
  static native int keyslotBytes(byte[] key, int off, int len);

  static native int keyslotString(String key);

  private static native void keyslotPacked(byte[] data, int[] ends, int n, int[] out);

  private static native int crc16(byte[] data, int off, int len);

  private static native long jedisHashOf(int algo, Object key);

  private static native int jumpHashOf(long key, int buckets);

  private static native String familyKeyOf(String family, Object key);

  private static native String nativeVersion();

  private static native int policyFromName(String name);
}
