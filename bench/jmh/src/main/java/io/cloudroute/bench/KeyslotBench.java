package io.cloudroute.bench;

import io.cloudroute.CloudRoute;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;
import redis.clients.jedis.util.JedisClusterCRC16;

/**
 * Key slots: libcloudroute (one key — hashed in Java up to CloudRoute's short-key bound, by the C
 * library through JNI beyond it — and a batch of 100 per native call) vs Jedis's pure Java.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class KeyslotBench {
  /** "short" ("user:123456", 11 bytes) or a key of that many bytes (around the short-key bound). */
  @Param({"short", "24", "32", "40", "64"})
  public String key;

  private String text;
  private byte[] bytes;
  private String[] batch;
  private byte[][] byteBatch;
  private byte[] packed;
  private int[] ends;
  private final int[] out = new int[100];

  @Setup
  public void setup() {
    text =
        key.equals("short")
            ? "user:123456"
            : "session:0123456789abcdef0123456789abcdef0123456789abcdef01234567"
                .substring(0, Integer.parseInt(key));
    bytes = text.getBytes(StandardCharsets.UTF_8);
    batch = new String[100];
    byteBatch = new byte[100][];
    StringBuilder all = new StringBuilder();
    ends = new int[100];
    for (int i = 0; i < 100; i++) {
      String k = text.substring(0, text.length() - 2) + String.format("%02d", i);
      batch[i] = k;
      byteBatch[i] = k.getBytes(StandardCharsets.UTF_8);
      all.append(k);
      ends[i] = all.length();
    }
    packed = all.toString().getBytes(StandardCharsets.UTF_8);
  }

  @Benchmark
  public int jedisString() {
    return JedisClusterCRC16.getSlot(text);
  }

  /** CloudRoute.keyslot(String): in Java up to SHORT_KEY_MAX characters, through JNI beyond. */
  @Benchmark
  public int jniString() {
    return CloudRoute.keyslot(text);
  }

  @Benchmark
  public int jedisBytes() {
    return JedisClusterCRC16.getSlot(bytes);
  }

  /** CloudRoute.keyslot(byte[]): in Java up to SHORT_KEY_MAX bytes, through JNI beyond. */
  @Benchmark
  public int jniBytes() {
    return CloudRoute.keyslot(bytes);
  }

  /** 100 String keys, one by one. */
  @Benchmark
  public void jedisBatch100(Blackhole bh) {
    for (String k : batch) bh.consume(JedisClusterCRC16.getSlot(k));
  }

  /** 100 String keys in one native call. */
  @Benchmark
  public int[] jniBatch100(Blackhole bh) {
    return CloudRoute.keyslots((Object[]) batch);
  }

  /** 100 byte[] keys in one native call. */
  @Benchmark
  public int[] jniBatch100Bytes() {
    return CloudRoute.keyslots((Object[]) byteBatch);
  }

  /** 100 keys packed in one byte[] (no per-key object), one native call. */
  @Benchmark
  public int[] jniBatch100Packed() {
    CloudRoute.keyslots(packed, ends, 100, out);
    return out;
  }
}
