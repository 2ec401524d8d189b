package io.cloudroute.clients;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.cloudroute.Config;
import io.cloudroute.Policy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.util.SafeEncoder;

/**
 * A two-cloud cluster of scripts/redis-harness.sh, from the KEY=value file named by an environment
 * variable tests/java/run.sh sets; live tests are skipped without it.
 */
final class ClusterEnv {
  private static final Pattern CALLS =
      Pattern.compile("cmdstat_(\\w+):calls=(\\d+)(?:.*rejected_calls=(\\d+))?");
  private final Map<String, String> values = new HashMap<>();

  private ClusterEnv(Path file) {
    try {
      for (String line : Files.readAllLines(file)) {
        int eq = line.indexOf('=');
        if (!line.startsWith("#") && eq > 0)
          values.put(line.substring(0, eq), line.substring(eq + 1));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static ClusterEnv require(String variable) {
    String file = System.getenv(variable);
    Assumptions.assumeTrue(
        file != null && !file.isEmpty(),
        variable + " is not set: live servers come from tests/java/run.sh");
    return new ClusterEnv(Path.of(file));
  }

  String get(String key) {
    String v = values.get(key);
    if (v == null) throw new IllegalStateException("harness env has no " + key);
    return v;
  }

  int nodeCount() {
    return Integer.parseInt(get("NODE_COUNT"));
  }

  HostAndPort node(int n) {
    return HostAndPort.from(get("NODE" + n + "_ADDR"));
  }

  Set<HostAndPort> seeds() {
    Set<HostAndPort> out = new HashSet<>();
    for (String s : get("SEEDS").split(",")) out.add(HostAndPort.from(s));
    return out;
  }

  /** A client in cloud A: 127.0.1.0/24 local, 127.0.2.0/24 another cloud. */
  static Config cloudA() {
    return new Config()
        .clientLocation("cloud-a/r1/z1")
        .localCidr("127.0.1.0/24")
        .locationRule("127.0.2.0/24", "cloud-b")
        .policy(Policy.LOCAL_REPLICAS_FIRST)
        .breaker(1, 60_000);
  }

  /** CONFIG RESETSTAT on every node. */
  void resetStats() {
    for (int n = 1; n <= nodeCount(); n++) {
      try (Jedis j = new Jedis(node(n))) {
        j.configResetStat();
      }
    }
  }

  /** Calls of a command (lower case: "get", "set") per node number, from INFO commandstats. */
  Map<Integer, Long> calls(String command) {
    Map<Integer, Long> out = new HashMap<>();
    for (int n = 1; n <= nodeCount(); n++) {
      long c = calls(n, command);
      if (c > 0) out.put(n, c);
    }
    return out;
  }

  /** Calls of a command on node n, from INFO commandstats. */
  long calls(int n, String command) {
    try (Jedis j = new Jedis(node(n))) {
      Matcher m = CALLS.matcher(j.info("commandstats"));
      while (m.find()) {
        if (m.group(1).equals(command)) return Long.parseLong(m.group(2));
      }
    }
    return 0;
  }

  /** Rejected calls (MOVED, ASK, ...) of any command, summed over every node. */
  long rejectedCalls() {
    long out = 0;
    for (int n = 1; n <= nodeCount(); n++) {
      try (Jedis j = new Jedis(node(n))) {
        Matcher m = CALLS.matcher(j.info("commandstats"));
        while (m.find()) {
          if (m.group(3) != null) out += Long.parseLong(m.group(3));
        }
      }
    }
    return out;
  }

  /**
   * CLUSTER FAILOVER on replica node n, then waits (bounded) until n is a master and every node's
   * CLUSTER SLOTS names it as the master of its shard's slots.
   */
  void failover(int n) {
    try (Jedis j = new Jedis(node(n))) {
      if (!"OK".equals(j.clusterFailover())) throw new IllegalStateException("CLUSTER FAILOVER");
    }
    HostAndPort promoted = node(n);
    int slot = Integer.parseInt(get("SHARD" + get("NODE" + n + "_SHARD") + "_KEY_SLOT"));
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (true) {
      boolean everywhere = true;
      for (int i = 1; i <= nodeCount() && everywhere; i++) {
        everywhere = promoted.equals(masterOf(i, slot));
      }
      if (everywhere) return;
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("failover to " + promoted + " not seen in 30 s");
      }
      pause();
    }
  }

  /**
   * Once a failover to node master has been observed: 200 writes (keys prefix + i) and 200 reads of
   * a shard key holding value, none of which may fail; every write must reach master without a
   * redirect. Returns the reads per node.
   */
  Map<Integer, Long> commandsAfterFailover(
      int master,
      String prefix,
      BiConsumer<String, String> set,
      UnaryOperator<String> get,
      String key,
      String value) {
    resetStats();
    for (int n = 0; n < 200; n++) set.accept(prefix + n, "v" + n);
    for (int n = 0; n < 200; n++) assertEquals(value, get.apply(key), "read " + n);
    assertEquals(200L, calls("set").get(master), "SETs on the new master n" + master);
    assertEquals(0, rejectedCalls(), "redirects after the change was seen");
    return calls("get");
  }

  /** kill -9 of node n, then waits (bounded) until its port refuses connections. */
  void kill(int n) throws IOException, InterruptedException {
    Process kill = new ProcessBuilder("kill", "-9", get("NODE" + n + "_PID")).start();
    if (kill.waitFor() != 0) throw new IllegalStateException("kill -9 of n" + n + " failed");
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (true) {
      try (Socket s = new Socket(node(n).getHost(), node(n).getPort())) {
        if (System.nanoTime() > deadline) throw new IllegalStateException("n" + n + " still up");
      } catch (IOException refused) {
        return;
      }
      pause();
    }
  }

  /** The pause between two polls. */
  static void pause() {
    LockSupport.parkNanos(10_000_000L);
  }

  /** The master of slot as node i's CLUSTER SLOTS gives it; null when not covered. */
  private HostAndPort masterOf(int i, int slot) {
    try (Jedis j = new Jedis(node(i))) {
      for (Object range : j.clusterSlots()) {
        List<?> r = (List<?>) range;
        if ((Long) r.get(0) <= slot && slot <= (Long) r.get(1)) {
          List<?> master = (List<?>) r.get(2);
          return new HostAndPort(
              SafeEncoder.encode((byte[]) master.get(0)), ((Long) master.get(1)).intValue());
        }
      }
    }
    return null;
  }

  /**
   * Calls op until done says the client has seen the change, for at most 30 s; failed calls before
   * that are tolerated (the client had not observed the failover yet). Returns how many calls
   * failed.
   */
  static int untilObserved(Runnable op, BooleanSupplier done) {
    long deadline = System.nanoTime() + 30_000_000_000L;
    int failed = 0;
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) throw new IllegalStateException("change not observed");
      try {
        op.run();
      } catch (RuntimeException e) {
        failed++;
        pause();
      }
    }
    return failed;
  }

  boolean inCloudA(int n) {
    return get("NODE" + n + "_CLOUD").equals("A");
  }

  boolean isMaster(int n) {
    return get("NODE" + n + "_ROLE").equals("master");
  }
}
