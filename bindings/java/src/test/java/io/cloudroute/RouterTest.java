package io.cloudroute;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class RouterTest {
  private static Router router(Policy policy) {
    try (Config c = Vectors.localConfig().policy(policy);
        Topology t = Topology.parseStatic(Vectors.STATIC)) {
      return new Router(c, t);
    }
  }

  @Test
  void readsGoLocalWritesToTheMaster() {
    try (Router r = router(Policy.LOCAL_REPLICAS_FIRST)) {
      int slotHigh = CloudRoute.keyslot("b"); // 3300: shard 0
      assertEquals(3300, slotHigh);
      Route read = r.routeRead("b");
      assertEquals("10.0.0.1", read.host()); // the only local node of shard 0 is its master
      assertEquals(Tier.LOCAL, read.tier());
      Route write = r.routeWrite("b".getBytes(StandardCharsets.US_ASCII));
      assertEquals("10.0.0.1", write.host());
      assertEquals(Role.MASTER, write.role());
      assertEquals(3300, write.slot());
      assertEquals(0, write.shard());

      Route remote = r.routeRead("a"); // slot 15495: shard 1, local replica 10.0.0.2
      assertEquals("10.0.0.2", remote.host());
      assertEquals(Role.REPLICA, remote.role());
      assertEquals("10.2.0.2:6379", r.routeWrite("a").address());
      assertEquals(remote, r.routeReadSlot(15495));
      assertEquals(r.routeWrite("a"), r.routeWriteSlot(15495));
    }
  }

  @Test
  void candidatesInRankOrderAndExplain() {
    try (Router r = router(Policy.LOCAL_REPLICAS_FIRST)) {
      List<Candidate> c = r.candidates("a");
      assertEquals(2, c.size());
      assertEquals("10.0.0.2", c.get(0).host());
      assertEquals(Tier.LOCAL, c.get(0).tier());
      assertEquals(Tier.OTHER_CLOUD, c.get(1).tier());
      assertTrue(c.get(0).rank() < c.get(1).rank());
      assertEquals(c.toString(), r.candidatesSlot(15495).toString());
      String explain = r.explain("a");
      assertTrue(explain.contains("15495"), explain);
      assertTrue(explain.contains("10.0.0.2"), explain);
    }
  }

  @Test
  void feedbackOpensTheBreaker() {
    try (Router r = router(Policy.LOCAL_REPLICAS_FIRST)) {
      Route first = r.routeRead("a");
      for (int i = 0; i < 3; i++) r.reportFailure(first.nodeHandle());
      Route next = r.routeRead("a");
      assertEquals("10.2.0.2", next.host());
      assertTrue(r.candidates("a").stream().anyMatch(Candidate::down));
      r.reportSuccess(first.nodeHandle());
      assertEquals(first.host(), r.routeRead("a").host());
      assertThrows(CloudRouteException.NotFoundException.class, () -> r.reportFailure(99999));
      assertEquals(first.nodeHandle(), r.findNode("10.0.0.2", 6379).getAsInt());
      assertFalse(r.findNode("10.9.9.9", 6379).isPresent());
    }
  }

  @Test
  void redirectsAndMigration() {
    try (Router r = router(Policy.LOCAL_REPLICAS_FIRST)) {
      assertFalse(r.isRefreshNeeded());
      r.reportMoved(15495, "10.0.0.1", 6379);
      assertTrue(r.isRefreshNeeded());
      assertEquals("10.0.0.1", r.routeWriteSlot(15495).host());
      Route ask = r.reportAsk(100, "10.5.5.5", 7000);
      assertEquals("10.5.5.5", ask.host());
      assertEquals(Route.SHARD_NONE, ask.shard());
      assertTrue(r.isSlotMigrating(100));
      r.setSlotMigrating(100, false);
      assertFalse(r.isSlotMigrating(100));
      assertThrows(
          CloudRouteException.InvalidArgumentException.class, () -> r.reportMoved(16384, "h", 1));
    }
  }

  @Test
  void nodeStateChangesTheOrder() {
    try (Router r = router(Policy.LOCAL_REPLICAS_FIRST)) {
      r.setNodeZone("10.0.0.2", 6379, "use1-az1");
      r.setReplicaLagging("10.0.0.2", 6379, true);
      assertEquals("10.2.0.2", r.routeRead("a").host());
      r.setReplicaLagging("10.0.0.2", 6379, false);
      assertEquals("10.0.0.2", r.routeRead("a").host());
    }
    try (Router r = router(Policy.NEAREST)) {
      Route local = r.routeRead("a");
      Route remote = r.routeWrite("a");
      r.setRtt(local.nodeHandle(), 90000);
      r.setRtt(remote.nodeHandle(), 250);
      assertEquals(250, r.candidates("a").get(0).rttUs());
      assertEquals(remote.address(), r.routeRead("a").address());
    }
  }

  @Test
  void snapshotsAndBatches() {
    try (Router r = router(Policy.LOCAL)) {
      Snapshot s = r.snapshot();
      long g = s.generation();
      assertEquals(r.routeWrite("x"), s.routeWrite("x"));
      try (Topology t = Topology.parseStatic(Vectors.STATIC)) {
        r.update(t);
      }
      try (Snapshot s2 = r.snapshot()) {
        assertEquals(g + 1, s2.generation());
      }
      r.close();
      assertEquals("10.0.0.1", s.routeWrite("b").host()); // a snapshot outlives its router
      try (Topology t = s.topology()) {
        assertEquals(2, t.shardCount());
      }
      s.close();
    }
    try (Router r = router(Policy.LOCAL)) {
      List<Route> routes = r.routeReadBatch("a", "b".getBytes(StandardCharsets.US_ASCII));
      assertEquals(r.routeWrite("b").host(), routes.get(1).host());
      assertNotNull(routes.get(0));
    }
  }

  @Test
  void noTopologyAndUncoveredSlots() {
    try (Router r = new Router(null)) {
      CloudRouteException e =
          assertThrows(CloudRouteException.UnavailableException.class, () -> r.routeRead("k"));
      assertEquals(CloudRouteException.ENOTOPOLOGY, e.status());
      assertTrue(e.getMessage().length() > 0);
      try (Topology t = Topology.parseStatic("shard slots=0-100 master=10.0.0.1:6379\n")) {
        r.update(t);
      }
      assertEquals(
          CloudRouteException.ESLOT_UNCOVERED,
          assertThrows(CloudRouteException.class, () -> r.routeRead("a")).status());
      List<Route> batch = r.routeReadBatch("a", "{a}");
      assertNull(batch.get(0));
    }
  }

  @Test
  void leastLoadedSelectionIsNamedInExplain() {
    try (Config c =
            Vectors.localConfig().policy(Policy.LOCAL_SPREAD).selection(Selection.LEAST_LOADED);
        Topology t = Topology.parseStatic(Vectors.STATIC);
        Router r = new Router(c, t)) {
      assertEquals(Selection.LEAST_LOADED, c.selection());
      String explain = r.explain("a");
      assertTrue(explain.contains("selection least-loaded"), explain);
      assertNotNull(r.routeRead("a"));
    }
  }

  @Test
  void configErrors() {
    try (Config c = new Config()) {
      assertThrows(CloudRouteException.ParseException.class, () -> c.localCidr("10.0.0.0/99"));
      assertThrows(CloudRouteException.InvalidArgumentException.class, () -> c.breaker(0, 10));
      assertEquals(Policy.LOCAL, c.policy());
      c.policy(Policy.NEAREST)
          .weight("10.0.0.1:6379", 5)
          .zone("z1", "aws/r/z1")
          .nodeLocation("10.0.0.9:6379", "aws/r/z1")
          .addressRemap("10.0.0.1:6379", "127.0.0.1:1");
      assertEquals(Policy.NEAREST, c.policy());
    }
  }

  /** clientZone alone: a node reporting the client's zone is LOCAL, another zone SAME_REGION. */
  @Test
  void clientZoneRanksByTheReportedZones() {
    try (Config c = new Config().clientZone("use1-az2");
        Router r = new Router(c);
        Topology t = Topology.parseStatic(Vectors.STATIC)) {
      r.update(t);
      r.setNodeZone("10.0.0.1", 6379, "use1-az4");
      r.setNodeZone("10.1.0.1", 6379, "use1-az2");
      List<Candidate> cands = r.candidates("bar");
      assertEquals("10.1.0.1", cands.get(0).host());
      assertEquals(Tier.LOCAL, cands.get(0).tier());
      for (Candidate x : cands) {
        Tier want =
            x.host().equals("10.1.0.1")
                ? Tier.LOCAL
                : x.host().equals("10.0.0.1") ? Tier.SAME_REGION : Tier.UNKNOWN;
        assertEquals(want, x.tier(), x.host());
      }
      assertTrue(
          r.explain("bar".getBytes(StandardCharsets.UTF_8))
              .contains("server zone use1-az2 (the client zone)"));
    }
    try (Config c = new Config()) {
      assertEquals(
          CloudRouteException.EINVAL,
          assertThrows(CloudRouteException.class, () -> c.clientZone("")).status());
    }
  }
}
