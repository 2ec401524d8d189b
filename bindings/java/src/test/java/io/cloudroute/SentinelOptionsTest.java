package io.cloudroute;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cloudroute.CloudRouteException.ConnectionException;
import io.cloudroute.CloudRouteException.InvalidArgumentException;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * SentinelOptions' TLS and hedging fields reach cr_sentinel_client_new (no server): each bad value
 * is refused by the library with CR_EINVAL naming the field or file — before any sentinel is asked
 * — where the same options without it fail only to reach the (closed) sentinel address.
 */
class SentinelOptionsTest {
  /** Nothing listens there: options the library accepts fail with a connection error. */
  private static final String NO_SENTINEL = "127.0.0.1:1";

  private static CloudRouteException connect(UnaryOperator<SentinelOptions> set) {
    try (Ring ring = Ring.builder().shard("a").build()) {
      SentinelOptions o =
          set.apply(new SentinelOptions().connectTimeoutMs(500).sentinelTimeoutMs(500));
      return assertThrows(
          CloudRouteException.class,
          () -> SentinelClient.connect(NO_SENTINEL, List.of("a"), ring, null, o).close());
    }
  }

  private static void refused(UnaryOperator<SentinelOptions> set, String named) {
    CloudRouteException e = connect(set);
    assertEquals(InvalidArgumentException.class, e.getClass(), e.getMessage());
    assertEquals(CloudRouteException.EINVAL, e.status());
    assertTrue(e.getMessage().contains(named), e.getMessage());
  }

  private static void accepted(UnaryOperator<SentinelOptions> set) {
    CloudRouteException e = connect(set);
    assertTrue(e instanceof ConnectionException, e.getClass() + ": " + e.getMessage());
  }

  @Test
  void defaultsAreTheLibrarys() {
    SentinelOptions o = new SentinelOptions();
    assertFalse(o.tls());
    assertEquals(HedgeMode.OFF, o.hedgeMode());
    assertEquals(99.0, o.hedgePercentile());
    assertEquals(null, o.asyncExecutor());
    SentinelOptions set =
        new SentinelOptions().tls(true, false).hedgeMode(HedgeMode.ADAPTIVE).hedgePercentile(99.5);
    assertTrue(set.tls());
    assertEquals(HedgeMode.ADAPTIVE, set.hedgeMode());
    assertEquals(99.5, set.hedgePercentile());
  }

  @Test
  void tlsFilesReachTheLibrary() {
    accepted(o -> o); // the baseline: only the sentinel is missing
    refused(o -> o.tls(true, true).tlsCa("/nonexistent/ca.pem", null), "/nonexistent/ca.pem");
    refused(o -> o.tls(true, false).tlsClientCert("/nonexistent/c.crt", null), "key_file");
    refused(
        o -> o.tls(true, false).tlsClientCert("/nonexistent/c.crt", "/nonexistent/c.key"),
        "/nonexistent/c.crt");
    // TLS off: the files are not read.
    accepted(o -> o.tls(false, true).tlsCa("/nonexistent/ca.pem", null));
    // A server name and no verification are taken (they matter only in a handshake).
    accepted(o -> o.tls(true, false).tlsServerName("redis.example"));
  }

  @Test
  void hedgingValuesReachTheLibrary() {
    accepted(o -> o.hedgeMode(HedgeMode.FIXED).hedgeDelayMs(5).hedgeBudgetPercent(50));
    refused(o -> o.hedgeMode(HedgeMode.FIXED).hedgeDelayMs(0), "hedge_delay_ms");
    refused(o -> o.hedgeMode(HedgeMode.FIXED).hedgeBudgetPercent(101), "hedge_budget_percent");
    refused(o -> o.hedgeMode(HedgeMode.ADAPTIVE).hedgePercentile(0.0), "hedge_percentile");
    refused(o -> o.hedgeMode(HedgeMode.ADAPTIVE).hedgeMinDelayMs(60_001), "hedge_min_delay_ms");
  }

  @Test
  void engineValuesReachTheLibrary() {
    refused(o -> o.sentinelTimeoutMs(0), "sentinel_timeout_ms");
    refused(o -> o.commandTimeoutMs(Tier.OTHER_CLOUD, 0), "command_timeout_ms");
    refused(o -> o.sharedConnections(17), "shared_connections");
    accepted(
        o ->
            o.poolIdleMs(1000)
                .tcpKeepaliveS(0)
                .tcpUserTimeoutMs(0)
                .failuresBeforeRefresh(1)
                .refreshMinGapMs(10)
                .sharedConnections(0)
                .commandTimeoutMs(Tier.OTHER_CLOUD, 3000));
  }
}
