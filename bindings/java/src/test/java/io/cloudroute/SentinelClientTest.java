package io.cloudroute;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Sentinel client against the harness's two groups (tests/java/run.sh). */
class SentinelClientTest {
  @Test
  void readsAndWritesThroughSentinel() {
    Harness env = Harness.require("CR_JAVA_SENTINEL_ENV");
    List<String> names = List.of(env.get("SENTINEL_MASTER_NAMES").split(","));
    try (Config c = Harness.cloudA(Policy.LOCAL);
        Ring ring =
            Ring.builder().hash(HashAlgo.MURMUR).shard(names.get(0)).shard(names.get(1)).build();
        SentinelClient s =
            SentinelClient.connect(
                env.get("SENTINELS"),
                names,
                ring,
                c,
                new SentinelOptions().commandTimeoutMs(2000))) {
      assertEquals(2, s.groups().count());
      for (int i = 0; i < 20; i++) {
        assertEquals("OK", s.command(Access.WRITE, 1, "SET", "java:s" + i, "v" + i));
      }
      for (int i = 0; i < 20; i++) {
        byte[] v = (byte[]) s.command(Access.READ, 1, "GET", "java:s" + i);
        assertEquals("v" + i, new String(v, StandardCharsets.UTF_8));
      }
      String key = "java:s0";
      int group = ring.locate(key);
      assertEquals(env.get("GROUP" + group + "_MASTER"), s.groups().routeWrite(key).address());
      assertTrue(s.groups().routeRead(key).host().startsWith("127.0.1."));
      s.refresh();
      SentinelStats stats = s.stats();
      assertTrue(stats.reads >= 20 && stats.writes >= 20, stats.toString());
      assertTrue(stats.asks > 0, stats.toString());
      // Per instance: data nodes of the groups only, every command counted once.
      long commands = 0;
      for (NodeStats n : s.nodeStats()) {
        assertTrue(n.host.startsWith("127.0."), n.address());
        commands += n.reads + n.writes;
      }
      assertEquals(stats.reads + stats.writes, commands);
    }
  }
}
