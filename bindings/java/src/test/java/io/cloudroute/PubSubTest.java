package io.cloudroute;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * Publish / subscribe against a two-cloud cluster of its own (tests/java/run.sh:
 * CR_JAVA_PUBSUB_ENV, ports 9181-9189; the client in cloud A, policy local-replicas-first):
 * messages of channels, patterns and shard channels, each subscribed on a cloud-A node; next()
 * woken by a close on another thread; the listener form and its thread; last, the node of a channel
 * subscription killed: MOVING, RESUBSCRIBED elsewhere in cloud A, and every message published after
 * that delivered.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PubSubTest {
  private static Harness env;
  private Client client;

  @BeforeAll
  static void cluster() {
    env = Harness.require("CR_JAVA_PUBSUB_ENV");
  }

  @BeforeEach
  void connect() {
    try (Config c = Harness.cloudA(Policy.LOCAL_REPLICAS_FIRST)) {
      client =
          Client.connect(
              env.get("SEEDS"), c, new ClientOptions().commandTimeoutMs(2000).refreshMinGapMs(200));
    }
  }

  @AfterEach
  void close() {
    client.close();
  }

  /** A name whose slot is in shard's first slot range. */
  private static String nameInShard(int shard, String prefix) {
    String range = env.get("SHARD" + shard + "_SLOTS").split(",")[0];
    int first = Integer.parseInt(range.split("-")[0]);
    int last = Integer.parseInt(range.split("-")[1]);
    for (int i = 0; ; i++) {
      int slot = CloudRoute.keyslot(prefix + i);
      if (slot >= first && slot <= last) return prefix + i;
    }
  }

  private static boolean inCloudA(String node) {
    return node.startsWith("127.0.1.");
  }

  /** Reads sub until a message matching want comes (fails after 10 s); the others are skipped. */
  private static Message await(Subscription sub, Predicate<Message> want) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      Message m = sub.next(Duration.ofMillis(100));
      if (m != null && want.test(m)) return m;
    }
    throw new AssertionError("no such message within 10 s");
  }

  private static Predicate<Message> event(MessageType type, String name) {
    return m -> m.type() == type && m.channelString().equals(name);
  }

  private static Predicate<Message> payload(String p) {
    return m -> m.type() == MessageType.MESSAGE && p.equals(m.payloadString());
  }

  @Test
  @Order(1)
  void channelsPatternsAndShardChannelsArriveFromLocalNodes() {
    String shardCh = nameInShard(1, "jps:s1:");
    try (Subscription sub =
        client
            .subscribe()
            .add(ChannelKind.CHANNEL, "jps:news")
            .add(ChannelKind.PATTERN, "jps:pat.*")
            .add(ChannelKind.SHARD, shardCh)) {
      // Events come in the order of the adds per connection; look for each.
      Message ev = await(sub, event(MessageType.SUBSCRIBED, "jps:news"));
      assertTrue(inCloudA(ev.node()), ev.toString());
      assertEquals(ChannelKind.CHANNEL, ev.kind());
      assertNull(ev.payload());
      assertTrue(client.publish("jps:news", new byte[] {'a', 0, '\r', '\n', 'b'}) >= 0);
      Message m =
          await(sub, x -> x.type() == MessageType.MESSAGE && x.channelString().equals("jps:news"));
      assertArrayEquals(new byte[] {'a', 0, '\r', '\n', 'b'}, m.payload());
      assertNull(m.pattern());
      client.publish("jps:pat.x", "meow");
      m = await(sub, payload("meow"));
      assertEquals("jps:pat.x", m.channelString());
      assertEquals("jps:pat.*", m.patternString());
      assertEquals(ChannelKind.PATTERN, m.kind());
      assertTrue(client.spublish(shardCh, "s1") >= 0);
      m = await(sub, payload("s1"));
      assertEquals(ChannelKind.SHARD, m.kind());
      assertEquals(env.get("NODE2_ADDR"), m.node(), "shard 1's replica in cloud A");
      sub.remove(ChannelKind.CHANNEL, "jps:news");
      await(sub, event(MessageType.UNSUBSCRIBED, "jps:news"));
      assertThrows(CloudRouteException.class, () -> sub.add(ChannelKind.CHANNEL, ""));
    }
  }

  @Test
  @Order(2)
  void aCloseWakesANextWaitingOnAnotherThread() throws Exception {
    Subscription sub = client.subscribe().add(ChannelKind.CHANNEL, "jps:idle");
    await(sub, event(MessageType.SUBSCRIBED, "jps:idle"));
    long t0 = System.nanoTime();
    assertNull(sub.next(Duration.ofMillis(200)));
    assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(150));
    CompletableFuture<Message> waiter = CompletableFuture.supplyAsync(() -> sub.next(null));
    sub.close();
    assertNull(waiter.get(5, TimeUnit.SECONDS));
    assertNull(sub.next(Duration.ZERO));
    assertTrue(sub.isClosed());
  }

  @Test
  @Order(3)
  void aListenerReceivesAndCloseStopsItsThread() {
    List<Message> got = new CopyOnWriteArrayList<>();
    List<Thread> on = new CopyOnWriteArrayList<>();
    Subscription sub =
        client.subscribe(
            new Subscription.Listener() {
              @Override
              public void onMessage(Message m) {
                on.add(Thread.currentThread());
                got.add(m);
              }

              @Override
              public void onEvent(Message e) {
                got.add(e);
              }
            });
    sub.add(ChannelKind.CHANNEL, "jps:listen");
    Poll.until(
        () -> got.stream().anyMatch(event(MessageType.SUBSCRIBED, "jps:listen")), "SUBSCRIBED");
    for (int i = 0; i < 20; i++) client.publish("jps:listen", "m" + i);
    Poll.until(
        () -> got.stream().filter(m -> m.type() == MessageType.MESSAGE).count() == 20,
        "20 messages");
    List<String> payloads = new ArrayList<>();
    for (Message m : got) if (m.type() == MessageType.MESSAGE) payloads.add(m.payloadString());
    assertEquals("m0", payloads.get(0));
    assertEquals("m19", payloads.get(19));
    Thread t = on.get(0);
    assertTrue(t.isDaemon() && t.getName().startsWith("cloudroute-subscription-"), t.getName());
    sub.close();
    assertFalse(t.isAlive(), "close() joins the listener's thread");
  }

  @Test
  @Order(4)
  void closingTheClientClosesItsSubscriptions() throws Exception {
    Subscription sub = client.subscribe().add(ChannelKind.CHANNEL, "jps:owned");
    CompletableFuture<Message> waiter =
        CompletableFuture.supplyAsync(
            () -> {
              Message m;
              while ((m = sub.next(null)) != null) {} // returns null once closed
              return m;
            });
    client.close();
    assertNull(waiter.get(5, TimeUnit.SECONDS));
    assertTrue(sub.isClosed());
  }

  @Test
  @Order(100) // last: the killed node stays down
  void theNodeOfAChannelSubscriptionIsKilled() throws Exception {
    String ch = "jps:kill";
    List<Message> got = new CopyOnWriteArrayList<>();
    Subscription.Listener all =
        new Subscription.Listener() {
          @Override
          public void onMessage(Message m) {
            got.add(m);
          }

          @Override
          public void onEvent(Message e) {
            got.add(e);
          }
        };
    try (Subscription sub = client.subscribe(all).add(ChannelKind.CHANNEL, ch)) {
      Poll.until(() -> got.stream().anyMatch(event(MessageType.SUBSCRIBED, ch)), "SUBSCRIBED");
      Message ev = got.stream().filter(event(MessageType.SUBSCRIBED, ch)).findFirst().get();
      assertTrue(inCloudA(ev.node()), ev.toString());
      int victim = 0;
      for (int n = 1; n <= 9; n++) if (env.get("NODE" + n + "_ADDR").equals(ev.node())) victim = n;
      assertNotEquals(0, victim);
      long pid = Long.parseLong(env.get("NODE" + victim + "_PID"));
      assertTrue(ProcessHandle.of(pid).map(ProcessHandle::destroyForcibly).orElse(false));
      Poll.until(() -> got.stream().anyMatch(event(MessageType.MOVING, ch)), "MOVING");
      Message moving = got.stream().filter(event(MessageType.MOVING, ch)).findFirst().get();
      assertEquals(ev.node(), moving.node());
      assertFalse(moving.reason().isEmpty());
      Poll.until(
          () -> got.stream().anyMatch(event(MessageType.RESUBSCRIBED, ch)),
          Duration.ofSeconds(15),
          "RESUBSCRIBED");
      Message re = got.stream().filter(event(MessageType.RESUBSCRIBED, ch)).findFirst().get();
      assertNotEquals(ev.node(), re.node());
      assertTrue(inCloudA(re.node()), re.toString());
      // Published on a cloud-B node after RESUBSCRIBED: every one arrives.
      for (int i = 0; i < 50; i++)
        assertNotNull(client.onNode(env.get("NODE5_ADDR"), "PUBLISH", ch, "k" + i));
      Set<String> want = new HashSet<>();
      for (int i = 0; i < 50; i++) want.add("k" + i);
      Poll.until(
          () -> {
            Set<String> seen = new HashSet<>();
            for (Message m : got) if (m.type() == MessageType.MESSAGE) seen.add(m.payloadString());
            return seen.containsAll(want);
          },
          "the 50 messages published after RESUBSCRIBED");
    }
  }
}
