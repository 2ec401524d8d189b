package io.cloudroute;

/** Options of the {@link SentinelClient}; defaults are the library's. Setters return this. */
public final class SentinelOptions {
  static {
    NativeLoader.load();
  }

  final int[] u32 = new int[15];
  final String[] strings = new String[5];

  public SentinelOptions() {
    defaults(u32);
  }

  public SentinelOptions connectTimeoutMs(int ms) {
    u32[0] = ms;
    return this;
  }

  /** The command timeout for every tier. */
  public SentinelOptions commandTimeoutMs(int ms) {
    for (int t = 0; t < 5; t++) u32[1 + t] = ms;
    return this;
  }

  /** Each question to a sentinel. */
  public SentinelOptions sentinelTimeoutMs(int ms) {
    u32[6] = ms;
    return this;
  }

  /** Every group re-asked; 0 = never. */
  public SentinelOptions reaskIntervalMs(int ms) {
    u32[7] = ms;
    return this;
  }

  public SentinelOptions poolSize(int n) {
    u32[8] = n;
    return this;
  }

  public SentinelOptions maxRetries(int n) {
    u32[10] = n;
    return this;
  }

  public SentinelOptions retryBackoffMs(int ms) {
    u32[11] = ms;
    return this;
  }

  /** The data nodes' AUTH. */
  public SentinelOptions auth(String username, String password) {
    strings[0] = username;
    strings[1] = password;
    return this;
  }

  /** The sentinels' own AUTH. */
  public SentinelOptions sentinelAuth(String username, String password) {
    strings[2] = username;
    strings[3] = password;
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
    u32[14] = db;
    return this;
  }

  public int db() {
    return u32[14];
  }

  public SentinelOptions clientName(String name) {
    strings[4] = name;
    return this;
  }

  private static native void defaults(int[] u32);
}
