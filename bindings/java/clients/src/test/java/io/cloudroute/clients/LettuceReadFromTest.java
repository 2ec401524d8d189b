package io.cloudroute.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cloudroute.Config;
import io.cloudroute.Policy;
import io.cloudroute.lettuce.CloudRouteReadFrom;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode.NodeFlag;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Lettuce's cluster client with libcloudroute's ReadFrom (tests/java/run.sh). */
class LettuceReadFromTest {
  /**
   * A cluster client as an application would set it up: commands time out after 5 s, the topology
   * is re-read when a MOVED or a reconnect says it changed (Lettuce's adaptive refresh), and nodes
   * the cluster flags as failed are left out of it (their connections are then closed and the
   * commands queued on them sent again through the cluster's routing).
   */
  static RedisClusterClient client(ClusterEnv env) {
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
            .nodeFilter(
                n ->
                    !n.is(NodeFlag.FAIL) && !n.is(NodeFlag.EVENTUAL_FAIL) && !n.is(NodeFlag.NOADDR))
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
        RedisAdvancedClusterCommands<String, String> cmd,
        CloudRouteReadFrom readFrom)
        throws Exception;
  }

  private static void withConnection(ClusterEnv env, Body body) throws Exception {
    try (Config c = ClusterEnv.cloudA()) {
      withConnection(env, c, body);
    }
  }

  private static void withConnection(ClusterEnv env, Config config, Body body) throws Exception {
    RedisClusterClient client = client(env);
    try (CloudRouteReadFrom readFrom =
            CloudRouteReadFrom.connect(env.get("SEEDS"), config).attach(client);
        StatefulRedisClusterConnection<String, String> conn = client.connect()) {
      conn.setReadFrom(readFrom);
      body.run(conn, conn.sync(), readFrom);
    } finally {
      client.shutdown();
    }
  }

  /** The GETs per node are all in cloud A and add up to total. */
  private static Map<Integer, Long> assertGetsInCloudA(ClusterEnv env, long total) {
    Map<Integer, Long> gets = env.calls("get");
    long sum = 0;
    for (Map.Entry<Integer, Long> e : gets.entrySet()) {
      assertTrue(env.inCloudA(e.getKey()), "GETs on node " + e.getKey() + " in cloud B: " + gets);
      sum += e.getValue();
    }
    assertEquals(total, sum, gets.toString());
    return gets;
  }

  /**
   * tests/java/run.sh runs these classes, compiled once against the default Lettuce, against its
   * other major (-Dlettuce.version): the Lettuce on the class path is the one the run names.
   */
  @Test
  void runsOnTheLettuceTheBuildNames() throws Exception {
    Properties lettuce = new Properties();
    try (InputStream in =
        RedisClusterClient.class.getResourceAsStream(
            "/META-INF/maven/io.lettuce/lettuce-core/pom.properties")) {
      lettuce.load(in);
    }
    assertEquals(System.getProperty("lettuce.version"), lettuce.getProperty("version"));
  }

  @Test
  void readsLandInTheClientsCloudAndWritesOnMasters() throws Exception {
    ClusterEnv env = ClusterEnv.require("CR_JAVA_CLUSTER_ENV");
    withConnection(
        env,
        (conn, cmd, readFrom) -> {
          env.resetStats();
          for (int i = 0; i < 300; i++) cmd.set("lettuce:k" + i, "v" + i);
          for (int i = 0; i < 300; i++) cmd.get("lettuce:k" + i);
          for (int s = 1; s <= 3; s++) {
            assertEquals(env.get("SHARD" + s + "_VALUE"), cmd.get(env.get("SHARD" + s + "_KEY")));
          }
          Map<Integer, Long> gets = assertGetsInCloudA(env, 303);
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

  /** The async and reactive APIs of the same connection read where the sync one does. */
  @Test
  void asyncAndReactiveReadsLandInTheClientsCloud() throws Exception {
    ClusterEnv env = ClusterEnv.require("CR_JAVA_CLUSTER_ENV");
    withConnection(
        env,
        (conn, cmd, readFrom) -> {
          env.resetStats();
          List<CompletableFuture<String>> async = new ArrayList<>();
          for (int s = 1; s <= 3; s++) {
            for (int i = 0; i < 50; i++) {
              async.add(conn.async().get(env.get("SHARD" + s + "_KEY")).toCompletableFuture());
            }
          }
          for (int i = 0; i < async.size(); i++) {
            assertEquals(
                env.get("SHARD" + (i / 50 + 1) + "_VALUE"), async.get(i).get(10, TimeUnit.SECONDS));
          }
          for (int s = 1; s <= 3; s++) {
            for (int i = 0; i < 50; i++) {
              assertEquals(
                  env.get("SHARD" + s + "_VALUE"),
                  conn.reactive().get(env.get("SHARD" + s + "_KEY")).block(Duration.ofSeconds(10)));
            }
          }
          Map<Integer, Long> gets = assertGetsInCloudA(env, 300);
          // shard by shard: n2 (shard 1's local replica), n6 (shard 2's), n7 (shard 3's master)
          assertEquals(Map.of(2, 100L, 6, 100L, 7, 100L), gets);
        });
  }

  /**
   * 400 reads of shard 1's key through a ReadFrom for config: the GETs per node, all in cloud A.
   */
  private static Map<Integer, Long> shard1Reads(ClusterEnv env, Config config) throws Exception {
    List<Map<Integer, Long>> out = new ArrayList<>();
    withConnection(
        env,
        config,
        (conn, cmd, readFrom) -> {
          env.resetStats();
          for (int i = 0; i < 400; i++) {
            assertEquals(env.get("SHARD1_VALUE"), cmd.get(env.get("SHARD1_KEY")));
          }
          out.add(assertGetsInCloudA(env, 400));
        });
    return out.get(0);
  }

  /**
   * LOCAL_SPREAD ranks shard 1's two cloud-A nodes (master n1, replica n2) equal: the ReadFrom is
   * order-insensitive and Lettuce spreads the reads over both, none crossing to cloud B.
   */
  @Test
  void aSpreadingPolicySpreadsReadsOverTheLocalRank() throws Exception {
    ClusterEnv env = ClusterEnv.require("CR_JAVA_CLUSTER_ENV");
    try (Config spread = ClusterEnv.cloudA().policy(Policy.LOCAL_SPREAD)) {
      Map<Integer, Long> gets = shard1Reads(env, spread);
      // even odds over 400 reads: each node gets 200 +- 60 (4.2 sigma)
      for (int n : new int[] {1, 2}) {
        long g = gets.getOrDefault(n, 0L);
        assertTrue(g > 140 && g < 260, "shard 1's reads per node: " + gets);
      }
    }
  }

  /**
   * Weights among the spread rank: n2 weighs 3, n1 1, so Lettuce's random pick among the answer (n2
   * three times, n1 once) gives n2 three reads in four.
   */
  @Test
  void weightsShareTheSpreadReads() throws Exception {
    ClusterEnv env = ClusterEnv.require("CR_JAVA_CLUSTER_ENV");
    try (Config weighted =
        ClusterEnv.cloudA().policy(Policy.LOCAL_SPREAD).weight(env.get("NODE2_ADDR"), 3)) {
      Map<Integer, Long> gets = shard1Reads(env, weighted);
      // n2: 300 +- 40 (4.6 sigma), n1 the rest
      long n2 = gets.getOrDefault(2, 0L);
      assertTrue(n2 > 260 && n2 < 340, "shard 1's reads per node: " + gets);
    }
  }

  /**
   * Reads (and writes) running on several threads until stopped, each checked; failures are
   * counted, never retried.
   */
  private static final class Load implements AutoCloseable {
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicLong done = new AtomicLong();

    /** Each failed operation: when it started (System.nanoTime) and what it threw. */
    private final List<Map.Entry<Long, Throwable>> failures =
        Collections.synchronizedList(new ArrayList<>());

    private final List<Thread> threads = new ArrayList<>();

    interface Op {
      void run(int thread, long i);
    }

    Load(int n, Op op) {
      for (int t = 0; t < n; t++) {
        int id = t;
        Thread th =
            new Thread(
                () -> {
                  for (long i = 0; !stop.get(); i++) {
                    long started = System.nanoTime();
                    try {
                      op.run(id, i);
                      done.incrementAndGet();
                    } catch (RuntimeException | AssertionError e) {
                      failures.add(Map.entry(started, e));
                    }
                  }
                },
                "load-" + t);
        threads.add(th);
        th.start();
      }
    }

    /** Waits (at most 30 s) until n more operations completed. */
    void awaitMore(long n) {
      long target = done.get() + n;
      long deadline = System.nanoTime() + 30_000_000_000L;
      while (done.get() < target) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("load stalled at " + done.get() + " of " + target);
        }
        ClusterEnv.pause();
      }
    }

    @Override
    public void close() {
      stop.set(true);
      try {
        for (Thread t : threads) t.join(30_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    void assertNoFailure() {
      assertEquals(List.of(), failures, "failed commands under load");
    }

    /**
     * No operation started after t failed, and at most one started before it did, with a
     * connection's I/O error: the read Lettuce had on the wire to a node when the node was killed
     * and its socket reset (Lettuce fails that one command with the reset instead of sending it
     * again, and a ReadFrom never sees commands). Returns how many failed.
     */
    int assertNoFailureAfter(long t) {
      synchronized (failures) {
        for (Map.Entry<Long, Throwable> f : failures) {
          assertTrue(f.getKey() < t, "a command started after the kill failed: " + f.getValue());
          assertTrue(
              f.getValue().getCause() instanceof IOException,
              "not the reset of the killed node's connection: " + f.getValue());
        }
        assertTrue(failures.size() <= 1, "failed commands in flight at the kill: " + failures);
        return failures.size();
      }
    }
  }

  /**
   * Shard 2's master (n4, cloud B) hands over to its cloud-A replica n6 while four threads read and
   * write the shard: no command fails; once Lettuce's partitions show it, writes go to n6 with no
   * redirect and reads land on n6 (shard 2's one cloud-A node).
   */
  @Test
  void aFailoverIntoTheOtherCloudUnderLoadCostsNoFailedCommand() throws Exception {
    ClusterEnv env = ClusterEnv.require("CR_JAVA_FAILOVER_ENV");
    withConnection(
        env,
        (conn, cmd, readFrom) -> {
          String key = env.get("SHARD2_KEY");
          String value = env.get("SHARD2_VALUE");
          int slot = Integer.parseInt(env.get("SHARD2_KEY_SLOT"));
          String tagged = "{" + key + "}:lettuce-failover:";
          for (int i = 0; i < 20; i++) assertEquals(value, cmd.get(key)); // reader connections
          assertEquals("127.0.1.6", env.node(6).getHost());
          Load load =
              new Load(
                  4,
                  (t, i) -> {
                    cmd.set(tagged + t + ":" + i, "v");
                    assertEquals(value, cmd.get(key));
                  });
          try {
            load.awaitMore(200);
            env.failover(6);
            int failed =
                ClusterEnv.untilObserved(
                    () -> load.awaitMore(1),
                    () -> {
                      // Lettuce may have no owner for the slot while it swaps partitions.
                      RedisClusterNode owner = conn.getPartitions().getPartitionBySlot(slot);
                      return owner != null && owner.getUri().getPort() == env.node(6).getPort();
                    });
            assertEquals(0, failed);
            load.awaitMore(200);
          } finally {
            load.close();
          }
          load.assertNoFailure();
          assertEquals(
              Map.of(6, 200L),
              env.commandsAfterFailover(6, tagged, cmd::set, cmd::get, key, value),
              "reads after the failover");
        });
  }

  /**
   * Shard 1's cloud-A replica n2 is killed while four threads read the shard: no read started after
   * the kill fails, and of those in flight at the kill at most the one Lettuce had on the wire (its
   * socket reset) does — the reads n2 had not answered are sent again once the cluster flags n2
   * failed; the live view learns from Lettuce's failed reconnects that n2 is down, and reads then
   * land on cloud A's master n1.
   */
  @Test
  void aKilledLocalReplicaUnderLoadFailsNoReadSentAfterIt() throws Exception {
    ClusterEnv env = ClusterEnv.require("CR_JAVA_KILL_ENV");
    withConnection(
        env,
        (conn, cmd, readFrom) -> {
          String key = env.get("SHARD1_KEY");
          String value = env.get("SHARD1_VALUE");
          long before = env.calls(2, "get");
          for (int i = 0; i < 20; i++) assertEquals(value, cmd.get(key));
          assertEquals(before + 20, env.calls(2, "get"), "reads on the local replica n2 first");
          assertEquals("127.0.1.2", env.node(2).getHost());
          Load load = new Load(4, (t, i) -> assertEquals(value, cmd.get(key)));
          long killed;
          try {
            load.awaitMore(200);
            env.kill(2);
            killed = System.nanoTime();
            // Lettuce's failed reconnects reach the live view: its router marks n2 down, long
            // before the cluster's node timeout (2 s) could flag n2 and drop it from the view.
            int slot = Integer.parseInt(env.get("SHARD1_KEY_SLOT"));
            ClusterEnv.untilObserved(
                () -> ClusterEnv.pause(),
                () ->
                    readFrom.client().router().candidatesSlot(slot).stream()
                        .anyMatch(c -> c.address().equals(env.get("NODE2_ADDR")) && c.down()));
            assertTrue(
                System.nanoTime() - killed < 2_000_000_000L,
                "n2 marked down only after the cluster's node timeout");
            load.awaitMore(400);
          } finally {
            load.close();
          }
          int inFlight = load.assertNoFailureAfter(killed);
          long onMaster = env.calls(1, "get");
          for (int i = 0; i < 200; i++) assertEquals(value, cmd.get(key), "read " + i);
          assertEquals(
              onMaster + 200,
              env.calls(1, "get"),
              "reads on cloud A's master n1 ("
                  + inFlight
                  + " read on the wire at the kill failed)");
        });
  }
}
