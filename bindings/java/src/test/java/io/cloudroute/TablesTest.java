package io.cloudroute;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The JVM binding agrees with cloudroute.h and with the Python binding: statuses and their
 * exception families, enum names and values, option layouts and defaults. CApi and the enums are
 * generated from the header (ctest tables.current holds them current); these tests hold the library
 * the JVM loads, the hand-written classes and Python's generated table to them.
 */
class TablesTest {
  private static final Path ROOT = Paths.get(System.getProperty("user.dir")).resolve("../..");

  /** The header's status comments: name -> [value, family]. */
  private static Map<String, String[]> headerStatuses() throws IOException {
    String h =
        new String(
            Files.readAllBytes(ROOT.resolve("capi/include/cloudroute.h")), StandardCharsets.UTF_8);
    String body = h.substring(h.indexOf("typedef enum cr_status {"), h.indexOf("} cr_status;"));
    Map<String, String[]> out = new HashMap<>();
    Matcher m = Pattern.compile("/\\* \\[(\\w+)\\][^*]*\\*/\\s*(CR_\\w+) = (-?\\d+)").matcher(body);
    while (m.find()) out.put(m.group(2), new String[] {m.group(3), m.group(1)});
    out.put("CR_OK", new String[] {"0", "ok"});
    return out;
  }

  @Test
  void everyStatusOfTheHeaderHasItsNameValueAndFamily() throws Exception {
    Map<String, String[]> header = headerStatuses();
    assertEquals(-CApi.LOWEST_STATUS + 1, header.size());
    for (Map.Entry<String, String[]> e : header.entrySet()) {
      int value = Integer.parseInt(e.getValue()[0]);
      assertEquals(e.getKey(), CloudRouteException.statusName(value));
      assertEquals(e.getValue()[1], CloudRouteException.family(value), e.getKey());
      Field f = StatusCodes.class.getField(e.getKey().substring(3));
      assertEquals(value, f.getInt(null), e.getKey());
      assertEquals(value, CloudRouteException.class.getField(f.getName()).getInt(null));
    }
    assertEquals(header.size(), StatusCodes.class.getFields().length);
    assertEquals("CR_?", CloudRouteException.statusName(CApi.LOWEST_STATUS - 1));
  }

  @Test
  void everyStatusRaisesItsFamilysClass() {
    Map<String, Class<? extends CloudRouteException>> classes = new HashMap<>();
    classes.put("invalid_argument", CloudRouteException.InvalidArgumentException.class);
    classes.put("parse", CloudRouteException.ParseException.class);
    classes.put("unavailable", CloudRouteException.UnavailableException.class);
    classes.put("not_found", CloudRouteException.NotFoundException.class);
    classes.put("connection", CloudRouteException.ConnectionException.class);
    classes.put("server", CloudRouteException.ServerErrorException.class);
    classes.put("version", CloudRouteException.VersionException.class);
    classes.put("internal", CloudRouteException.class);
    for (int s = -1; s >= CApi.LOWEST_STATUS - 1; s--) {
      CloudRouteException e = CloudRouteException.of(s, "m");
      assertSame(classes.get(e.family()), e.getClass(), "status " + s);
      assertEquals(s, e.status());
      assertEquals("m", e.getMessage());
    }
    assertInstanceOf(
        CloudRouteException.NotFoundException.class,
        CloudRouteException.of(CloudRouteException.ENOTFOUND, ""));
    assertEquals(
        "CR_ENOTFOUND", CloudRouteException.of(CloudRouteException.ENOTFOUND, "").getMessage());
  }

  /** Python's generated table (bindings/python/cloudroute/_ctables.py): status -> family. */
  @Test
  void pythonHasTheSameFamilyForEveryStatus() throws IOException {
    String py =
        new String(
            Files.readAllBytes(ROOT.resolve("bindings/python/cloudroute/_ctables.py")),
            StandardCharsets.UTF_8);
    String block =
        py.substring(py.indexOf("STATUS_FAMILIES"), py.indexOf("}", py.indexOf("STATUS_FAMILIES")));
    Matcher m = Pattern.compile("(-?\\d+): \"(\\w+)\"").matcher(block);
    int n = 0;
    while (m.find()) {
      assertEquals(m.group(2), CloudRouteException.family(Integer.parseInt(m.group(1))));
      n++;
    }
    assertEquals(-CApi.LOWEST_STATUS + 1, n);
  }

  @Test
  void theLibraryRaisesNotFoundForAnUnknownShard() {
    try (Topology t = Topology.parseStatic(Vectors.STATIC)) {
      CloudRouteException e =
          assertThrows(
              CloudRouteException.NotFoundException.class, () -> t.shardId(t.shardCount()));
      assertEquals(CloudRouteException.ENOTFOUND, e.status());
      assertEquals("not_found", e.family());
    }
  }

  @Test
  void everyJavaEnumHasTheHeadersNamesAndValues() throws Exception {
    List<String> types = Arrays.asList(CApi.ENUM_TYPES);
    for (String[] je : CApi.JAVA_ENUMS) {
      int i = types.indexOf(je[0]);
      assertTrue(i >= 0, je[0]);
      Class<?> cls = Class.forName("io.cloudroute." + je[1]);
      Object[] constants = cls.getEnumConstants();
      List<String> names = new ArrayList<>();
      for (Object c : constants) {
        Enum<?> v = (Enum<?>) c;
        names.add(v.name());
        assertEquals(CApi.ENUM_VALUES[i][v.ordinal()], v.ordinal(), je[0] + " " + v.name());
        String label = ((Labeled) c).label();
        assertEquals(v.name().toLowerCase().replace('_', '-'), label);
        assertSame(c, cls.getMethod("fromLabel", String.class).invoke(null, label.toUpperCase()));
      }
      assertArrayEquals(CApi.ENUM_NAMES[i], names.toArray(new String[0]), je[0]);
    }
  }

  @Test
  void theLibraryKnowsEveryPolicyByItsLabel() {
    for (Policy p : Policy.values()) {
      try (Config c = new Config()) {
        c.policy(p);
      }
    }
    assertThrows(
        CloudRouteException.InvalidArgumentException.class,
        () -> Policy.fromLabel("no-such-policy"));
  }

  /** What the library's *_options_init wrote into the arrays is the header's *_INIT. */
  private static void defaultsAreTheHeaders(
      int[] u32, long[] u64, String[] strings, int[] u32d, long[] u64d, int strCount) {
    assertArrayEquals(u32d, u32);
    assertArrayEquals(u64d, u64);
    assertEquals(strCount, strings.length);
    for (String s : strings) assertNull(s);
  }

  @Test
  void optionDefaultsAreTheHeaders() {
    ClientOptions c = new ClientOptions();
    defaultsAreTheHeaders(
        c.u32,
        c.u64,
        c.strings,
        CApi.ClientOptionsLayout.U32_DEFAULTS,
        CApi.ClientOptionsLayout.U64_DEFAULTS,
        CApi.ClientOptionsLayout.STR_COUNT);
    assertEquals(1000, c.u32[CApi.ClientOptionsLayout.CONNECT_TIMEOUT_MS]);
    assertEquals(99.0, c.hedgePercentile());
    assertEquals(HedgeMode.OFF, c.hedgeMode());
    SentinelOptions s = new SentinelOptions();
    defaultsAreTheHeaders(
        s.u32,
        s.u64,
        s.strings,
        CApi.SentinelOptionsLayout.U32_DEFAULTS,
        CApi.SentinelOptionsLayout.U64_DEFAULTS,
        CApi.SentinelOptionsLayout.STR_COUNT);
  }

  /** Python's generated defaults of cr_client_options agree with Java's, field by field. */
  @Test
  void pythonHasTheSameClientOptionDefaults() throws Exception {
    String py =
        new String(
            Files.readAllBytes(ROOT.resolve("bindings/python/cloudroute/_ctables.py")),
            StandardCharsets.UTF_8);
    int at = py.indexOf("\"cr_client_options\": {", py.indexOf("OPTION_DEFAULTS"));
    String block = py.substring(at, py.indexOf("},", at));
    int checked = 0;
    for (Field f : CApi.ClientOptionsLayout.class.getDeclaredFields()) {
      if (!Modifier.isStatic(f.getModifiers()) || f.getType() != int.class) continue;
      String field = f.getName().toLowerCase();
      Matcher m = Pattern.compile("\"" + field + "\": (\\(?[0-9, ]+\\)?),").matcher(block);
      if (!m.find()) continue; // a string, an enum, a double or a count
      int index = f.getInt(null);
      String[] values = m.group(1).replaceAll("[() ]", "").split(",");
      for (int k = 0; k < values.length; k++) {
        int kind = Arrays.asList(CApi.ClientOptionsLayout.U32_NAMES).indexOf(field);
        long java =
            kind == index
                ? CApi.ClientOptionsLayout.U32_DEFAULTS[index + k]
                : CApi.ClientOptionsLayout.U64_DEFAULTS[index + k];
        assertEquals(Long.parseLong(values[k]), java, field);
        checked++;
      }
    }
    assertTrue(checked >= 25, "checked " + checked);
  }
}
