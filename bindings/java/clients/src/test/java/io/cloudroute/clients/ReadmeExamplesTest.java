package io.cloudroute.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.cloudroute.Config;
import io.cloudroute.jedis.CloudRouteClusterProvider;
import io.cloudroute.lettuce.CloudRouteReadFrom;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisCluster;

/**
 * The README's Jedis and Lettuce examples, line for line (tests/readme/snippets.py fails when the
 * README and this file differ; the README's seed 127.0.1.1, 7001 is SEED_HOST, SEED_PORT here),
 * run against the harness cluster, and where their reads went checked.
 */
class ReadmeExamplesTest {
  private static String printed(Runnable body) {
    PrintStream saved = System.out;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    try {
      body.run();
    } finally {
      System.setOut(saved);
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void jedis() {
    ClusterEnv env = ClusterEnv.require("CR_JAVA_CLUSTER_ENV");
    HostAndPort first = HostAndPort.from(env.get("SEEDS").split(",")[0]);
    final String SEED_HOST = first.getHost();
    final int SEED_PORT = first.getPort();
    String out = printed(() -> {
      // README snippet java-jedis
      try (Config config = new Config().localCidr("127.0.1.0/24")) {
        CloudRouteClusterProvider provider = new CloudRouteClusterProvider(
            Set.of(new HostAndPort(SEED_HOST, SEED_PORT)), DefaultJedisClientConfig.builder().build(), config);
        try (JedisCluster jedis = new JedisCluster(provider, 5, Duration.ofSeconds(10))) {
          jedis.set("user:1000", "alice");
          System.out.println(jedis.get("user:1000")); // read in cloud A
        }
      }
    });
    assertEquals("alice\n", out);
  }

  @Test
  void lettuce() {
    ClusterEnv env = ClusterEnv.require("CR_JAVA_CLUSTER_ENV");
    String[] first = env.get("SEEDS").split(",")[0].split(":");
    final String SEED_HOST = first[0];
    final int SEED_PORT = Integer.parseInt(first[1]);
    String out = printed(() -> {
      // README snippet java-lettuce
      RedisClusterClient lettuce = RedisClusterClient.create(RedisURI.create(SEED_HOST, SEED_PORT));
      try (Config config = new Config().localCidr("127.0.1.0/24");
          StatefulRedisClusterConnection<String, String> connection = lettuce.connect()) {
        connection.setReadFrom(CloudRouteReadFrom.readFrom(config));
        connection.sync().set("user:1000", "alice");
        System.out.println(connection.sync().get("user:1000")); // read in cloud A
      } finally {
        lettuce.shutdown();
      }
    });
    assertEquals("alice\n", out);
  }
}
