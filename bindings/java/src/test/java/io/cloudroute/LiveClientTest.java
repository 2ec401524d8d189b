package io.cloudroute;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The live cluster client against the harness's two-cloud cluster (tests/java/run.sh). */
class LiveClientTest {
  private static Harness env;
  private static Client client;

  @BeforeAll
  static void connect() {
    env = Harness.require("CR_JAVA_CLUSTER_ENV");
    try (Config c = Harness.cloudA(Policy.LOCAL_REPLICAS_FIRST)) {
      client = Client.connect(env.get("SEEDS"), c, new ClientOptions().commandTimeoutMs(2000));
    }
  }

  // A client of its own whose reads of a slot it wrote go to the slot's
  // master for 10 s: a test that reads back at once what it wrote checks the
  // replies, and a local replica may not have the write yet.
  private static Client readYourWrites() {
    try (Config c = Harness.cloudA(Policy.LOCAL_REPLICAS_FIRST)) {
      return Client.connect(
          env.get("SEEDS"), c, new ClientOptions().commandTimeoutMs(2000).readYourWritesMs(10_000));
    }
  }

  @AfterAll
  static void close() {
    if (client != null) client.close();
  }

  @Test
  void readsTheHarnessKeysInTheLocalCloud() {
    long localBefore = client.stats().readsByTier(Tier.LOCAL);
    for (int s = 1; s <= 3; s++) {
      assertEquals(env.get("SHARD" + s + "_VALUE"), client.get(env.get("SHARD" + s + "_KEY")));
    }
    ClientStats stats = client.stats();
    assertEquals(localBefore + 3, stats.readsByTier(Tier.LOCAL), stats.toString());
    for (NodeStats n : client.nodeStats()) {
      if (n.reads > 0) assertTrue(n.host.startsWith("127.0.1."), n.toString());
    }
  }

  @Test
  void typedCommandsAcrossSlots() {
    try (Client rw = readYourWrites()) {
      byte[] binary = {0, 1, 2, (byte) 0xff, '\r', '\n'};
      rw.set("java:bin".getBytes(StandardCharsets.UTF_8), binary);
      assertArrayEquals(binary, rw.get("java:bin".getBytes(StandardCharsets.UTF_8)));
      Map<Object, Object> pairs = new LinkedHashMap<>();
      for (int i = 0; i < 20; i++) pairs.put("java:m" + i, "v" + i);
      rw.mset(pairs);
      List<byte[]> values = rw.mget(pairs.keySet().toArray());
      for (int i = 0; i < 20; i++) {
        assertEquals("v" + i, new String(values.get(i), StandardCharsets.UTF_8));
      }
      assertEquals(20, rw.del(pairs.keySet().toArray()));
      assertNull(rw.get("java:m0"));
      rw.set("java:ttl", "x", 60_000);
      assertTrue((Long) rw.read("PTTL", "java:ttl") > 0);
    }
  }

  @Test
  void anyCommandAndItsReplies() {
    try (Client rw = readYourWrites()) {
      rw.del("java:h", "java:l", "java:n");
      assertEquals(1L, rw.write("HSET", "java:h", "f", "v"));
      assertEquals(
          "v", new String((byte[]) rw.read("HGET", "java:h", "f"), StandardCharsets.UTF_8));
      assertEquals(3L, rw.write("RPUSH", "java:l", "a", "b", "c"));
      List<?> range = (List<?>) rw.read("LRANGE", "java:l", "0", "-1");
      assertEquals(3, range.size());
      assertEquals("OK", rw.command(Access.WRITE, 1, "SET", "java:n", "1"));
      assertEquals(2L, rw.write("INCR", "java:n"));
      CloudRouteException e =
          assertThrows(
              CloudRouteException.ServerErrorException.class, () -> rw.write("INCR", "java:h"));
      assertEquals(CloudRouteException.EREDIS, e.status());
      assertTrue(e.getMessage().contains("WRONGTYPE"), e.getMessage());
      assertThrows(
          CloudRouteException.InvalidArgumentException.class,
          () -> rw.command(Access.READ, 3, "GET", "k"));
    }
  }

  @Test
  void commandsThatChangeAPooledConnectionAreRefusedAndTheNextGetIsItsOwn() {
    try (Client rw = readYourWrites()) {
      rw.set("{k1}java", "mine");
      String[][] refused = {
        {"SSUBSCRIBE", "{k1}a", "{k1}b"},
        {"MONITOR"},
        {"CLIENT", "REPLY", "OFF"},
        {"SELECT", "1"},
        {"MULTI"}
      };
      for (String[] argv : refused) {
        CloudRouteException e =
            assertThrows(
                CloudRouteException.InvalidArgumentException.class,
                () -> rw.command(Access.READ, argv.length > 1 ? 1 : 0, (Object[]) argv));
        assertTrue(
            e.getMessage().contains("is not sent on the client's pooled connections"),
            e.getMessage());
      }
      for (int i = 0; i < 20; i++) {
        assertEquals("mine", rw.get("{k1}java"));
      }
      assertEquals(0, rw.stats().poisoned);
    }
  }

  @Test
  void theClientsRouterAndRefresh() {
    Router r = client.router();
    String key = env.get("SHARD2_KEY");
    List<Candidate> cands = r.candidates(key);
    assertEquals(Tier.LOCAL, cands.get(0).tier());
    assertEquals(env.get("SHARD2_MASTER"), r.routeWrite(key).address());
    long refreshes = client.stats().refreshes;
    client.refresh();
    assertTrue(client.stats().refreshes > refreshes);
    r.close(); // borrowed: closing the view does nothing
    assertEquals(env.get("SHARD2_MASTER"), client.router().routeWrite(key).address());
  }

  @Test
  void sixteenThreadsOnOneClientAndRouterWhileTheTopologyIsReRead() throws Exception {
    AtomicReference<Throwable> failure = new AtomicReference<>();
    AtomicLong ops = new AtomicLong();
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(2000);
    List<Thread> threads = new ArrayList<>();
    for (int n = 0; n < 16; n++) {
      int id = n;
      threads.add(
          new Thread(
              () -> {
                try {
                  for (int i = 0; System.nanoTime() < deadline; i++) {
                    // Replica reads lag writes: read the harness's fixed keys, write others.
                    int shard = 1 + (i + id) % 3;
                    assertEquals(
                        env.get("SHARD" + shard + "_VALUE"),
                        client.get(env.get("SHARD" + shard + "_KEY")));
                    client.set("java:t" + id + ":" + (i & 63), "v" + i);
                    client.router().routeRead("java:t" + id);
                    ops.incrementAndGet();
                  }
                } catch (Throwable e) {
                  failure.compareAndSet(null, e);
                }
              }));
    }
    threads.add(
        new Thread(
            () -> {
              try {
                while (System.nanoTime() < deadline) {
                  client.refresh();
                  Thread.sleep(50);
                }
              } catch (Throwable e) {
                failure.compareAndSet(null, e);
              }
            }));
    threads.forEach(Thread::start);
    for (Thread t : threads) t.join(15_000);
    if (failure.get() != null) throw new AssertionError(failure.get());
    assertTrue(ops.get() > 100, "ops " + ops.get());
  }

  @Test
  void eightThreadsOnSharedConnectionsGetTheirOwnReplies() throws Exception {
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<String> keys = new ArrayList<>();
    for (int s = 1; s <= 3; s++) keys.add(env.get("SHARD" + s + "_KEY"));
    List<String> values = new ArrayList<>();
    for (int s = 1; s <= 3; s++) values.add(env.get("SHARD" + s + "_VALUE"));
    try (Config c = Harness.cloudA(Policy.LOCAL_REPLICAS_FIRST);
        Client shared =
            Client.connect(
                env.get("SEEDS"),
                c,
                new ClientOptions().commandTimeoutMs(2000).sharedConnections(2))) {
      List<Thread> threads = new ArrayList<>();
      for (int n = 0; n < 8; n++) {
        threads.add(
            new Thread(
                () -> {
                  try {
                    for (int i = 0; i < 300; i++) {
                      int s = i % 3;
                      assertEquals(values.get(s), shared.get(keys.get(s)));
                      if (i % 20 == 0) {
                        List<String> got = new ArrayList<>();
                        for (byte[] v : shared.mget(keys.toArray())) {
                          got.add(new String(v, java.nio.charset.StandardCharsets.UTF_8));
                        }
                        assertEquals(values, got);
                      }
                    }
                  } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                  }
                }));
      }
      threads.forEach(Thread::start);
      for (Thread t : threads) t.join(30_000);
      if (failure.get() != null) throw new AssertionError(failure.get());
      for (NodeStats n : shared.nodeStats()) {
        assertTrue(n.connections <= 2, n.host + ":" + n.port + " " + n.connections);
      }
    }
  }

  @Test
  void noSeedAnswers() {
    CloudRouteException e =
        assertThrows(
            CloudRouteException.ConnectionException.class,
            () -> Client.connect("127.0.0.1:1", null, new ClientOptions().connectTimeoutMs(200)));
    assertTrue(e.getMessage().contains("127.0.0.1:1"), e.getMessage());
  }

  @Test
  void aNegativeCallTimeoutIsRefused() {
    assertThrows(
        CloudRouteException.InvalidArgumentException.class, () -> new CallOptions().timeoutMs(-1));
    assertEquals(0, new CallOptions().timeoutMs());
  }

  @Test
  void aBlockingCommandRepliesWithinItsCallTimeout() {
    String key = "{java:calltimeout}:empty";
    client.del(key);
    long t0 = System.nanoTime();
    assertNull(
        client.command(new CallOptions().timeoutMs(3000), Access.WRITE, 1, "BLPOP", key, "1"));
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertTrue(ms >= 900 && ms < 3000, ms + " ms");
  }

  @Test
  void aPassedCallTimeoutFailsTheCallButDoesNotMarkTheNode() {
    String key = "{java:calltimeout}:forever";
    client.del(key);
    long t0 = System.nanoTime();
    CloudRouteException e =
        assertThrows(
            CloudRouteException.ConnectionException.class,
            () ->
                client.command(
                    new CallOptions().timeoutMs(500), Access.WRITE, 1, "BLPOP", key, "0"));
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertEquals(CloudRouteException.ETIMEOUT, e.status(), e.getMessage());
    assertTrue(ms >= 450 && ms < 1900, ms + " ms (the tier timeout is 2000 ms)");
    int slot = CloudRoute.keyslot(key);
    for (Candidate c : client.router().candidatesSlot(slot)) assertFalse(c.down(), c.toString());
    client.set(key, "still served"); // the master answers at once
    // Read where it was written: a local replica may not have it yet.
    assertArrayEquals(
        "still served".getBytes(StandardCharsets.UTF_8),
        (byte[]) client.command(Access.WRITE, 1, "GET", key));
  }

  @Test
  void theMetricsTextCountsReadsByTier() {
    long before = readsLocal(client.metricsText());
    for (int s = 1; s <= 3; s++) {
      assertEquals(env.get("SHARD" + s + "_VALUE"), client.get(env.get("SHARD" + s + "_KEY")));
    }
    String text = client.metricsText();
    assertTrue(text.contains("# TYPE cloudroute_reads_total counter"), text);
    assertEquals(before + 3, readsLocal(text), text);
    // shard 1 was read on its cloud-A replica n2
    assertTrue(text.contains("cloudroute_node_up{node=\"" + env.get("NODE2_ADDR") + "\"} 1"), text);
  }

  private static long readsLocal(String metrics) {
    Matcher m =
        Pattern.compile("(?m)^cloudroute_reads_total\\{tier=\"local\"\\} (\\d+)$").matcher(metrics);
    assertTrue(m.find(), metrics);
    return Long.parseLong(m.group(1));
  }

  /** redis 7 in cluster mode serves database 0 only: db=2 fails the start with its reply. */
  @Test
  void aDatabaseTheClusterRefusesFailsTheStart() {
    CloudRouteException e =
        assertThrows(
            CloudRouteException.ServerErrorException.class,
            () -> Client.connect(env.get("SEEDS"), null, new ClientOptions().db(2)).close());
    assertTrue(
        e.getMessage().contains("SELECT 2 refused: ERR SELECT is not allowed in cluster mode"),
        e.getMessage());
  }
}
