package io.cloudroute.clients;

import io.cloudroute.Config;
import io.cloudroute.Policy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

/**
 * A two-cloud cluster of scripts/redis-harness.sh, from the KEY=value file named by an
 * environment variable tests/java/run.sh sets; live tests are skipped without it.
 */
final class ClusterEnv {
  private static final Pattern CALLS = Pattern.compile("cmdstat_(\\w+):calls=(\\d+)");
  private final Map<String, String> values = new HashMap<>();

  private ClusterEnv(Path file) {
    try {
      for (String line : Files.readAllLines(file)) {
        int eq = line.indexOf('=');
        if (!line.startsWith("#") && eq > 0) values.put(line.substring(0, eq), line.substring(eq + 1));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static ClusterEnv require(String variable) {
    String file = System.getenv(variable);
    Assumptions.assumeTrue(file != null && !file.isEmpty(),
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
    return new Config().clientLocation("cloud-a/r1/z1").localCidr("127.0.1.0/24")
        .locationRule("127.0.2.0/24", "cloud-b").policy(Policy.LOCAL_REPLICAS_FIRST)
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
      try (Jedis j = new Jedis(node(n))) {
        Matcher m = CALLS.matcher(j.info("commandstats"));
        while (m.find()) {
          if (m.group(1).equals(command)) out.put(n, Long.parseLong(m.group(2)));
        }
      }
    }
    return out;
  }

  boolean inCloudA(int n) {
    return get("NODE" + n + "_CLOUD").equals("A");
  }

  boolean isMaster(int n) {
    return get("NODE" + n + "_ROLE").equals("master");
  }
}
