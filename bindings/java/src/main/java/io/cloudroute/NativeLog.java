package io.cloudroute;

import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * The live clients' log events (node marked down, failover seen, refresh failed, MOVED, read
 * fallback, ...) into the SLF4J logger {@code io.cloudroute}: the text is the event's message
 * followed by its fields as {@code key=value} (not also as SLF4J key-value pairs: several providers
 * print those before the message, which would show them twice). No event carries a password (the
 * library never puts one in any). Without slf4j-api on the class path, clients send no events.
 */
final class NativeLog {
  /**
   * The logger, looked up when a client connects (not when the library loads: without slf4j-api on
   * the class path everything but logging works).
   */
  private static final class Holder {
    static final Logger LOG = LoggerFactory.getLogger("io.cloudroute");
    static final Level[] LEVELS = {Level.DEBUG, Level.INFO, Level.WARN, Level.ERROR};
  }

  /** How deep this thread is in log handlers now (handlers may log through another client). */
  private static final ThreadLocal<int[]> DEPTH = ThreadLocal.withInitial(() -> new int[1]);

  private NativeLog() {}

  /** Whether this thread runs a log handler now (NativeResource.close() does not wait there). */
  static boolean inHandler() {
    return DEPTH.get()[0] > 0;
  }

  /**
   * The lowest C level (0 debug .. 3 error) the logger lets through now, -1 for none: what a client
   * created now sends (a later change of the logger's level does not reach it).
   */
  static int minLevel() {
    try {
      for (int level = 0; level < Holder.LEVELS.length; level++) {
        if (Holder.LOG.isEnabledForLevel(Holder.LEVELS[level])) return level;
      }
    } catch (NoClassDefFoundError noSlf4j) {
      // slf4j-api is not on the class path: the client stays silent.
    }
    return -1;
  }

  /**
   * One event, called by the native library on the thread where it happened (a caller's or the
   * client's refresher): parts are the UTF-8 message, then key, value, key, value, ...
   */
  static void log(int level, byte[][] parts) {
    StringBuilder text = new StringBuilder(utf8(parts[0]));
    for (int i = 1; i + 1 < parts.length; i += 2) {
      text.append(' ').append(utf8(parts[i])).append('=').append(utf8(parts[i + 1]));
    }
    int[] depth = DEPTH.get();
    depth[0]++;
    try {
      Holder.LOG.atLevel(Holder.LEVELS[level]).log(text.toString());
    } finally {
      depth[0]--;
    }
  }

  private static String utf8(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }
}
