package io.cloudroute;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** ClientOptions as the library sees them: its defaults, and values it refuses (no server). */
class ClientOptionsTest {
  @Test
  void hedgingDefaultsAreTheLibrarys() {
    ClientOptions o = new ClientOptions();
    assertEquals(HedgeMode.OFF, o.hedgeMode());
    assertEquals(20, o.hedgeDelayMs());
    assertEquals(2, o.hedgeMinDelayMs());
    assertEquals(10, o.hedgeBudgetPercent());
    assertEquals(99.0, o.hedgePercentile());
  }

  @Test
  void hedgingValuesRoundTrip() {
    ClientOptions o =
        new ClientOptions()
            .hedgeMode(HedgeMode.ADAPTIVE)
            .hedgeDelayMs(15)
            .hedgeMinDelayMs(3)
            .hedgeBudgetPercent(25)
            .hedgePercentile(99.5);
    assertEquals(HedgeMode.ADAPTIVE, o.hedgeMode());
    assertEquals(15, o.hedgeDelayMs());
    assertEquals(3, o.hedgeMinDelayMs());
    assertEquals(25, o.hedgeBudgetPercent());
    assertEquals(99.5, o.hedgePercentile());
  }

  // Refused before any seed is dialed: the message names the field, not the seed.
  @Test
  void badHedgingValuesAreRefusedByName() {
    CloudRouteException e =
        assertThrows(
            CloudRouteException.InvalidArgumentException.class,
            () ->
                Client.connect(
                    "127.0.0.1:1",
                    null,
                    new ClientOptions().hedgeMode(HedgeMode.FIXED).hedgeDelayMs(0)));
    assertTrue(e.getMessage().contains("hedge_delay_ms"), e.getMessage());
    e =
        assertThrows(
            CloudRouteException.InvalidArgumentException.class,
            () ->
                Client.connect(
                    "127.0.0.1:1",
                    null,
                    new ClientOptions().hedgeMode(HedgeMode.ADAPTIVE).hedgePercentile(0.0)));
    assertTrue(e.getMessage().contains("hedge_percentile"), e.getMessage());
    e =
        assertThrows(
            CloudRouteException.InvalidArgumentException.class,
            () ->
                Client.connect(
                    "127.0.0.1:1",
                    null,
                    new ClientOptions().hedgeMode(HedgeMode.FIXED).hedgeBudgetPercent(101)));
    assertTrue(e.getMessage().contains("hedge_budget_percent"), e.getMessage());
  }

  @Test
  void readYourWritesIsOffByDefaultAndRoundTrips() {
    assertEquals(0, new ClientOptions().readYourWritesMs());
    assertEquals(1500, new ClientOptions().readYourWritesMs(1500).readYourWritesMs());
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> new ClientOptions().readYourWritesMs(-1));
    assertTrue(e.getMessage().contains("read_your_writes_ms"), e.getMessage());
  }

  @Test
  void dbIsZeroByDefaultAndRoundTrips() {
    assertEquals(0, new ClientOptions().db());
    assertEquals(2, new ClientOptions().db(2).db());
    assertEquals(0, new SentinelOptions().db());
    assertEquals(3, new SentinelOptions().db(3).db());
    assertThrows(IllegalArgumentException.class, () -> new ClientOptions().db(-1));
    assertThrows(IllegalArgumentException.class, () -> new SentinelOptions().db(-1));
  }

  @Test
  void sharedConnectionsAreTwoByDefaultAndRoundTrip() {
    assertEquals(2, new ClientOptions().sharedConnections());
    assertEquals(2, new SentinelOptions().sharedConnections());
    assertEquals(2, new ShardedOptions().sharedConnections());
    assertEquals(0, new ClientOptions().sharedConnections(0).sharedConnections());
    assertEquals(4, new SentinelOptions().sharedConnections(4).sharedConnections());
    assertEquals(1, new ShardedOptions().sharedConnections(1).sharedConnections());
    assertThrows(IllegalArgumentException.class, () -> new SentinelOptions().sharedConnections(-1));
    assertThrows(IllegalArgumentException.class, () -> new ShardedOptions().sharedConnections(-1));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> new ClientOptions().sharedConnections(-1));
    assertTrue(e.getMessage().contains("shared_connections"), e.getMessage());
  }
}
