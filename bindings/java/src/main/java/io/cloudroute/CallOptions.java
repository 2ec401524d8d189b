package io.cloudroute;

/**
 * Options of one {@link Client#command(CallOptions, Access, int, Object...)} call (the C API's
 * {@code cr_call_options}). Setters return this; an instance may be reused and shared once set.
 */
public final class CallOptions {
  int timeoutMs;

  /**
   * Replaces the node's tier timeout ({@link ClientOptions#commandTimeoutMs}) for this call: for a
   * blocking or slow command (BLPOP, XREAD ... BLOCK, WAIT, a large SCAN COUNT). When it passes the
   * call throws {@link CloudRouteException.ConnectionException} (CR_ETIMEOUT), but the node is not
   * marked down and no other candidate is tried: it was waiting as asked. 0 (the default): the tier
   * timeout.
   */
  public CallOptions timeoutMs(int ms) {
    if (ms < 0) {
      throw new CloudRouteException.InvalidArgumentException(
          CloudRouteException.EINVAL, "negative call timeout");
    }
    timeoutMs = ms;
    return this;
  }

  /** The call timeout set; 0 for the node's tier timeout. */
  public int timeoutMs() {
    return timeoutMs;
  }
}
