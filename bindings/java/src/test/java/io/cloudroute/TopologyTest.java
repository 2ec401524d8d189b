package io.cloudroute;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class TopologyTest {
  @Test
  void staticText() {
    try (Topology t = Topology.parseStatic(Vectors.STATIC)) {
      assertEquals(2, t.shardCount());
      assertEquals(5, t.nodeCount());
      assertEquals("alpha", t.shardId(0));
      assertArrayEquals(new int[][] {{0, 8191}}, t.shardRanges(0));
      assertArrayEquals(new int[][] {{8192, 16383}}, t.shardRanges(1));
      assertEquals(0, t.slotShard(100));
      assertEquals(1, t.slotShard(16383));
      List<NodeInfo> nodes = t.nodes();
      NodeInfo master =
          nodes.stream()
              .filter(n -> n.shard() == 1 && n.role() == Role.MASTER)
              .findFirst()
              .orElseThrow();
      assertEquals("10.2.0.2", master.host());
      assertEquals(6379, master.port());
      assertEquals("10.2.0.2:6379", master.address());
      assertEquals(3, nodes.stream().filter(n -> n.role() == Role.REPLICA).count());
      assertEquals(ReportedHealth.ONLINE, master.health());
    }
  }

  @Test
  void clusterSlotsReply() {
    byte[] reply = Vectors.repoFile(Vectors.TWO_CLOUDS);
    try (Topology t = Topology.parseClusterSlots(reply)) {
      assertTrue(t.shardCount() >= 2, t.toString());
      int covered = 0;
      for (int s = 0; s < t.shardCount(); s++) {
        for (int[] r : t.shardRanges(s)) covered += r[1] - r[0] + 1;
      }
      assertEquals(CloudRoute.SLOT_COUNT, covered);
      assertTrue(t.nodes().stream().anyMatch(n -> n.host().equals("127.0.1.1")));
    }
  }

  @Test
  void malformedInputNamesTheProblem() {
    CloudRouteException e =
        assertThrows(
            CloudRouteException.ParseException.class, () -> Topology.parseStatic("shard\n"));
    assertEquals(CloudRouteException.EPARSE, e.status());
    assertTrue(e.getMessage().contains("line"), e.getMessage());
    byte[] reply = Vectors.repoFile(Vectors.TWO_CLOUDS);
    CloudRouteException cut =
        assertThrows(
            CloudRouteException.ParseException.class,
            () -> Topology.parseClusterSlots(Arrays.copyOf(reply, reply.length / 2)));
    assertEquals(CloudRouteException.EINCOMPLETE, cut.status());
    assertThrows(
        CloudRouteException.ParseException.class,
        () -> Topology.parseClusterShards("+OK\r\n".getBytes(StandardCharsets.US_ASCII)));
  }

  @Test
  void uncoveredSlotAndBadIndexes() {
    try (Topology t = Topology.parseStatic("shard slots=0-100 master=10.0.0.1:6379\n")) {
      CloudRouteException e =
          assertThrows(CloudRouteException.UnavailableException.class, () -> t.slotShard(200));
      assertEquals(CloudRouteException.ESLOT_UNCOVERED, e.status());
      assertThrows(CloudRouteException.InvalidArgumentException.class, () -> t.slotShard(16384));
      assertThrows(CloudRouteException.NotFoundException.class, () -> t.node(5));
      assertThrows(CloudRouteException.NotFoundException.class, () -> t.shardId(3));
    }
  }

  @Test
  void closedHandleThrowsAndCloseIsIdempotent() {
    Topology t = Topology.parseStatic(Vectors.STATIC);
    t.close();
    t.close();
    assertTrue(t.isClosed());
    assertThrows(IllegalStateException.class, t::nodeCount);
  }
}
