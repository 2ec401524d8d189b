package io.cloudroute;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Java Client's surface beyond one key — typed commands, pipelines, SCAN, scripts and
 * functions, pinned transactions, node commands, per-call timeouts — against the harness's
 * two-cloud cluster (tests/java/run.sh; the client sits in cloud A, 127.0.1.0/24).
 */
class ClientCommandsTest {
  private static Harness env;
  private static Client client;

  @BeforeAll
  static void connect() {
    env = Harness.require("CR_JAVA_CLUSTER_ENV");
    try (Config c = Harness.cloudA(Policy.LOCAL_REPLICAS_FIRST)) {
      // Reads of a slot this client wrote go to its master for 10 s: a replica that has not
      // applied the write yet would make the assertions racy.
      client =
          Client.connect(
              env.get("SEEDS"),
              c,
              new ClientOptions().commandTimeoutMs(2000).readYourWritesMs(10_000));
    }
  }

  @AfterAll
  static void close() {
    if (client != null) client.close();
  }

  private static String utf8(Object bulk) {
    return new String((byte[]) bulk, StandardCharsets.UTF_8);
  }

  @Test
  void typedCommandsGiveJavaTypes() {
    client.del("jc:s", "jc:h", "jc:l", "jc:set", "jc:z", "jc:n");
    assertTrue(client.setNx("jc:s", "a"));
    assertFalse(client.setNx("jc:s", "b"));
    assertEquals("a", client.getSet("jc:s", "c"));
    assertEquals(2, client.append("jc:s", "d"));
    assertEquals(2, client.strlen("jc:s"));
    assertEquals(5, client.incrBy("jc:n", 5));
    assertEquals(4, client.decr("jc:n"));
    assertEquals(2, client.exists("jc:s", "jc:n", "jc:missing"));
    assertEquals(-1, client.ttl("jc:s"));
    assertTrue(client.expire("jc:s", 100));
    assertTrue(client.pttl("jc:s") > 90_000);
    assertTrue(client.persist("jc:s"));
    assertEquals("string", client.type("jc:s"));

    Map<String, String> fields = new LinkedHashMap<>();
    fields.put("f1", "v1");
    fields.put("f2", "v2");
    assertEquals(2, client.hset("jc:h", fields));
    assertEquals(1, client.hset("jc:h", "f3", "v3"));
    assertEquals("v2", client.hget("jc:h", "f2"));
    assertEquals(Map.of("f1", "v1", "f2", "v2", "f3", "v3"), client.hgetAll("jc:h"));
    assertEquals(7, client.hincrBy("jc:h", "n", 7));
    assertTrue(client.hexists("jc:h", "n"));
    assertEquals(1, client.hdel("jc:h", "n", "nope"));
    assertEquals(3, client.hlen("jc:h"));
    assertEquals(Map.of(), client.hgetAll("jc:missing"));

    assertEquals(3, client.rpush("jc:l", "b", "c", "d"));
    assertEquals(4, client.lpush("jc:l", "a"));
    assertEquals(List.of("a", "b", "c", "d"), client.lrange("jc:l", 0, -1));
    assertEquals("a", client.lpop("jc:l"));
    assertEquals("d", client.rpop("jc:l"));
    assertEquals("c", client.lindex("jc:l", 1));
    assertEquals(2, client.llen("jc:l"));
    assertNull(client.lpop("jc:missing"));

    assertEquals(3, client.sadd("jc:set", "x", "y", "z"));
    assertEquals(Set.of("x", "y", "z"), client.smembers("jc:set"));
    assertTrue(client.sismember("jc:set", "y"));
    assertEquals(1, client.srem("jc:set", "y"));
    assertEquals(2, client.scard("jc:set"));

    assertEquals(1, client.zadd("jc:z", 2.5, "b"));
    assertEquals(2, client.zadd("jc:z", Map.of("a", 1.0, "c", Double.POSITIVE_INFINITY)));
    assertEquals(List.of("a", "b", "c"), client.zrange("jc:z", 0, -1));
    Map<String, Double> scored = client.zrangeWithScores("jc:z", 0, -1);
    assertEquals(List.of("a", "b", "c"), new ArrayList<>(scored.keySet()));
    assertEquals(List.of(1.0, 2.5, Double.POSITIVE_INFINITY), new ArrayList<>(scored.values()));
    assertEquals(3.5, client.zincrBy("jc:z", 1, "b"));
    assertEquals(3.5, client.zscore("jc:z", "b"));
    assertNull(client.zscore("jc:z", "nope"));
    assertEquals(1L, client.zrank("jc:z", "b"));
    assertNull(client.zrank("jc:z", "nope"));
    assertEquals(1, client.zrem("jc:z", "a"));
    assertEquals(2, client.zcard("jc:z"));

    CloudRouteException e =
        assertThrows(
            CloudRouteException.ServerErrorException.class, () -> client.hget("jc:l", "f"));
    assertTrue(e.getMessage().contains("WRONGTYPE"), e.getMessage());
  }

  @Test
  void aPipelineRunsAnyMixInAnySlotsWithRepliesInOrderAndErrorsInPlace() {
    Pipeline p = client.pipeline();
    Map<String, String> many = new LinkedHashMap<>();
    for (int i = 0; i < 30; i++) many.put("jp:k" + i, "v" + i);
    p.del(many.keySet().toArray(new String[0])).del("jp:h", "jp:z", "jp:l", "jp:n");
    p.mset(many).set("jp:one", "1").get("jp:one").incr("jp:n").incrBy("jp:n", 9);
    p.hset("jp:h", "f", "v").hgetAll("jp:h").zadd("jp:z", 1.5, "m").zrangeWithScores("jp:z", 0, -1);
    p.rpush("jp:l", "a", "b").lrange("jp:l", 0, -1).write("INCR", "jp:h"); // WRONGTYPE
    p.mget(many.keySet().toArray(new String[0])).exists("jp:one", "jp:h", "jp:missing");
    p.command(Access.READ, 1, "GET", "jp:one").onNode(Access.READ, env.get("NODE1_ADDR"), "PING");
    assertEquals(18, p.size());
    List<Object> r = p.execute();
    assertEquals(0, p.size(), "execute() empties the queue");
    assertEquals(18, r.size(), r.toString());
    assertEquals(true, r.get(2));
    assertEquals(true, r.get(3));
    assertEquals("1", r.get(4)); // read after a write of its slot: the master, in order
    assertEquals(1L, r.get(5));
    assertEquals(10L, r.get(6));
    assertEquals(1L, r.get(7));
    assertEquals(Map.of("f", "v"), r.get(8));
    assertEquals(1L, r.get(9));
    assertEquals(Map.of("m", 1.5), r.get(10));
    assertEquals(2L, r.get(11));
    assertEquals(List.of("a", "b"), r.get(12));
    CloudRouteException wrongType =
        assertInstanceOf(CloudRouteException.ServerErrorException.class, r.get(13));
    assertEquals(CloudRouteException.EREDIS, wrongType.status());
    assertTrue(wrongType.getMessage().contains("WRONGTYPE"), wrongType.getMessage());
    assertEquals(new ArrayList<>(many.values()), r.get(14));
    assertEquals(2L, r.get(15));
    assertArrayEquals("1".getBytes(StandardCharsets.UTF_8), (byte[]) r.get(16));
    assertEquals("PONG", r.get(17));
    assertTrue(client.pipeline().execute().isEmpty());
  }

  /**
   * A slot moves to another shard behind the client's back (CLUSTER SETSLOT, MIGRATE): the
   * pipeline's commands of that slot get MOVED and follow it; the others are untouched. The slot is
   * moved back afterwards.
   */
  @Test
  void aPipelineFollowsMovedAfterASlotMigration() {
    String key = "{jvm-moved}a";
    try (Client stale =
        Client.connect(
            env.get("SEEDS"),
            null,
            new ClientOptions().refreshIntervalMs(0).commandTimeoutMs(2000))) {
      client.set(key, "before");
      String from = client.router().routeWrite(key).address();
      int fromShard = 0;
      for (int s = 1; s <= 3; s++) {
        if (env.get("SHARD" + s + "_MASTER").equals(from)) fromShard = s;
      }
      int toShard = fromShard % 3 + 1;
      stale.router().routeWrite(key); // the stale client knows the old owner
      moveSlot(key, fromShard, toShard);
      try {
        long moved = stale.stats().moved;
        List<Object> r =
            stale
                .pipeline()
                .set(key, "after")
                .get(env.get("SHARD1_KEY"))
                .incr("{jvm-moved}n")
                .execute();
        assertEquals(true, r.get(0), r.toString());
        assertEquals(env.get("SHARD1_VALUE"), r.get(1));
        assertInstanceOf(Long.class, r.get(2), r.toString());
        assertTrue(stale.stats().moved > moved, stale.stats().toString());
        assertEquals(
            "after", utf8(client.onNode(env.get("SHARD" + toShard + "_MASTER"), "GET", key)));
      } finally {
        moveSlot(key, toShard, fromShard);
      }
    }
  }

  private static void moveSlot(String key, int fromShard, int toShard) {
    int slot = CloudRoute.keyslot(key);
    String from = env.get("SHARD" + fromShard + "_MASTER");
    String to = env.get("SHARD" + toShard + "_MASTER");
    String fromId = env.get("SHARD" + fromShard + "_MASTER_ID");
    String toId = env.get("SHARD" + toShard + "_MASTER_ID");
    String s = Integer.toString(slot);
    client.onNode(to, "CLUSTER", "SETSLOT", s, "IMPORTING", fromId);
    client.onNode(from, "CLUSTER", "SETSLOT", s, "MIGRATING", toId);
    List<?> keys = (List<?>) client.onNode(from, "CLUSTER", "GETKEYSINSLOT", s, "100");
    if (!keys.isEmpty()) {
      List<Object> migrate =
          new ArrayList<>(
              List.of(
                  "MIGRATE",
                  to.substring(0, to.lastIndexOf(':')),
                  to.substring(to.lastIndexOf(':') + 1),
                  "",
                  "0",
                  "5000",
                  "KEYS"));
      migrate.addAll(keys);
      client.onNode(from, migrate.toArray());
    }
    for (String node : List.of(to, from)) {
      client.onNode(node, "CLUSTER", "SETSLOT", s, "NODE", toId);
    }
    for (int sh = 1; sh <= 3; sh++) {
      if (sh != fromShard && sh != toShard) {
        client.onNode(env.get("SHARD" + sh + "_MASTER"), "CLUSTER", "SETSLOT", s, "NODE", toId);
      }
    }
    Poll.until(
        () -> {
          client.refresh(); // the node it asks may not have heard of the move yet
          return client.router().routeWrite(key).address().equals(to);
        },
        "slot " + slot + " not seen on " + to);
  }

  @Test
  void scanSeesEveryKeyOnceAcrossShardsOnLocalNodes() {
    Set<String> written = new HashSet<>();
    Pipeline p = client.pipeline();
    for (int i = 0; i < 300; i++) {
      written.add("jscan:" + i);
      p.set("jscan:" + i, "v");
    }
    p.execute();
    p.sadd("jscan:set", "m").execute(); // a key of another type
    written.add("jscan:set");
    Set<String> shards = new HashSet<>();
    for (String k : written) shards.add(client.router().routeWrite(k).address());
    assertEquals(3, shards.size(), "the keys span every shard");
    // The scan reads local replicas: wait until they hold every key.
    List<String> seen = new ArrayList<>();
    Poll.until(
        () -> {
          seen.clear();
          for (String k : client.scan("jscan:*")) seen.add(k);
          return seen.size() >= written.size();
        },
        "the scan never saw every key");
    assertEquals(written.size(), seen.size(), "a key seen twice: " + seen);
    assertEquals(written, new HashSet<>(seen));

    Set<String> nodes = new HashSet<>();
    List<byte[]> hashes = new ArrayList<>();
    try (Scan<byte[]> scan =
        client.scan(new ScanOptions().match("jscan:*").type("set").count(1000))) {
      assertNull(scan.address());
      while (scan.hasNext()) {
        hashes.add(scan.next());
        nodes.add(scan.address());
      }
    }
    assertEquals(1, hashes.size());
    assertEquals("jscan:set", utf8(hashes.get(0)));
    for (String n : nodes) assertTrue(n.startsWith("127.0.1."), "scanned in cloud B: " + n);
  }

  /**
   * Closing a client while other threads scan, pin and pipeline on it: every call either completes
   * or throws IllegalStateException (the client's close waits for calls in flight and frees the
   * open scans and transactions first) — never a crash or another error.
   */
  @Test
  void closingAClientUnderItsScansAndTransactionsFreesThemFirst() throws Exception {
    Client c = Client.connect(env.get("SEEDS"), null);
    List<Throwable> unexpected = new java.util.concurrent.CopyOnWriteArrayList<>();
    java.util.concurrent.atomic.AtomicLong rounds = new java.util.concurrent.atomic.AtomicLong();
    List<Thread> threads = new ArrayList<>();
    long deadline = System.nanoTime() + 10_000_000_000L;
    for (int n = 0; n < 4; n++) {
      threads.add(
          new Thread(
              () -> {
                try {
                  while (System.nanoTime() < deadline) {
                    try (Scan<byte[]> scan = c.scan(new ScanOptions().count(5));
                        Transaction t = c.transaction("{jclose}k")) {
                      for (int i = 0; i < 20 && scan.hasNext(); i++) scan.next();
                      t.command("PING");
                      c.pipeline().get("{jclose}k").execute();
                      rounds.incrementAndGet();
                    }
                  }
                  unexpected.add(new AssertionError("the client was never closed"));
                } catch (IllegalStateException closed) {
                  // the client is closed: the end this test waits for
                } catch (Throwable e) {
                  unexpected.add(e);
                }
              }));
    }
    threads.forEach(Thread::start);
    Poll.until(() -> rounds.get() >= 20, "no thread got through a round");
    c.close();
    for (Thread t : threads) t.join(15_000);
    for (Thread t : threads) assertFalse(t.isAlive(), "a thread still runs");
    if (!unexpected.isEmpty()) throw new AssertionError(unexpected.get(0));
  }

  @Test
  void scriptsSurviveScriptFlushAndAreRoutedByTheirKeys() {
    client.set("{jscript}k", "v1");
    try (Script get = new Script("return redis.call('GET', KEYS[1])")) {
      assertEquals(40, get.sha().length());
      assertEquals("v1", utf8(client.eval(get, List.of("{jscript}k"), List.of())));
      client.onAllNodes("SCRIPT", "FLUSH");
      assertEquals("v1", utf8(client.eval(get, List.of("{jscript}k"), List.of())));
      // A replica (local first) serves EVALSHA_RO: wait for it to have the value.
      Poll.until(
          () ->
              "v1".equals(Command.text(client.evalReadOnly(get, List.of("{jscript}k"), List.of()))),
          "EVALSHA_RO never read v1");
      client.onAllNodes("SCRIPT", "FLUSH");
      assertEquals("v1", utf8(client.evalReadOnly(get, List.of("{jscript}k"), List.of())));
      CloudRouteException e =
          assertThrows(
              CloudRouteException.InvalidArgumentException.class,
              () -> client.eval(get, List.of("a", "b"), List.of()));
      assertTrue(e.getMessage().contains("CROSSSLOT"), e.getMessage());
    }
    try (Script add = new Script("return tonumber(ARGV[1]) + tonumber(ARGV[2])")) {
      assertEquals(5L, client.eval(add, List.of(), List.of("2", "3")));
      assertEquals(add.sha(), client.scriptLoad("return tonumber(ARGV[1]) + tonumber(ARGV[2])"));
    }
    Script closed = new Script("return 1");
    closed.close();
    assertThrows(IllegalStateException.class, () -> client.eval(closed, List.of(), List.of()));
  }

  @Test
  void functionsAreCalledByTheirKeys() {
    String lib =
        "#!lua name=jvmlib\n"
            + "redis.register_function('jvm_get', function(keys, args) "
            + "return redis.call('GET', keys[1]) end)\n"
            + "redis.register_function{function_name='jvm_get_ro', callback=function(keys, args) "
            + "return redis.call('GET', keys[1]) end, flags={'no-writes'}}\n";
    for (Object v : client.onMasters("FUNCTION", "LOAD", "REPLACE", lib).values()) {
      assertEquals("jvmlib", utf8(v));
    }
    client.set("{jfn}k", "fv");
    assertEquals("fv", utf8(client.fcall("jvm_get", List.of("{jfn}k"), List.of())));
    Poll.until(
        () -> "fv".equals(Command.text(client.fcallRo("jvm_get_ro", List.of("{jfn}k"), List.of()))),
        "FCALL_RO never read fv");
    assertThrows(
        CloudRouteException.ServerErrorException.class,
        () -> client.fcall("jvm_nope", List.of("{jfn}k"), List.of()));
  }

  @Test
  void aTransactionSeesAWatchConflictAndRunsWithoutOne() {
    String key = "{jtx}balance";
    client.set(key, "100");
    try (Transaction t = client.transaction(key)) {
      assertEquals(CloudRoute.keyslot(key), t.slot());
      t.watch(key);
      assertEquals("100", utf8(t.command("GET", key)));
      client.set(key, "50"); // another writer, while watched
      t.multi();
      assertEquals("QUEUED", t.command("SET", key, "90"));
      assertNull(t.exec(), "EXEC ran although the watched key changed");
      t.watch(key);
      t.multi();
      t.command("SET", key, "80");
      t.command("INCR", key);
      t.command(new int[] {1}, "HSET", key, "f", "v"); // fails inside EXEC
      List<Object> r = t.exec();
      assertEquals("OK", r.get(0));
      assertEquals(81L, r.get(1));
      assertInstanceOf(ReplyError.class, r.get(2));
      CloudRouteException cross =
          assertThrows(
              CloudRouteException.InvalidArgumentException.class, () -> t.command("GET", "other"));
      assertTrue(cross.getMessage().contains("CROSSSLOT"), cross.getMessage());
    }
    assertEquals("81", client.get(key));
    try (Transaction t = client.transactionOnSlot(0)) {
      assertEquals(0, t.slot());
    }
  }

  @Test
  void nodeCommandsReachOneNodeEveryMasterOrEveryNode() {
    Map<String, Object> masters = client.onMasters("PING");
    assertEquals(3, masters.size(), masters.toString());
    for (int s = 1; s <= 3; s++) {
      assertEquals("PONG", masters.get(env.get("SHARD" + s + "_MASTER")));
    }
    Map<String, Object> all = client.onAllNodes(new CallOptions().timeoutMs(3000), "PING");
    assertEquals(9, all.size(), all.toString());
    assertEquals("PONG", client.onNode(env.get("NODE2_ADDR"), "PING"));
    assertTrue(client.dbSize() >= 3);
    Map<String, Object> bad = client.onMasters("NOSUCHCOMMAND");
    for (Object v : bad.values()) {
      assertInstanceOf(CloudRouteException.ServerErrorException.class, v);
    }
    CloudRouteException unknown =
        assertThrows(CloudRouteException.class, () -> client.onNode("127.0.0.1:1", "PING"));
    assertEquals(CloudRouteException.ENOTFOUND, unknown.status());
    assertThrows(
        CloudRouteException.ServerErrorException.class,
        () -> client.onNode(env.get("NODE1_ADDR"), "NOSUCHCOMMAND"));
  }

  @Test
  void aBlockingPopWaitsItsOwnTimeoutOrTheCallTimeout() {
    String key = "{jblock}q";
    client.del(key);
    long t0 = System.nanoTime();
    assertNull(client.blpop(key, 0.3));
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertTrue(ms >= 250 && ms < 2000, ms + " ms");
    t0 = System.nanoTime();
    CloudRouteException e =
        assertThrows(
            CloudRouteException.ConnectionException.class,
            () -> client.blpop(new CallOptions().timeoutMs(400), key, 0));
    ms = (System.nanoTime() - t0) / 1_000_000;
    assertEquals(CloudRouteException.ETIMEOUT, e.status());
    assertTrue(ms >= 350 && ms < 1900, ms + " ms (the tier timeout is 2000 ms)");
    client.rpush(key, "x");
    assertEquals("x", client.blpop(key, 1));
  }
}
