package io.cloudroute.lettuce;

import io.cloudroute.Candidate;
import io.cloudroute.Config;
import io.cloudroute.Router;
import io.cloudroute.Topology;
import io.lettuce.core.ReadFrom;
import io.lettuce.core.RedisURI;
import io.lettuce.core.models.role.RedisNodeDescription;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A Lettuce {@link ReadFrom} that orders a slot's nodes (its master and replicas) as libcloudroute
 * ranks them for the {@link Config}: cloud-local nodes first, by the config's policy. {@code
 * connection.setReadFrom(CloudRouteReadFrom.readFrom(config))} is the whole change; Lettuce tries
 * the nodes in this order. The config is copied: closing it afterwards is fine.
 *
 * <p>Each distinct set of nodes is ranked once (libcloudroute's candidate order for a shard made of
 * exactly those nodes) and remembered.
 */
public final class CloudRouteReadFrom extends ReadFrom {
  private static final int MAX_CACHED = 4096;
  private final Router router;
  private final Map<String, Map<String, Integer>> ranks = new ConcurrentHashMap<>();

  private CloudRouteReadFrom(Config config) {
    router = new Router(config);
  }

  /** The ReadFrom for config (null: libcloudroute's defaults). */
  public static CloudRouteReadFrom readFrom(Config config) {
    return new CloudRouteReadFrom(config);
  }

  private static String address(RedisURI uri) {
    String h = uri.getHost();
    return (h.indexOf(':') >= 0 ? "[" + h + "]" : h) + ":" + uri.getPort();
  }

  @Override
  public List<RedisNodeDescription> select(Nodes nodes) {
    List<RedisNodeDescription> list = nodes.getNodes();
    String master = null;
    StringBuilder key = new StringBuilder();
    StringBuilder replicas = new StringBuilder();
    for (RedisNodeDescription n : list) {
      String a = address(n.getUri());
      if (n.getRole().isUpstream()) {
        master = a;
      } else {
        replicas.append(replicas.length() == 0 ? "" : ",").append(a);
      }
      key.append(n.getRole().isUpstream() ? 'M' : 'R').append(a).append(' ');
    }
    if (master == null) return list; // no master to anchor a shard on: Lettuce's order
    String m = master;
    Map<String, Integer> rank = ranks.computeIfAbsent(key.toString(), k -> rank(m, replicas));
    List<RedisNodeDescription> ordered = new ArrayList<>(list);
    ordered.sort(
        Comparator.comparingInt(n -> rank.getOrDefault(address(n.getUri()), Integer.MAX_VALUE)));
    return ordered;
  }

  /** libcloudroute's candidate order of a one-shard topology of these nodes. */
  private Map<String, Integer> rank(String master, CharSequence replicas) {
    if (ranks.size() >= MAX_CACHED) ranks.clear();
    String text =
        "shard master=" + master + (replicas.length() > 0 ? " replicas=" + replicas : "") + "\n";
    Map<String, Integer> out = new HashMap<>();
    synchronized (router) {
      try (Topology t = Topology.parseStatic(text)) {
        router.update(t);
      }
      List<Candidate> order = router.candidatesSlot(0);
      for (int i = 0; i < order.size(); i++) out.put(order.get(i).address(), i);
    }
    return out;
  }

  @Override
  protected boolean isOrderSensitive() {
    return true;
  }
}
