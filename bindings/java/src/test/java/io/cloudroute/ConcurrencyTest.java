package io.cloudroute;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Local references, many threads, close under use, the Cleaner. */
class ConcurrencyTest {
  private static final String OTHER =
      "shard slots=0-16383 master=10.0.0.1:6379 " + "replicas=10.0.0.2:6379,10.2.0.2:6379\n";

  @Test
  void aMillionCallsLeakNothing() {
    try (Config c = Vectors.localConfig();
        Topology t = Topology.parseStatic(Vectors.STATIC);
        Router r = new Router(c, t);
        Ring ring = Ring.builder().hash(HashAlgo.MURMUR).shards(8).build()) {
      byte[] key = "user:123456".getBytes(StandardCharsets.US_ASCII);
      Object[] batch = {"a", key, "ключ"};
      long sum = 0;
      for (int i = 0; i < 1_000_000; i++) {
        sum += CloudRoute.keyslot(key) + CloudRoute.keyslot("user:123456");
        sum += r.routeRead(key).port() + ring.locate("k" + (i & 1023));
        if ((i & 15) == 0) sum += CloudRoute.keyslots(batch)[2] + r.candidates("a").size();
      }
      assertTrue(sum > 0);
    }
  }

  @Test
  void sixteenThreadsRouteWhileTheTopologyChanges() throws Exception {
    try (Config c = Vectors.localConfig();
        Topology a = Topology.parseStatic(Vectors.STATIC);
        Topology b = Topology.parseStatic(OTHER);
        Router r = new Router(c, a)) {
      Set<String> hosts = ConcurrentHashMap.newKeySet();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      AtomicLong routed = new AtomicLong();
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1500);
      List<Thread> threads = new ArrayList<>();
      for (int n = 0; n < 16; n++) {
        int id = n;
        threads.add(
            new Thread(
                () -> {
                  try {
                    long i = 0;
                    while (System.nanoTime() < deadline) {
                      String key = "key:" + id + ":" + (i++ & 4095);
                      Route read = r.routeRead(key);
                      hosts.add(read.host());
                      hosts.add(r.routeWrite(key.getBytes(StandardCharsets.UTF_8)).host());
                      if ((i & 63) == 0) r.reportSuccess(read.nodeHandle());
                      routed.incrementAndGet();
                    }
                  } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                  }
                }));
      }
      threads.add(
          new Thread(
              () -> {
                boolean flip = false;
                while (System.nanoTime() < deadline) {
                  r.update(flip ? a : b);
                  flip = !flip;
                }
              }));
      threads.forEach(Thread::start);
      for (Thread th : threads) th.join(10_000);
      if (failure.get() != null) throw new AssertionError(failure.get());
      assertTrue(routed.get() > 1000, "routed " + routed.get());
      assertTrue(
          Set.of("10.0.0.1", "10.0.0.2", "10.1.0.1", "10.2.0.1", "10.2.0.2").containsAll(hosts),
          hosts.toString());
    }
  }

  @Test
  void closeWaitsForCallsInFlightAndLaterCallsThrow() throws Exception {
    Config c = Vectors.localConfig();
    Topology t = Topology.parseStatic(Vectors.STATIC);
    Router r = new Router(c, t);
    c.close();
    t.close();
    AtomicReference<Throwable> wrong = new AtomicReference<>();
    AtomicLong calls = new AtomicLong();
    List<Thread> threads = new ArrayList<>();
    for (int n = 0; n < 8; n++) {
      threads.add(
          new Thread(
              () -> {
                try {
                  for (int i = 0; i < 50_000_000; i++) {
                    r.candidates("k" + (i & 255));
                    calls.incrementAndGet();
                  }
                } catch (IllegalStateException expected) {
                  // closed under us: the only acceptable way out
                } catch (Throwable e) {
                  wrong.compareAndSet(null, e);
                }
              }));
    }
    threads.forEach(Thread::start);
    Poll.until(() -> calls.get() >= 10_000, "the callers made no progress"); // all mid-call
    Thread closer = new Thread(r::close);
    closer.start();
    r.close();
    closer.join(5000);
    for (Thread th : threads) th.join(5000);
    if (wrong.get() != null) throw new AssertionError(wrong.get());
    assertTrue(r.isClosed());
  }

  @Test
  void theCleanerFreesForgottenHandles() throws Exception {
    // Held until counted: other tests' forgotten handles may be freed meanwhile, so the
    // count is taken with these 4000 alive, then they are forgotten.
    List<Object> held = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      held.add(Topology.parseStatic(Vectors.STATIC));
      held.add(new Router(null));
    }
    long withHeld = CloudRoute.openHandles();
    assertTrue(withHeld >= 4000, "open: " + withHeld);
    held.clear();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (CloudRoute.openHandles() > withHeld - 3900 && System.nanoTime() < deadline) {
      System.gc();
      Thread.sleep(20);
    }
    assertTrue(
        CloudRoute.openHandles() <= withHeld - 3900,
        "open: " + CloudRoute.openHandles() + ", with the 4000 held: " + withHeld);
  }

  @Test
  void aClosedConfigMakesNoRouter() {
    try (Config c = new Config()) {
      c.close();
      assertTrue(c.isClosed());
    }
    assertEquals(
        IllegalStateException.class,
        org.junit.jupiter.api.Assertions.assertThrows(
                IllegalStateException.class, () -> new Router(closedConfig()))
            .getClass());
  }

  private static Config closedConfig() {
    Config c = new Config();
    c.close();
    return c;
  }
}
