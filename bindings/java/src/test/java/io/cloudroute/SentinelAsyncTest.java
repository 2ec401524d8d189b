package io.cloudroute;

import static io.cloudroute.AsyncTesting.assertCancelled;
import static io.cloudroute.AsyncTesting.assertCollected;
import static io.cloudroute.AsyncTesting.await;
import static io.cloudroute.AsyncTesting.closeWithAllInFlight;
import static io.cloudroute.AsyncTesting.failure;
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
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The Sentinel client's asynchronous single-key calls (CompletableFuture on
 * cr_sentinel_client_submit, the Client's completion path) against the harness's two groups
 * (tests/java/run.sh, under -Xcheck:jni): one reply per future over both groups, the blocking
 * calls' conversions and exceptions, the executor that completes the futures, close with calls in
 * flight.
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
      for (CompletableFuture<Thread> f : ranOn) assertTrue(executor.pool.contains(await(f)));
      await(c.delAsync(k));
    }
    executor.assertOnlyHandedOver();
    // The default executor: the shared pool.
    CompletableFuture<Thread> on = client.getAsync(k).handle((v, e) -> Thread.currentThread());
    assertTrue(await(on).getName().startsWith("cloudroute-async-"), await(on).getName());
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
}
