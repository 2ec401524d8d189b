package io.cloudroute;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ShardGroupsTest {
  @Test
  void groupsRouteByRingAndLocality() {
    try (Config c = new Config().localCidr("127.0.1.0/24").seed(7);
        ShardGroups g = new ShardGroups(c);
        Ring ring = Ring.builder().hash(HashAlgo.MURMUR).shard("group0").shard("group1").build()) {
      assertEquals(0, g.add("group0"));
      assertEquals(1, g.add("group1"));
      assertEquals(2, g.count());
      assertEquals(1, g.find("group1").getAsInt());
      assertFalse(g.find("nope").isPresent());
      assertThrows(CloudRouteException.UnavailableException.class, () -> g.locate("k"));
      g.setRing(ring);
      g.setMaster(0, "127.0.2.1", 6379);
      g.setReplicas(0, List.of("127.0.1.2:6379", "127.0.2.3:6379"));
      g.setMaster(1, "127.0.1.4", 6379);
      String key = null;
      for (int i = 0; key == null; i++) {
        if (ring.locate("user:" + i) == 0) key = "user:" + i;
      }
      assertEquals(0, g.locate(key));
      assertEquals("127.0.2.1", g.routeWrite(key).host());
      Route read = g.routeRead(key);
      assertEquals("127.0.1.2", read.host());
      assertEquals(Tier.LOCAL, read.tier());
      List<Candidate> cands = g.candidates(key);
      assertEquals(3, cands.size());
      assertEquals("127.0.1.2", cands.get(0).host());
      for (int i = 0; i < 3; i++) g.reportFailure(read.nodeHandle());
      assertTrue(g.candidates(key).get(2).down());
      g.reportSuccess(read.nodeHandle());
      assertThrows(CloudRouteException.InvalidArgumentException.class, () -> g.add("group0"));
      assertThrows(
          CloudRouteException.InvalidArgumentException.class,
          () -> g.setReplicas(0, List.of("no-port")));
      g.setMaster(0, null, 0);
      String k = key;
      assertThrows(CloudRouteException.UnavailableException.class, () -> g.routeWrite(k));
    }
  }

  @Test
  void ringErrors() {
    assertThrows(CloudRouteException.InvalidArgumentException.class, () -> Ring.builder().build());
    assertThrows(
        CloudRouteException.InvalidArgumentException.class,
        () -> Ring.builder().shard("a").shard("a").build());
    assertThrows(
        CloudRouteException.InvalidArgumentException.class,
        () -> Ring.builder().algo(RingAlgo.KETAMA).hash(HashAlgo.MURMUR).shard("a").build());
    assertThrows(
        CloudRouteException.InvalidArgumentException.class,
        () -> Ring.builder().algo(RingAlgo.JUMP).shard(null, 2).build());
    try (Ring r = Ring.builder().algo(RingAlgo.JUMP).shards(10).build()) {
      int shard = r.locate("k");
      assertTrue(shard >= 0 && shard < 10);
      assertEquals(r.locate("k".getBytes(java.nio.charset.StandardCharsets.UTF_8)), shard);
    }
  }
}
