package io.cloudroute;

import static io.cloudroute.AsyncTesting.assertCancelled;
import static io.cloudroute.AsyncTesting.assertCollected;
import static io.cloudroute.AsyncTesting.assertSameMessage;
import static io.cloudroute.AsyncTesting.assertStagesRanOn;
import static io.cloudroute.AsyncTesting.await;
import static io.cloudroute.AsyncTesting.closeWithAllInFlight;
import static io.cloudroute.AsyncTesting.failure;
import static io.cloudroute.AsyncTesting.refusedAsTheBlockingCall;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cloudroute.AsyncTesting.RecordingExecutor;
import io.cloudroute.CloudRouteException.InvalidArgumentException;
import io.cloudroute.CloudRouteException.ServerErrorException;
import java.lang.ref.WeakReference;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * The pre-sharded client's asynchronous calls (CompletableFuture on cr_sharded_client_submit and
 * cr_sharded_client_submit_mget ..., the Client's completion path) against standalone servers of
 * its own (tests/PORTS.md: CR_JAVA_SHARDED_PORT + 13 .. + 15, 8974-8976), under -Xcheck:jni in
 * tests/java/run.sh: replies and batches equal to the blocking calls', a dead shard failing a batch
 * as the blocking batch fails, bad arguments refused at once with the blocking calls' exceptions,
 * the executor, close with calls in flight.
 */
class ShardedAsyncTest {
  private static Standalone servers;
  private static int base;
  private static Ring ring;
  private static ShardedClient client;

  @BeforeAll
  static void start() {
    base = Standalone.basePort() + 13;
    servers = Standalone.start(base, base + 1);
    ring = Ring.builder().shard("cache-a", 1).shard("cache-b", 1).build();
    client = connect(new ShardedOptions().commandTimeoutMs(2000));
  }

  private static ShardedClient connect(ShardedOptions options) {
    return new ShardedClient(
        List.of(Standalone.addr(base), Standalone.addr(base + 1)), ring, null, options);
  }

  @AfterAll
  static void stop() {
    if (client != null) client.close();
    if (ring != null) ring.close();
    if (servers != null) servers.close();
  }

  private static List<String> keys(String prefix, int n) {
    List<String> out = new ArrayList<>();
    boolean[] shards = new boolean[2];
    for (int i = 0; i < n; i++) {
      out.add(prefix + i);
      shards[client.locate(prefix + i)] = true;
    }
    assertTrue(shards[0] && shards[1], "the keys cover both shards");
    return out;
  }

  private static String text(byte[] v) {
    return v == null ? null : new String(v, StandardCharsets.UTF_8);
  }

  @Test
  void callsAndBatchesGiveTheBlockingCallsReplies() throws Exception {
    List<String> ks = keys("sa:" + System.nanoTime() + ":", 200);
    List<CompletableFuture<Void>> sets = new ArrayList<>();
    for (String k : ks) sets.add(client.setAsync(k, "v" + k));
    for (CompletableFuture<Void> f : sets) assertNull(await(f));
    List<CompletableFuture<String>> gets = new ArrayList<>();
    for (String k : ks) gets.add(client.getAsync(k));
    for (int i = 0; i < ks.size(); i++) {
      assertEquals("v" + ks.get(i), await(gets.get(i)));
      assertEquals(client.get(ks.get(i)), await(gets.get(i)));
    }
    byte[] bin = {0, (byte) 0xff, 'k'};
    assertNull(await(client.setAsync(bin, new byte[] {1, 0, 2})));
    assertArrayEquals(new byte[] {1, 0, 2}, await(client.getAsync(bin)));
    assertNull(await(client.getAsync("sa:missing")));
    assertEquals(1L, await(client.incrAsync("sa:n")));
    assertEquals(11L, await(client.incrByAsync("sa:n", 10)));
    assertEquals(
        2L,
        await(
            client.commandAsync(
                new CallOptions().timeoutMs(5000),
                Access.WRITE,
                1,
                "HSET",
                "sa:h",
                "a",
                "1",
                "b",
                "2")));
    assertEquals("1", await(client.hgetAsync("sa:h", "a")));
    Throwable e = failure(client.commandAsync(Access.WRITE, 1, "INCR", "sa:h"));
    assertInstanceOf(ServerErrorException.class, e);
    ServerErrorException blocking =
        assertThrows(
            ServerErrorException.class, () -> client.command(Access.WRITE, 1, "INCR", "sa:h"));
    assertSameMessage(blocking, e);

    // The batches: one command per shard, the blocking batches' results.
    Map<String, String> pairs = new LinkedHashMap<>();
    for (String k : ks) pairs.put(k, "w" + k);
    long[] msets = new long[2];
    for (int i = 0; i < 2; i++) {
      try (Jedis j = Standalone.node(base + i)) {
        msets[i] = Standalone.calls(j, "mset");
      }
    }
    assertNull(await(client.msetAsync(pairs)));
    for (int i = 0; i < 2; i++) {
      try (Jedis j = Standalone.node(base + i)) {
        assertEquals(msets[i] + 1, Standalone.calls(j, "mset"), "one MSET on shard " + i);
      }
    }
    List<Object> asked = new ArrayList<>(ks);
    asked.add("sa:absent");
    List<byte[]> values = await(client.mgetAsync(asked.toArray()));
    List<byte[]> expected = client.mget(asked.toArray());
    assertEquals(201, values.size());
    for (int i = 0; i < 201; i++) {
      assertEquals(text(expected.get(i)), text(values.get(i)), "key " + i);
      assertEquals(i < 200 ? "w" + ks.get(i) : null, text(values.get(i)));
    }
    List<byte[]> fromList = await(client.mgetAsync(asked));
    for (int i = 0; i < 201; i++) assertEquals(text(values.get(i)), text(fromList.get(i)));
    Object[] twice = {ks.get(0), ks.get(0), "sa:absent"};
    assertEquals(client.exists(twice), (long) await(client.existsAsync(twice)));
    assertEquals(2L, await(client.existsAsync(twice)));
    assertEquals(200L, await(client.delAsync(asked.toArray())));
    assertEquals(0L, client.exists(ks.toArray()));
    assertEquals(1L, await(client.delAsync("sa:n")));
    assertEquals(0L, await(client.existsAsync("sa:n")));
  }

  /** A shard on a dead server fails the batch as the blocking batch fails, naming it. */
  @Test
  void aDeadShardFailsTheBatchAsTheBlockingBatch() throws Exception {
    int dead = base + 2;
    servers.add(dead);
    try (ShardedClient c =
        new ShardedClient(
            List.of(Standalone.addr(base), Standalone.addr(dead)),
            ring,
            null,
            new ShardedOptions().connectTimeoutMs(500).commandTimeoutMs(1000))) {
      List<String> ks = keys("sd:" + System.nanoTime() + ":", 40);
      servers.kill(dead);
      CloudRouteException blocking =
          assertThrows(CloudRouteException.class, () -> c.mget(ks.toArray()));
      Throwable async = failure(c.mgetAsync(ks.toArray()));
      assertEquals(blocking.getClass(), async.getClass());
      assertTrue(namesTheDeadShard(async.getMessage(), dead), async.getMessage());
      Map<String, String> pairs = new LinkedHashMap<>();
      for (String k : ks) pairs.put(k, "v");
      assertEquals(blocking.getClass(), failure(c.msetAsync(pairs)).getClass());
      // The live shard's keys are served.
      List<Object> live = new ArrayList<>();
      for (String k : ks) if (c.locate(k) == 0) live.add(k);
      assertEquals((long) live.size(), await(c.existsAsync(live.toArray())));
      assertEquals((long) live.size(), await(c.delAsync(live.toArray())));
    }
  }

  private static boolean namesTheDeadShard(String message, int port) {
    return message.contains(Standalone.addr(port)) || message.contains("'cache-b'");
  }

  @Test
  void badArgumentsThrowAtOnceAsTheBlockingCalls() {
    ShardedClient c = client;
    refusedAsTheBlockingCall(() -> c.mget(), () -> c.mgetAsync());
    refusedAsTheBlockingCall(() -> c.mget((Object[]) null), () -> c.mgetAsync((Object[]) null));
    refusedAsTheBlockingCall(() -> c.mget("a", null), () -> c.mgetAsync("a", null));
    refusedAsTheBlockingCall(() -> c.mget("a", 3), () -> c.mgetAsync("a", 3));
    refusedAsTheBlockingCall(() -> c.del(), () -> c.delAsync());
    refusedAsTheBlockingCall(() -> c.exists((Object[]) null), () -> c.existsAsync((Object[]) null));
    refusedAsTheBlockingCall(() -> c.mset(Map.of()), () -> c.msetAsync(Map.of()));
    refusedAsTheBlockingCall(() -> c.mset(null), () -> c.msetAsync(null));
    Map<String, String> nullValue = new LinkedHashMap<>();
    nullValue.put("a", null);
    refusedAsTheBlockingCall(() -> c.mset(nullValue), () -> c.msetAsync(nullValue));
    assertThrows(InvalidArgumentException.class, () -> c.mgetAsync((List<?>) null));
    // AUTO is refused, as by the blocking command; so are a null access and a bad key index.
    refusedAsTheBlockingCall(
        () -> c.command(Access.AUTO, 1, "GET", "a"),
        () -> c.commandAsync(Access.AUTO, 1, "GET", "a"));
    refusedAsTheBlockingCall(
        () -> c.command(null, 1, "GET", "a"), () -> c.commandAsync(null, 1, "GET", "a"));
    assertThrows(InvalidArgumentException.class, () -> c.commandAsync(Access.READ, 5, "GET", "a"));
    assertThrows(InvalidArgumentException.class, () -> c.commandAsync(Access.READ, -1, "GET", "a"));
    assertThrows(InvalidArgumentException.class, () -> c.getAsync((String) null));
    assertThrows(InvalidArgumentException.class, () -> c.setAsync("a", "b", -1));
    assertThrows(
        InvalidArgumentException.class,
        () -> c.commandAsync(new CallOptions().timeoutMs(-1), Access.READ, 1, "GET", "a"));
  }

  @Test
  void futuresCompleteOnTheGivenExecutorNeverOnTheEngineThread() throws Exception {
    RecordingExecutor executor = new RecordingExecutor("test-sharded-async");
    try (executor;
        ShardedClient c = connect(new ShardedOptions().asyncExecutor(executor))) {
      List<String> ks = keys("se:", 20);
      List<CompletableFuture<Thread>> ranOn = new ArrayList<>();
      for (String k : ks) ranOn.add(c.setAsync(k, "v").thenApply(v -> Thread.currentThread()));
      ranOn.add(c.mgetAsync(ks.toArray()).thenApply(v -> Thread.currentThread()));
      assertStagesRanOn(ranOn, executor.pool::contains);
      await(c.delAsync(ks.toArray()));
    }
    executor.assertOnlyHandedOver();
  }

  /**
   * Close with calls in flight (shard 0's server paused for 1.5 s, a BLPOP held on shard 1): each
   * future completes once, failed with a "cancelled:" ConnectionException; the closed client is
   * collected.
   */
  @Test
  void closingWithCallsInFlightCompletesEachFutureOnce() throws Exception {
    assertCollected(closeWithCallsInFlight());
  }

  private static WeakReference<ShardedClient> closeWithCallsInFlight() throws Exception {
    ShardedClient c = connect(new ShardedOptions().commandTimeoutMs(10_000));
    List<String> ks = keys("sc:", 40);
    String onShard0 = null;
    String onShard1 = null;
    for (String k : ks) {
      if (c.locate(k) == 0) onShard0 = k;
      else onShard1 = k;
    }
    Map<String, String> pairs = new LinkedHashMap<>();
    for (String k : ks) pairs.put(k, "v");
    // The shared connections exist before the pause.
    assertEquals(40, await(c.mgetAsync(ks.toArray())).size());
    List<CompletableFuture<?>> all = new ArrayList<>();
    try (Jedis paused = Standalone.node(base)) {
      paused.clientPause(1500);
      CallOptions longWait = new CallOptions().timeoutMs(30_000);
      all.add(c.commandAsync(longWait, Access.WRITE, 1, "BLPOP", onShard1 + ":never", "20"));
      for (int i = 0; i < 20; i++) all.add(c.mgetAsync(ks.toArray()));
      all.add(c.msetAsync(pairs));
      all.add(c.delAsync(ks.toArray()));
      all.add(c.getAsync(onShard0));
      all.add(c.setAsync(onShard0, "x"));
      closeWithAllInFlight(c, all, all);
    }
    Poll.until(() -> Standalone.pings(base), "the paused server answers again");
    for (CompletableFuture<?> f : all) assertCancelled(failure(f));
    assertThrows(IllegalStateException.class, () -> c.mgetAsync(ks.toArray()));
    client.del(ks.toArray());
    return new WeakReference<>(c);
  }
}
