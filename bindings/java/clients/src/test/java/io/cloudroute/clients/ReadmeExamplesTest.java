package io.cloudroute.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cloudroute.Config;
import io.cloudroute.CloudRoute;
import io.cloudroute.jedis.CloudRouteClusterProvider;
import io.cloudroute.jedis.CloudRouteJedisCluster;
import io.cloudroute.lettuce.CloudRouteReadFrom;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import redis.clients.jedis.ClusterPipeline;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.Response;

/**
 * The Jedis, Lettuce and Spring Data Redis examples of docs/guide.md, line for line (tests/readme/snippets.py fails
 * when the guide and this file differ; the examples' seed 127.0.1.1, 7001 is SEED_HOST, SEED_PORT here),
 * run against the harness cluster: the example's SET reaches the master, its reads (the Jedis
 * example's pipelined GET and per-slot MGETs too) cloud-A nodes.
 */
class ReadmeExamplesTest {
  private static void check(ClusterEnv env, Runnable example) {
    check(env, 1, 0, example);
  }

  /** The example's GETs and MGETs, each in cloud A, counted; its SET reached the master. */
  private static void check(ClusterEnv env, long getCalls, long mgetCalls, Runnable example) {
    try (JedisCluster plain = new JedisCluster(env.seeds())) {
      plain.del("user:1000");
      plain.del("user:1001");
      env.resetStats();
      example.run();
      for (String command : List.of("get", "mget")) {
        Map<String, Long> expected = Map.of("get", getCalls, "mget", mgetCalls);
        Map<Integer, Long> calls = env.calls(command);
        assertEquals(
            expected.get(command),
            calls.values().stream().mapToLong(Long::longValue).sum(),
            command + ": " + calls);
        for (int n : calls.keySet()) {
          assertTrue(env.inCloudA(n), "a " + command + " went to cloud B: " + calls);
        }
      }
      assertEquals("alice", plain.get("user:1000"));
    }
  }

  @Test
  void jedis() {
    ClusterEnv env = ClusterEnv.require("CR_JAVA_CLUSTER_ENV");
    HostAndPort first = HostAndPort.from(env.get("SEEDS").split(",")[0]);
    final String SEED_HOST = first.getHost();
    final int SEED_PORT = first.getPort();
    long slots = CloudRoute.keyslot("user:1000") == CloudRoute.keyslot("user:1001") ? 1 : 2;
    check(env, 2, slots, () -> {
      // README snippet java-jedis
      try (Config config = new Config().localCidr("127.0.1.0/24")) {
        CloudRouteClusterProvider provider = new CloudRouteClusterProvider(
            Set.of(new HostAndPort(SEED_HOST, SEED_PORT)), DefaultJedisClientConfig.builder().build(), config);
        try (CloudRouteJedisCluster jedis = new CloudRouteJedisCluster(provider, 5, Duration.ofSeconds(10))) {
          jedis.set("user:1000", "alice");
          System.out.println(jedis.get("user:1000")); // read in cloud A
          try (ClusterPipeline pipe = jedis.pipelined()) {
            Response<String> name = pipe.get("user:1000"); // read in cloud A
            Response<List<String>> names = pipe.mget("user:1000", "user:1001"); // one MGET per slot
            pipe.sync();
            System.out.println(name.get() + " " + names.get()); // alice [alice, null]
          }
        }
      }
    });
  }

  @Test
  void lettuce() {
    ClusterEnv env = ClusterEnv.require("CR_JAVA_CLUSTER_ENV");
    String[] first = env.get("SEEDS").split(",")[0].split(":");
    final String SEED_HOST = first[0];
    final int SEED_PORT = Integer.parseInt(first[1]);
    final String SEEDS = SEED_HOST + ":" + SEED_PORT;
    check(env, () -> {
      // README snippet java-lettuce
      RedisClusterClient lettuce = RedisClusterClient.create(RedisURI.create(SEED_HOST, SEED_PORT));
      try (Config config = new Config().localCidr("127.0.1.0/24");
          CloudRouteReadFrom readFrom = CloudRouteReadFrom.connect(SEEDS, config).attach(lettuce);
          StatefulRedisClusterConnection<String, String> connection = lettuce.connect()) {
        connection.setReadFrom(readFrom);
        connection.sync().set("user:1000", "alice");
        System.out.println(connection.sync().get("user:1000")); // read in cloud A
      } finally {
        lettuce.shutdown();
      }
    });
  }

  @Test
  void spring() {
    ClusterEnv env = ClusterEnv.require("CR_JAVA_CLUSTER_ENV");
    String[] first = env.get("SEEDS").split(",")[0].split(":");
    final String SEEDS = first[0] + ":" + first[1];
    check(env, () -> {
      // README snippet java-spring
      try (Config config = new Config().localCidr("127.0.1.0/24");
          CloudRouteReadFrom readFrom = CloudRouteReadFrom.connect(SEEDS, config)) {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
            new RedisClusterConfiguration(List.of(SEEDS)),
            LettuceClientConfiguration.builder().readFrom(readFrom).build());
        factory.afterPropertiesSet();
        readFrom.attach((RedisClusterClient) factory.getRequiredNativeClient());
        StringRedisTemplate redis = new StringRedisTemplate(factory);
        redis.opsForValue().set("user:1000", "alice");
        System.out.println(redis.opsForValue().get("user:1000")); // read in cloud A
        factory.destroy();
      }
    });
  }
}
