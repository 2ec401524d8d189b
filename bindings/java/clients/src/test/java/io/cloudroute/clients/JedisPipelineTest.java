package io.cloudroute.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cloudroute.Candidate;
import io.cloudroute.CloudRoute;
import io.cloudroute.Config;
import io.cloudroute.Policy;
import io.cloudroute.jedis.CloudRouteClusterProvider;
import io.cloudroute.jedis.CloudRouteJedisCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.ClusterPipeline;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * CloudRouteJedisCluster's pipelines on the two-cloud cluster (tests/java/run.sh; also run with
 * each Jedis major the stage selects): where the commands land, and the replies' order.
 */
class JedisPipelineTest {
  static CloudRouteJedisCluster cluster(ClusterEnv env, int socketTimeoutMs) {
    try (Config c = ClusterEnv.cloudA()) {
      CloudRouteClusterProvider p =
          new CloudRouteClusterProvider(
              env.seeds(),
              DefaultJedisClientConfig.builder().socketTimeoutMillis(socketTimeoutMs).build(),
              c);
      return new CloudRouteJedisCluster(p, 5, Duration.ofSeconds(10));
    }
  }

  /** 60 keys, 20 per shard (tagged with the shard's key). */
  static List<String> keysOverEveryShard(ClusterEnv env, String prefix) {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      keys.add("{" + env.get("SHARD" + (i % 3 + 1) + "_KEY") + "}:" + prefix + i);
    }
    return keys;
  }

  /**
   * The seed workload's reads — 60 GETs and one MGET of the same 60 keys over every shard — are
   * served by cloud-A nodes only (shard 2's only cloud-A node is its replica n6, so replicas serve
   * them), the MGET as one MGET per slot, the values in key order; the SETs that wrote them reached
   * the masters.
   */
  @Test
  void pipelinedReadsLandInTheClientsCloud() {
    ClusterEnv env = ClusterEnv.require("CR_JAVA_CLUSTER_ENV");
    List<String> keys = keysOverEveryShard(env, "jedis-pipe:");
    try (CloudRouteJedisCluster jc = cluster(env, 2000)) {
      env.resetStats();
      // Jedis 8's pipelined(ExecutorService) overload routes too.
      try (ClusterPipeline p = jc.pipelined(ForkJoinPool.commonPool())) {
        for (int i = 0; i < keys.size(); i++) p.set(keys.get(i), "v" + i);
      }
      Map<Integer, Long> sets = env.calls("set");
      long written = 0;
      for (Map.Entry<Integer, Long> e : sets.entrySet()) {
        if (env.isMaster(e.getKey())) written += e.getValue();
      }
      assertEquals(60, written, "SETs on the masters: " + sets);
      for (int i = 0; i < 3; i++) assertEquals(2L, jc.waitReplicas(keys.get(i), 2, 5000));
      env.resetStats();
      List<Response<String>> gets = new ArrayList<>();
      Response<List<String>> mget;
      try (ClusterPipeline p = jc.pipelined()) {
        for (String k : keys) gets.add(p.get(k));
        mget = p.mget(keys.toArray(new String[0]));
      }
      for (int i = 0; i < keys.size(); i++) {
        assertEquals("v" + i, gets.get(i).get(), keys.get(i));
        assertEquals("v" + i, mget.get().get(i), keys.get(i));
      }
      Map<Integer, Long> getCalls = env.calls("get");
      Map<Integer, Long> mgetCalls = env.calls("mget");
      assertEquals(60, getCalls.values().stream().mapToLong(Long::longValue).sum(), "" + getCalls);
      Set<Integer> slots = new HashSet<>();
      for (String k : keys) slots.add(CloudRoute.keyslot(k));
      assertEquals(
          slots.size(),
          mgetCalls.values().stream().mapToLong(Long::longValue).sum(),
          "" + mgetCalls);
      for (Map<Integer, Long> calls : List.of(getCalls, mgetCalls)) {
        for (int n : calls.keySet()) {
          assertTrue(env.inCloudA(n), "a read on cloud-B node n" + n + ": " + calls);
        }
      }
      assertTrue(getCalls.containsKey(6), "shard 2's reads on its cloud-A replica n6: " + getCalls);
      assertEquals(0, env.rejectedCalls(), "no redirect");
    }
  }

  /**
   * Eight threads share a cluster whose pools hold two connections per node: each sync takes its
   * nodes' connections in the same order, so no two pipelines wait for each other's (Jedis's pools
   * wait for a free connection without bound). 400 pipelines of 60 reads over every shard end,
   * every value right.
   */
  @Test
  void threadsSharingSmallPoolsNeverWaitForEachOther() throws Exception {
    ClusterEnv env = ClusterEnv.require("CR_JAVA_CLUSTER_ENV");
    List<String> keys = keysOverEveryShard(env, "jedis-pool:");
    GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
    pool.setMaxTotal(2);
    try (Config c = ClusterEnv.cloudA();
        CloudRouteJedisCluster jc =
            new CloudRouteJedisCluster(
                new CloudRouteClusterProvider(
                    env.seeds(), DefaultJedisClientConfig.builder().build(), pool, c),
                5,
                Duration.ofSeconds(10))) {
      try (ClusterPipeline p = jc.pipelined()) {
        for (String k : keys) p.set(k, k);
      }
      for (int i = 0; i < 3; i++) assertEquals(2L, jc.waitReplicas(keys.get(i), 2, 5000));
      AtomicInteger wrong = new AtomicInteger();
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        // Each thread queues the keys from another start: its first commands go to another
        // shard, so the threads meet the nodes in different orders.
        List<String> mine = new ArrayList<>(keys.subList(t, keys.size()));
        mine.addAll(keys.subList(0, t));
        Thread th =
            new Thread(
                () -> {
                  for (int n = 0; n < 50; n++) {
                    List<Response<String>> got = new ArrayList<>();
                    try (ClusterPipeline p = jc.pipelined()) {
                      for (String k : mine) got.add(p.get(k));
                    }
                    for (int i = 0; i < mine.size(); i++) {
                      if (!mine.get(i).equals(got.get(i).get())) wrong.incrementAndGet();
                    }
                  }
                });
        th.setDaemon(true);
        th.start();
        threads.add(th);
      }
      for (Thread th : threads) {
        th.join(60_000);
        assertTrue(!th.isAlive(), "a pipeline still waits after 60 s");
      }
      assertEquals(0, wrong.get());
    }
  }

  /**
   * The provider reads CLUSTER SHARDS and asks each node INFO server once: with Policy.NEAREST
   * (which ranks by RTT) every candidate of every shard carries the round trip measured.
   */
  @Test
  void theProviderMeasuresEveryNodesRtt() {
    ClusterEnv env = ClusterEnv.require("CR_JAVA_CLUSTER_ENV");
    try (Config c = ClusterEnv.cloudA().policy(Policy.NEAREST);
        CloudRouteClusterProvider p =
            new CloudRouteClusterProvider(
                env.seeds(), DefaultJedisClientConfig.builder().build(), c)) {
      for (int s = 1; s <= 3; s++) {
        List<Candidate> candidates =
            p.router().candidatesSlot(Integer.parseInt(env.get("SHARD" + s + "_KEY_SLOT")));
        assertEquals(3, candidates.size(), candidates.toString());
        for (Candidate cand : candidates) assertTrue(cand.rttUs() > 0, "no RTT: " + candidates);
      }
    }
  }

  /**
   * Any mix in one pipeline: replies in the order queued, an error in its place (its Response
   * throws, the others do not), a read after a write of the same key reads it, a missing key is
   * null.
   */
  @Test
  void repliesComeInOrderWithErrorsInPlace() {
    ClusterEnv env = ClusterEnv.require("CR_JAVA_CLUSTER_ENV");
    List<String> keys = keysOverEveryShard(env, "jedis-mix:");
    try (CloudRouteJedisCluster jc = cluster(env, 2000)) {
      List<Response<?>> rs = new ArrayList<>();
      try (ClusterPipeline p = jc.pipelined()) {
        for (int i = 0; i < 6; i++) {
          String k = keys.get(i);
          rs.add(p.del(k));
          rs.add(p.set(k, "text" + i));
          rs.add(p.incr(k)); // not an integer: an error
          rs.add(p.get(k));
          rs.add(p.append(k, "!"));
          rs.add(p.get(k + ":missing"));
        }
      }
      for (int i = 0; i < 6; i++) {
        int at = i * 6;
        assertTrue(((Long) rs.get(at).get()) >= 0);
        assertEquals("OK", rs.get(at + 1).get());
        Response<?> incr = rs.get(at + 2);
        JedisDataException e = assertThrows(JedisDataException.class, incr::get);
        assertTrue(e.getMessage().contains("not an integer"), e.getMessage());
        assertEquals("text" + i, rs.get(at + 3).get());
        assertEquals((long) ("text" + i + "!").length(), rs.get(at + 4).get());
        assertNull(rs.get(at + 5).get());
      }
    }
  }
}
