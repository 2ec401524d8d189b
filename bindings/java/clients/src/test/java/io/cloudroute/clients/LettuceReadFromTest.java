package io.cloudroute.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cloudroute.Config;
import io.cloudroute.lettuce.CloudRouteReadFrom;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Lettuce's cluster client with libcloudroute's ReadFrom (tests/java/run.sh). */
class LettuceReadFromTest {
  @Test
  void readsLandInTheClientsCloudAndWritesOnMasters() {
    ClusterEnv env = ClusterEnv.require("CR_JAVA_CLUSTER_ENV");
    List<RedisURI> seeds = new ArrayList<>();
    for (String s : env.get("SEEDS").split(",")) {
      String[] hp = s.split(":");
      seeds.add(RedisURI.create(hp[0], Integer.parseInt(hp[1])));
    }
    RedisClusterClient client = RedisClusterClient.create(seeds);
    try (Config c = ClusterEnv.cloudA();
        StatefulRedisClusterConnection<String, String> conn = client.connect()) {
      conn.setReadFrom(CloudRouteReadFrom.readFrom(c));
      RedisAdvancedClusterCommands<String, String> cmd = conn.sync();
      env.resetStats();
      for (int i = 0; i < 300; i++) cmd.set("lettuce:k" + i, "v" + i);
      for (int i = 0; i < 300; i++) cmd.get("lettuce:k" + i);
      for (int s = 1; s <= 3; s++) {
        assertEquals(env.get("SHARD" + s + "_VALUE"), cmd.get(env.get("SHARD" + s + "_KEY")));
      }
      Map<Integer, Long> gets = env.calls("get");
      long total = 0;
      for (Map.Entry<Integer, Long> e : gets.entrySet()) {
        assertTrue(env.inCloudA(e.getKey()), "GETs on node " + e.getKey() + " in cloud B: " + gets);
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
    } finally {
      client.shutdown();
    }
  }
}
