package io.cloudroute;

import java.nio.charset.StandardCharsets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * The live clients' log events (node marked down, failover seen, refresh failed, MOVED, read
 * fallback, ...) into the SLF4J logger {@code io.cloudroute}: the text is the event's message
 * followed by its fields as {@code key=value}, and each field is also an SLF4J key-value pair. No
 * event carries a password (the library never puts one in any).
 */
final class NativeLog {
  /** The logger, looked up on the first event or client (not when the library loads). */
  private static final class Holder {
    static final Logger LOG = LoggerFactory.getLogger("io.cloudroute");
  }

  private static final Level[] LEVELS = {Level.DEBUG, Level.INFO, Level.WARN, Level.ERROR};

  private NativeLog() {}

  /**
   * The lowest C level (0 debug .. 3 error) the logger lets through now, -1 for none: what a
   * client created now sends (a later change of the logger's level does not reach it).
   */
  static int minLevel() {
    Logger log = Holder.LOG;
    for (int level = 0; level < LEVELS.length; level++) {
      if (log.isEnabledForLevel(LEVELS[level])) return level;
    }
    return -1;
  }

  /**
   * One event, called by the native library on the thread where it happened (a caller's or the
   * client's refresher): parts are the UTF-8 message, then key, value, key, value, ...
   */
  static void log(int level, byte[][] parts) {
    StringBuilder text = new StringBuilder(utf8(parts[0]));
    LoggingEventBuilder event = Holder.LOG.atLevel(LEVELS[level]);
    for (int i = 1; i + 1 < parts.length; i += 2) {
      String key = utf8(parts[i]);
      String value = utf8(parts[i + 1]);
      text.append(' ').append(key).append('=').append(value);
      event = event.addKeyValue(key, value);
    }
    event.log(text.toString());
  }

  private static String utf8(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }
}
