package io.cloudroute;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
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

  /** Short keys are hashed in Java, the rest in C: both answer CLUSTER KEYSLOT's vectors. */
  @Test
  void javaAndNativePathsAnswerTheGoldenVectors() {
    int shortOnes = 0;
    for (JsonNode c : Vectors.load("keyslot.json").get("cases")) {
      byte[] key = Vectors.hex(c.get("key_hex").asText());
      int slot = c.get("slot").asInt();
      String what = c.get("key_hex").asText();
      assertEquals(slot, CloudRoute.shortSlot(key, 0, key.length), what);
      assertEquals(slot, CloudRoute.keyslotBytes(key, 0, key.length), what);
      byte[] framed = new byte[key.length + 4];
      System.arraycopy(key, 0, framed, 2, key.length);
      assertEquals(slot, CloudRoute.keyslot(framed, 2, key.length), what);
      if (key.length <= CloudRoute.SHORT_KEY_MAX) shortOnes++;
    }
    assertTrue(shortOnes > 100, "vectors on the Java path: " + shortOnes);
  }

  /**
   * Random keys of every length from 0 to past twice the short-key bound, made of few distinct
   * bytes so that hash tags ({...}), empty tags ({}), unclosed and nested braces are common: the
   * Java path, the C library, the public calls and the batch agree.
   */
  @Test
  void javaAndNativePathsAgreeOnRandomKeys() {
    Random rnd = new Random(20261202);
    byte[] alphabet = {'{', '}', 'a', 'b', 'z', '0', ':', (byte) 0x80, (byte) 0xC3, (byte) 0xFF, 0};
    int tagged = 0;
    for (int round = 0; round < 40; round++) {
      for (int len = 0; len <= 2 * CloudRoute.SHORT_KEY_MAX + 8; len++) {
        byte[] key = new byte[len];
        for (int i = 0; i < len; i++) key[i] = alphabet[rnd.nextInt(alphabet.length)];
        if (round % 2 == 1) rnd.nextBytes(key);
        int want = CloudRoute.keyslotBytes(key, 0, len);
        String what = "len " + len + " key " + Arrays.toString(key);
        assertEquals(want, CloudRoute.shortSlot(key, 0, len), what);
        assertEquals(want, CloudRoute.keyslot(key), what);
        assertEquals(want, CloudRoute.keyslots((Object) key)[0], what);
        if (new String(key, StandardCharsets.ISO_8859_1).matches(".*\\{[^}]+}.*")) tagged++;
      }
    }
    assertTrue(tagged > 100, "keys with a hash tag: " + tagged);
  }

  /**
   * A String is hashed as its UTF-8 bytes (an unpaired surrogate as '?', as String.getBytes writes
   * it) on every path: ASCII ones of up to SHORT_KEY_MAX characters in Java from the characters,
   * other short ones in Java from their bytes, long ones in C.
   */
  @Test
  void stringPathsHashTheUtf8Bytes() {
    Random rnd = new Random(7);
    char[] alphabet = {
      '{', '}', 'k', 'x', ':', 'é', 'ж', '日', '\uD83D', '\uDE00', '\uD800', '\uDC00', '\0', 0x7F
    };
    for (int round = 0; round < 40; round++) {
      for (int len = 0; len <= 2 * CloudRoute.SHORT_KEY_MAX + 8; len++) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < len; i++) {
          // even rounds: ASCII only (the character path), odd ones: any of the alphabet
          char c = alphabet[rnd.nextInt(round % 2 == 0 ? 5 : alphabet.length)];
          b.append(c);
        }
        String key = b.toString();
        byte[] utf8 = key.getBytes(StandardCharsets.UTF_8);
        int want = CloudRoute.keyslotBytes(utf8, 0, utf8.length);
        String what =
            "key " + key.codePoints().boxed().collect(java.util.stream.Collectors.toList());
        assertEquals(want, CloudRoute.keyslot(key), what);
        assertEquals(want, CloudRoute.keyslotString(key), what);
        assertEquals(want, CloudRoute.keyslot(utf8), what);
        assertEquals(want, CloudRoute.keyslots(key)[0], what);
      }
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
