package io.cloudroute;

import io.cloudroute.CApi.SentinelOptionsLayout;
import java.util.concurrent.Executor;

/**
 * Options of the {@link SentinelClient} (cr_sentinel_options, every field); defaults are the
 * library's. Setters return this. Bad values are refused when the client is made.
 */
public final class SentinelOptions {
  static {
    NativeLoader.load();
  }

  // Where each field of cr_sentinel_options is kept: the generated layout that
  // jni_options.h reads too (scripts/gen_tables.py).
  final int[] u32 = new int[SentinelOptionsLayout.U32_COUNT];
  final long[] u64 = new long[SentinelOptionsLayout.U64_COUNT];
  final String[] strings = new String[SentinelOptionsLayout.STR_COUNT];
  Executor asyncExecutor; // Java's own: not a field of cr_sentinel_options

  public SentinelOptions() {
    defaults(u32, u64);
  }

  public SentinelOptions connectTimeoutMs(int ms) {
    u32[SentinelOptionsLayout.CONNECT_TIMEOUT_MS] = ms;
    return this;
  }

  /** The command timeout of instances at one locality tier (the defaults grow with distance). */
  public SentinelOptions commandTimeoutMs(Tier tier, int ms) {
    u32[SentinelOptionsLayout.COMMAND_TIMEOUT_MS + tier.ordinal()] = ms;
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

  public SentinelOptions poolIdleMs(int ms) {
    u32[SentinelOptionsLayout.POOL_IDLE_MS] = ms;
    return this;
  }

  /** 0 = off. */
  public SentinelOptions tcpKeepaliveS(int s) {
    u32[SentinelOptionsLayout.TCP_KEEPALIVE_S] = s;
    return this;
  }

  /** 0 = the kernel's default. */
  public SentinelOptions tcpUserTimeoutMs(int ms) {
    u32[SentinelOptionsLayout.TCP_USER_TIMEOUT_MS] = ms;
    return this;
  }

  /**
   * Failed attempts in a row (any instance) after which every group is re-asked, on the client's
   * refresher thread.
   */
  public SentinelOptions failuresBeforeRefresh(int n) {
    u32[SentinelOptionsLayout.FAILURES_BEFORE_REFRESH] = n;
    return this;
  }

  /** At most one such re-ask per gap. */
  public SentinelOptions refreshMinGapMs(int ms) {
    u32[SentinelOptionsLayout.REFRESH_MIN_GAP_MS] = ms;
    return this;
  }

  /** Writes not executed (READONLY, not dialed) tried again at most n times. */
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

  /**
   * TLS on every connection — to the sentinels (their tls-port) and to the data nodes (the TLS
   * ports the sentinels report); verify checks the chain and the host name (default true). The same
   * CA, client certificate and server name serve both.
   */
  public SentinelOptions tls(boolean on, boolean verify) {
    u32[SentinelOptionsLayout.TLS] = on ? 1 : 0;
    u32[SentinelOptionsLayout.TLS_VERIFY] = verify ? 1 : 0;
    return this;
  }

  public boolean tls() {
    return u32[SentinelOptionsLayout.TLS] != 0;
  }

  /** Trusted CAs: a PEM bundle and/or an OpenSSL hashed directory (both null: the system's). */
  public SentinelOptions tlsCa(String caFile, String caDir) {
    strings[SentinelOptionsLayout.TLS_CA_FILE] = caFile;
    strings[SentinelOptionsLayout.TLS_CA_DIR] = caDir;
    return this;
  }

  /** A client certificate chain and its unencrypted private key (PEM). */
  public SentinelOptions tlsClientCert(String certFile, String keyFile) {
    strings[SentinelOptionsLayout.TLS_CERT_FILE] = certFile;
    strings[SentinelOptionsLayout.TLS_KEY_FILE] = keyFile;
    return this;
  }

  /** Verify (and send as SNI) this name instead of each host. */
  public SentinelOptions tlsServerName(String name) {
    strings[SentinelOptionsLayout.TLS_SERVER_NAME] = name;
    return this;
  }

  /**
   * Hedged reads (off by default): a read whose instance has not answered within the hedge delay is
   * sent to the group's next read candidate too; the first answer wins. FIXED waits {@link
   * #hedgeDelayMs}; ADAPTIVE waits the instance's recent {@link #hedgePercentile} latency (at least
   * {@link #hedgeMinDelayMs}). Writes are never hedged.
   */
  public SentinelOptions hedgeMode(HedgeMode mode) {
    u32[SentinelOptionsLayout.HEDGE_MODE] = mode.ordinal();
    return this;
  }

  public HedgeMode hedgeMode() {
    return HedgeMode.of(u32[SentinelOptionsLayout.HEDGE_MODE]);
  }

  /** 1-60000. */
  public SentinelOptions hedgeDelayMs(int ms) {
    u32[SentinelOptionsLayout.HEDGE_DELAY_MS] = ms;
    return this;
  }

  public SentinelOptions hedgeMinDelayMs(int ms) {
    u32[SentinelOptionsLayout.HEDGE_MIN_DELAY_MS] = ms;
    return this;
  }

  /** Hedges at most this percentage of hedgeable reads (1-100, plus a small burst). */
  public SentinelOptions hedgeBudgetPercent(int percent) {
    u32[SentinelOptionsLayout.HEDGE_BUDGET_PERCENT] = percent;
    return this;
  }

  /** The latency percentile an ADAPTIVE hedge waits for; (0, 100]. */
  public SentinelOptions hedgePercentile(double percentile) {
    u64[SentinelOptionsLayout.HEDGE_PERCENTILE] = Double.doubleToRawLongBits(percentile);
    return this;
  }

  public double hedgePercentile() {
    return Double.longBitsToDouble(u64[SentinelOptionsLayout.HEDGE_PERCENTILE]);
  }

  /**
   * Shared connections per instance (default 2; 0: a pooled connection per command in flight), as
   * {@link ClientOptions#sharedConnections(int)} (cr_sentinel_options.shared_connections).
   *
   * @throws IllegalArgumentException if n is negative (the library refuses above 16)
   */
  public SentinelOptions sharedConnections(int n) {
    if (n < 0) throw new IllegalArgumentException("shared_connections must be >= 0, got " + n);
    u32[SentinelOptionsLayout.SHARED_CONNECTIONS] = n;
    return this;
  }

  public int sharedConnections() {
    return u32[SentinelOptionsLayout.SHARED_CONNECTIONS];
  }

  /**
   * Where the futures of the client's asynchronous calls ({@link SentinelClient#commandAsync} ...)
   * are completed, as {@link ClientOptions#asyncExecutor} (null, the default: the shared pool of
   * daemon threads {@code cloudroute-async-N}).
   */
  public SentinelOptions asyncExecutor(Executor executor) {
    asyncExecutor = executor;
    return this;
  }

  public Executor asyncExecutor() {
    return asyncExecutor;
  }

  private static native void defaults(int[] u32, long[] u64);
}
