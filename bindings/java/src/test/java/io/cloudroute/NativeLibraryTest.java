package io.cloudroute;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The library the jar carries needs only glibc, libstdc++ (or not even) and OpenSSL. */
class NativeLibraryTest {
  private static final Path LIB =
      Path.of("target/classes/native/" + NativeLoader.platform() + "/libcloudroute_jni.so");

  private static List<String> needed() throws IOException, InterruptedException {
    Process p =
        new ProcessBuilder("readelf", "-d", LIB.toString()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor(), out);
    List<String> libs = new ArrayList<>();
    for (String line : out.split("\n")) {
      if (line.contains("(NEEDED)")) {
        libs.add(line.substring(line.indexOf('[') + 1, line.indexOf(']')));
      }
    }
    return libs;
  }

  @Test
  void noHiredisAndNothingBeyondGlibcStdcxxOpenssl() throws Exception {
    assertTrue(Files.isRegularFile(LIB), LIB + " missing: build-native.sh did not run");
    List<String> libs = needed();
    assertFalse(libs.isEmpty());
    for (String lib : libs) {
      assertFalse(lib.contains("hiredis"), "needs " + lib);
      assertTrue(
          lib.matches(
              "(libc|libm|libpthread|libdl|ld-linux-x86-64|ld-linux-aarch64|libstdc\\+\\+|libgcc_s"
                  + "|libssl|libcrypto)\\.so.*"),
          "unexpected dependency " + lib);
    }
  }

  private static String probe(String libraryPath) throws IOException, InterruptedException {
    return probeWith("-D" + NativeLoader.PROPERTY + "=" + libraryPath);
  }

  /** LoaderProbe's output in a JVM with one more option. */
  private static String probeWith(String option) throws IOException, InterruptedException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process p =
        new ProcessBuilder(
                java,
                option,
                "-cp",
                System.getProperty("java.class.path"),
                LoaderProbe.class.getName())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor();
    return out;
  }

  @Test
  void anInstalledLibraryByProperty() throws Exception {
    Path copy = Files.createTempDirectory("cr-lib").resolve("libcloudroute_jni.so");
    Files.copy(LIB, copy);
    assertTrue(probe(copy.toString()).contains("slot 12182"));
    String missing = probe("/nonexistent/libcloudroute_jni.so");
    assertTrue(
        missing.contains("UnsatisfiedLinkError") && missing.contains("/nonexistent/"), missing);
  }

  /** The library extracted from the jar is loaded and leaves nothing in the temporary directory. */
  @Test
  void theJarsLibraryLeavesNoTemporaryFiles() throws Exception {
    Path tmp = Files.createTempDirectory("cr-tmp");
    try {
      String out = probeWith("-Djava.io.tmpdir=" + tmp);
      assertTrue(out.contains("slot 12182"), out);
      try (var left = Files.list(tmp)) {
        assertEquals(List.of(), left.map(Path::toString).collect(Collectors.toList()));
      }
    } finally {
      Files.delete(tmp);
    }
  }

  @Test
  void platformsAndTheErrorForAMissingOne() throws Exception {
    String arch = System.getProperty("os.arch");
    assertEquals(
        arch.equals("aarch64") ? "linux-aarch64" : "linux-x86_64", NativeLoader.platform());
    Path extracted = NativeLoader.extract(NativeLoader.platform());
    assertTrue(Files.isRegularFile(extracted));
    NativeLoader.discard(extracted);
    assertFalse(Files.exists(extracted.getParent()), extracted.getParent() + " left behind");
    // The index names what target/classes/native/ holds, and the error names both.
    List<String> held = new ArrayList<>();
    try (var dirs = Files.list(Path.of("target/classes/native"))) {
      dirs.filter(Files::isDirectory)
          .map(d -> d.getFileName().toString())
          .sorted()
          .forEach(held::add);
    }
    assertTrue(held.contains(NativeLoader.platform()), held.toString());
    assertEquals(String.join(", ", held), NativeLoader.carried());
    UnsatisfiedLinkError e =
        assertThrows(UnsatisfiedLinkError.class, () -> NativeLoader.extract("windows-aarch64"));
    assertTrue(e.getMessage().contains("no native library for windows-aarch64"), e.getMessage());
    assertTrue(e.getMessage().contains("it carries " + String.join(", ", held)), e.getMessage());
    assertTrue(e.getMessage().contains(NativeLoader.PROPERTY), e.getMessage());
  }
}
