package io.cloudroute;

import java.util.ArrayList;
import java.util.List;

/**
 * A built, immutable consistent-hashing ring placing every key exactly where an existing client
 * does: Jedis's {@code Sharded} (2.x or 3.x naming, MURMUR or MD5, key tags), ketama, jump, or
 * modulo. It knows shard names and weights, never addresses. Safe for any number of threads.
 *
 * <pre>{@code
 * try (Ring ring = Ring.builder().algo(RingAlgo.JEDIS).hash(HashAlgo.MURMUR)
 *     .shard("shard-a", 1).shard("shard-b", 2).build()) {
 *   int shard = ring.locate("user:42");
 * }
 * }</pre>
 */
public final class Ring extends NativeResource {
  private final int shardCount;

  private Ring(long ptr, int shardCount) {
    super(ptr, KIND_RING);
    this.shardCount = shardCount;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Shards in the order they are added (the order is part of the placement). */
  public static final class Builder {
    private RingAlgo algo = RingAlgo.JEDIS;
    private HashAlgo hash = HashAlgo.DEFAULT;
    private RingNaming naming = RingNaming.JEDIS3;
    private boolean keyTags;
    private final List<String> names = new ArrayList<>();
    private final List<Integer> weights = new ArrayList<>();

    private Builder() {}

    public Builder algo(RingAlgo algo) {
      this.algo = algo;
      return this;
    }

    public Builder hash(HashAlgo hash) {
      this.hash = hash;
      return this;
    }

    /** How named Jedis shards name their points (JEDIS ring only; default JEDIS3). */
    public Builder naming(RingNaming naming) {
      this.naming = naming;
      return this;
    }

    /**
     * Hash only the key tag of Jedis's default pattern {@code \{(.+?)\}} (Jedis applies tags to
     * String keys only: pass byte[] keys to a ring without tags for Jedis's byte[] calls).
     */
    public Builder keyTags(boolean on) {
      this.keyTags = on;
      return this;
    }

    /** Appends a named shard (name null: an unnamed Jedis "SHARD-i-NODE-n" shard). */
    public Builder shard(String name, int weight) {
      names.add(name);
      weights.add(weight);
      return this;
    }

    /** Appends a named shard of weight 1. */
    public Builder shard(String name) {
      return shard(name, 1);
    }

    /** Appends n unnamed shards of weight 1. */
    public Builder shards(int n) {
      for (int i = 0; i < n; i++) shard(null, 1);
      return this;
    }

    public Ring build() {
      int[] w = new int[weights.size()];
      for (int i = 0; i < w.length; i++) w[i] = weights.get(i);
      return new Ring(
          build0(
              algo.ordinal(),
              hash.ordinal(),
              naming.ordinal(),
              keyTags,
              names.toArray(new String[0]),
              w),
          w.length);
    }
  }

  /** The 0-based index of the shard owning key. */
  public int locate(byte[] key) {
    long p = acquire();
    try {
      return locateBytes(p, key, 0, key == null ? 0 : key.length);
    } finally {
      release();
    }
  }

  /** The shard of a String key (its UTF-8 bytes). */
  public int locate(String key) {
    long p = acquire();
    try {
      return locateString(p, key);
    } finally {
      release();
    }
  }

  /** Shards of many keys (Strings or byte[]s), in one native call. */
  public int[] locateBatch(Object... keys) {
    int[] ends = new int[keys.length];
    byte[] data = CloudRoute.pack(keys, ends);
    int[] out = new int[keys.length];
    long p = acquire();
    try {
      locatePacked(p, data, ends, keys.length, out);
    } finally {
      release();
    }
    return out;
  }

  public int shardCount() {
    return shardCount;
  }

  private static native long build0(
      int algo, int hash, int naming, boolean keyTags, String[] names, int[] weights);

  private static native int locateBytes(long h, byte[] key, int off, int len);

  private static native int locateString(long h, String key);

  private static native void locatePacked(long h, byte[] data, int[] ends, int n, int[] out);
}
