package io.cloudroute;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.JedisShardInfo;
import redis.clients.jedis.ShardedJedis;

/**
 * The Java examples of the README and docs/guide.md ("README snippet NAME" marks each), line for
 * line (tests/readme/snippets.py fails when the document and this file differ; the examples' seed
 * 127.0.1.1:7001 is SEEDS here), run and their output checked.
 */
class ReadmeExamplesTest {
  /** What body prints on System.out. */
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
  void javaRouter() {
    String out = printed(() -> {
      // README snippet java-router
      try (Config config = new Config().localCidr("10.0.0.0/24").policy(Policy.LOCAL_REPLICAS_FIRST);
          Topology topology = Topology.parseStatic(
              "shard slots=0-16383 master=10.2.0.1:6379 replicas=10.0.0.2:6379\n");
          Router router = new Router(config, topology)) {
        Route read = router.routeRead("user:1"); // 10.0.0.2:6379, the replica in the client's zone
        System.out.println(read.host() + ":" + read.port());
      }
    });
    assertEquals("10.0.0.2:6379\n", out);
  }

  @Test
  void javaClient() {
    final String SEEDS = Harness.require("CR_JAVA_CLUSTER_ENV").get("SEEDS").split(",")[0];
    String out = printed(() -> {
      // README snippet java-client
      try (Config config = new Config().localCidr("127.0.1.0/24");
          Client client = Client.connect(SEEDS, config)) {
        client.set("user:1000", "alice");
        Pipeline p = client.pipeline(); // any commands, any slots, one round trip
        p.set("user:1", "bob").get("user:1").hgetAll("profile:1");
        List<Object> replies = p.execute(); // [true, "bob", {}]; errors in place
        System.out.println(client.get("user:1000") + " " + replies);
      }
    });
    assertEquals("alice [true, bob, {}]\n", out);
  }

  @Test
  void javaPubSub() {
    final String SEEDS = Harness.require("CR_JAVA_CLUSTER_ENV").get("SEEDS").split(",")[0];
    String out = printed(() -> {
      // README snippet java-pubsub
      try (Config config = new Config().localCidr("127.0.1.0/24");
          Client client = Client.connect(SEEDS, config);
          Subscription sub = client.subscribe().add(ChannelKind.CHANNEL, "news")) {
        Message m = sub.next(Duration.ofSeconds(5)); // SUBSCRIBED, on a node of the client's cloud
        client.publish("news", "hello"); // how many subscribers got it
        m = sub.next(Duration.ofSeconds(5)); // or client.subscribe(listener): a thread calls it
        System.out.println(m.type() + " " + m.channelString() + " " + m.payloadString());
      }
    });
    assertEquals("message news hello\n", out);
  }

  @Test
  void javaShardedJedisBeforeAndAfter() {
    Standalone.basePort(); // the example's servers 8968-8969 are in the JVM stage's range
    try (Standalone servers = Standalone.start(8968, 8969)) {
      String out = printed(() -> {
        // README snippet java-shardedjedis-before
        // Before: Jedis 3
        List<JedisShardInfo> shards = List.of(new JedisShardInfo("127.0.0.1", 8968, "cache-a"),
            new JedisShardInfo("127.0.0.1", 8969, "cache-b"));
        try (ShardedJedis jedis = new ShardedJedis(shards)) {
          jedis.set("user:1", "alice");
        }
        // README snippet java-shardedjedis-after
        // After: libcloudroute, the same shards (ShardedJedis's MurmurHash ring)
        try (Ring ring = Ring.builder().hash(HashAlgo.MURMUR).shard("cache-a", 1).shard("cache-b", 1).build();
            ShardedClient client = new ShardedClient(List.of("127.0.0.1:8968", "127.0.0.1:8969"), ring)) {
          System.out.println(client.get("user:1")); // alice: found where ShardedJedis put it
          client.mset(Map.of("user:2", "bob", "user:3", "carol")); // one MSET per shard, both at once
          System.out.println(client.exists("user:1", "user:2", "user:3")); // 3
        }
      });
      assertEquals("alice\n3\n", out);
      // The keys are on both servers, as ShardedJedis would place them.
      try (ShardedJedis jedis =
          new ShardedJedis(
              List.of(
                  new JedisShardInfo("127.0.0.1", 8968, "cache-a"),
                  new JedisShardInfo("127.0.0.1", 8969, "cache-b")))) {
        assertEquals("bob", jedis.get("user:2"));
        assertEquals("carol", jedis.get("user:3"));
      }
    }
  }

  @Test
  void javaAsync() {
    final String SEEDS = Harness.require("CR_JAVA_CLUSTER_ENV").get("SEEDS").split(",")[0];
    String out = printed(() -> {
      // README snippet java-async
      try (Config config = new Config().localCidr("127.0.1.0/24");
          Client client = Client.connect(SEEDS, config)) {
        CompletableFuture<Long> visits = client.incrAsync("visits:home"); // returns at once
        visits.thenAccept(n -> System.out.println("visit " + n)) // once done, off the engine thread
            .join();
      }
    });
    assertTrue(out.matches("visit [1-9][0-9]*\n"), out);
  }

  @Test
  void javaShardedAsync() {
    Standalone.basePort(); // the example's servers 8968-8969 are in the JVM stage's range
    try (Standalone servers = Standalone.start(8968, 8969)) {
      String out = printed(() -> {
        // README snippet java-sharded-async
        try (Ring ring = Ring.builder().hash(HashAlgo.MURMUR).shard("cache-a", 1).shard("cache-b", 1).build();
            ShardedClient client = new ShardedClient(List.of("127.0.0.1:8968", "127.0.0.1:8969"), ring)) {
          client.msetAsync(Map.of("user:2", "bob", "user:3", "carol")) // one MSET per shard, none waits
              .thenCompose(done -> client.mgetAsync("user:2", "user:3"))
              .thenAccept(values -> System.out.println(new String(values.get(1)))) // carol
              .join();
        }
      });
      assertEquals("carol\n", out);
    }
  }
}
