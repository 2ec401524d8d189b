package io.cloudroute;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Nodes that left the topology are reclaimed; hosts stay right when their slots are reused. */
class RouterReclaimTest {
  private static String host(int n) {
    return "10." + ((n >> 16) & 255) + "." + ((n >> 8) & 255) + "." + (n & 255);
  }

  private static void moveTo(Router r, int n) {
    try (Topology t = Topology.parseStatic("shard slots=0-16383 master=" + host(n) + ":6379\n")) {
      r.update(t);
    }
  }

  @Test
  void staleHandlesThrowAndReusedSlotsNameTheirNewHost() {
    try (Router r = new Router(null)) {
      moveTo(r, 1);
      Route first = r.routeWrite("k");
      moveTo(r, 2);
      r.reportFailure(first.nodeHandle()); // in the previous topology: still known
      boolean reused = false;
      for (int n = 3; n < 1500; n++) {
        moveTo(r, n);
        Route now = r.routeWrite("k");
        assertEquals(host(n), now.host()); // the cache never answers with an old host
        assertNotEquals(first.nodeHandle(), now.nodeHandle());
        reused |= (now.nodeHandle() & 0xFFFFF) == (first.nodeHandle() & 0xFFFFF);
      }
      assertTrue(reused);
      CloudRouteException e =
          assertThrows(CloudRouteException.class, () -> r.reportFailure(first.nodeHandle()));
      assertEquals(CloudRouteException.ENOTFOUND, e.status());
    }
  }
}
