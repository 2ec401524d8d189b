package io.cloudroute;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.LockSupport;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * The live client's log events reach SLF4J (here bound to java.util.logging by slf4j-jdk14, whose
 * records this test reads), from the caller's thread and from the client's own refresher thread.
 */
class LogTest {
  private static final Logger JUL = Logger.getLogger("io.cloudroute");

  /** A record with the thread that published it. */
  private static final class Seen {
    final LogRecord record;
    final Thread thread;

    Seen(LogRecord record, Thread thread) {
      this.record = record;
      this.thread = thread;
    }
  }

  private final List<Seen> seen = new CopyOnWriteArrayList<>();
  private final Handler capture =
      new Handler() {
        @Override
        public void publish(LogRecord r) {
          seen.add(new Seen(r, Thread.currentThread()));
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };
  private Level before;

  @BeforeEach
  void listen() {
    before = JUL.getLevel();
    JUL.addHandler(capture);
  }

  @AfterEach
  void stopListening() {
    JUL.removeHandler(capture);
    JUL.setLevel(before);
  }

  @Test
  void theLoggersLevelDecidesWhatTheLibrarySends() {
    JUL.setLevel(Level.FINE);
    assertEquals(0, NativeLog.minLevel());
    JUL.setLevel(Level.INFO);
    assertEquals(1, NativeLog.minLevel());
    JUL.setLevel(Level.WARNING);
    assertEquals(2, NativeLog.minLevel());
    JUL.setLevel(Level.SEVERE);
    assertEquals(3, NativeLog.minLevel());
    JUL.setLevel(Level.OFF);
    assertEquals(-1, NativeLog.minLevel());
  }

  @Test
  void eventsOfTheRefresherThreadReachSlf4jWithoutThePassword() {
    Harness env = Harness.require("CR_JAVA_CLUSTER_ENV");
    String user = "cr-log-test";
    String password = "pw-" + Long.toHexString(System.nanoTime()) + "-never-logged";
    for (int n = 1; n <= Integer.parseInt(env.get("NODE_COUNT")); n++) {
      try (Jedis j = new Jedis(HostAndPort.from(env.get("NODE" + n + "_ADDR")))) {
        j.aclSetUser(user, "on", ">" + password, "~*", "+@all");
      }
    }
    JUL.setLevel(Level.FINE);
    Thread caller = Thread.currentThread();
    try (Config c = Harness.cloudA(Policy.LOCAL_REPLICAS_FIRST);
        Client client =
            Client.connect(
                env.get("SEEDS"),
                c,
                new ClientOptions().auth(user, password).refreshIntervalMs(50))) {
      assertEquals(env.get("SHARD1_VALUE"), client.get(env.get("SHARD1_KEY")));
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (seen.stream().noneMatch(s -> s.thread != caller && done(s))) {
        assertTrue(
            System.nanoTime() < deadline,
            () -> "no refresh event from the refresher " + "thread; seen: " + describe(seen));
        LockSupport.parkNanos(10_000_000L);
      }
    }
    Seen refresh = seen.stream().filter(s -> s.thread != caller && done(s)).findFirst().get();
    assertEquals(Level.FINE, refresh.record.getLevel());
    assertTrue(
        refresh.record.getMessage().matches("refresh done shards=3 nodes=9 ms=\\d+"),
        refresh.record.getMessage());
    assertTrue(refresh.thread.isDaemon(), "the library's thread is attached as a daemon");
    // A wrong password: the connect fails, and nothing says what was tried.
    String wrong = password + "-wrong";
    CloudRouteException e =
        assertThrows(
            CloudRouteException.class,
            () -> Client.connect(env.get("SEEDS"), null, new ClientOptions().auth(user, wrong)));
    assertFalse(e.getMessage().contains(password), e.getMessage());
    for (Seen s : seen) {
      assertFalse(s.record.getMessage().contains(password), s.record.getMessage());
    }
  }

  private static String describe(List<Seen> seen) {
    StringBuilder out = new StringBuilder();
    for (Seen s : seen) {
      out.append('[')
          .append(s.thread.getName())
          .append(' ')
          .append(s.record.getLevel())
          .append(' ')
          .append(s.record.getMessage())
          .append(']');
    }
    return out.toString();
  }

  private static boolean done(Seen s) {
    return s.record.getMessage().startsWith("refresh done");
  }
}
