package io.cloudroute;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The shared golden vectors (tests/vectors/*.json, copied onto the test class path). */
final class Vectors {
  private Vectors() {}

  static JsonNode load(String name) {
    try (InputStream in = Vectors.class.getResourceAsStream("/vectors/" + name)) {
      if (in == null) throw new IllegalStateException("vector file missing: " + name);
      return new ObjectMapper().readTree(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static byte[] hex(String h) {
    byte[] out = new byte[h.length() / 2];
    for (int i = 0; i < out.length; i++) {
      out[i] = (byte) Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16);
    }
    return out;
  }

  /** A file of the repository (examples/...), found from the module directory. */
  static byte[] repoFile(String relative) {
    Path p = Path.of(System.getProperty("user.dir")).resolve("../..").resolve(relative);
    try {
      return Files.readAllBytes(p.normalize());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static final String TWO_CLOUDS = "examples/two-clouds.cluster-slots.resp";

  /** Two shards over two clouds, in the static text format. */
  static final String STATIC =
      "shard slots=0-8191 master=10.0.0.1:6379 "
          + "replicas=10.1.0.1:6379,10.2.0.1:6379 id=alpha\n"
          + "shard slots=8192-16383 master=10.2.0.2:6379 replicas=10.0.0.2:6379\n";

  /** Nodes 10.0.0.x are local; 10.2.x another cloud. */
  static Config localConfig() {
    return new Config()
        .clientLocation("aws/us-east-1/use1-az1")
        .localCidr("10.0.0.0/24")
        .locationRule("10.1.0.0/16", "aws/us-east-1/use1-az2")
        .locationRule("10.2.0.0/16", "gcp/us-central1/a")
        .seed(42);
  }
}
