package io.cloudroute.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cloudroute.Candidate;
import io.cloudroute.Config;
import io.cloudroute.Policy;
import io.cloudroute.Tier;
import io.cloudroute.jedis.CloudRouteClusterProvider;
import io.cloudroute.jedis.CloudRouteJedisCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.ClusterPipeline;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Response;

/**
 * The Jedis provider on Valkey 9.1 servers that name their own zone ({@code availability-zone}),
 * given nothing but the client's zone: each node's zone comes from the servers (CLUSTER SHARDS, or
 * INFO server where the topology carried none) and its RTT from the provider's own probe, so reads
 * stay in the client's zone (CR_JAVA_VALKEY9_ENV: tests/java/run.sh's Valkey 9.1 cluster).
 */
class JedisProviderZonesTest {
  @Test
  void zonesFromTheServersAndRttFromTheProbe() {
    ClusterEnv env = ClusterEnv.require("CR_JAVA_VALKEY9_ENV");
    for (int n = 1; n <= env.nodeCount(); n++) {
      try (Jedis node = new Jedis(env.node(n))) {
        assertEquals("OK", node.configSet("availability-zone", env.inCloudA(n) ? "az-a" : "az-b"));
      }
    }
    Config config = new Config().clientZone("az-a").policy(Policy.LOCAL_REPLICAS_FIRST);
    try (config;
        CloudRouteJedisCluster jc = cluster(env, config)) {
      List<String> keys = new ArrayList<>();
      for (int s = 1; s <= 3; s++) {
        int slot = Integer.parseInt(env.get("SHARD" + s + "_KEY_SLOT"));
        List<Candidate> candidates = jc.provider().router().candidatesSlot(slot);
        Candidate first = candidates.get(0);
        assertEquals(Tier.LOCAL, first.tier(), "shard " + s + ": " + candidates);
        assertTrue(
            env.get("CLOUD_A_NODES").contains(first.address()), "shard " + s + ": " + candidates);
        for (Candidate c : candidates) {
          boolean inA = env.get("CLOUD_A_NODES").contains(c.address());
          assertEquals(inA ? Tier.LOCAL : Tier.SAME_REGION, c.tier(), c.toString());
        }
        keys.add(env.get("SHARD" + s + "_KEY"));
      }
      env.resetStats();
      List<Response<String>> replies = new ArrayList<>();
      try (ClusterPipeline p = jc.pipelined()) {
        for (String k : keys) replies.add(p.get(k));
      }
      for (int s = 1; s <= 3; s++) {
        assertEquals(env.get("SHARD" + s + "_VALUE"), replies.get(s - 1).get());
        assertEquals(env.get("SHARD" + s + "_VALUE"), jc.get(keys.get(s - 1)));
      }
      Map<Integer, Long> gets = env.calls("get");
      long total = 0;
      for (Map.Entry<Integer, Long> e : gets.entrySet()) {
        assertTrue(env.inCloudA(e.getKey()), "a GET served out of az-a: " + gets);
        total += e.getValue();
      }
      assertEquals(6, total, "GETs: " + gets);
    }
  }

  /** Under Policy.NEAREST the candidates carry the RTT the provider measured for every node. */
  @Test
  void everyNodesRttFromTheProbe() {
    ClusterEnv env = ClusterEnv.require("CR_JAVA_VALKEY9_ENV");
    Config config = new Config().clientZone("az-a").policy(Policy.NEAREST);
    try (config;
        CloudRouteJedisCluster jc = cluster(env, config)) {
      for (int s = 1; s <= 3; s++) {
        int slot = Integer.parseInt(env.get("SHARD" + s + "_KEY_SLOT"));
        List<Candidate> candidates = jc.provider().router().candidatesSlot(slot);
        assertEquals(3, candidates.size(), candidates.toString());
        for (Candidate c : candidates) assertTrue(c.rttUs() > 0, "no RTT measured for " + c);
      }
    }
  }

  private static CloudRouteJedisCluster cluster(ClusterEnv env, Config config) {
    return new CloudRouteJedisCluster(
        new CloudRouteClusterProvider(
            env.seeds(),
            DefaultJedisClientConfig.builder().socketTimeoutMillis(2000).build(),
            config),
        5,
        Duration.ofSeconds(10));
  }
}
