package io.cloudroute;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;

/**
 * A KEY=value file written by scripts/redis-harness.sh, named by an environment variable that
 * tests/java/run.sh sets (CR_JAVA_CLUSTER_ENV, CR_JAVA_SENTINEL_ENV). Live tests are skipped when
 * it is not set (a plain `mvn test` without servers).
 */
final class Harness {
  private final Map<String, String> values = new HashMap<>();

  private Harness(Path file) {
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

  static Harness require(String variable) {
    String file = System.getenv(variable);
    Assumptions.assumeTrue(
        file != null && !file.isEmpty(),
        variable + " is not set: live servers come from tests/java/run.sh");
    return new Harness(Path.of(file));
  }

  String get(String key) {
    String v = values.get(key);
    if (v == null) throw new IllegalStateException("harness env has no " + key);
    return v;
  }

  /** A config of a client in cloud A: 127.0.1.0/24 local, 127.0.2.0/24 another cloud. */
  static Config cloudA(Policy policy) {
    return new Config()
        .clientLocation("cloud-a/r1/z1")
        .localCidr("127.0.1.0/24")
        .locationRule("127.0.2.0/24", "cloud-b")
        .policy(policy)
        .breaker(1, 60_000);
  }
}
