package io.cloudroute;

import io.cloudroute.CApi.SentinelOptionsLayout;

/** Options of the {@link SentinelClient}; defaults are the library's. Setters return this. */
public final class SentinelOptions {
  static {
    NativeLoader.load();
  }

  // Where each field of cr_sentinel_options is kept: the generated layout that
  // jni_options.h reads too (scripts/gen_tables.py).
  final int[] u32 = new int[SentinelOptionsLayout.U32_COUNT];
  final long[] u64 = new long[SentinelOptionsLayout.U64_COUNT];
  final String[] strings = new String[SentinelOptionsLayout.STR_COUNT];

  public SentinelOptions() {
    defaults(u32, u64);
  }

  public SentinelOptions connectTimeoutMs(int ms) {
    u32[SentinelOptionsLayout.CONNECT_TIMEOUT_MS] = ms;
    return this;
  }

  /** The command timeout for every tier. */
  public SentinelOptions commandTimeoutMs(int ms) {
    for (int t = 0; t < CApi.TIER_COUNT; t++) {
      u32[SentinelOptionsLayout.COMMAND_TIMEOUT_MS + t] = ms;
    }
    return this;
  }

  /** Each question to a sentinel. */
  public SentinelOptions sentinelTimeoutMs(int ms) {
    u32[SentinelOptionsLayout.SENTINEL_TIMEOUT_MS] = ms;
    return this;
  }

  /** Every group re-asked; 0 = never. */
  public SentinelOptions reaskIntervalMs(int ms) {
    u32[SentinelOptionsLayout.REASK_INTERVAL_MS] = ms;
    return this;
  }

  public SentinelOptions poolSize(int n) {
    u32[SentinelOptionsLayout.POOL_SIZE] = n;
    return this;
  }

  public SentinelOptions maxRetries(int n) {
    u32[SentinelOptionsLayout.MAX_RETRIES] = n;
    return this;
  }

  public SentinelOptions retryBackoffMs(int ms) {
    u32[SentinelOptionsLayout.RETRY_BACKOFF_MS] = ms;
    return this;
  }

  /** The data nodes' AUTH. */
  public SentinelOptions auth(String username, String password) {
    strings[SentinelOptionsLayout.USERNAME] = username;
    strings[SentinelOptionsLayout.PASSWORD] = password;
    return this;
  }

  /** The sentinels' own AUTH. */
  public SentinelOptions sentinelAuth(String username, String password) {
    strings[SentinelOptionsLayout.SENTINEL_USERNAME] = username;
    strings[SentinelOptionsLayout.SENTINEL_PASSWORD] = password;
    return this;
  }

  /**
   * The data nodes' database (default 0; never sent to the sentinels): SELECT db in every new data
   * connection's handshake, so it holds across reconnects and failovers.
   *
   * @throws IllegalArgumentException if db is negative
   */
  public SentinelOptions db(int db) {
    if (db < 0) throw new IllegalArgumentException("db must be >= 0, got " + db);
    u32[SentinelOptionsLayout.DB] = db;
    return this;
  }

  public int db() {
    return u32[SentinelOptionsLayout.DB];
  }

  public SentinelOptions clientName(String name) {
    strings[SentinelOptionsLayout.CLIENT_NAME] = name;
    return this;
  }

  private static native void defaults(int[] u32, long[] u64);
}
