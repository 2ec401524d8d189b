package io.cloudroute;

import java.util.List;

/**
 * A connection pinned to the master of one slot, for a transaction — WATCH, reads, MULTI, commands
 * and EXEC all on one connection ({@link Client#transaction}):
 *
 * <pre>{@code
 * try (Transaction t = client.transaction("{user:1}")) {
 *   t.watch("{user:1}:balance");
 *   long balance = Long.parseLong(new String((byte[]) t.command("GET", "{user:1}:balance"), UTF_8));
 *   t.multi();
 *   t.command("SET", "{user:1}:balance", Long.toString(balance - 10));
 *   if (t.exec() == null) { ... } // the balance changed since WATCH: retry
 * }
 * }</pre>
 *
 * <p>Each command names its keys by position ({@link #command(int[], Object...)}; by default the
 * first argument after the command name); a key of another slot is refused with {@link
 * CloudRouteException.InvalidArgumentException} (CROSSSLOT) before it is sent. Nothing is
 * redirected or retried: a MOVED (the slot moved since the pin) is a {@link
 * CloudRouteException.ServerErrorException} and the caller pins again; a connection error breaks
 * the pin. Closing sends DISCARD (an open MULTI) or UNWATCH and gives the connection back; closing
 * the client closes its transactions. Replies are raw, as {@link Client#command}'s. One thread at a
 * time.
 */
public final class Transaction extends NativeResource {
  private static final int[] NO_KEYS = {};
  private static final int[] FIRST_KEY = {1};

  private Transaction(Client client, long ptr) {
    super(ptr, KIND_PINNED, client);
  }

  static Transaction pin(Client client, Object key, int slot) {
    long c = client.acquire();
    try {
      return new Transaction(client, pin0(c, key, slot));
    } finally {
      client.release();
    }
  }

  /** The pinned slot. */
  public int slot() {
    long p = acquireWithParent();
    try {
      return slot0(p);
    } finally {
      releaseWithParent();
    }
  }

  /** Any command; its key is its first argument (none for a command alone): QUEUED in MULTI. */
  public Object command(Object... args) {
    return command(null, args != null && args.length > 1 ? FIRST_KEY : NO_KEYS, args);
  }

  /** Any command whose keys are the arguments at keyIndexes. */
  public Object command(int[] keyIndexes, Object... args) {
    return command(null, keyIndexes, args);
  }

  /** Any command with call options (a timeout of its own). */
  public Object command(CallOptions options, int[] keyIndexes, Object... args) {
    int timeout = options == null ? 0 : options.timeoutMs;
    long p = acquireWithParent();
    try {
      return command0(p, timeout, keyIndexes, args);
    } finally {
      releaseWithParent();
    }
  }

  /** WATCH keys (all in the pinned slot). */
  public void watch(Object... keys) {
    if (keys == null || keys.length == 0) {
      throw new CloudRouteException.InvalidArgumentException(
          CloudRouteException.EINVAL, "WATCH needs a key");
    }
    Object[] args = new Object[keys.length + 1];
    int[] at = new int[keys.length];
    args[0] = "WATCH";
    for (int i = 0; i < keys.length; i++) {
      args[i + 1] = keys[i];
      at[i] = i + 1;
    }
    command(at, args);
  }

  public void unwatch() {
    command(NO_KEYS, "UNWATCH");
  }

  /** MULTI: the commands up to {@link #exec} are queued (each answers "QUEUED"). */
  public void multi() {
    command(NO_KEYS, "MULTI");
  }

  /**
   * EXEC: the replies in order (an error element as a {@link ReplyError}), null when a WATCHed key
   * changed.
   */
  @SuppressWarnings("unchecked")
  public List<Object> exec() {
    return (List<Object>) command(NO_KEYS, "EXEC");
  }

  /** DISCARD the queued commands. */
  public void discard() {
    command(NO_KEYS, "DISCARD");
  }

  private static native long pin0(long client, Object key, int slot);

  private static native Object command0(
      long pinned, int timeoutMs, int[] keyIndexes, Object[] args);

  private static native int slot0(long pinned);
}
