package io.cloudroute;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * An immutable snapshot of shards and nodes: parsed from a CLUSTER SLOTS or CLUSTER SHARDS reply
 * (its raw RESP2/RESP3 bytes) or from the static text format. Safe to read from any thread; close
 * it when done (a router keeps its own reference).
 */
public final class Topology extends NativeResource {
  /** Which reply the bytes are. */
  public enum Format {
    CLUSTER_SLOTS,
    CLUSTER_SHARDS
  }

  private Topology(long ptr) {
    super(ptr, KIND_TOPOLOGY);
  }

  /** Wraps a new reference the library gave. */
  static Topology adopt(long ptr) {
    return new Topology(ptr);
  }

  /** Parses a reply's raw bytes. */
  public static Topology parse(byte[] reply, Format format) {
    return parse(reply, format, null);
  }

  /**
   * Parses a reply's raw bytes; nodes announced with an empty endpoint get defaultHost (the address
   * that was asked), or stay unknown when it is null.
   */
  public static Topology parse(byte[] reply, Format format, String defaultHost) {
    return new Topology(parse(reply, format.ordinal(), defaultHost));
  }

  public static Topology parseClusterSlots(byte[] reply) {
    return parse(reply, Format.CLUSTER_SLOTS, null);
  }

  public static Topology parseClusterShards(byte[] reply) {
    return parse(reply, Format.CLUSTER_SHARDS, null);
  }

  /**
   * A topology from static text, one shard per line: {@code shard slots=0-8191 master=10.0.0.1:6379
   * replicas=10.1.0.1:6379,10.2.0.1:6379 [id=NAME]}.
   */
  public static Topology parseStatic(String text) {
    return new Topology(parseText(text));
  }

  /** {@link #parseStatic(String)} of UTF-8 bytes. */
  public static Topology parseStatic(byte[] text) {
    return parseStatic(text == null ? null : new String(text, StandardCharsets.UTF_8));
  }

  public int shardCount() {
    long p = acquire();
    try {
      return shardCount0(p);
    } finally {
      release();
    }
  }

  public int nodeCount() {
    long p = acquire();
    try {
      return nodeCount0(p);
    } finally {
      release();
    }
  }

  /** The node at index (0 .. nodeCount()-1). */
  public NodeInfo node(int index) {
    String[] names = new String[4];
    int[] nums = new int[5];
    long p = acquire();
    try {
      node0(p, index, names, nums);
    } finally {
      release();
    }
    return new NodeInfo(
        names[0],
        names[1],
        names[2],
        nums[0],
        nums[1],
        Role.of(nums[2]),
        ReportedHealth.of(nums[3]),
        names[3],
        nums[4]);
  }

  /** Every node, in index order. */
  public List<NodeInfo> nodes() {
    int n = nodeCount();
    List<NodeInfo> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) out.add(node(i));
    return Collections.unmodifiableList(out);
  }

  /** The shard's identity: its master's node id, or "host:port" when the reply had no ids. */
  public String shardId(int shard) {
    long p = acquire();
    try {
      return shardId0(p, shard);
    } finally {
      release();
    }
  }

  /** The shard's slot ranges, inclusive and sorted: {{start, end}, ...}. */
  public int[][] shardRanges(int shard) {
    int[] pairs;
    long p = acquire();
    try {
      pairs = shardRanges0(p, shard);
    } finally {
      release();
    }
    int[][] out = new int[pairs.length / 2][];
    for (int i = 0; i < out.length; i++) out[i] = new int[] {pairs[2 * i], pairs[2 * i + 1]};
    return out;
  }

  /** The shard serving slot; throws UnavailableException (CR_ESLOT_UNCOVERED) when none does. */
  public int slotShard(int slot) {
    long p = acquire();
    try {
      return slotShard0(p, slot);
    } finally {
      release();
    }
  }

  @Override
  public String toString() {
    return isClosed()
        ? "Topology(closed)"
        : "Topology(" + shardCount() + " shards, " + nodeCount() + " nodes)";
  }

  private static native long parse(byte[] reply, int format, String defaultHost);

  private static native long parseText(String text);

  private static native int shardCount0(long h);

  private static native int nodeCount0(long h);

  private static native void node0(long h, int index, String[] names, int[] nums);

  private static native String shardId0(long h, int shard);

  private static native int[] shardRanges0(long h, int shard);

  private static native int slotShard0(long h, int slot);
}
