package io.cloudroute.bench.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisException;

/**
 * The cluster of bench/e2e/cluster.sh as its e2e.env describes it, and what the driver does to
 * it from outside the client under test: read the nodes' INFO commandstats at their real
 * addresses (no proxy), stop and resume a node, fail a shard over.
 */
final class ClusterEnv {
  final Map<String, String> env = new HashMap<>();
  private final Path dir;

  ClusterEnv(Path file) throws IOException {
    dir = file.toAbsolutePath().getParent();
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      line = line.trim();
      int eq = line.indexOf('=');
      if (!line.isEmpty() && !line.startsWith("#") && eq > 0) {
        env.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
  }

  String get(String key) {
    String v = env.get(key);
    if (v == null) throw new IllegalStateException("e2e.env has no " + key);
    return v;
  }

  /** MGET + GET calls summed per cloud ("A", "B") over every reachable node. */
  Map<String, Long> readCalls() {
    Map<String, Long> calls = new HashMap<>(Map.of("A", 0L, "B", 0L));
    int n = Integer.parseInt(get("NODE_COUNT"));
    for (int i = 1; i <= n; i++) {
      String cloud = get("NODE" + i + "_CLOUD");
      try (Jedis j = new Jedis(get("NODE" + i + "_IP"), Integer.parseInt(get("NODE" + i + "_PORT")),
          2000)) {
        calls.merge(cloud, commandCalls(j.info("commandstats"), List.of("mget", "get")), Long::sum);
      } catch (JedisException e) {
        // a stopped node serves nothing
      }
    }
    return calls;
  }

  /** The calls= counts of the named commands in an INFO commandstats text. */
  static long commandCalls(String info, List<String> commands) {
    long total = 0;
    for (String line : info.split("\r?\n")) {
      for (String c : commands) {
        String prefix = "cmdstat_" + c + ":calls=";
        if (line.startsWith(prefix)) {
          int end = line.indexOf(',', prefix.length());
          total += Long.parseLong(line.substring(prefix.length(), end < 0 ? line.length() : end));
        }
      }
    }
    return total;
  }

  /**
   * The CPU time the latency proxies (cluster.sh's, by the proxy-*.pid files beside e2e.env) have
   * used so far: they run on the client's machine, where a real link between clouds costs nothing.
   */
  Duration proxyCpu() throws IOException {
    List<Long> pids = new ArrayList<>();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "proxy-*.pid")) {
      for (Path f : files) {
        pids.add(Long.parseLong(Files.readString(f, StandardCharsets.UTF_8).trim()));
      }
    }
    return cpu(pids);
  }

  /** The CPU time the cluster's servers have used so far (they share the client's machine). */
  Duration serverCpu() {
    List<Long> pids = new ArrayList<>();
    int n = Integer.parseInt(get("NODE_COUNT"));
    for (int i = 1; i <= n; i++) pids.add(Long.parseLong(get("NODE" + i + "_PID")));
    return cpu(pids);
  }

  /** The CPU time (user + system) of the processes pids; a process gone counts nothing. */
  private static Duration cpu(List<Long> pids) {
    Duration sum = Duration.ZERO;
    for (long pid : pids) {
      sum = sum.plus(ProcessHandle.of(pid).flatMap(p -> p.info().totalCpuDuration())
          .orElse(Duration.ZERO));
    }
    return sum;
  }

  /** kill -STOP / -CONT of a node's process (the JDK sends no SIGSTOP itself). */
  static void signal(long pid, String sig) throws IOException, InterruptedException {
    Process p = new ProcessBuilder("kill", "-" + sig, Long.toString(pid)).inheritIO().start();
    if (p.waitFor() != 0) throw new IOException("kill -" + sig + " " + pid + " failed");
  }

  /** CLUSTER FAILOVER on node n (a replica: it takes over its shard). */
  void failoverTo(int n) {
    try (Jedis j = new Jedis(get("NODE" + n + "_IP"), Integer.parseInt(get("NODE" + n + "_PORT")),
        5000)) {
      j.clusterFailover();
    }
  }
}
