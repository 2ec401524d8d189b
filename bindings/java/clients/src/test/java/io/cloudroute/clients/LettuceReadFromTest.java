package io.cloudroute.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cloudroute.Config;
import io.cloudroute.lettuce.CloudRouteReadFrom;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Lettuce's cluster client with libcloudroute's ReadFrom (tests/java/run.sh). */
class LettuceReadFromTest {
  /**
   * A cluster client as an application would set it up: commands time out after 5 s, and the
   * topology is re-read when a MOVED or a reconnect says it changed (Lettuce's adaptive refresh).
   */
  private static RedisClusterClient client(ClusterEnv env) {
    List<RedisURI> seeds = new ArrayList<>();
    for (String s : env.get("SEEDS").split(",")) {
      String[] hp = s.split(":");
      seeds.add(
          RedisURI.Builder.redis(hp[0], Integer.parseInt(hp[1]))
              .withTimeout(Duration.ofSeconds(5))
              .build());
    }
    RedisClusterClient client = RedisClusterClient.create(seeds);
    client.setOptions(
        ClusterClientOptions.builder()
            .topologyRefreshOptions(
                ClusterTopologyRefreshOptions.builder()
                    .enableAllAdaptiveRefreshTriggers()
                    .adaptiveRefreshTriggersTimeout(Duration.ofSeconds(1))
                    .build())
            .build());
    return client;
  }

  /** A test body given a connection that reads through CloudRouteReadFrom for cloud A. */
  private interface Body {
    void run(
        StatefulRedisClusterConnection<String, String> conn,
        RedisAdvancedClusterCommands<String, String> cmd)
        throws Exception;
  }

  private static void withConnection(ClusterEnv env, Body body) throws Exception {
    RedisClusterClient client = client(env);
    try (Config c = ClusterEnv.cloudA();
        StatefulRedisClusterConnection<String, String> conn = client.connect()) {
      conn.setReadFrom(CloudRouteReadFrom.readFrom(c));
      body.run(conn, conn.sync());
    } finally {
      client.shutdown();
    }
  }

  @Test
  void readsLandInTheClientsCloudAndWritesOnMasters() throws Exception {
    ClusterEnv env = ClusterEnv.require("CR_JAVA_CLUSTER_ENV");
    withConnection(
        env,
        (conn, cmd) -> {
          env.resetStats();
          for (int i = 0; i < 300; i++) cmd.set("lettuce:k" + i, "v" + i);
          for (int i = 0; i < 300; i++) cmd.get("lettuce:k" + i);
          for (int s = 1; s <= 3; s++) {
            assertEquals(env.get("SHARD" + s + "_VALUE"), cmd.get(env.get("SHARD" + s + "_KEY")));
          }
          Map<Integer, Long> gets = env.calls("get");
          long total = 0;
          for (Map.Entry<Integer, Long> e : gets.entrySet()) {
            assertTrue(
                env.inCloudA(e.getKey()), "GETs on node " + e.getKey() + " in cloud B: " + gets);
            total += e.getValue();
          }
          assertEquals(303, total, gets.toString());
          // local replicas first: shard 1 reads its cloud-A replica (n2), not its master (n1)
          assertEquals(null, gets.get(1), gets.toString());
          assertTrue(gets.get(2) != null && gets.get(6) != null, gets.toString());
          // Replicas count the SETs they replicate too: each key was sent once, to its master.
          Map<Integer, Long> sets = env.calls("set");
          long written = 0;
          for (Map.Entry<Integer, Long> e : sets.entrySet()) {
            if (env.isMaster(e.getKey())) written += e.getValue();
          }
          assertEquals(300, written, sets.toString());
        });
  }

  /**
   * Shard 2's master (n4, cloud B) hands over to its cloud-A replica n6: once Lettuce's partitions
   * show it, writes go to n6 with no redirect, reads land on n6 (shard 2's one cloud-A node) and no
   * command fails.
   */
  @Test
  void aFailoverIntoTheOtherCloudIsFollowed() throws Exception {
    ClusterEnv env = ClusterEnv.require("CR_JAVA_FAILOVER_ENV");
    withConnection(
        env,
        (conn, cmd) -> {
          String key = env.get("SHARD2_KEY");
          String value = env.get("SHARD2_VALUE");
          int slot = Integer.parseInt(env.get("SHARD2_KEY_SLOT"));
          String tagged = "{" + key + "}:lettuce-failover:";
          for (int i = 0; i < 20; i++) assertEquals(value, cmd.get(key)); // reader connections
          assertEquals("127.0.1.6", env.node(6).getHost());
          env.failover(6);
          int[] i = {0};
          int failed =
              ClusterEnv.untilObserved(
                  () -> {
                    cmd.set(tagged + i[0]++, "after");
                    assertEquals(value, cmd.get(key));
                  },
                  () ->
                      conn.getPartitions().getPartitionBySlot(slot).getUri().getPort()
                          == env.node(6).getPort());
          assertEquals(
              Map.of(6, 200L),
              env.commandsAfterFailover(6, tagged, cmd::set, cmd::get, key, value),
              "reads (" + failed + " commands failed before the change was seen)");
        });
  }

  /** Shard 1's cloud-A replica n2 is killed: every read still succeeds, on cloud A's n1. */
  @Test
  void aKilledLocalReplicaCostsNoFailedRead() throws Exception {
    ClusterEnv env = ClusterEnv.require("CR_JAVA_KILL_ENV");
    withConnection(
        env,
        (conn, cmd) -> {
          String key = env.get("SHARD1_KEY");
          String value = env.get("SHARD1_VALUE");
          long before = env.calls(2, "get");
          for (int i = 0; i < 20; i++) assertEquals(value, cmd.get(key));
          assertEquals(before + 20, env.calls(2, "get"), "reads on the local replica n2 first");
          assertEquals("127.0.1.2", env.node(2).getHost());
          env.kill(2);
          long onMaster = env.calls(1, "get");
          for (int i = 0; i < 200; i++) assertEquals(value, cmd.get(key), "read " + i);
          assertEquals(onMaster + 200, env.calls(1, "get"), "reads on cloud A's master n1");
        });
  }
}
