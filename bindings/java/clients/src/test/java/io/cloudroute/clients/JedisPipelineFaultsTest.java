package io.cloudroute.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cloudroute.Candidate;
import io.cloudroute.Role;
import io.cloudroute.jedis.CloudRouteJedisCluster;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.ClusterPipeline;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisAskDataException;
import redis.clients.jedis.exceptions.JedisMovedDataException;

/**
 * CloudRouteJedisCluster's pipelines through a slot migration, a failover and a killed replica, on
 * a cluster of their own (CR_JAVA_JEDIS_PIPE_ENV; run with the stage's default Jedis only).
 */
class JedisPipelineFaultsTest {
  /**
   * Shard 3's key slot migrating from n7 to shard 2's master n4: a pipeline's SET of a new key of
   * that slot gets ASK and is retried with ASKING on n4, its GET after it too, while the slot's
   * existing key is still read where it lives; a plain ClusterPipeline's SET fails with the ASK.
   */
  @Test
  void askIsFollowed() {
    ClusterEnv env = ClusterEnv.require("CR_JAVA_JEDIS_PIPE_ENV");
    int slot = Integer.parseInt(env.get("SHARD3_KEY_SLOT"));
    String key = env.get("SHARD3_KEY");
    String moving = "{" + key + "}:jedis-ask";
    try (Jedis source = new Jedis(env.node(7));
        Jedis target = new Jedis(env.node(4));
        CloudRouteJedisCluster jc = JedisPipelineTest.cluster(env, 2000);
        JedisCluster plain = new JedisCluster(env.seeds())) {
      assertEquals("OK", target.clusterSetSlotImporting(slot, env.get("NODE7_ID")));
      assertEquals("OK", source.clusterSetSlotMigrating(slot, env.get("NODE4_ID")));
      try {
        long sets = env.calls(4, "set");
        long asks = env.calls(4, "asking");
        Response<String> set;
        Response<String> get;
        Response<String> existing;
        try (ClusterPipeline p = jc.pipelined()) {
          set = p.set(moving, "on-n4");
          get = p.get(moving);
          existing = p.get(key);
        }
        assertEquals("OK", set.get());
        assertEquals("on-n4", get.get());
        assertEquals(env.get("SHARD3_VALUE"), existing.get());
        assertEquals(sets + 1, env.calls(4, "set"), "the SET went to n4");
        assertEquals(asks + 2, env.calls(4, "asking"), "ASKING before the SET and the GET on n4");
        Response<String> plainSet;
        try (ClusterPipeline p = plain.pipelined()) {
          plainSet = p.set(moving + ":plain", "x");
        }
        assertThrows(JedisAskDataException.class, plainSet::get, "a plain pipeline's ASK");
      } finally {
        target.sendCommand(Protocol.Command.ASKING);
        target.del(moving);
        assertEquals("OK", target.clusterSetSlotStable(slot));
        assertEquals("OK", source.clusterSetSlotStable(slot));
      }
      assertNull(plain.get(moving));
    }
  }

  /**
   * Shard 3's key slot migrating from n7 to n4 with one of two keys already moved: a pipeline's
   * MGET of both (on the master: the pipeline wrote the slot first) gets TRYAGAIN from n7, waits,
   * and once the other key has moved too follows the ASK to n4 and returns both values.
   */
  @Test
  void tryAgainIsWaitedOut() throws Exception {
    ClusterEnv env = ClusterEnv.require("CR_JAVA_JEDIS_PIPE_ENV");
    int slot = Integer.parseInt(env.get("SHARD3_KEY_SLOT"));
    String tag = "{" + env.get("SHARD3_KEY") + "}";
    String first = tag + ":jedis-tryagain-1";
    String second = tag + ":jedis-tryagain-2";
    HostAndPort to = env.node(4);
    try (Jedis source = new Jedis(env.node(7));
        Jedis target = new Jedis(to);
        Jedis mover = new Jedis(env.node(7));
        CloudRouteJedisCluster jc = JedisPipelineTest.cluster(env, 2000)) {
      assertEquals("OK", source.set(first, "one"));
      assertEquals("OK", source.set(second, "two"));
      assertEquals("OK", target.clusterSetSlotImporting(slot, env.get("NODE7_ID")));
      assertEquals("OK", source.clusterSetSlotMigrating(slot, env.get("NODE4_ID")));
      try {
        assertEquals("OK", source.migrate(to.getHost(), to.getPort(), second, 0, 5000));
        long tryAgains = errorCount(source, "TRYAGAIN");
        // Moves the first key once n7 has answered the MGET with TRYAGAIN.
        CompletableFuture<String> moved =
            CompletableFuture.supplyAsync(
                () -> {
                  waitFor(() -> errorCount(mover, "TRYAGAIN") > tryAgains, "n7's TRYAGAIN");
                  return mover.migrate(to.getHost(), to.getPort(), first, 0, 5000);
                });
        Response<String> set;
        Response<List<String>> mget;
        try (ClusterPipeline p = jc.pipelined()) {
          set = p.set(first, "one, again");
          mget = p.mget(first, second);
        }
        assertEquals("OK", set.get());
        assertEquals(Arrays.asList("one, again", "two"), mget.get());
        assertEquals("OK", moved.get(60, TimeUnit.SECONDS));
      } finally {
        target.sendCommand(Protocol.Command.ASKING);
        target.del(first, second);
        assertEquals("OK", source.clusterSetSlotStable(slot));
        source.del(first, second);
        assertEquals("OK", target.clusterSetSlotStable(slot));
      }
    }
  }

  /** errorstat_PREFIX of a node's INFO errorstats: how many such error replies it sent. */
  private static long errorCount(Jedis node, String prefix) {
    for (String line : node.info("errorstats").split("\r?\n")) {
      if (line.startsWith("errorstat_" + prefix + ":count=")) {
        String rest = line.substring(line.indexOf('=') + 1);
        int comma = rest.indexOf(',');
        return Long.parseLong(comma < 0 ? rest : rest.substring(0, comma));
      }
    }
    return 0;
  }

  /**
   * Pipelines of the seed's shape (reads over every shard, an MGET over them all, a write to each
   * shard) run without pause while shard 1's master n1 hands over to its cloud-B replica n3 and
   * then shard 2's cloud-A replica n6 is killed: not one reply fails. A plain JedisCluster pipeline
   * (slot table read before the failover) fails the same write with MOVED.
   */
  @Test
  void pipelinedLoadSurvivesAFailoverAndAKilledLocalReplica() throws Exception {
    ClusterEnv env = ClusterEnv.require("CR_JAVA_JEDIS_PIPE_ENV");
    List<String> keys = JedisPipelineTest.keysOverEveryShard(env, "jedis-load:");
    String[] all = keys.toArray(new String[0]);
    int slot1 = Integer.parseInt(env.get("SHARD1_KEY_SLOT"));
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger pipelines = new AtomicInteger();
    AtomicInteger failed = new AtomicInteger();
    AtomicReference<Throwable> firstFailure = new AtomicReference<>();
    try (CloudRouteJedisCluster jc = JedisPipelineTest.cluster(env, 5000);
        JedisCluster plain = new JedisCluster(env.seeds())) {
      try (ClusterPipeline p = jc.pipelined()) {
        for (int i = 0; i < all.length; i++) p.set(all[i], "v" + i);
      }
      for (int s = 0; s < 3; s++) {
        int master = 3 * s + 1;
        assertEquals(
            2L,
            jc.waitReplicas(all[s], 2, 5000),
            () -> "n" + master + ": " + replication(env, master));
      }
      Thread load =
          new Thread(
              () -> {
                long deadline = System.nanoTime() + 120_000_000_000L;
                for (int n = 0; n < 100_000 && !stop.get() && System.nanoTime() < deadline; n++) {
                  List<Response<?>> writes = new ArrayList<>();
                  List<Response<String>> reads = new ArrayList<>();
                  Response<List<String>> mget;
                  try (ClusterPipeline p = jc.pipelined()) {
                    // Reads first: a read after a write of its slot would go to the master.
                    for (String k : all) reads.add(p.get(k));
                    mget = p.mget(all);
                    for (int s = 0; s < 3; s++) writes.add(p.set(all[s], "v" + s));
                  } catch (RuntimeException e) {
                    failed.incrementAndGet();
                    firstFailure.compareAndSet(null, e);
                    continue;
                  }
                  try {
                    for (Response<?> w : writes) assertEquals("OK", w.get());
                    for (int i = 0; i < all.length; i++) {
                      assertEquals("v" + i, reads.get(i).get());
                      assertEquals("v" + i, mget.get().get(i));
                    }
                  } catch (RuntimeException | AssertionError e) {
                    failed.incrementAndGet();
                    firstFailure.compareAndSet(null, e);
                  }
                  pipelines.incrementAndGet();
                }
              });
      load.start();
      try {
        waitFor(() -> pipelines.get() >= 20, "pipelines before the failover");
        env.failover(3);
        int atFailover = pipelines.get();
        waitFor(
            () ->
                jc.provider().router().candidatesSlot(slot1).stream()
                    .anyMatch(c -> c.role() == Role.MASTER && c.port() == env.node(3).getPort()),
            "the router sees n3 as shard 1's master");
        waitFor(() -> pipelines.get() >= atFailover + 20, "pipelines after the failover");
        Response<String> plainSet;
        try (ClusterPipeline p = plain.pipelined()) {
          plainSet = p.set(all[0], "v0");
        }
        assertThrows(JedisMovedDataException.class, plainSet::get, "a plain pipeline's MOVED");
        env.kill(6);
        int atKill = pipelines.get();
        waitFor(() -> pipelines.get() >= atKill + 20, "pipelines after n6 was killed");
      } finally {
        stop.set(true);
        load.join(30_000);
      }
      assertEquals(
          0, failed.get(), "failed pipelines of " + pipelines.get() + ": " + firstFailure.get());
      List<Candidate> shard2 =
          jc.provider().router().candidatesSlot(Integer.parseInt(env.get("SHARD2_KEY_SLOT")));
      assertTrue(
          shard2.stream().anyMatch(c -> c.port() == env.node(6).getPort() && c.down()),
          "n6 reported down: " + shard2);
    }
  }

  /** A node's INFO replication (what a failed WAIT's message shows). */
  private static String replication(ClusterEnv env, int n) {
    try (Jedis node = new Jedis(env.node(n))) {
      return node.info("replication");
    }
  }

  private static void waitFor(BooleanSupplier done, String what) {
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) throw new IllegalStateException(what + ": not in 60 s");
      ClusterEnv.pause();
    }
  }
}
