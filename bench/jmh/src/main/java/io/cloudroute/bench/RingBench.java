package io.cloudroute.bench;

import io.cloudroute.HashAlgo;
import io.cloudroute.Ring;
import io.cloudroute.RingAlgo;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import redis.clients.jedis.util.Hashing;
import redis.clients.jedis.util.ShardInfo;
import redis.clients.jedis.util.Sharded;

/** The Jedis ring (16 named shards, MURMUR): libcloudroute through JNI vs Jedis's TreeMap. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RingBench {
  /** A Jedis shard without a connection: its resource is its index. */
  static final class Info extends ShardInfo<Integer> {
    private final String name;
    private final int index;

    Info(int index, String name) {
      super(1);
      this.index = index;
      this.name = name;
    }

    @Override
    protected Integer createResource() {
      return index;
    }

    @Override
    public String getName() {
      return name;
    }
  }

  private Sharded<Integer, Info> jedis;
  private Ring ring;
  private final String key = "user:123456";
  private final byte[] bytes = key.getBytes(StandardCharsets.UTF_8);

  @Setup
  public void setup() {
    List<Info> shards = new ArrayList<>();
    Ring.Builder b = Ring.builder().algo(RingAlgo.JEDIS).hash(HashAlgo.MURMUR);
    for (int i = 0; i < 16; i++) {
      shards.add(new Info(i, "node" + i));
      b.shard("node" + i, 1);
    }
    jedis = new Sharded<>(shards, Hashing.MURMUR_HASH);
    ring = b.build();
  }

  @TearDown
  public void close() {
    ring.close();
  }

  @Benchmark
  public Info jedisShardInfoString() {
    return jedis.getShardInfo(key);
  }

  @Benchmark
  public int jniLocateString() {
    return ring.locate(key);
  }

  @Benchmark
  public Info jedisShardInfoBytes() {
    return jedis.getShardInfo(bytes);
  }

  @Benchmark
  public int jniLocateBytes() {
    return ring.locate(bytes);
  }
}
