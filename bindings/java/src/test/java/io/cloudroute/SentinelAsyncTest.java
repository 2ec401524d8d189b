package io.cloudroute;

import static io.cloudroute.AsyncTesting.assertBatchCancelled;
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
 * The Sentinel client's asynchronous calls (CompletableFuture on cr_sentinel_client_submit and
 * cr_sentinel_client_submit_mget ..., the Client's completion path) against the harness's two
 * groups (tests/java/run.sh, under -Xcheck:jni): one reply per future over both groups, the
 * blocking calls' conversions and exceptions, batches equal to the blocking batches (a partly
 * failed one reported per key alike), the executor that completes the futures, close with calls and
 * batches in flight.
 */
class SentinelAsyncTest {
  private static Harness env;
  private static List<String> names;
  private static Ring ring;
  private static SentinelClient client;

  @BeforeAll
  static void connect() {
    env = Harness.require("CR_JAVA_SENTINEL_ENV");
    names = List.of(env.get("SENTINEL_MASTER_NAMES").split(","));
    ring = Ring.builder().hash(HashAlgo.MURMUR).shard(names.get(0)).shard(names.get(1)).build();
    client = connect(new SentinelOptions().commandTimeoutMs(2000));
  }

  /** Reads on the masters: the tests read what they just wrote (no replication lag). */
  private static SentinelClient connect(SentinelOptions options) {
    try (Config c = Harness.cloudA(Policy.MASTER)) {
      return SentinelClient.connect(env.get("SENTINELS"), names, ring, c, options);
    }
  }

  @AfterAll
  static void close() {
    if (client != null) client.close();
    if (ring != null) ring.close();
  }

  @Test
  void singleKeyCallsGetTheirOwnRepliesOverBothGroups() throws Exception {
    int n = 400;
    String prefix = "java:sasync:" + System.nanoTime() + ":";
    List<CompletableFuture<Void>> sets = new ArrayList<>();
    for (int i = 0; i < n; i++) sets.add(client.setAsync(prefix + i, "v" + i));
    for (CompletableFuture<Void> f : sets) assertNull(await(f));
    List<CompletableFuture<String>> gets = new ArrayList<>();
    List<CompletableFuture<byte[]>> raw = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      gets.add(client.getAsync(prefix + i));
      raw.add(client.getAsync((prefix + i).getBytes(StandardCharsets.UTF_8)));
    }
    int[] groups = new int[2];
    for (int i = 0; i < n; i++) {
      assertEquals("v" + i, await(gets.get(i)));
      assertArrayEquals(("v" + i).getBytes(StandardCharsets.UTF_8), await(raw.get(i)));
      assertEquals("v" + i, client.get(prefix + i)); // the blocking call agrees
      groups[ring.locate(prefix + i)]++;
    }
    assertTrue(
        groups[0] > 0 && groups[1] > 0, "keys of both groups: " + groups[0] + "/" + groups[1]);
    assertNull(await(client.getAsync(prefix + "missing")));
  }

  @Test
  void typedCallsConvertAndFailAsTheBlockingOnes() throws Exception {
    String k = "java:sasync:typed:" + System.nanoTime();
    assertEquals(1L, await(client.incrAsync(k)));
    assertEquals(11L, await(client.incrByAsync(k, 10)));
    assertEquals(1L, await(client.existsAsync(k)));
    assertEquals(1L, await(client.delAsync(k)));
    assertEquals(0L, await(client.existsAsync(k)));
    assertEquals(1L, await(client.hsetAsync(k + ":h", "f", "x")));
    assertEquals("x", await(client.hgetAsync(k + ":h", "f")));
    assertNull(await(client.hgetAsync(k + ":h", "nope")));
    assertNull(await(client.setAsync(k + ":ttl", "v", 60_000)));
    long pttl = (Long) await(client.commandAsync(Access.READ, 1, "PTTL", k + ":ttl"));
    assertTrue(pttl > 0 && pttl <= 60_000, "PTTL " + pttl);
    assertEquals(
        "OK",
        await(
            client.commandAsync(
                new CallOptions().timeoutMs(5000), Access.WRITE, 1, "SET", k, "not a number")));
    // A server's error fails the future with the blocking call's exception.
    Throwable e = failure(client.incrAsync(k));
    assertInstanceOf(ServerErrorException.class, e);
    ServerErrorException blocking =
        assertThrows(ServerErrorException.class, () -> client.command(Access.WRITE, 1, "INCR", k));
    assertEquals(blocking.getMessage(), e.getMessage());
    assertEquals(1L, await(client.delAsync(k)));
    assertEquals(1L, await(client.delAsync(k + ":h")));
    assertEquals(1L, await(client.delAsync(k + ":ttl")));
  }

  @Test
  void badArgumentsThrowAtOnce() {
    // AUTO is refused, as by the blocking command.
    assertThrows(
        InvalidArgumentException.class, () -> client.commandAsync(Access.AUTO, 1, "GET", "k"));
    assertThrows(InvalidArgumentException.class, () -> client.commandAsync(null, 1, "GET", "k"));
    assertThrows(
        InvalidArgumentException.class, () -> client.commandAsync(Access.READ, 2, "GET", "k"));
    assertThrows(InvalidArgumentException.class, () -> client.setAsync("k", "v", -1));
    assertThrows(
        InvalidArgumentException.class,
        () -> client.commandAsync(new CallOptions().timeoutMs(-1), Access.READ, 1, "GET", "k"));
  }

  @Test
  void futuresCompleteOnTheGivenExecutorNeverOnTheEngineThread() throws Exception {
    String k = "java:sasync:executor:" + System.nanoTime();
    RecordingExecutor executor = new RecordingExecutor("test-sentinel-async");
    try (executor;
        SentinelClient c =
            connect(new SentinelOptions().commandTimeoutMs(2000).asyncExecutor(executor))) {
      await(c.setAsync(k, "v"));
      List<CompletableFuture<Thread>> ranOn = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        ranOn.add(c.getAsync(k).thenApply(v -> Thread.currentThread()));
      }
      assertStagesRanOn(ranOn, executor.pool::contains);
      await(c.delAsync(k));
    }
    executor.assertOnlyHandedOver();
    // The default executor: the shared pool.
    List<CompletableFuture<Thread>> on = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      on.add(client.getAsync(k).handle((v, e) -> Thread.currentThread()));
    }
    assertStagesRanOn(on, t -> t.getName().startsWith("cloudroute-async-"));
  }

  /**
   * Close with calls in flight (4 BLPOPs held by workers, 500 GETs): each future completes once,
   * the BLPOPs as "cancelled:" ConnectionExceptions, the rest with the value or cancelled; and no
   * call's global reference outlives its completion (the closed client is collected).
   */
  @Test
  void closingWithCallsInFlightCompletesEachFutureOnce() throws Exception {
    assertCollected(closeWithCallsInFlight());
  }

  private static WeakReference<SentinelClient> closeWithCallsInFlight() throws Exception {
    SentinelClient c = connect(new SentinelOptions().commandTimeoutMs(2000));
    String k = "java:sasync:close:" + System.nanoTime();
    await(c.setAsync(k, "v"));
    List<CompletableFuture<?>> blocked = new ArrayList<>();
    List<CompletableFuture<?>> all = new ArrayList<>();
    CallOptions longWait = new CallOptions().timeoutMs(30_000);
    for (int i = 0; i < 4; i++) {
      blocked.add(c.commandAsync(longWait, Access.WRITE, 1, "BLPOP", k + ":never:" + i, "20"));
    }
    all.addAll(blocked);
    for (int i = 0; i < 500; i++) all.add(c.getAsync(k));
    closeWithAllInFlight(c, all, blocked);
    for (CompletableFuture<?> f : all.subList(blocked.size(), all.size())) {
      if (f.isCompletedExceptionally()) assertCancelled(failure(f));
      else assertEquals("v", await(f));
    }
    assertThrows(IllegalStateException.class, () -> c.getAsync(k));
    client.del(k);
    return new WeakReference<>(c);
  }

  /** 100 keys over both groups. */
  private static List<String> hundred(String prefix) {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 100; i++) keys.add(prefix + i);
    boolean[] groups = new boolean[2];
    for (String k : keys) groups[ring.locate(k)] = true;
    assertTrue(groups[0] && groups[1], "the keys cover both groups");
    return keys;
  }

  private static Jedis master(Object key) {
    return node(client.groups().routeWrite(key).address());
  }

  private static Jedis node(String address) {
    int colon = address.lastIndexOf(':');
    return new Jedis(
        address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)), 10_000);
  }

  private static String text(byte[] v) {
    return v == null ? null : new String(v, StandardCharsets.UTF_8);
  }

  @Test
  void batchesWithoutWaitingGiveTheBlockingBatchesResults() throws Exception {
    List<String> keys = hundred("java:sasync:batch:" + System.nanoTime() + ":");
    Map<String, String> pairs = new LinkedHashMap<>();
    for (String k : keys) pairs.put(k, "v:" + k);
    assertNull(await(client.msetAsync(pairs)));
    List<Object> asked = new ArrayList<>(keys);
    asked.add(keys.get(0) + ":absent");
    List<byte[]> blocking = client.mget(asked.toArray());
    List<byte[]> values = await(client.mgetAsync(asked.toArray()));
    assertEquals(101, values.size());
    for (int i = 0; i < 101; i++) {
      assertEquals(text(blocking.get(i)), text(values.get(i)), "key " + i);
      assertEquals(i < 100 ? "v:" + keys.get(i) : null, text(values.get(i)), "key " + i);
    }
    List<byte[]> fromList = await(client.mgetAsync(asked));
    for (int i = 0; i < 101; i++) assertEquals(text(values.get(i)), text(fromList.get(i)));
    // Binary keys and a key named twice, as the blocking batch counts them.
    byte[] raw = keys.get(1).getBytes(StandardCharsets.UTF_8);
    Object[] twice = {raw, keys.get(1), keys.get(2), keys.get(0) + ":absent"};
    assertEquals(client.exists(twice), (long) await(client.existsAsync(twice)));
    assertEquals(3L, await(client.existsAsync(twice)));
    assertEquals(100L, await(client.existsAsync(asked.toArray())));
    assertEquals(100L, await(client.delAsync(asked.toArray())));
    // A group failed over between the DEL and the EXISTS would show its keys again (the new
    // master never saw the DEL): the message says whether a master moved.
    assertEquals(0L, client.exists(keys.toArray()), () -> "after the DEL: " + client.stats());
    assertEquals(0L, await(client.delAsync(keys.toArray())));
  }

  /**
   * Group 1's master refuses writes (OOM): the asynchronous MSET fails with the blocking MSET's
   * exception — the same class, message, failed keys and per-key results — and group 0's keys are
   * written.
   */
  @Test
  void aPartlyFailedBatchIsReportedPerKeyAsTheBlockingOne() throws Exception {
    List<String> keys = hundred("java:sasync:oom:" + System.nanoTime() + ":");
    String inGroup1 = null;
    for (String k : keys) if (ring.locate(k) == 1) inGroup1 = k;
    Map<String, String> pairs = new LinkedHashMap<>();
    for (String k : keys) pairs.put(k, "v:" + k);
    CloudRouteException blocking;
    Throwable async;
    try (Jedis m = master(inGroup1)) {
      m.configSet("maxmemory", "1");
      try {
        blocking = assertThrows(ServerErrorException.class, () -> client.mset(pairs));
        async = failure(client.msetAsync(pairs));
      } finally {
        m.configSet("maxmemory", "0");
      }
    }
    assertInstanceOf(ServerErrorException.class, async);
    CloudRouteException e = (CloudRouteException) async;
    assertTrue(e.getMessage().contains("OOM"), e.getMessage());
    assertSameMessage(blocking, e);
    List<Object> expectedFailed = new ArrayList<>();
    for (String k : keys) if (ring.locate(k) == 1) expectedFailed.add(k);
    assertEquals(expectedFailed, e.failedKeys());
    assertEquals(blocking.failedKeys(), e.failedKeys());
    assertEquals(100, e.results().size());
    for (int i = 0; i < 100; i++) {
      Object b = blocking.results().get(i);
      Object a = e.results().get(i);
      if (ring.locate(keys.get(i)) == 1) {
        assertInstanceOf(ServerErrorException.class, a);
        assertSameMessage((Throwable) b, (Throwable) a);
      } else {
        assertNull(a);
        assertNull(b);
      }
    }
    // Group 0's keys were written (reads on the masters).
    List<byte[]> values = client.mget(keys.toArray());
    for (int i = 0; i < 100; i++) {
      if (ring.locate(keys.get(i)) == 0) assertEquals("v:" + keys.get(i), text(values.get(i)));
      else assertNull(values.get(i));
    }
    assertTrue(await(client.delAsync(keys.toArray())) > 0);
  }

  @Test
  void badBatchArgumentsThrowAtOnceAsTheBlockingBatches() {
    refusedAsTheBlockingCall(() -> client.mget(), () -> client.mgetAsync());
    refusedAsTheBlockingCall(
        () -> client.mget((Object[]) null), () -> client.mgetAsync((Object[]) null));
    refusedAsTheBlockingCall(() -> client.mget("a", null), () -> client.mgetAsync("a", null));
    refusedAsTheBlockingCall(() -> client.del(), () -> client.delAsync());
    refusedAsTheBlockingCall(() -> client.exists(1, 2), () -> client.existsAsync(1, 2));
    refusedAsTheBlockingCall(() -> client.mset(Map.of()), () -> client.msetAsync(Map.of()));
    refusedAsTheBlockingCall(() -> client.mset(null), () -> client.msetAsync(null));
    Map<String, String> nullValue = new LinkedHashMap<>();
    nullValue.put("a", null);
    refusedAsTheBlockingCall(() -> client.mset(nullValue), () -> client.msetAsync(nullValue));
    assertThrows(InvalidArgumentException.class, () -> client.mgetAsync((List<?>) null));
  }

  /**
   * Close with batches in flight: every instance of group 0 paused for 800 ms (reads may go to any
   * of them; below Sentinel's down-after-milliseconds, so nothing fails over). Each future
   * completes once, failed with a ConnectionException saying "cancelled:" and naming every key of
   * the batch, as the blocking batch reports failed groups; the closed client is collected.
   */
  @Test
  void closingWithBatchesInFlightFailsEachOnceNamingEveryKey() throws Exception {
    assertCollected(closeWithBatchesInFlight());
  }

  private static WeakReference<SentinelClient> closeWithBatchesInFlight() throws Exception {
    SentinelClient c = connect(new SentinelOptions().commandTimeoutMs(10_000));
    List<String> keys = hundred("java:sasync:closeb:" + System.nanoTime() + ":");
    Map<String, String> pairs = new LinkedHashMap<>();
    for (String k : keys) pairs.put(k, "v");
    // The shared connections exist before the pause (one being set up to a paused instance would
    // time out, and the reads would move on).
    for (int i = 0; i < 10; i++) assertEquals(100, await(c.mgetAsync(keys.toArray())).size());
    List<Jedis> group0 = new ArrayList<>();
    for (Candidate i : c.groups().candidates(firstOfGroup(keys, 0))) {
      group0.add(node(i.host() + ":" + i.port()));
    }
    List<CompletableFuture<?>> all = new ArrayList<>();
    try {
      for (Jedis j : group0) j.clientPause(800);
      for (int i = 0; i < 20; i++) all.add(c.mgetAsync(keys.toArray()));
      all.add(c.existsAsync(keys.toArray()));
      all.add(c.msetAsync(pairs));
      all.add(c.delAsync(keys.toArray()));
      closeWithAllInFlight(c, all, List.of());
    } finally {
      for (Jedis j : group0) {
        Poll.until(() -> "PONG".equals(j.ping()), "group 0 answers again");
        j.close();
      }
    }
    for (CompletableFuture<?> f : all) assertBatchCancelled(failure(f), keys);
    assertThrows(IllegalStateException.class, () -> c.mgetAsync(keys.toArray()));
    client.del(keys.toArray());
    return new WeakReference<>(c);
  }

  private static String firstOfGroup(List<String> keys, int group) {
    for (String k : keys) if (ring.locate(k) == group) return k;
    throw new IllegalStateException("no key of group " + group);
  }
}
