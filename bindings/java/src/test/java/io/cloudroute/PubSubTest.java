package io.cloudroute;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
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
 * woken by a close on another thread; the listener form and its thread; a CLUSTER FAILOVER of a
 * shard channel's shard (the name moves, comes back to its cloud-A replica, and every message
 * published after its last RESUBSCRIBED is delivered; the failover is undone); last, the node of a
 * channel subscription killed: MOVING, RESUBSCRIBED elsewhere in cloud A, and every message
 * published after that delivered.
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

  /** A message or event and when the listener took it (System.nanoTime). */
  private static final class Timed {
    final Message m;
    final long at;

    Timed(Message m, long at) {
      this.m = m;
      this.at = at;
    }

    @Override
    public String toString() {
      return m.toString();
    }
  }

  /** A listener keeping every message and event with when it came. */
  private static final class Recorder implements Subscription.Listener {
    final List<Timed> items = new CopyOnWriteArrayList<>();

    @Override
    public void onMessage(Message m) {
      items.add(new Timed(m, System.nanoTime()));
    }

    @Override
    public void onEvent(Message e) {
      items.add(new Timed(e, System.nanoTime()));
    }

    /** The events of name, in order. */
    List<Timed> events(String name) {
      List<Timed> out = new ArrayList<>();
      for (Timed t : items) {
        if (t.m.type() != MessageType.MESSAGE && t.m.channelString().equals(name)) out.add(t);
      }
      return out;
    }

    /** The payloads of name's messages. */
    Set<String> payloads(String name) {
      Set<String> out = new HashSet<>();
      for (Timed t : items) {
        if (t.m.type() == MessageType.MESSAGE && t.m.channelString().equals(name))
          out.add(t.m.payloadString());
      }
      return out;
    }
  }

  /** SPUBLISHes "seq" on a channel every 10 ms on a thread of its own until closed. */
  private static final class Publisher implements AutoCloseable {
    /** One SPUBLISH: when it started and whether the master acknowledged it. */
    static final class Sent {
      final long start;
      final boolean ok;
      final String error; // null when ok

      Sent(long start, String error) {
        this.start = start;
        this.ok = error == null;
        this.error = error;
      }
    }

    final List<Sent> sent = new CopyOnWriteArrayList<>();
    private volatile boolean done;
    private final Thread thread;

    Publisher(Client c, String channel) {
      thread =
          new Thread(
              () -> {
                for (int seq = 0; !done; seq++) {
                  long start = System.nanoTime();
                  String error = null;
                  try {
                    c.spublish(channel, Integer.toString(seq));
                  } catch (CloudRouteException e) {
                    error = e.getMessage();
                  }
                  sent.add(new Sent(start, error));
                  LockSupport.parkNanos(10_000_000L);
                }
              },
              "jps-publisher");
      thread.setDaemon(true);
      thread.start();
    }

    /** Acknowledged publishes that started after at. */
    long okAfter(long at) {
      return sent.stream().filter(s -> s.ok && s.start > at).count();
    }

    /** How many publishes failed, and the last one's error. */
    String failures() {
      List<String> errors = new ArrayList<>();
      for (Sent s : sent) if (!s.ok) errors.add(s.error);
      return errors.size()
          + " of "
          + sent.size()
          + " publishes failed"
          + (errors.isEmpty() ? "" : ", the last: " + errors.get(errors.size() - 1));
    }

    @Override
    public void close() throws InterruptedException {
      done = true;
      thread.join(10_000);
      assertFalse(thread.isAlive(), "the publisher stopped");
    }
  }

  /** A reply of onNode as redis-cli prints it: one element a line, nested arrays flattened. */
  private static String text(Object reply) {
    if (reply instanceof byte[]) return new String((byte[]) reply, StandardCharsets.UTF_8);
    if (reply instanceof List) {
      List<String> lines = new ArrayList<>();
      for (Object o : (List<?>) reply) lines.add(text(o));
      return String.join("\n", lines);
    }
    return String.valueOf(reply);
  }

  /** A command's reply on node n, as text; "" when it failed. */
  private static String on(Client admin, int n, Object... args) {
    try {
      return text(admin.onNode(env.get("NODE" + n + "_ADDR"), args));
    } catch (CloudRouteException e) {
      return "";
    }
  }

  private static String role(Client admin, int n) {
    return on(admin, n, "ROLE");
  }

  /**
   * Until every node is up in a cluster that is ok and every replica's link to its master is up
   * (bounded): an earlier failover settled.
   */
  private static void awaitSteady(Client admin) {
    for (int n = 1; n <= Integer.parseInt(env.get("NODE_COUNT")); n++) {
      int node = n;
      Poll.until(
          () -> {
            String r = role(admin, node);
            return on(admin, node, "CLUSTER", "INFO").contains("cluster_state:ok")
                && (r.startsWith("master") || r.contains("connected"));
          },
          Duration.ofSeconds(30),
          () -> "n" + node + " not settled: " + role(admin, node));
    }
  }

  /**
   * CLUSTER FAILOVER on replica to until it is a master and each of followers replicates from it. A
   * manual failover the old master does not answer in time is abandoned by the servers: asked
   * again, three times at most.
   */
  private static void failover(Client admin, int to, int... followers) {
    String addr = env.get("NODE" + to + "_ADDR");
    for (int attempt = 0; attempt < 3 && !role(admin, to).startsWith("master"); attempt++) {
      assertEquals("OK", admin.onNode(addr, "CLUSTER", "FAILOVER"));
      Poll.holds(() -> role(admin, to).startsWith("master"), Duration.ofSeconds(8));
    }
    assertTrue(role(admin, to).startsWith("master"), addr + " did not become a master");
    String port = env.get("NODE" + to + "_PORT");
    for (int f : followers) {
      Poll.until(
          () -> {
            List<String> r = List.of(role(admin, f).split("\n"));
            return r.size() > 3 && r.get(0).equals("slave") && r.get(2).equals(port);
          },
          Duration.ofSeconds(20),
          () -> "n" + f + " does not follow " + addr + ": " + role(admin, f));
    }
  }

  /** Every acknowledged publish that started after since arrived; at least minChecked of them. */
  private static void assertNoLossAfter(
      Recorder got, Publisher pub, String ch, long since, int minChecked, String when) {
    Set<String> seen = got.payloads(ch);
    List<Integer> missing = new ArrayList<>();
    int checked = 0;
    for (int seq = 0; seq < pub.sent.size(); seq++) {
      Publisher.Sent s = pub.sent.get(seq);
      if (!s.ok || s.start <= since) continue;
      checked++;
      if (!seen.contains(Integer.toString(seq))) missing.add(seq);
    }
    assertTrue(checked >= minChecked, when + ": only " + checked + " publishes to check");
    assertTrue(
        missing.isEmpty(),
        when
            + ": "
            + missing.size()
            + " of "
            + checked
            + " never arrived, the first "
            + missing.subList(0, Math.min(5, missing.size()))
            + "; events "
            + got.events(ch));
  }

  @Test
  @Order(50) // before the kill; the failover is undone at the end
  void aClusterFailoverDuringAShardSubscription() throws Exception {
    // Shard 2: n4 master (cloud B), n5 replica (B), n6 replica (A). n5 takes over: n6, a replica
    // of the demoted master, gets sunsubscribe (the promoted n5 would keep its subscribers).
    String ch = nameInShard(2, "jps:fo:");
    String n6 = env.get("NODE6_ADDR");
    Recorder got = new Recorder();
    try (Config cfg = Harness.cloudA(Policy.LOCAL_REPLICAS_FIRST);
        Client admin = Client.connect(env.get("SEEDS"), cfg)) {
      awaitSteady(admin);
      try (Subscription sub = client.subscribe(got).add(ChannelKind.SHARD, ch)) {
        Poll.until(() -> !got.events(ch).isEmpty(), "SUBSCRIBED");
        Message first = got.events(ch).get(0).m;
        assertEquals(MessageType.SUBSCRIBED, first.type(), first.toString());
        assertEquals(n6, first.node(), "shard 2's replica in cloud A");
        Publisher pub = new Publisher(client, ch);
        try (pub) {
          failover(admin, 5, 4, 6);
          awaitSteady(admin);
          // The name moves (to the new master n5 in cloud B while n6 resyncs, then back to n6 in a
          // planned move; or straight back to n6): until its last event is a RESUBSCRIBED on n6
          // and 60 publishes were acknowledged after it.
          Poll.until(
              () -> {
                List<Timed> ev = got.events(ch);
                Timed last = ev.get(ev.size() - 1);
                return last.m.type() == MessageType.RESUBSCRIBED
                    && n6.equals(last.m.node())
                    && pub.okAfter(last.at) >= 60;
              },
              Duration.ofSeconds(30),
              () ->
                  "never back on n6 with messages flowing ("
                      + pub.failures()
                      + "): "
                      + got.events(ch)
                      + "\nthe client's view of the channel's slot: "
                      + client.router().explain(ch));
        }
        // Drained once the last acknowledged publish arrived (bounded; judged below).
        int lastOk = -1;
        for (int seq = 0; seq < pub.sent.size(); seq++) if (pub.sent.get(seq).ok) lastOk = seq;
        String lastPayload = Integer.toString(lastOk);
        Poll.holds(() -> got.payloads(ch).contains(lastPayload), Duration.ofSeconds(5));
        sub.close();
        List<Timed> ev = got.events(ch);
        for (Timed t : ev) { // what the servers and the engine did, for the record
          System.out.println("PUBSUB failover +" + (t.at - ev.get(0).at) / 1_000_000 + " ms " + t);
        }
        // SUBSCRIBED on n6; MOVING from n6 (its slot left the node it was placed under);
        // RESUBSCRIBED on a node of shard 2; ... ; RESUBSCRIBED on n6.
        Message moving = ev.get(1).m;
        assertEquals(MessageType.MOVING, moving.type(), ev.toString());
        assertEquals(n6, moving.node(), ev.toString());
        int slot = CloudRoute.keyslot(ch);
        assertEquals(
            "slot " + slot + " moved: the server sent sunsubscribe",
            moving.reason(),
            ev.toString());
        Set<String> shard2 = Set.of(env.get("NODE4_ADDR"), env.get("NODE5_ADDR"), n6);
        for (Timed t : ev) assertTrue(shard2.contains(t.m.node()), t.m.toString());
        Timed home = ev.get(ev.size() - 1);
        assertNoLossAfter(got, pub, ch, home.at, 50, "after the last RESUBSCRIBED");
        // Landed in cloud B first: the way back is a planned move (make-before-break), which loses
        // nothing: every message published after the RESUBSCRIBED before it arrived too.
        Timed before = ev.get(ev.size() - 3);
        Message planned = ev.get(ev.size() - 2).m;
        if (!inCloudA(before.m.node())) {
          assertEquals(MessageType.RESUBSCRIBED, before.m.type(), ev.toString());
          assertEquals(MessageType.MOVING, planned.type(), ev.toString());
          assertEquals("a nearer node is ready: " + n6 + " (local)", planned.reason());
          assertNoLossAfter(got, pub, ch, before.at, 50, "across the planned move");
        }
      } finally {
        failover(admin, 4, 5, 6); // back to the harness layout
        awaitSteady(admin);
      }
    }
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
