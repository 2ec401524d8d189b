package io.cloudroute.jedis;

import io.cloudroute.CloudRoute;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import redis.clients.jedis.Builder;
import redis.clients.jedis.BuilderFactory;
import redis.clients.jedis.ClusterCommandObjects;
import redis.clients.jedis.ClusterPipeline;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Response;

/**
 * A {@link ClusterPipeline} whose single-slot commands libcloudroute places (what {@link
 * CloudRouteJedisCluster#pipelined()} returns): reads on the slot's best candidate, cloud-local
 * replicas first, writes on the master, MOVED and ASK followed, a failed read moved to its next
 * candidate (see {@link RoutedBatch}). An MGET over several slots is split into one MGET per slot,
 * sent with the rest (each node gets its slots' MGETs in one round trip) and merged back in key
 * order into the one Response. Keyless and other multi-slot commands are Jedis's own (as in a plain
 * ClusterPipeline). Replies are in the order queued; an error is a JedisDataException thrown by
 * that Response's get().
 *
 * <p>Not thread-safe: one pipeline, one thread (as Jedis's pipelines).
 */
public class CloudRoutePipeline extends ClusterPipeline {
  private final CloudRouteClusterProvider provider;
  private final int maxAttempts;
  private final long maxRetryNanos;
  // The node key of every routed command: one queue, one RoutedBatch (port 0: no real node).
  private final HostAndPort routed = new HostAndPort("cloudroute-routed", 0);

  CloudRoutePipeline(
      CloudRouteClusterProvider provider,
      ClusterCommandObjects commandObjects,
      int maxAttempts,
      long maxRetryNanos) {
    super(provider, commandObjects);
    this.provider = provider;
    this.maxAttempts = maxAttempts;
    this.maxRetryNanos = maxRetryNanos;
  }

  @Override
  protected HostAndPort getNodeKey(CommandArguments args) {
    return CloudRouteClusterProvider.slotOf(args.getKeys()) >= 0 ? routed : super.getNodeKey(args);
  }

  @Override
  protected Connection getConnection(HostAndPort nodeKey) {
    return nodeKey == routed
        ? new RoutedBatch(provider, maxAttempts, maxRetryNanos)
        : super.getConnection(nodeKey);
  }

  @Override
  public Response<List<String>> mget(String... keys) {
    int[][] groups = bySlot(keys);
    if (groups == null) return super.mget(keys);
    List<Response<List<String>>> parts = new ArrayList<>(groups.length);
    for (int[] g : groups) {
      String[] sub = new String[g.length];
      for (int i = 0; i < g.length; i++) sub[i] = keys[g[i]];
      parts.add(super.mget(sub));
    }
    return new Merged<>(BuilderFactory.STRING_LIST, keys.length, groups, parts);
  }

  @Override
  public Response<List<byte[]>> mget(byte[]... keys) {
    int[][] groups = bySlot(keys);
    if (groups == null) return super.mget(keys);
    List<Response<List<byte[]>>> parts = new ArrayList<>(groups.length);
    for (int[] g : groups) {
      byte[][] sub = new byte[g.length][];
      for (int i = 0; i < g.length; i++) sub[i] = keys[g[i]];
      parts.add(super.mget(sub));
    }
    return new Merged<>(BuilderFactory.BINARY_LIST, keys.length, groups, parts);
  }

  /** The keys' positions grouped by slot (first-seen order); null for one slot, or a null key. */
  private static int[][] bySlot(Object[] keys) {
    if (keys == null || keys.length < 2) return null;
    for (Object k : keys) {
      if (k == null) return null; // Jedis's own refusal
    }
    int[] slots = CloudRoute.keyslots(keys);
    Map<Integer, List<Integer>> groups = new LinkedHashMap<>();
    for (int i = 0; i < slots.length; i++) {
      groups.computeIfAbsent(slots[i], s -> new ArrayList<>()).add(i);
    }
    if (groups.size() == 1) return null;
    int[][] out = new int[groups.size()][];
    int n = 0;
    for (List<Integer> g : groups.values()) {
      out[n++] = g.stream().mapToInt(Integer::intValue).toArray();
    }
    return out;
  }

  /** One MGET's Response over its per-slot MGETs: values back in key order. */
  private static final class Merged<T> extends Response<List<T>> {
    private final int size;
    private final int[][] groups;
    private final List<Response<List<T>>> parts;
    private List<T> merged;

    Merged(Builder<List<T>> builder, int size, int[][] groups, List<Response<List<T>>> parts) {
      super(builder);
      this.size = size;
      this.groups = groups;
      this.parts = parts;
    }

    /** The values in key order; the first part's error (thrown) when a per-slot MGET failed. */
    @Override
    public List<T> get() {
      if (merged == null) {
        @SuppressWarnings("unchecked")
        T[] out = (T[]) new Object[size];
        for (int p = 0; p < groups.length; p++) {
          List<T> values = parts.get(p).get();
          for (int i = 0; i < groups[p].length; i++) out[groups[p][i]] = values.get(i);
        }
        merged = Arrays.asList(out);
      }
      return merged;
    }

    @Override
    public String toString() {
      return "Response (MGET over " + groups.length + " slots)";
    }
  }
}
