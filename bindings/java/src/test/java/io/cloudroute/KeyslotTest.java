package io.cloudroute;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class KeyslotTest {
  @Test
  void goldenVectors() {
    JsonNode cases = Vectors.load("keyslot.json").get("cases");
    assertEquals(true, cases.size() > 100);
    for (JsonNode c : cases) {
      byte[] key = Vectors.hex(c.get("key_hex").asText());
      assertEquals(c.get("slot").asInt(), CloudRoute.keyslot(key), c.get("key_hex").asText());
    }
  }

  @Test
  void knownSlots() {
    assertEquals(12182, CloudRoute.keyslot("foo"));
    assertEquals(9910, CloudRoute.keyslot("user:123456"));
    assertEquals(CloudRoute.keyslot("user1000"), CloudRoute.keyslot("{user1000}.following"));
    assertEquals(0x31C3, CloudRoute.crc16("123456789".getBytes(StandardCharsets.US_ASCII)));
  }

  @Test
  void stringsHashAsUtf8() {
    String[] keys = {
      "",
      "a",
      "ключ",
      "日本語{タグ}",
      "emoji 😀 key",
      "nul\0inside",
      "lone \uD800 high",
      "lone \uDC00 low",
      "x".repeat(300) + "é".repeat(300),
      "{}",
      "\uFFFF"
    };
    for (String k : keys) {
      assertEquals(
          CloudRoute.keyslot(k.getBytes(StandardCharsets.UTF_8)), CloudRoute.keyslot(k), k);
    }
  }

  @Test
  void offsetsAndBatches() {
    byte[] buf = "xxuser:123456yy".getBytes(StandardCharsets.US_ASCII);
    assertEquals(9910, CloudRoute.keyslot(buf, 2, 11));
    Object[] keys = {"foo", "bar".getBytes(StandardCharsets.US_ASCII), "user:123456", "ключ"};
    int[] expected = {12182, 5061, 9910, CloudRoute.keyslot("ключ")};
    assertArrayEquals(expected, CloudRoute.keyslots(keys));
    assertArrayEquals(expected, CloudRoute.keyslots(Arrays.asList(keys)));
    byte[] packed = "foobaruser:123456".getBytes(StandardCharsets.US_ASCII);
    int[] out = new int[3];
    CloudRoute.keyslots(packed, new int[] {3, 6, 17}, 3, out);
    assertArrayEquals(new int[] {12182, 5061, 9910}, out);
    assertArrayEquals(new int[0], CloudRoute.keyslots(List.of()));
    // non-ASCII keys grow the packed buffer past its first guess, ASCII ones after them too
    Object[] mixed = {"日本語日本語", "ascii-after", "😀😀😀", new byte[] {1, 2, 3}, "tail"};
    int[] slots = CloudRoute.keyslots(mixed);
    for (int i = 0; i < mixed.length; i++) {
      int want =
          mixed[i] instanceof String
              ? CloudRoute.keyslot((String) mixed[i])
              : CloudRoute.keyslot((byte[]) mixed[i]);
      assertEquals(want, slots[i], String.valueOf(i));
    }
  }

  @Test
  void badArgumentsThrowInvalidArgument() {
    CloudRouteException e =
        assertThrows(
            CloudRouteException.InvalidArgumentException.class,
            () -> CloudRoute.keyslot((byte[]) null));
    assertEquals(CloudRouteException.EINVAL, e.status());
    assertThrows(
        CloudRouteException.InvalidArgumentException.class,
        () -> CloudRoute.keyslot(new byte[4], 3, 2));
    assertThrows(
        CloudRouteException.InvalidArgumentException.class,
        () -> CloudRoute.keyslot(new byte[4], -1, 2));
    assertThrows(
        CloudRouteException.InvalidArgumentException.class, () -> CloudRoute.keyslots("a", 42));
    assertThrows(
        CloudRouteException.InvalidArgumentException.class,
        () -> CloudRoute.keyslots(new byte[3], new int[] {2, 1}, 2, new int[2]));
    assertThrows(
        CloudRouteException.InvalidArgumentException.class,
        () -> CloudRoute.keyslots(new byte[3], new int[] {4}, 1, new int[1]));
  }

  @Test
  void hashesAndFamilyKeys() {
    JsonNode v = Vectors.load("rings.json");
    for (JsonNode c : v.get("jedis_hash")) {
      byte[] key = Vectors.hex(c.get("key_hex").asText());
      assertEquals(c.get("murmur").asLong(), CloudRoute.jedisHash(HashAlgo.MURMUR, key));
      assertEquals(c.get("md5").asLong(), CloudRoute.jedisHash(HashAlgo.MD5, key));
    }
    for (JsonNode c : v.get("jedis_printed")) {
      assertEquals(
          c.get("murmur").asLong(), CloudRoute.jedisHash(HashAlgo.MURMUR, c.get("key").asText()));
    }
    for (JsonNode c : v.get("jump")) {
      long key = Long.parseUnsignedLong(c.get("key").asText());
      assertEquals(c.get("bucket").asInt(), CloudRoute.jumpHash(key, c.get("buckets").asInt()));
    }
    for (JsonNode c : v.get("family_keys")) {
      assertEquals(
          c.get("stored_key").asText(),
          CloudRoute.familyKey(c.get("family").asText(), Vectors.hex(c.get("key_hex").asText())));
    }
    assertThrows(
        CloudRouteException.InvalidArgumentException.class, () -> CloudRoute.familyKey("a:b", "k"));
    assertThrows(
        CloudRouteException.InvalidArgumentException.class, () -> CloudRoute.jumpHash(1, 0));
  }

  @Test
  void versionAndPolicyNames() {
    assertEquals("0.2.0", CloudRoute.version());
    assertEquals(Policy.LOCAL_REPLICAS_FIRST, CloudRoute.policy("Local_Replicas_First"));
    assertEquals(Policy.NEAREST, Policy.fromLabel("nearest"));
    assertThrows(
        CloudRouteException.InvalidArgumentException.class, () -> CloudRoute.policy("fastest"));
  }

  @Test
  void oneExceptionTable() {
    assertEquals(
        CloudRouteException.ParseException.class,
        CloudRouteException.of(CloudRouteException.EINCOMPLETE, "m").getClass());
    assertEquals(
        CloudRouteException.UnavailableException.class,
        CloudRouteException.of(CloudRouteException.ESLOT_UNCOVERED, "m").getClass());
    assertEquals(
        CloudRouteException.ConnectionException.class,
        CloudRouteException.of(CloudRouteException.ETIMEOUT, "m").getClass());
    assertEquals(
        CloudRouteException.ServerErrorException.class,
        CloudRouteException.of(CloudRouteException.EREDIS, "WRONGTYPE").getClass());
    assertEquals(
        CloudRouteException.VersionException.class,
        CloudRouteException.of(CloudRouteException.EVERSION, "m").getClass());
    assertEquals(
        CloudRouteException.class,
        CloudRouteException.of(CloudRouteException.EINTERNAL, "m").getClass());
    assertEquals("CR_EINTERNAL", CloudRouteException.of(-11, "").getMessage());
  }
}
