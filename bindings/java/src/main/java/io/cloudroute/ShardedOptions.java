package io.cloudroute;

import io.cloudroute.CApi.ShardedOptionsLayout;
import java.util.concurrent.Executor;

/**
 * Options of the {@link ShardedClient} (cr_sharded_options); defaults are the library's. Setters
 * return this. Negative numbers are refused when the client is made; the library judges every other
 * range.
 */
public final class ShardedOptions {
  static {
    NativeLoader.load();
  }

  // Where each field of cr_sharded_options is kept: the generated layout that
  // jni_options.h reads too (scripts/gen_tables.py).
  final int[] u32 = new int[ShardedOptionsLayout.U32_COUNT];
  final long[] u64 = new long[ShardedOptionsLayout.U64_COUNT];
  final String[] strings = new String[ShardedOptionsLayout.STR_COUNT];
  Executor asyncExecutor; // Java's own: not a field of cr_sharded_options

  public ShardedOptions() {
    defaults(u32, u64);
  }

  public ShardedOptions connectTimeoutMs(int ms) {
    u32[ShardedOptionsLayout.CONNECT_TIMEOUT_MS] = ms;
    return this;
  }

  /** The command timeout of instances at one locality tier. */
  public ShardedOptions commandTimeoutMs(Tier tier, int ms) {
    u32[ShardedOptionsLayout.COMMAND_TIMEOUT_MS + tier.ordinal()] = ms;
    return this;
  }

  /** The command timeout for every tier. */
  public ShardedOptions commandTimeoutMs(int ms) {
    for (int t = 0; t < CApi.TIER_COUNT; t++) {
      u32[ShardedOptionsLayout.COMMAND_TIMEOUT_MS + t] = ms;
    }
    return this;
  }

  /** Connections per instance at most. */
  public ShardedOptions poolSize(int connectionsPerInstance) {
    u32[ShardedOptionsLayout.POOL_SIZE] = connectionsPerInstance;
    return this;
  }

  public ShardedOptions poolIdleMs(int ms) {
    u32[ShardedOptionsLayout.POOL_IDLE_MS] = ms;
    return this;
  }

  /** TRYAGAIN / LOADING retries of a command. */
  public ShardedOptions maxRetries(int n) {
    u32[ShardedOptionsLayout.MAX_RETRIES] = n;
    return this;
  }

  public ShardedOptions retryBackoffMs(int ms) {
    u32[ShardedOptionsLayout.RETRY_BACKOFF_MS] = ms;
    return this;
  }

  /** 0 = off. */
  public ShardedOptions tcpKeepaliveS(int s) {
    u32[ShardedOptionsLayout.TCP_KEEPALIVE_S] = s;
    return this;
  }

  /** 0 = the kernel's default. */
  public ShardedOptions tcpUserTimeoutMs(int ms) {
    u32[ShardedOptionsLayout.TCP_USER_TIMEOUT_MS] = ms;
    return this;
  }

  /** AUTH of every connection (username null: the default user). */
  public ShardedOptions auth(String username, String password) {
    strings[ShardedOptionsLayout.USERNAME] = username;
    strings[ShardedOptionsLayout.PASSWORD] = password;
    return this;
  }

  public ShardedOptions clientName(String name) {
    strings[ShardedOptionsLayout.CLIENT_NAME] = name;
    return this;
  }

  /**
   * The database (default 0): SELECT db in every new connection's handshake.
   *
   * @throws IllegalArgumentException if db is negative
   */
  public ShardedOptions db(int db) {
    if (db < 0) throw new IllegalArgumentException("db must be >= 0, got " + db);
    u32[ShardedOptionsLayout.DB] = db;
    return this;
  }

  public int db() {
    return u32[ShardedOptionsLayout.DB];
  }

  /** TLS on every connection; verify checks the chain and the host name (default true). */
  public ShardedOptions tls(boolean on, boolean verify) {
    u32[ShardedOptionsLayout.TLS] = on ? 1 : 0;
    u32[ShardedOptionsLayout.TLS_VERIFY] = verify ? 1 : 0;
    return this;
  }

  /** Trusted CAs: a PEM bundle and/or an OpenSSL hashed directory (both null: the system's). */
  public ShardedOptions tlsCa(String caFile, String caDir) {
    strings[ShardedOptionsLayout.TLS_CA_FILE] = caFile;
    strings[ShardedOptionsLayout.TLS_CA_DIR] = caDir;
    return this;
  }

  /** A client certificate chain and its unencrypted private key (PEM). */
  public ShardedOptions tlsClientCert(String certFile, String keyFile) {
    strings[ShardedOptionsLayout.TLS_CERT_FILE] = certFile;
    strings[ShardedOptionsLayout.TLS_KEY_FILE] = keyFile;
    return this;
  }

  /** Verify (and send as SNI) this name instead of each host. */
  public ShardedOptions tlsServerName(String name) {
    strings[ShardedOptionsLayout.TLS_SERVER_NAME] = name;
    return this;
  }

  /**
   * Hedged reads (off by default): a read whose instance has not answered within the hedge delay is
   * sent to the shard's next read candidate too; the first answer wins.
   */
  public ShardedOptions hedgeMode(HedgeMode mode) {
    u32[ShardedOptionsLayout.HEDGE_MODE] = mode.ordinal();
    return this;
  }

  public HedgeMode hedgeMode() {
    return HedgeMode.of(u32[ShardedOptionsLayout.HEDGE_MODE]);
  }

  public ShardedOptions hedgeDelayMs(int ms) {
    u32[ShardedOptionsLayout.HEDGE_DELAY_MS] = ms;
    return this;
  }

  public ShardedOptions hedgeMinDelayMs(int ms) {
    u32[ShardedOptionsLayout.HEDGE_MIN_DELAY_MS] = ms;
    return this;
  }

  /** Hedges at most this percentage of hedgeable reads (plus a small burst). */
  public ShardedOptions hedgeBudgetPercent(int percent) {
    u32[ShardedOptionsLayout.HEDGE_BUDGET_PERCENT] = percent;
    return this;
  }

  /** The latency percentile an ADAPTIVE hedge waits for; (0, 100]. */
  public ShardedOptions hedgePercentile(double percentile) {
    u64[ShardedOptionsLayout.HEDGE_PERCENTILE] = Double.doubleToRawLongBits(percentile);
    return this;
  }

  public double hedgePercentile() {
    return Double.longBitsToDouble(u64[ShardedOptionsLayout.HEDGE_PERCENTILE]);
  }

  /**
   * Shared connections per server (default 2; 0: a pooled connection per command in flight), as
   * {@link ClientOptions#sharedConnections(int)} (cr_sharded_options.shared_connections).
   *
   * @throws IllegalArgumentException if n is negative (the library refuses above 16)
   */
  public ShardedOptions sharedConnections(int n) {
    if (n < 0) throw new IllegalArgumentException("shared_connections must be >= 0, got " + n);
    u32[ShardedOptionsLayout.SHARED_CONNECTIONS] = n;
    return this;
  }

  public int sharedConnections() {
    return u32[ShardedOptionsLayout.SHARED_CONNECTIONS];
  }

  /**
   * Where the futures of the client's asynchronous calls ({@link ShardedClient#commandAsync},
   * {@link ShardedClient#mgetAsync(Object...)} ...) are completed, as {@link
   * ClientOptions#asyncExecutor} (null, the default: the shared pool of daemon threads {@code
   * cloudroute-async-N}). The executor is the caller's: the client never shuts it down.
   */
  public ShardedOptions asyncExecutor(Executor executor) {
    asyncExecutor = executor;
    return this;
  }

  /** The executor of {@link #asyncExecutor(Executor)}; null for the default pool. */
  public Executor asyncExecutor() {
    return asyncExecutor;
  }

  private static native void defaults(int[] u32, long[] u64);
}
