package io.cloudroute.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cloudroute.Candidate;
import io.cloudroute.Config;
import io.cloudroute.Role;
import io.cloudroute.jedis.CloudRouteClusterProvider;
import io.cloudroute.jedis.CloudRouteJedisCluster;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.ClusterPipeline;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.Response;
import redis.clients.jedis.args.ClientPauseMode;

/** Jedis's JedisCluster with libcloudroute choosing the read node (tests/java/run.sh). */
class JedisProviderTest {
  private static JedisCluster cluster(ClusterEnv env, CloudRouteClusterProvider[] out) {
    return cluster(env, out, 0);
  }

  private static JedisCluster cluster(
      ClusterEnv env, CloudRouteClusterProvider[] out, int readYourWritesMs) {
    try (Config c = ClusterEnv.cloudA()) {
      CloudRouteClusterProvider p =
          new CloudRouteClusterProvider(
                  env.seeds(),
                  DefaultJedisClientConfig.builder().socketTimeoutMillis(2000).build(),
                  c)
              .readYourWritesMs(readYourWritesMs);
      out[0] = p;
      return new JedisCluster(p, 5, Duration.ofSeconds(10));
    }
  }

  /**
   * tests/java/run.sh runs these classes, compiled once against the default Jedis, against each
   * other Jedis major (-Djedis.version): the Jedis on the class path is the one the run names.
   */
  @Test
  void runsOnTheJedisTheBuildNames() throws Exception {
    Properties jedis = new Properties();
    try (InputStream in =
        JedisCluster.class.getResourceAsStream(
            "/META-INF/maven/redis.clients/jedis/pom.properties")) {
      jedis.load(in);
    }
    assertEquals(System.getProperty("jedis.version"), jedis.getProperty("version"));
  }

  @Test
  void readsLandInTheClientsCloudAndWritesOnMasters() {
    ClusterEnv env = ClusterEnv.require("CR_JAVA_CLUSTER_ENV");
    CloudRouteClusterProvider[] p = new CloudRouteClusterProvider[1];
    try (JedisCluster jc = cluster(env, p)) {
      env.resetStats();
      for (int i = 0; i < 300; i++) jc.set("jedis:k" + i, "v" + i);
      for (int i = 0; i < 300; i++) jc.get("jedis:k" + i);
      for (int s = 1; s <= 3; s++) {
        assertEquals(env.get("SHARD" + s + "_VALUE"), jc.get(env.get("SHARD" + s + "_KEY")));
      }
      Map<Integer, Long> gets = env.calls("get");
      Map<Integer, Long> sets = env.calls("set");
      long total = 0;
      for (Map.Entry<Integer, Long> e : gets.entrySet()) {
        assertTrue(env.inCloudA(e.getKey()), "GETs on node " + e.getKey() + " in cloud B: " + gets);
        total += e.getValue();
      }
      assertEquals(303, total, gets.toString());
      // Replicas count the SETs they replicate too: each key was sent once, to its master.
      long written = 0;
      for (Map.Entry<Integer, Long> e : sets.entrySet()) {
        if (env.isMaster(e.getKey())) written += e.getValue();
      }
      assertEquals(300, written, sets.toString());
      // replicas served reads (READONLY was sent): shard 2's only local node is a replica
      Candidate first =
          p[0].router().candidatesSlot(Integer.parseInt(env.get("SHARD2_KEY_SLOT"))).get(0);
      assertTrue(gets.keySet().stream().anyMatch(n -> env.node(n).getPort() == first.port()));
    }
  }

  @Test
  void aKilledLocalReplicaCostsNoFailedRead() throws Exception {
    ClusterEnv env = ClusterEnv.require("CR_JAVA_KILL_ENV");
    CloudRouteClusterProvider[] p = new CloudRouteClusterProvider[1];
    try (JedisCluster jc = cluster(env, p)) {
      String key = env.get("SHARD2_KEY");
      String value = env.get("SHARD2_VALUE");
      for (int i = 0; i < 20; i++) assertEquals(value, jc.get(key)); // pooled connections
      Candidate local =
          p[0].router().candidatesSlot(Integer.parseInt(env.get("SHARD2_KEY_SLOT"))).get(0);
      assertEquals("127.0.1.6", local.host()); // n6: shard 2's replica in cloud A
      env.kill(6);
      for (int i = 0; i < 200; i++) assertEquals(value, jc.get(key), "read " + i);
      assertTrue(
          p[0].router().candidatesSlot(Integer.parseInt(env.get("SHARD2_KEY_SLOT"))).stream()
              .anyMatch(c -> c.host().equals("127.0.1.6") && c.down()));
    }
  }

  /**
   * Shard 1's master (n1, cloud A) hands over to its cloud-B replica n3: once the provider has seen
   * it, writes go to n3 with no redirect, reads stay on the cloud-A nodes n1 and n2 (both replicas
   * now), and no command fails.
   */
  @Test
  void aFailoverIntoTheOtherCloudIsFollowed() {
    ClusterEnv env = ClusterEnv.require("CR_JAVA_FAILOVER_ENV");
    CloudRouteClusterProvider[] p = new CloudRouteClusterProvider[1];
    try (JedisCluster jc = cluster(env, p)) {
      String key = env.get("SHARD1_KEY");
      String value = env.get("SHARD1_VALUE");
      int slot = Integer.parseInt(env.get("SHARD1_KEY_SLOT"));
      String tagged = "{" + key + "}:jedis-failover:";
      for (int i = 0; i < 20; i++) jc.set(tagged + i, "before"); // pooled connections
      assertEquals("127.0.2.3", env.node(3).getHost());
      env.failover(3);
      int[] i = {0};
      int failed =
          ClusterEnv.untilObserved(
              () -> {
                jc.set(tagged + i[0]++, "after");
                assertEquals(value, jc.get(key));
              },
              () ->
                  p[0].router().candidatesSlot(slot).stream()
                      .anyMatch(c -> c.role() == Role.MASTER && c.port() == env.node(3).getPort()));
      Map<Integer, Long> gets = env.commandsAfterFailover(3, tagged, jc::set, jc::get, key, value);
      assertTrue(
          Set.of(1, 2).containsAll(gets.keySet()),
          "reads off cloud A's n1 and n2: "
              + gets
              + " ("
              + failed
              + " commands failed before the change was seen)");
      assertEquals(200, gets.getOrDefault(1, 0L) + gets.getOrDefault(2, 0L), gets.toString());
    }
  }

  /**
   * Read your writes, with n6 (shard 2's replica in cloud A, read first) not applying its master's
   * stream (CLIENT PAUSE WRITE; it still answers reads): a single read after a write reads n6's old
   * value, a pipeline's read after its write (Jedis's pipeline and CloudRouteJedisCluster's routed
   * one) and a read within the provider's window read the master's.
   */
  @Test
  void pipelinesAndTheWindowReadTheirWrites() {
    ClusterEnv env = ClusterEnv.require("CR_JAVA_CLUSTER_ENV");
    String tag = "{" + env.get("SHARD2_KEY") + "}:jedis-ryw:";
    CloudRouteClusterProvider[] p = new CloudRouteClusterProvider[1];
    CloudRouteClusterProvider[] q = new CloudRouteClusterProvider[1];
    try (JedisCluster off = cluster(env, p);
        JedisCluster on = cluster(env, q, 3000);
        Jedis master = new Jedis(HostAndPort.from(env.get("SHARD2_MASTER")));
        Jedis replica = new Jedis(env.node(6))) {
      for (int i = 0; i < 50; i++) off.set(tag + i, "old");
      assertEquals(2, master.waitReplicas(2, 5000));
      assertEquals("OK", replica.clientPause(30000, ClientPauseMode.WRITE));
      try {
        int stale = 0;
        for (int i = 0; i < 50; i++) {
          off.set(tag + i, "off");
          if (!"off".equals(off.get(tag + i))) stale++;
        }
        assertTrue(stale > 0, "n6 did not lag: the assertions below would prove nothing");
        readsItsWrites(off, tag, "pipe");
        try (CloudRouteJedisCluster routed = JedisPipelineTest.cluster(env, 2000)) {
          readsItsWrites(routed, tag, "routed");
        }
        for (int i = 0; i < 50; i++) {
          on.set(tag + i, "on" + i);
          assertEquals("on" + i, on.get(tag + i), "key " + i);
        }
      } finally {
        replica.clientUnpause();
      }
      assertEquals(2, master.waitReplicas(2, 5000));
    }
  }

  /** One pipeline of 50 SETs, each followed by a GET of its key: every GET reads its SET. */
  private static void readsItsWrites(JedisCluster jc, String tag, String value) {
    try (ClusterPipeline pipe = jc.pipelined()) {
      List<Response<String>> got = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        pipe.set(tag + i, value + i);
        got.add(pipe.get(tag + i));
      }
      pipe.sync();
      for (int i = 0; i < 50; i++) assertEquals(value + i, got.get(i).get(), "key " + i);
    }
  }

  @Test
  void aNegativeWindowIsRefused() {
    ClusterEnv env = ClusterEnv.require("CR_JAVA_CLUSTER_ENV");
    CloudRouteClusterProvider[] p = new CloudRouteClusterProvider[1];
    try (JedisCluster jc = cluster(env, p)) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, () -> p[0].readYourWritesMs(-1));
      assertTrue(e.getMessage().contains("read_your_writes_ms"), e.getMessage());
    }
  }
}
