package io.cloudroute;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cloudroute.CloudRouteException.InvalidArgumentException;
import io.cloudroute.CloudRouteException.ServerErrorException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * The Sentinel client's batches against the harness's two groups (tests/java/run.sh): 100 keys over
 * both groups as one command per group, a failed group's keys reported in the exception, binary
 * get/set and expire, bad arguments. Reads go to the local replica: after a write the test waits
 * until the masters' replicas acknowledged it (WAIT) before reading it back.
 */
class SentinelBatchTest {
  private static Harness env;
  private static Config config;
  private static Ring ring;
  private static SentinelClient client;

  @BeforeAll
  static void connect() {
    env = Harness.require("CR_JAVA_SENTINEL_ENV");
    List<String> names = List.of(env.get("SENTINEL_MASTER_NAMES").split(","));
    config = Harness.cloudA(Policy.LOCAL);
    ring = Ring.builder().hash(HashAlgo.MURMUR).shard(names.get(0)).shard(names.get(1)).build();
    client =
        SentinelClient.connect(
            env.get("SENTINELS"),
            names,
            ring,
            config,
            new SentinelOptions().commandTimeoutMs(2000));
  }

  @AfterAll
  static void close() {
    for (AutoCloseable c : new AutoCloseable[] {client, ring, config}) {
      try {
        if (c != null) c.close();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }
  }

  private static Jedis node(String address) {
    int colon = address.lastIndexOf(':');
    return new Jedis(
        address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)), 10_000);
  }

  /** The key's group's master, as the client knows it now. */
  private static String master(Object key) {
    return client.groups().routeWrite(key).address();
  }

  /** 100 keys, both groups among them. */
  private static List<String> hundred(String prefix) {
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < 100; i++) keys.add(prefix + i);
    int[] groups = ring.locateBatch(keys.toArray());
    boolean zero = false;
    boolean one = false;
    for (int g : groups) {
      zero |= g == 0;
      one |= g == 1;
    }
    assertTrue(zero && one, "the keys cover both groups");
    return keys;
  }

  /**
   * Waits until both replicas of each group's master hold what was written so far: a write on the
   * master's own connection, then WAIT for its offset (WAIT on a connection that wrote nothing
   * returns at once).
   */
  private static void synced(List<String> keys) {
    for (String m : new String[] {master(keys.get(0)), master(firstOfGroup(keys, 1))}) {
      try (Jedis j = node(m)) {
        j.incr("java:batch:sync");
        Poll.until(() -> j.waitReplicas(2, 1000) == 2, Duration.ofSeconds(30), "replicas of " + m);
      }
    }
  }

  private static String firstOfGroup(List<String> keys, int group) {
    for (String k : keys) if (ring.locate(k) == group) return k;
    throw new IllegalStateException("no key of group " + group);
  }

  /** Calls of command summed over every data node of the setup (INFO commandstats). */
  private static long callsEverywhere(String command) {
    long n = 0;
    int nodes = Integer.parseInt(env.get("NODE_COUNT"));
    for (int i = 1; i <= nodes; i++) n += calls(env.get("NODE" + i + "_ADDR"), command);
    return n;
  }

  /** Calls of command on the masters of both groups (replicas run the writes they replicate). */
  private static long callsOnMasters(List<String> keys, String command) {
    return calls(master(firstOfGroup(keys, 0)), command)
        + calls(master(firstOfGroup(keys, 1)), command);
  }

  private static long calls(String address, String command) {
    try (Jedis j = node(address)) {
      return Standalone.calls(j, command);
    }
  }

  @Test
  void hundredKeysAreOneCommandPerGroup() {
    List<String> keys = hundred("java:sb:");
    Map<String, String> pairs = new LinkedHashMap<>();
    for (String k : keys) pairs.put(k, "v:" + k);
    long msets = callsOnMasters(keys, "mset");
    long sets = callsOnMasters(keys, "set");
    client.mset(pairs);
    assertEquals(msets + 2, callsOnMasters(keys, "mset"), "one MSET per group");
    assertEquals(sets, callsOnMasters(keys, "set"), "no SET per key");
    synced(keys);
    long mgets = callsEverywhere("mget");
    List<byte[]> values = client.mget(keys.toArray());
    assertEquals(mgets + 2, callsEverywhere("mget"), "one MGET per group");
    for (int i = 0; i < keys.size(); i++) {
      assertEquals("v:" + keys.get(i), new String(values.get(i), StandardCharsets.UTF_8));
    }
    List<Object> withAbsent = new ArrayList<>(keys);
    withAbsent.add("java:sb:absent");
    assertEquals(100, client.exists(withAbsent.toArray()));
    long dels = callsOnMasters(keys, "del");
    assertEquals(100, client.del(withAbsent.toArray()));
    assertEquals(dels + 2, callsOnMasters(keys, "del"), "one DEL per group");
    synced(keys);
    assertEquals(0, client.exists(keys.toArray()));
    assertEquals(List.of(), nonNull(client.mget(keys.get(0), keys.get(1))));
  }

  private static List<byte[]> nonNull(List<byte[]> values) {
    List<byte[]> out = new ArrayList<>();
    for (byte[] v : values) if (v != null) out.add(v);
    return out;
  }

  @Test
  void aFailedGroupsKeysAreReportedTheOthersWritten() {
    List<String> keys = hundred("java:sf:");
    String failing = master(firstOfGroup(keys, 1));
    Map<String, String> pairs = new LinkedHashMap<>();
    for (String k : keys) pairs.put(k, "v:" + k);
    // Group 1's master refuses writes (OOM) until its limit is lifted; reads and Sentinel go on.
    try (Jedis m = node(failing)) {
      m.configSet("maxmemory", "1");
      try {
        ServerErrorException e = assertThrows(ServerErrorException.class, () -> client.mset(pairs));
        assertTrue(e.getMessage().contains("OOM"), e.getMessage());
        List<Object> expectedFailed = new ArrayList<>();
        for (String k : keys) if (ring.locate(k) == 1) expectedFailed.add(k);
        assertEquals(expectedFailed, e.failedKeys());
        assertEquals(100, e.results().size());
        for (int i = 0; i < keys.size(); i++) {
          if (ring.locate(keys.get(i)) == 1) {
            assertInstanceOf(ServerErrorException.class, e.results().get(i));
          } else {
            assertNull(e.results().get(i));
          }
        }
      } finally {
        m.configSet("maxmemory", "0");
      }
    }
    // Group 0's keys were written: its master holds them.
    try (Jedis g0 = node(master(firstOfGroup(keys, 0)))) {
      for (String k : keys) {
        if (ring.locate(k) == 0) assertEquals("v:" + k, g0.get(k), k);
        else assertNull(g0.get(k), k);
      }
    }
    assertTrue(client.del(keys.toArray()) > 0);
  }

  @Test
  void binaryGetSetAndExpire() {
    byte[] key = {'j', ':', 0, (byte) 0xff};
    byte[] value = {0, (byte) 0xfe, (byte) 0xff, ' ', 'v'};
    client.set(key, value);
    synced(hundred("java:sx:"));
    assertArrayEquals(value, client.get(key));
    assertTrue(client.expire(key, 100));
    assertFalse(client.expire("java:sx:absent", 100));
    assertThrows(InvalidArgumentException.class, () -> client.expire(key, 0));
    assertThrows(InvalidArgumentException.class, () -> client.expire(null, 10));
    client.set("java:sx:s", "text");
    assertEquals("OK", client.write("SET", "java:sx:t", "t"));
    assertEquals(3, client.del(key, "java:sx:s", "java:sx:t"));
  }

  @Test
  void badArgumentsAreClearExceptions() {
    assertThrows(InvalidArgumentException.class, () -> client.mget());
    assertThrows(InvalidArgumentException.class, () -> client.mget((Object[]) null));
    assertThrows(InvalidArgumentException.class, () -> client.mget("a", null));
    assertThrows(InvalidArgumentException.class, () -> client.del());
    assertThrows(InvalidArgumentException.class, () -> client.exists(1, 2));
    assertThrows(InvalidArgumentException.class, () -> client.mset(Map.of()));
    assertThrows(InvalidArgumentException.class, () -> client.mset(null));
    Map<String, String> nullValue = new LinkedHashMap<>();
    nullValue.put("a", null);
    assertThrows(InvalidArgumentException.class, () -> client.mset(nullValue));
    CloudRouteException e = assertThrows(InvalidArgumentException.class, () -> client.mget());
    assertTrue(e.failedKeys().isEmpty() && e.results().isEmpty(), "nothing was sent");
  }
}
