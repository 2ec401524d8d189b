package io.cloudroute;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;

/**
 * Loads libcloudroute_jni once: from the system property {@code cloudroute.library.path} (an
 * installed library) when set, else from the jar's {@code /native/<os>-<arch>/} resource for the
 * running JVM's {@code os.name} and {@code os.arch} (linux-x86_64, linux-aarch64), extracted to a
 * private temporary file that is removed once loaded. The jar lists the platforms it carries in
 * {@code /native/platforms.txt}.
 */
final class NativeLoader {
  static final String PROPERTY = "cloudroute.library.path";
  private static final String NAME = "libcloudroute_jni.so";
  private static final String INDEX = "/native/platforms.txt";
  private static boolean loaded;

  private NativeLoader() {}

  static synchronized void load() {
    if (loaded) return;
    String explicit = System.getProperty(PROPERTY);
    if (explicit != null && !explicit.isEmpty()) {
      System.load(Path.of(explicit).toAbsolutePath().toString());
    } else {
      Path file = extract(platform());
      try {
        System.load(file.toString());
      } finally {
        discard(file);
      }
    }
    loaded = true;
  }

  /**
   * Removes an extracted library and its directory: once loaded, the process keeps its mapping, and
   * nothing is left in the temporary directory even when the JVM is killed. Where the file cannot
   * be removed now, the JVM's exit removes it.
   */
  static void discard(Path file) {
    try {
      Files.deleteIfExists(file);
      Files.deleteIfExists(file.getParent());
    } catch (IOException e) {
      // at exit, then: see extract
    }
  }

  static String platform() {
    String os = System.getProperty("os.name", "?").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch", "?").toLowerCase(Locale.ROOT);
    if (os.startsWith("linux")) os = "linux";
    else if (os.startsWith("mac")) os = "macos";
    else if (os.startsWith("windows")) os = "windows";
    if (arch.equals("amd64") || arch.equals("x86-64")) arch = "x86_64";
    if (arch.equals("arm64")) arch = "aarch64";
    return os + "-" + arch;
  }

  /** The jar's library for platform, extracted to a private temporary file. */
  static Path extract(String platform) {
    String resource = "/native/" + platform + "/" + NAME;
    try (InputStream in = NativeLoader.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new UnsatisfiedLinkError(
            "libcloudroute: no native library for "
                + platform
                + " in this jar (it carries "
                + carried()
                + "); build libcloudroute_jni for this"
                + " platform and point -D"
                + PROPERTY
                + "=/path/to/"
                + NAME
                + " at it");
      }
      Path dir =
          Files.createTempDirectory(
              "cloudroute-",
              PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      Path file = dir.resolve(NAME);
      // Deleted at exit in the reverse order of registration: the file, then its directory.
      dir.toFile().deleteOnExit();
      file.toFile().deleteOnExit();
      Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
      return file;
    } catch (IOException e) {
      throw new UnsatisfiedLinkError("libcloudroute: cannot extract " + resource + ": " + e);
    }
  }

  /** The platforms the jar's index names, comma-separated ("none" without an index). */
  static String carried() {
    try (InputStream in = NativeLoader.class.getResourceAsStream(INDEX)) {
      if (in == null) return "none";
      String listed = new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
      return listed.isEmpty() ? "none" : String.join(", ", listed.split("\\s+"));
    } catch (IOException e) {
      return "an unreadable " + INDEX + ": " + e;
    }
  }
}
