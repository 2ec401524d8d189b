package io.cloudroute;

import java.nio.charset.StandardCharsets;

/**
 * A Lua script for {@link Client#eval}: its body and SHA1. Calls send {@code EVALSHA} routed by the
 * script's keys; a node that answers NOSCRIPT (restarted, flushed with SCRIPT FLUSH, or a promoted
 * replica) gets SCRIPT LOAD of the body and the call once more, in one round trip. Immutable and
 * safe to share between threads and clients; close it when done (a forgotten one is freed by the
 * garbage collector).
 */
public final class Script extends NativeResource {
  private final String sha;

  /** A script of body (sent as UTF-8). */
  public Script(String body) {
    this(body == null ? null : body.getBytes(StandardCharsets.UTF_8));
  }

  /** A script of body's bytes. */
  public Script(byte[] body) {
    super(create0(body), KIND_SCRIPT);
    long p = acquire();
    try {
      sha = sha0(p);
    } finally {
      release();
    }
  }

  /** The SHA1 of the body, 40 lowercase hex digits (what EVALSHA names). */
  public String sha() {
    return sha;
  }

  @Override
  public String toString() {
    return "Script(" + sha + ")";
  }

  private static native long create0(Object body);

  private static native String sha0(long script);
}
