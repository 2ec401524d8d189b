package io.cloudroute;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.util.Hashing;
import redis.clients.jedis.util.JedisClusterCRC16;
import redis.clients.jedis.util.ShardInfo;
import redis.clients.jedis.util.Sharded;

/** The real Jedis 3.10.0 (Maven Central, test scope) and libcloudroute give the same answers. */
class JedisCompatTest {
  private static final int KEYS = 4000;

  /** A Jedis shard with a name (or none) and a weight; its resource is its index. */
  private static final class Info extends ShardInfo<Integer> {
    private final String name;
    private final int index;

    Info(int index, String name, int weight) {
      super(weight);
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

  private static List<String> stringKeys(long seed) {
    Random rnd = new Random(seed);
    List<String> keys = new ArrayList<>();
    String alphabet = "abcxyz:{}_-0123456789ключ日本😀";
    for (int i = 0; i < KEYS; i++) {
      switch (i % 5) {
        case 0:
          keys.add("user:" + rnd.nextInt(10_000_000));
          break;
        case 1:
          keys.add("{user:" + rnd.nextInt(1000) + "}:cart:" + i);
          break;
        case 2:
          keys.add("x".repeat(rnd.nextInt(80)) + i);
          break;
        default:
          StringBuilder b = new StringBuilder();
          int n = rnd.nextInt(24);
          for (int j = 0; j < n; j++) {
            b.appendCodePoint(
                alphabet.codePointAt(
                    alphabet.offsetByCodePoints(
                        0, rnd.nextInt(alphabet.codePointCount(0, alphabet.length())))));
          }
          keys.add(b.toString());
      }
    }
    return keys;
  }

  private static List<byte[]> byteKeys(long seed) {
    Random rnd = new Random(seed);
    List<byte[]> keys = new ArrayList<>();
    for (int i = 0; i < KEYS; i++) {
      byte[] k = new byte[rnd.nextInt(70)];
      rnd.nextBytes(k);
      keys.add(k);
    }
    return keys;
  }

  @Test
  void clusterSlotsMatchJedisClusterCrc16() {
    for (String k : stringKeys(1)) {
      assertEquals(JedisClusterCRC16.getSlot(k), CloudRoute.keyslot(k), k);
    }
    for (byte[] k : byteKeys(2)) assertEquals(JedisClusterCRC16.getSlot(k), CloudRoute.keyslot(k));
    List<String> keys = stringKeys(3);
    int[] batch = CloudRoute.keyslots(keys);
    for (int i = 0; i < keys.size(); i++) {
      assertEquals(JedisClusterCRC16.getSlot(keys.get(i)), batch[i], keys.get(i));
    }
  }

  /** Shard layouts: named with weights, unnamed, mixed. */
  private static List<List<Info>> layouts() {
    List<List<Info>> out = new ArrayList<>();
    List<Info> named = new ArrayList<>();
    String[] names = {"redis-a", "redis-b", "10.0.0.3:6379", "shard-d", "e"};
    int[] weights = {1, 2, 1, 5, 3};
    for (int i = 0; i < names.length; i++) named.add(new Info(i, names[i], weights[i]));
    out.add(named);
    List<Info> unnamed = new ArrayList<>();
    for (int i = 0; i < 7; i++) unnamed.add(new Info(i, null, 1));
    out.add(unnamed);
    List<Info> mixed = new ArrayList<>();
    mixed.add(new Info(0, "alpha", 2));
    mixed.add(new Info(1, null, 1));
    mixed.add(new Info(2, "gamma", 1));
    mixed.add(new Info(3, null, 4));
    out.add(mixed);
    return out;
  }

  private static Ring ring(List<Info> shards, HashAlgo hash, boolean tags) {
    Ring.Builder b =
        Ring.builder().algo(RingAlgo.JEDIS).hash(hash).naming(RingNaming.JEDIS3).keyTags(tags);
    for (Info s : shards) b.shard(s.getName(), s.getWeight());
    return b.build();
  }

  @Test
  void shardedRingsMatchJedisSharded() {
    int compared = 0;
    for (HashAlgo hash : new HashAlgo[] {HashAlgo.MURMUR, HashAlgo.MD5}) {
      Hashing algo = hash == HashAlgo.MURMUR ? Hashing.MURMUR_HASH : Hashing.MD5;
      for (boolean tags : new boolean[] {false, true}) {
        for (List<Info> shards : layouts()) {
          Pattern pattern = tags ? Sharded.DEFAULT_KEY_TAG_PATTERN : null;
          Sharded<Integer, Info> jedis =
              tags ? new Sharded<>(shards, algo, pattern) : new Sharded<>(shards, algo);
          try (Ring ring = ring(shards, hash, tags);
              Ring untagged = ring(shards, hash, false)) {
            for (String k : stringKeys(compared)) {
              assertEquals(
                  jedis.getShardInfo(k).index, ring.locate(k), hash + " " + tags + " " + k);
              compared++;
            }
            // Jedis applies key tags to String keys only: byte[] keys meet the untagged ring.
            for (byte[] k : byteKeys(compared)) {
              assertEquals(jedis.getShardInfo(k).index, untagged.locate(k));
              compared++;
            }
            List<String> keys = stringKeys(7);
            int[] batch = ring.locateBatch(keys.toArray());
            for (int i = 0; i < batch.length; i++) {
              assertEquals(jedis.getShardInfo(keys.get(i)).index, batch[i]);
            }
          }
        }
      }
    }
    assertEquals(2 * 2 * 3 * 2 * KEYS, compared);
  }

  @Test
  void hashesMatchJedisHashing() {
    for (String k : stringKeys(11)) {
      assertEquals(Hashing.MURMUR_HASH.hash(k), CloudRoute.jedisHash(HashAlgo.MURMUR, k), k);
      assertEquals(Hashing.MD5.hash(k), CloudRoute.jedisHash(HashAlgo.MD5, k), k);
      byte[] b = k.getBytes(StandardCharsets.UTF_8);
      assertEquals(Hashing.MURMUR_HASH.hash(b), CloudRoute.jedisHash(HashAlgo.MURMUR, b), k);
    }
  }
}
