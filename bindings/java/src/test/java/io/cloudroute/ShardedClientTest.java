package io.cloudroute;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cloudroute.CloudRouteException.ConnectionException;
import io.cloudroute.CloudRouteException.InvalidArgumentException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisShardInfo;
import redis.clients.jedis.ShardedJedis;
import redis.clients.jedis.util.Hashing;

/**
 * The pre-sharded client against standalone servers of its own (tests/PORTS.md: base port
 * CR_JAVA_SHARDED_PORT, default 8961, and the next six): data written by the real Jedis 3.10
 * ShardedJedis found where it put it (and the other way round), batches as one command per shard, a
 * pipeline, a script, a killed server (its keys fail, naming it; the others are served), the seed's
 * move of a shard with setServers, and bad arguments.
 */
class ShardedClientTest {
  private static Standalone servers;
  private static int base;

  @BeforeAll
  static void start() {
    base = Standalone.basePort();
    servers = Standalone.start(base, base + 1, base + 2, base + 3);
  }

  @AfterAll
  static void stop() {
    if (servers != null) servers.close();
  }

  @BeforeEach
  void flush() {
    for (int i = 0; i < 4; i++) {
      try (Jedis j = Standalone.node(base + i)) {
        j.flushAll();
      }
    }
  }

  private static List<String> addresses(int first, int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) out.add(Standalone.addr(first + i));
    return out;
  }

  private static List<String> keys(String prefix, int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) out.add(prefix + i);
    return out;
  }

  /** Shard i: ShardedJedis's name names[i] (null: unnamed) and weight weights[i], on base + i. */
  private static void placedLikeShardedJedis(HashAlgo hash, String[] names, int[] weights) {
    List<JedisShardInfo> infos = new ArrayList<>();
    Ring.Builder b = Ring.builder().algo(RingAlgo.JEDIS).hash(hash).naming(RingNaming.JEDIS3);
    for (int i = 0; i < names.length; i++) {
      infos.add(new JedisShardInfo(Standalone.HOST, names[i], base + i, 10_000, weights[i]));
      b.shard(names[i], weights[i]);
    }
    Hashing algo = hash == HashAlgo.MD5 ? Hashing.MD5 : Hashing.MURMUR_HASH;
    List<String> written = keys("sj:" + hash + ":", 300);
    List<String> ours = keys("cr:" + hash + ":", 300);
    try (Ring ring = b.build();
        ShardedClient c = new ShardedClient(addresses(base, names.length), ring);
        ShardedJedis sj = new ShardedJedis(infos, algo)) {
      Set<Integer> used = new HashSet<>();
      for (String k : written) {
        sj.set(k, "v:" + k);
        assertEquals(sj.getShardInfo(k).getPort() - base, c.locate(k), k);
        used.add(c.locate(k));
      }
      assertEquals(names.length, used.size(), "the keys cover every shard");
      // Every key exists on one server only: finding them all is reading where Jedis wrote.
      List<byte[]> values = c.mget(written.toArray());
      for (int i = 0; i < written.size(); i++) {
        assertEquals("v:" + written.get(i), new String(values.get(i)), written.get(i));
      }
      Map<String, String> pairs = new LinkedHashMap<>();
      for (String k : ours) pairs.put(k, "w:" + k);
      c.mset(pairs);
      for (String k : ours) assertEquals("w:" + k, sj.get(k), k);
    }
  }

  @Test
  void dataWrittenByShardedJedisIsFoundWhereItPutIt() {
    placedLikeShardedJedis(
        HashAlgo.MURMUR, new String[] {"cache-a", "cache-b", "cache-c"}, new int[] {1, 2, 1});
    placedLikeShardedJedis(HashAlgo.MURMUR, new String[] {null, null, null}, new int[] {1, 1, 1});
    placedLikeShardedJedis(HashAlgo.MD5, new String[] {"redis-a", null}, new int[] {3, 1});
  }

  @Test
  void batchesAreOneCommandPerShard() {
    try (Ring ring = Ring.builder().shard("cache-a", 1).shard("cache-b", 1).build();
        ShardedClient c = new ShardedClient(addresses(base, 2), ring)) {
      List<String> ks = keys("b:", 100);
      long[] before = new long[2];
      for (int i = 0; i < 2; i++) {
        try (Jedis j = Standalone.node(base + i)) {
          before[i] = Standalone.calls(j, "mset");
        }
      }
      Map<String, String> pairs = new LinkedHashMap<>();
      for (String k : ks) pairs.put(k, "v" + k);
      c.mset(pairs);
      for (int i = 0; i < 2; i++) {
        try (Jedis j = Standalone.node(base + i)) {
          assertEquals(before[i] + 1, Standalone.calls(j, "mset"), "one MSET on shard " + i);
          assertTrue(j.dbSize() > 0 && j.dbSize() < 100, "shard " + i + " holds part");
        }
      }
      List<Object> some = new ArrayList<>(Arrays.asList(ks.get(0), "b:none", ks.get(99)));
      List<byte[]> values = c.mget(some.toArray());
      assertEquals("vb:0", new String(values.get(0)));
      assertNull(values.get(1));
      assertEquals("vb:99", new String(values.get(2)));
      assertEquals(100, c.exists(ks.toArray()));
      assertEquals(2, c.exists("b:1", "b:1", "b:none"));
      assertTrue(c.expire("b:1", 100));
      assertFalse(c.expire("b:none", 100));
      assertTrue((Long) c.read("TTL", "b:1") > 0);
      c.set("b:ttl", "x", 60_000);
      assertTrue((Long) c.read("PTTL", "b:ttl") > 0);
      byte[] bin = {0, (byte) 0xff, 'k'};
      c.set(bin, new byte[] {1, 0, 2});
      assertArrayEquals(new byte[] {1, 0, 2}, c.get(bin));
      assertEquals(100, c.del(ks.toArray()));
      assertEquals(0, c.exists(ks.toArray()));
      assertEquals(
          2L,
          c.command(
              new CallOptions().timeoutMs(5000), Access.WRITE, 1, "HSET", "h", "a", "1", "b", "2"));
      assertNull(c.get("b:missing"));
    }
  }

  @Test
  void pipelineAndScriptRunOnTheKeysShards() {
    try (Ring ring = Ring.builder().shard("cache-a", 1).shard("cache-b", 1).build();
        ShardedClient c = new ShardedClient(addresses(base, 2), ring);
        Script script = new Script("return redis.call('GET', KEYS[1]) .. ARGV[1]")) {
      List<String> ks = keys("p:", 20);
      Pipeline p = c.pipeline();
      for (String k : ks) p.set(k, "v" + k);
      for (String k : ks) p.get(k);
      p.command(Access.READ, 1, "NOSUCHCOMMAND", "p:0");
      List<Object> replies = p.execute();
      assertEquals(41, replies.size());
      for (int i = 0; i < 20; i++) {
        assertEquals(Boolean.TRUE, replies.get(i));
        assertEquals("v" + ks.get(i), replies.get(20 + i));
      }
      assertInstanceOf(CloudRouteException.ServerErrorException.class, replies.get(40));
      // Only the cluster client submits pipelines: refused at once, the queue kept.
      p.get(ks.get(0));
      assertThrows(InvalidArgumentException.class, p::executeAsync);
      assertEquals(1, p.size());
      assertEquals(List.of("v" + ks.get(0)), p.execute());
      assertEquals("vp:3!", new String((byte[]) c.eval(script, List.of("p:3"), List.of("!"))));
      // Keys on two shards: refused before anything is sent.
      String other = null;
      for (String k : ks) if (c.locate(k) != c.locate("p:3")) other = k;
      String k2 = other;
      CloudRouteException e =
          assertThrows(
              InvalidArgumentException.class,
              () -> c.eval(script, List.of("p:3", k2), List.of("!")));
      assertTrue(e.getMessage().contains("shard"), e.getMessage());
    }
  }

  @Test
  void scanNodeCommandsAndStatsCoverEveryShard() {
    Scan<byte[]> open;
    try (Ring ring = Ring.builder().shard("cache-a", 1).shard("cache-b", 1).build();
        ShardedClient c = new ShardedClient(addresses(base, 2), ring)) {
      List<String> ks = keys("s:", 50);
      Map<String, String> pairs = new LinkedHashMap<>();
      for (String k : ks) pairs.put(k, "v");
      c.mset(pairs);
      c.set("other", "x");
      Set<String> seen = new HashSet<>();
      for (String k : c.scan("s:*")) assertTrue(seen.add(k), "seen once: " + k);
      assertEquals(new HashSet<>(ks), seen);
      open = c.scan(new ScanOptions().count(5));
      assertTrue(open.hasNext());
      Map<String, Object> sizes = c.onMasters("DBSIZE");
      assertEquals(addresses(base, 2), new ArrayList<>(sizes.keySet()));
      long total = 0;
      for (Object n : sizes.values()) total += (Long) n;
      assertEquals(51, total);
      assertEquals(sizes.keySet(), c.onAllNodes("DBSIZE").keySet());
      assertEquals("PONG", c.onNode(Standalone.addr(base + 1), "PING"));
      assertThrows(InvalidArgumentException.class, () -> c.onNode((String) null, "PING"));
      ClientStats stats = c.stats();
      assertTrue(stats.writes >= 2 && stats.reads >= 1, stats.toString());
      assertTrue(c.metricsText().contains(Standalone.addr(base)), c.metricsText());
      List<NodeStats> nodes = c.nodeStats();
      assertEquals(2, nodes.size());
    }
    // Closing the client closed its open scan.
    assertThrows(IllegalStateException.class, open::hasNext);
  }

  @Test
  void aShardWhoseMasterDiedIsReadFromItsReplica() {
    int master = base + 5;
    int replica = base + 6;
    servers.add(master);
    servers.add(replica);
    try (Jedis r = Standalone.node(replica)) {
      r.slaveof(Standalone.HOST, master);
      try (Ring ring = Ring.builder().shard("cache-a", 1).shard("cache-b", 1).build();
          ShardedClient c =
              new ShardedClient(
                  List.of(
                      List.of(Standalone.addr(base)),
                      List.of(Standalone.addr(master), Standalone.addr(replica))),
                  ring,
                  null,
                  new ShardedOptions().connectTimeoutMs(500).commandTimeoutMs(1000))) {
        List<String> ks = keys("r:", 40);
        for (String k : ks) c.set(k, "v" + k);
        try (Jedis m = Standalone.node(master)) {
          m.incr("r:sync");
          Poll.until(() -> m.waitReplicas(1, 1000) == 1, Duration.ofSeconds(20), "replica synced");
        }
        servers.kill(master);
        for (String k : ks) assertEquals("v" + k, c.get(k), k);
        String onB = null;
        for (String k : ks) if (c.locate(k) == 1) onB = k;
        String k = onB;
        assertThrows(CloudRouteException.class, () -> c.set(k, "no master"));
      }
    } finally {
      servers.kill(replica);
    }
  }

  @Test
  void aKilledServersKeysFailNamingItOthersAreServed() {
    int dead = base + 4;
    servers.add(dead);
    try (Ring ring = Ring.builder().shard("cache-a", 1).shard("cache-b", 1).build();
        ShardedClient c =
            new ShardedClient(
                List.of(Standalone.addr(base), Standalone.addr(dead)),
                ring,
                null,
                new ShardedOptions().connectTimeoutMs(500).commandTimeoutMs(1000))) {
      List<String> ks = keys("k:", 40);
      for (String k : ks) c.set(k, "v" + k);
      servers.kill(dead);
      int served = 0;
      int failed = 0;
      for (String k : ks) {
        if (c.locate(k) == 0) {
          assertEquals("v" + k, c.get(k));
          served++;
        } else {
          CloudRouteException e = assertThrows(CloudRouteException.class, () -> c.get(k));
          assertTrue(
              e instanceof ConnectionException
                  || e instanceof CloudRouteException.UnavailableException,
              e.toString());
          assertTrue(namesTheDeadShard(e, dead), e.getMessage());
          failed++;
        }
      }
      assertTrue(served > 0 && failed > 0, served + " served, " + failed + " failed");
      // A batch over both shards fails, naming the dead server; one over the live shard succeeds.
      CloudRouteException e = assertThrows(CloudRouteException.class, () -> c.mget(ks.toArray()));
      assertTrue(namesTheDeadShard(e, dead), e.getMessage());
      List<Object> live = new ArrayList<>();
      for (String k : ks) if (c.locate(k) == 0) live.add(k);
      assertEquals(live.size(), c.exists(live.toArray()));
    }
  }

  /** The server's address (the first failure) or its shard (once it is marked down). */
  private static boolean namesTheDeadShard(CloudRouteException e, int port) {
    return e.getMessage().contains(Standalone.addr(port)) || e.getMessage().contains("'cache-b'");
  }

  @Test
  void setServersMovesAShardWithoutMovingKeys() {
    int spare = base + 2;
    try (Ring ring = Ring.builder().shard("cache-a", 1).shard("cache-b", 1).build();
        ShardedClient c = new ShardedClient(addresses(base, 2), ring);
        Jedis old = Standalone.node(base + 1);
        Jedis copy = Standalone.node(spare)) {
      List<String> ks = keys("m:", 200);
      Map<String, String> pairs = new LinkedHashMap<>();
      for (String k : ks) pairs.put(k, "v" + k);
      c.mset(pairs);
      // The seed's steps: replicate, wait for the sync, promote, switch the client.
      copy.slaveof(Standalone.HOST, base + 1);
      Poll.until(
          () ->
              copy.info("replication").contains("master_link_status:up")
                  && copy.dbSize().equals(old.dbSize()),
          Duration.ofSeconds(20),
          "the spare did not sync");
      copy.slaveofNoOne();
      assertThrows(
          InvalidArgumentException.class, () -> c.setServers(List.of(Standalone.addr(base))));
      assertThrows(
          InvalidArgumentException.class,
          () -> c.setServers(List.of(Standalone.addr(base), "no-port")));
      c.setServers(List.of(List.of(Standalone.addr(base)), List.of(Standalone.addr(spare))));
      long before = old.dbSize();
      assertEquals(200, c.exists(ks.toArray()));
      for (String k : ks) assertEquals("v" + k, c.get(k), k);
      for (String k : ks) if (c.locate(k) == 1) c.set(k, "moved");
      assertEquals(before, old.dbSize());
      for (String k : ks) {
        if (c.locate(k) == 1) assertEquals("moved", copy.get(k), k);
      }
    } finally {
      try (Jedis copy = Standalone.node(spare)) {
        copy.slaveofNoOne();
      }
    }
  }

  @Test
  void badArgumentsAreClearExceptions() {
    try (Ring ring = Ring.builder().shard("cache-a", 1).shard("cache-b", 1).build();
        Ring ring3 = Ring.builder().shards(3).build()) {
      assertThrows(InvalidArgumentException.class, () -> new ShardedClient(null, ring));
      assertThrows(
          InvalidArgumentException.class, () -> new ShardedClient(addresses(base, 2), null));
      CloudRouteException e =
          assertThrows(
              InvalidArgumentException.class, () -> new ShardedClient(addresses(base, 2), ring3));
      assertFalse(e.getMessage().isEmpty());
      e =
          assertThrows(
              InvalidArgumentException.class,
              () -> new ShardedClient(List.of(Standalone.addr(base), "nohost"), ring));
      assertTrue(e.getMessage().contains("nohost"), e.getMessage());
      assertThrows(
          InvalidArgumentException.class,
          () -> new ShardedClient(Arrays.asList(Standalone.addr(base), null), ring));
      assertThrows(
          InvalidArgumentException.class,
          () -> new ShardedClient(List.of(Standalone.addr(base), List.of()), ring));
      assertThrows(
          InvalidArgumentException.class,
          () ->
              new ShardedClient(addresses(base, 2), ring, null, new ShardedOptions().poolSize(-1)));
      ShardedClient c = new ShardedClient(addresses(base, 2), ring);
      try {
        assertThrows(InvalidArgumentException.class, () -> c.mget());
        assertThrows(InvalidArgumentException.class, () -> c.mget((Object[]) null));
        assertThrows(InvalidArgumentException.class, () -> c.mget("a", null));
        assertThrows(InvalidArgumentException.class, () -> c.mget("a", 3));
        assertThrows(InvalidArgumentException.class, () -> c.del());
        assertThrows(InvalidArgumentException.class, () -> c.exists((Object[]) null));
        assertThrows(InvalidArgumentException.class, () -> c.mset(Map.of()));
        assertThrows(InvalidArgumentException.class, () -> c.mset(null));
        Map<String, String> nullValue = new LinkedHashMap<>();
        nullValue.put("a", null);
        assertThrows(InvalidArgumentException.class, () -> c.mset(nullValue));
        assertThrows(InvalidArgumentException.class, () -> c.command(null, 1, "GET", "a"));
        assertThrows(InvalidArgumentException.class, () -> c.command(Access.READ, 5, "GET", "a"));
        assertThrows(InvalidArgumentException.class, () -> c.command(Access.READ, -1, "GET", "a"));
        assertThrows(
            InvalidArgumentException.class, () -> c.command(Access.READ, 1, (Object[]) null));
        assertThrows(InvalidArgumentException.class, () -> c.get((String) null));
        assertThrows(InvalidArgumentException.class, () -> c.set("a", "b", -1));
        assertThrows(InvalidArgumentException.class, () -> c.eval(null, List.of(), List.of()));
        assertThrows(InvalidArgumentException.class, () -> c.setServers(null));
        assertThrows(
            InvalidArgumentException.class,
            () -> c.command(new CallOptions().timeoutMs(-1), Access.READ, 1, "GET", "a"));
        assertThrows(InvalidArgumentException.class, () -> c.pipeline().get(null).execute());
      } finally {
        c.close();
      }
      c.close(); // idempotent
      assertThrows(IllegalStateException.class, () -> c.get("a"));
      assertThrows(IllegalStateException.class, () -> c.pipeline().get("a").execute());
      assertEquals("ShardedClient(closed)", c.toString());
    }
  }
}
