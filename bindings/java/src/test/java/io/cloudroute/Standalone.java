package io.cloudroute;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;

/**
 * Standalone redis-server processes of a test's own, on 127.0.0.1 from the base port that
 * tests/java/run.sh gives in CR_JAVA_SHARDED_PORT (tests/PORTS.md: 8961-8989; the tests are skipped
 * without it). Each server is a child process of the JVM (no persistence), killed by {@link #kill}
 * or {@link #close}.
 */
final class Standalone implements AutoCloseable {
  static final String HOST = "127.0.0.1";

  private final Path dir;
  private final Map<Integer, Process> processes = new LinkedHashMap<>();

  private Standalone(Path dir) {
    this.dir = dir;
  }

  /** The base port of the JVM stage's standalone servers (skips the test without it). */
  static int basePort() {
    String port = System.getenv("CR_JAVA_SHARDED_PORT");
    Assumptions.assumeTrue(
        port != null && !port.isEmpty(),
        "CR_JAVA_SHARDED_PORT is not set: standalone servers come from tests/java/run.sh");
    return Integer.parseInt(port);
  }

  /** Servers on ports (each answers PING when this returns). */
  static Standalone start(int... ports) {
    Standalone s;
    try {
      s = new Standalone(Files.createTempDirectory("cr-java-standalone"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    try {
      for (int port : ports) s.add(port);
    } catch (RuntimeException e) {
      s.close();
      throw e;
    }
    return s;
  }

  /** One more server on port. */
  void add(int port) {
    ProcessBuilder pb =
        new ProcessBuilder(
            "redis-server",
            "--port",
            Integer.toString(port),
            "--bind",
            HOST,
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            dir.toString(),
            "--dbfilename",
            port + ".rdb");
    pb.redirectErrorStream(true);
    pb.redirectOutput(new File(dir.toFile(), port + ".log"));
    try {
      processes.put(port, pb.start());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Poll.until(
        () -> pings(port), Duration.ofSeconds(10), "redis-server on " + port + " did not start");
  }

  static String addr(int port) {
    return HOST + ":" + port;
  }

  /** A plain Jedis connection to the server on port (close it). */
  static Jedis node(int port) {
    return new Jedis(HOST, port, 10_000);
  }

  static boolean pings(int port) {
    try (Jedis j = node(port)) {
      return "PONG".equals(j.ping());
    } catch (JedisConnectionException e) {
      return false;
    }
  }

  /** How often the server ran command (INFO commandstats), 0 before the first time. */
  static long calls(Jedis node, String command) {
    for (String line : node.info("commandstats").split("\r?\n")) {
      String prefix = "cmdstat_" + command + ":calls=";
      if (line.startsWith(prefix)) {
        return Long.parseLong(line.substring(prefix.length(), line.indexOf(',', prefix.length())));
      }
    }
    return 0;
  }

  /** Kills the server on port (SIGKILL) and waits until it is gone. */
  void kill(int port) {
    Process p = processes.remove(port);
    if (p == null) throw new IllegalArgumentException("no server of this test on " + port);
    p.destroyForcibly();
    try {
      p.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    Poll.until(() -> !pings(port), "redis-server on " + port + " still answers");
  }

  @Override
  public void close() {
    for (Process p : processes.values()) p.destroyForcibly();
    for (Process p : processes.values()) {
      try {
        p.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
