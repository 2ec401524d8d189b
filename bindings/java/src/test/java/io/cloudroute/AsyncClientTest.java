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
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The live client's asynchronous calls (CompletableFuture on cr_client_submit) against the
 * harness's clusters (tests/java/run.sh, under -Xcheck:jni): one reply per future, the blocking
 * calls' conversions and exceptions, the thread that completes a future, close and cancel with
 * calls in flight, a stopped local replica.
 */
class AsyncClientTest {
  private static Harness env;
  private static Client client;

  /** Reads on masters: for the tests that read what they just wrote (no replication lag). */
  private static Client onMasters;

  @BeforeAll
  static void connect() {
    env = Harness.require("CR_JAVA_CLUSTER_ENV");
    client = connect(env, new ClientOptions().commandTimeoutMs(2000));
    onMasters = connectOnMasters();
  }

  private static Client connectOnMasters() {
    try (Config c = Harness.cloudA(Policy.MASTER)) {
      return Client.connect(env.get("SEEDS"), c, new ClientOptions().commandTimeoutMs(2000));
    }
  }

  @AfterAll
  static void close() {
    if (client != null) client.close();
    if (onMasters != null) onMasters.close();
  }

  private static Client connect(Harness h, ClientOptions options) {
    try (Config c = Harness.cloudA(Policy.LOCAL_REPLICAS_FIRST)) {
      return Client.connect(h.get("SEEDS"), c, options);
    }
  }

  /** Until a blocking read of each key (where the asynchronous one reads too) gives its value. */
  private static void awaitReplicated(String prefix, int n, String valuePrefix) {
    Poll.until(
        () -> {
          for (int i = 0; i < n; i++) {
            if (!(valuePrefix + i).equals(client.get(prefix + i))) return false;
          }
          return true;
        },
        "the local replicas hold every value written");
  }

  @Test
  void twoThousandCallsInFlightEachGetTheirOwnReply() throws Exception {
    int n = 2000;
    String prefix = "java:async:many:" + System.nanoTime() + ":";
    List<CompletableFuture<Void>> sets = new ArrayList<>(n);
    for (int i = 0; i < n; i++) sets.add(client.setAsync(prefix + i, "value-" + i));
    CompletableFuture.allOf(sets.toArray(new CompletableFuture<?>[0])).get(30, TimeUnit.SECONDS);
    awaitReplicated(prefix, n, "value-");
    // Three shapes at once: GET of a String key, of a byte[] key, and a command placed by AUTO.
    List<CompletableFuture<?>> reads = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      String key = prefix + i;
      switch (i % 3) {
        case 0:
          reads.add(client.getAsync(key));
          break;
        case 1:
          reads.add(client.getAsync(key.getBytes(StandardCharsets.UTF_8)));
          break;
        default:
          reads.add(client.commandAsync(Access.AUTO, 0, "GET", key));
      }
    }
    for (int i = 0; i < n; i++) {
      Object v = reads.get(i).get(30, TimeUnit.SECONDS);
      String text =
          v instanceof byte[] ? new String((byte[]) v, StandardCharsets.UTF_8) : (String) v;
      assertEquals("value-" + i, text, "future " + i);
    }
  }

  /**
   * 300 MGETs of 7 keys each (in several slots) and 300 pipelines in flight at once, on the local
   * replicas: each future gets exactly its own keys' values, every call's keys distinct.
   */
  @Test
  void manyFanOutsInFlightEachGetTheirOwnValues() throws Exception {
    int calls = 300;
    int per = 7;
    String prefix = "java:async:fan:" + System.nanoTime() + ":";
    Map<String, String> pairs = new LinkedHashMap<>();
    for (int i = 0; i < calls * per; i++) pairs.put(prefix + i, "fan-" + i);
    await(client.msetAsync(pairs));
    awaitReplicated(prefix, calls * per, "fan-");
    List<CompletableFuture<List<byte[]>>> mgets = new ArrayList<>(calls);
    List<CompletableFuture<List<Object>>> pipelines = new ArrayList<>(calls);
    for (int c = 0; c < calls; c++) {
      List<String> keys = new ArrayList<>(per);
      for (int j = 0; j < per; j++) keys.add(prefix + (c * per + j));
      mgets.add(c % 2 == 0 ? client.mgetAsync(keys) : client.mgetAsync(keys.toArray()));
      Pipeline p = client.pipeline();
      for (int j = per - 1; j >= 0; j--) p.get(keys.get(j));
      p.mget(keys.get(0), keys.get(per - 1));
      pipelines.add(p.executeAsync());
      assertEquals(0, p.size(), "the queue is emptied at submit");
    }
    for (int c = 0; c < calls; c++) {
      List<byte[]> values = mgets.get(c).get(30, TimeUnit.SECONDS);
      assertEquals(per, values.size());
      for (int j = 0; j < per; j++) {
        assertEquals(
            "fan-" + (c * per + j), new String(values.get(j), StandardCharsets.UTF_8), "mget " + c);
      }
      List<Object> replies = pipelines.get(c).get(30, TimeUnit.SECONDS);
      assertEquals(per + 1, replies.size());
      for (int j = 0; j < per; j++) {
        assertEquals("fan-" + (c * per + per - 1 - j), replies.get(j), "pipeline " + c);
      }
      assertEquals(
          List.of("fan-" + c * per, "fan-" + (c * per + per - 1)), replies.get(per), "pipeline");
    }
  }

  @Test
  void multiKeyCallsAndPipelinesConvertAndFailAsTheBlockingOnes() throws Exception {
    Client client = onMasters; // reads what it just wrote
    String a = "java:async:multi:a:" + System.nanoTime();
    String b = "java:async:multi:b:" + System.nanoTime();
    String missing = "java:async:multi:missing";
    Map<String, Object> pairs = new LinkedHashMap<>();
    pairs.put(a, "1");
    pairs.put(b, new byte[] {0, (byte) 0xff});
    assertNull(await(client.msetAsync(pairs)));
    List<byte[]> values = await(client.mgetAsync(a, missing, b.getBytes(StandardCharsets.UTF_8)));
    assertEquals("1", new String(values.get(0), StandardCharsets.UTF_8));
    assertNull(values.get(1));
    assertArrayEquals(new byte[] {0, (byte) 0xff}, values.get(2));
    assertEquals(3L, await(client.existsAsync(a, b, a, missing)), "a key named twice counts twice");
    assertEquals(1L, await(client.existsAsync(b)));

    // A pipeline: results in order, the failed command's exception in its place, as execute().
    Pipeline p = client.pipeline();
    p.incr(a).incr(b).get(a).exists(a, b, missing).command(Access.READ, 1, "NOSUCH", a);
    List<Object> async = await(p.executeAsync());
    p.incr(a).incr(b).get(a).exists(a, b, missing).command(Access.READ, 1, "NOSUCH", a);
    List<Object> blocking = p.execute();
    assertEquals(2L, async.get(0));
    assertEquals(3L, blocking.get(0));
    assertEquals("2", async.get(2));
    assertEquals(2L, async.get(3));
    for (int i : new int[] {1, 4}) {
      assertInstanceOf(ServerErrorException.class, async.get(i), "command " + i);
      assertInstanceOf(ServerErrorException.class, blocking.get(i));
      assertEquals(
          ((Exception) blocking.get(i)).getMessage(), ((Exception) async.get(i)).getMessage());
    }
    assertEquals(List.of(), await(client.pipeline().executeAsync()), "an empty pipeline");

    assertEquals(2L, await(client.delAsync(a, b, missing)));
    assertEquals(0L, await(client.delAsync(a)), "the one-key form");
    assertEquals(0L, await(client.existsAsync(a, b)));

    // Refused at once, nothing sent; a pipeline refused keeps its queue.
    assertThrows(InvalidArgumentException.class, () -> client.mgetAsync());
    assertThrows(InvalidArgumentException.class, () -> client.mgetAsync((List<?>) null));
    assertThrows(InvalidArgumentException.class, () -> client.mgetAsync("k", 4));
    assertThrows(InvalidArgumentException.class, () -> client.delAsync(new Object[0]));
    assertThrows(InvalidArgumentException.class, () -> client.existsAsync("k", null));
    assertThrows(InvalidArgumentException.class, () -> client.msetAsync(null));
    assertThrows(InvalidArgumentException.class, () -> client.msetAsync(new LinkedHashMap<>()));
    Client closed = connect(env, new ClientOptions());
    Pipeline queued = closed.pipeline().get(a);
    closed.close();
    assertThrows(IllegalStateException.class, () -> closed.mgetAsync(a));
    assertThrows(IllegalStateException.class, queued::executeAsync);
    assertEquals(1, queued.size());
  }

  @Test
  void typedCallsConvertAndFailAsTheBlockingOnes() throws Exception {
    Client client = onMasters; // reads what it just wrote
    String k = "java:async:typed";
    client.del(k, "java:async:typed:h");
    assertEquals(1L, await(client.incrAsync(k)));
    assertEquals(11L, await(client.incrByAsync(k, 10)));
    assertEquals("11", await(client.getAsync(k)));
    assertEquals(1L, await(client.existsAsync(k)));
    assertEquals(1L, await(client.delAsync(k)));
    assertEquals(0L, await(client.existsAsync(k)));
    assertNull(await(client.getAsync(k)));
    assertNull(await(client.getAsync(k.getBytes(StandardCharsets.UTF_8))));

    String h = "java:async:typed:h";
    assertEquals(1L, await(client.hsetAsync(h, "f", "v")));
    assertEquals("v", await(client.hgetAsync(h, "f")));
    assertNull(await(client.hgetAsync(h, "missing")));

    byte[] binary = {0, 1, 2, (byte) 0xff, '\r', '\n'};
    byte[] bk = "java:async:bin".getBytes(StandardCharsets.UTF_8);
    await(client.setAsync(bk, binary));
    assertArrayEquals(binary, await(client.getAsync(bk)));
    assertArrayEquals(binary, (byte[]) await(client.commandAsync(Access.READ, 1, "GET", bk)));
    await(client.setAsync(k, "x", 60_000));
    assertTrue(client.pttl(k) > 0);

    // A server's error: the blocking call's exception class and text, as the future's failure.
    ServerErrorException blocking =
        assertThrows(ServerErrorException.class, () -> client.hset(k, "f", "v"));
    Throwable async = failure(client.hsetAsync(k, "f", "v"));
    assertInstanceOf(ServerErrorException.class, async);
    assertEquals(blocking.getMessage(), async.getMessage());
    assertEquals(CloudRouteException.EREDIS, ((CloudRouteException) async).status());
    client.del(k, h);
  }

  @Test
  void badArgumentsThrowAtOnceAndNothingIsSent() {
    assertThrows(InvalidArgumentException.class, () -> client.commandAsync(null, 1, "GET", "k"));
    assertThrows(
        InvalidArgumentException.class, () -> client.commandAsync(Access.READ, 2, "GET", "k"));
    assertThrows(
        InvalidArgumentException.class, () -> client.commandAsync(Access.READ, -1, "GET", "k"));
    assertThrows(InvalidArgumentException.class, () -> client.commandAsync(Access.READ, 0));
    assertThrows(InvalidArgumentException.class, () -> client.getAsync((String) null));
    assertThrows(
        InvalidArgumentException.class, () -> client.commandAsync(Access.WRITE, 1, "SET", "k", 4));
    assertThrows(InvalidArgumentException.class, () -> client.incrAsync(null));
    assertThrows(InvalidArgumentException.class, () -> client.setAsync("k", "v", -1));
    // AUTO refuses what it cannot place on one key: keyless, or keys in several slots.
    assertThrows(InvalidArgumentException.class, () -> client.commandAsync(Access.AUTO, 0, "PING"));
    assertThrows(
        InvalidArgumentException.class,
        () -> client.commandAsync(Access.AUTO, 0, "MGET", "a", "b", "c", "d"));
    Client closed = connect(env, new ClientOptions());
    closed.close();
    assertThrows(IllegalStateException.class, () -> closed.getAsync("k"));
  }

  @Test
  void futuresCompleteOnTheExecutorNeverOnTheEngineThread() throws Exception {
    // The default pool: a stage waiting on the future runs there. (Only the stage's own future is
    // awaited: a thread in get() or join() on a future helps run its stages, as CompletableFuture
    // does.)
    String waitKey = "java:async:never-pushed:" + System.nanoTime();
    CompletableFuture<Object> blpop = client.commandAsync(Access.WRITE, 1, "BLPOP", waitKey, "0.5");
    CompletableFuture<Thread> ranOn = blpop.handle((v, e) -> Thread.currentThread());
    assertTrue(await(ranOn).getName().startsWith("cloudroute-async-"), await(ranOn).getName());
    assertNull(blpop.getNow("not done"));
    // A pipeline's future as well (its BLPOP keeps it in flight while the stage is added).
    CompletableFuture<List<Object>> pipelined =
        client.pipeline().command(Access.WRITE, 1, "BLPOP", waitKey, "0.5").executeAsync();
    ranOn = pipelined.handle((v, e) -> Thread.currentThread());
    assertTrue(await(ranOn).getName().startsWith("cloudroute-async-"), await(ranOn).getName());
    assertEquals(Collections.singletonList(null), pipelined.getNow(null));

    // An executor of the caller's: the library's threads only hand the completions over.
    RecordingExecutor executor = new RecordingExecutor("test-async");
    try (executor;
        Client c = connect(env, new ClientOptions().asyncExecutor(executor))) {
      List<CompletableFuture<String>> gets = new ArrayList<>();
      for (int i = 0; i < 100; i++) gets.add(c.getAsync(env.get("SHARD" + (1 + i % 3) + "_KEY")));
      for (int i = 0; i < 100; i++) {
        assertEquals(env.get("SHARD" + (1 + i % 3) + "_VALUE"), await(gets.get(i)));
      }
      List<String> keys = new ArrayList<>();
      for (int s = 1; s <= 3; s++) keys.add(env.get("SHARD" + s + "_KEY"));
      List<String> expected = new ArrayList<>();
      for (int s = 1; s <= 3; s++) expected.add(env.get("SHARD" + s + "_VALUE"));
      List<CompletableFuture<List<Object>>> pipelines = new ArrayList<>();
      List<CompletableFuture<List<byte[]>>> mgets = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        mgets.add(c.mgetAsync(keys));
        pipelines.add(c.pipeline().mget(keys.toArray(new String[0])).executeAsync());
      }
      for (int i = 0; i < 50; i++) {
        List<String> got = new ArrayList<>();
        for (byte[] v : await(mgets.get(i))) got.add(new String(v, StandardCharsets.UTF_8));
        assertEquals(expected, got);
        assertEquals(List.of(expected), await(pipelines.get(i)));
      }
      blpop = c.commandAsync(Access.WRITE, 1, "BLPOP", waitKey, "0.5");
      ranOn = blpop.handle((v, e) -> Thread.currentThread());
      assertTrue(executor.pool.contains(await(ranOn)), await(ranOn).getName());
      assertNull(blpop.getNow("not done"));
    }
    // The engine (GETs) and a worker (BLPOP): library threads the binding attached.
    executor.assertOnlyHandedOver();
  }

  @Test
  void aCancelledFutureDropsItsReplyAndTheConnectionStaysInStep() throws Exception {
    int n = 300;
    String prefix = "java:async:cancel:" + System.nanoTime() + ":";
    List<CompletableFuture<Void>> sets = new ArrayList<>();
    for (int i = 0; i < n; i++) sets.add(client.setAsync(prefix + i, "v" + i));
    CompletableFuture.allOf(sets.toArray(new CompletableFuture<?>[0])).get(30, TimeUnit.SECONDS);
    awaitReplicated(prefix, n, "v");
    for (int round = 0; round < 2; round++) {
      List<CompletableFuture<String>> gets = new ArrayList<>();
      int cancelled = 0;
      // The first round cancels every other one as soon as it is sent (before its reply, unless
      // that came first); the second cancels none.
      for (int i = 0; i < n; i++) {
        gets.add(client.getAsync(prefix + i));
        if (round == 0 && i % 2 == 0 && gets.get(i).cancel(true)) cancelled++;
      }
      for (int i = 0; i < n; i++) {
        if (gets.get(i).isCancelled()) continue;
        assertEquals("v" + i, await(gets.get(i)), "round " + round + ", future " + i);
      }
      if (round == 0) assertTrue(cancelled > 0, "no cancel came before its reply");
    }
  }

  /**
   * Close with calls in flight (4 BLPOPs held by workers, 500 GETs): each future completes once,
   * the BLPOPs as "cancelled:" ConnectionExceptions; and no call's global reference outlives its
   * completion, on any path (replies, an error, a refused submit, cancellation by the caller and by
   * close): the client, which every call in flight references, becomes unreachable.
   */
  @Test
  void closingWithCallsInFlightCompletesEachFutureOnceAndLeaksNothing() throws Exception {
    WeakReference<Client> gone = closeWithCallsInFlight();
    assertCollected(gone);
  }

  /** The calls and the close of the test above; returns the closed client, weakly held. */
  private static WeakReference<Client> closeWithCallsInFlight() throws Exception {
    Client c = connectOnMasters(); // reads what it just wrote
    await(c.setAsync("java:async:close", "v"));
    assertInstanceOf(ServerErrorException.class, failure(c.incrAsync("java:async:close")));
    assertThrows(InvalidArgumentException.class, () -> c.commandAsync(Access.AUTO, 0, "PING"));
    c.getAsync("java:async:close").cancel(true);

    List<CompletableFuture<?>> blocked = new ArrayList<>();
    List<CompletableFuture<?>> all = new ArrayList<>();
    CallOptions longWait = new CallOptions().timeoutMs(30_000);
    String never = "java:async:never:" + System.nanoTime() + ":";
    for (int i = 0; i < 4; i++) {
      blocked.add(c.commandAsync(longWait, Access.WRITE, 1, "BLPOP", never + i, "20"));
    }
    all.addAll(blocked);
    for (int i = 0; i < 500; i++) all.add(c.getAsync("java:async:close"));
    closeWithAllInFlight(c, all, blocked);
    for (CompletableFuture<?> f : all.subList(blocked.size(), all.size())) {
      if (f.isCompletedExceptionally()) {
        assertTrue(failure(f).getMessage().startsWith("cancelled:"), failure(f).getMessage());
      } else {
        assertEquals("v", await(f));
      }
    }
    assertThrows(IllegalStateException.class, () -> c.getAsync("java:async:close"));
    return new WeakReference<>(c);
  }

  /**
   * Close with fan-outs in flight (pipelines held by a BLPOP each, MGETs, MSETs, DELs, EXISTS):
   * each future completes once — a held pipeline exceptionally, with a "cancelled:"
   * ConnectionException; any other either with its value or that way — and nothing keeps the closed
   * client reachable.
   */
  @Test
  void closingWithFanOutsInFlightCompletesEachFutureOnceAndLeaksNothing() throws Exception {
    assertCollected(closeWithFanOutsInFlight());
  }

  private static WeakReference<Client> closeWithFanOutsInFlight() throws Exception {
    Client c;
    try (Config config = Harness.cloudA(Policy.MASTER)) {
      c = Client.connect(env.get("SEEDS"), config, new ClientOptions().commandTimeoutMs(30_000));
    }
    String prefix = "java:async:close-fan:" + System.nanoTime() + ":";
    List<String> keys = new ArrayList<>();
    for (int s = 1; s <= 3; s++) keys.add(env.get("SHARD" + s + "_KEY"));
    List<CompletableFuture<?>> held = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      held.add(
          c.pipeline()
              .command(Access.WRITE, 1, "BLPOP", prefix + "never:" + i, "20")
              .get(keys.get(i))
              .executeAsync());
    }
    List<CompletableFuture<?>> all = new ArrayList<>(held);
    for (int i = 0; i < 100; i++) {
      all.add(c.mgetAsync(keys));
      all.add(c.msetAsync(Map.of(prefix + i, "v", prefix + (i + 100), "w")));
      all.add(c.existsAsync(prefix + i, prefix + (i + 100)));
      all.add(c.delAsync(prefix + (i + 200), prefix + (i + 300)));
      all.add(c.pipeline().get(keys.get(i % 3)).mget(keys.toArray(new String[0])).executeAsync());
    }
    closeWithAllInFlight(c, all, held);
    for (CompletableFuture<?> f : all) {
      if (f.isCompletedExceptionally()) assertCancelled(failure(f));
    }
    assertThrows(IllegalStateException.class, () -> c.mgetAsync(keys));
    return new WeakReference<>(c);
  }

  /**
   * Shard 2's cloud-A replica (n6 of the kill cluster, read first) stopped with SIGSTOP under 64
   * asynchronous reads in flight: every read still gets its value (a timed-out attempt moves on to
   * the next candidate). Resumed before the node timeout, so the cluster never fails it.
   */
  @Test
  void aStoppedLocalReplicaCostsNoFailedAsyncRead() throws Exception {
    Harness kill = Harness.require("CR_JAVA_KILL_ENV");
    assertEquals("replica", kill.get("NODE6_ROLE"));
    assertEquals("2", kill.get("NODE6_SHARD"));
    String key = kill.get("SHARD2_KEY");
    String value = kill.get("SHARD2_VALUE");
    String pid = kill.get("NODE6_PID");
    try (Client c = connect(kill, new ClientOptions().commandTimeoutMs(300))) {
      int slot = Integer.parseInt(kill.get("SHARD2_KEY_SLOT"));
      assertEquals(kill.get("NODE6_ADDR"), address(c.router().candidatesSlot(slot).get(0)));
      int reads = 0;
      for (int i = 0; i < 64; i++, reads++) assertEquals(value, await(c.getAsync(key)));
      signal("-STOP", pid);
      try {
        long stopped = System.nanoTime();
        while (System.nanoTime() - stopped < TimeUnit.MILLISECONDS.toNanos(1000)
            && reads < 50_000) {
          List<CompletableFuture<String>> wave = new ArrayList<>(64);
          for (int i = 0; i < 64; i++) wave.add(c.getAsync(key));
          for (CompletableFuture<String> f : wave) {
            assertEquals(value, await(f), "read " + reads++ + " with n6 stopped");
          }
        }
        // Checked while n6 is still stopped: once resumed, the recovery probe may bring it back
        // within a second, before a check made after SIGCONT ran.
        Poll.until(
            () ->
                c.router().candidatesSlot(slot).stream()
                    .anyMatch(x -> address(x).equals(kill.get("NODE6_ADDR")) && x.down()),
            Duration.ofSeconds(5),
            "n6 set aside after its timeouts");
      } finally {
        signal("-CONT", pid);
      }
      Poll.until(
          () -> {
            try {
              return "PONG".equals(c.onNode(kill.get("NODE6_ADDR"), "PING"));
            } catch (CloudRouteException e) {
              return false;
            }
          },
          Duration.ofSeconds(10),
          "n6 answers again once resumed");
    }
  }

  private static String address(Candidate c) {
    return c.host() + ":" + c.port();
  }

  private static void signal(String signal, String pid) throws Exception {
    Process p = new ProcessBuilder("kill", signal, pid).inheritIO().start();
    assertEquals(0, p.waitFor(), "kill " + signal + " " + pid);
  }
}
