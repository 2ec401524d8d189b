package io.cloudroute;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Per-call timeouts and the metrics text of the live client (tests/java/run.sh). */
class CallOptionsTest {
  private static Harness env;
  private static Client client;

  @BeforeAll
  static void connect() {
    env = Harness.require("CR_JAVA_CLUSTER_ENV");
    try (Config c = Harness.cloudA(Policy.LOCAL_REPLICAS_FIRST)) {
      // A short tier timeout, so that only a call timeout lets a command wait longer.
      client = Client.connect(env.get("SEEDS"), c, new ClientOptions().commandTimeoutMs(300));
    }
  }

  @AfterAll
  static void close() {
    if (client != null) client.close();
  }

  @Test
  void aNegativeCallTimeoutIsRefused() {
    assertThrows(CloudRouteException.InvalidArgumentException.class,
        () -> new CallOptions().timeoutMs(-1));
    assertEquals(0, new CallOptions().timeoutMs());
  }

  @Test
  void aCallTimeoutLetsOneCommandWaitLongerThanItsTier() {
    String key = "{java:calltimeout}:empty";
    client.del(key);
    long t0 = System.nanoTime();
    // BLPOP's own 1 s wait, within the call's 3 s, far beyond the tier's 300 ms
    assertNull(client.command(new CallOptions().timeoutMs(3000), Access.WRITE, 1, "BLPOP", key,
        "1"));
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertTrue(ms >= 900 && ms < 3000, ms + " ms");
  }

  @Test
  void aPassedCallTimeoutFailsTheCallButDoesNotMarkTheNode() {
    String key = "{java:calltimeout}:forever";
    client.del(key);
    long t0 = System.nanoTime();
    CloudRouteException e = assertThrows(CloudRouteException.ConnectionException.class,
        () -> client.command(new CallOptions().timeoutMs(500), Access.WRITE, 1, "BLPOP", key,
            "0"));
    long ms = (System.nanoTime() - t0) / 1_000_000;
    assertEquals(CloudRouteException.ETIMEOUT, e.status(), e.getMessage());
    assertTrue(ms >= 450 && ms < 5000, ms + " ms");
    int slot = CloudRoute.keyslot(key);
    for (Candidate c : client.router().candidatesSlot(slot)) assertFalse(c.down(), c.toString());
    client.set(key, "still served"); // the master answers at once
    assertEquals("still served", client.get(key));
  }

  @Test
  void theMetricsTextCountsReadsByTier() {
    long before = readsLocal(client.metricsText());
    for (int s = 1; s <= 3; s++) {
      assertEquals(env.get("SHARD" + s + "_VALUE"), client.get(env.get("SHARD" + s + "_KEY")));
    }
    String text = client.metricsText();
    assertTrue(text.contains("# TYPE cloudroute_reads_total counter"), text);
    assertEquals(before + 3, readsLocal(text), text);
    // shard 1 was read on its cloud-A replica n2
    assertTrue(text.contains("cloudroute_node_up{node=\"" + env.get("NODE2_ADDR") + "\"} 1"),
        text);
  }

  private static long readsLocal(String metrics) {
    Matcher m = Pattern.compile("(?m)^cloudroute_reads_total\\{tier=\"local\"\\} (\\d+)$")
        .matcher(metrics);
    assertTrue(m.find(), metrics);
    return Long.parseLong(m.group(1));
  }
}
