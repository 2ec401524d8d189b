package io.cloudroute;

import io.cloudroute.CApi.ClientOptionsLayout;
import java.util.concurrent.Executor;

/**
 * Options of the live cluster {@link Client}; defaults are the library's. Setters return this.
 * Times are in milliseconds unless named otherwise.
 */
public final class ClientOptions {
  static {
    NativeLoader.load();
  }

  // Where each field of cr_client_options is kept: the generated layout that
  // jni_options.h reads too (scripts/gen_tables.py).
  private static final int CONNECT = ClientOptionsLayout.CONNECT_TIMEOUT_MS;
  private static final int COMMAND = ClientOptionsLayout.COMMAND_TIMEOUT_MS; // one per tier

  final int[] u32 = new int[ClientOptionsLayout.U32_COUNT];
  final long[] u64 = new long[ClientOptionsLayout.U64_COUNT];
  final String[] strings = new String[ClientOptionsLayout.STR_COUNT];
  Executor asyncExecutor; // Java's own: not a field of cr_client_options

  public ClientOptions() {
    defaults(u32, u64);
  }

  public ClientOptions connectTimeoutMs(int ms) {
    u32[CONNECT] = ms;
    return this;
  }

  /** The command timeout for nodes of tier (the defaults grow with distance). */
  public ClientOptions commandTimeoutMs(Tier tier, int ms) {
    u32[COMMAND + tier.ordinal()] = ms;
    return this;
  }

  /** The command timeout for every tier. */
  public ClientOptions commandTimeoutMs(int ms) {
    for (int t = 0; t < CApi.TIER_COUNT; t++) u32[COMMAND + t] = ms;
    return this;
  }

  public ClientOptions poolSize(int connectionsPerNode) {
    u32[ClientOptionsLayout.POOL_SIZE] = connectionsPerNode;
    return this;
  }

  public ClientOptions poolIdleMs(int ms) {
    u32[ClientOptionsLayout.POOL_IDLE_MS] = ms;
    return this;
  }

  /** Periodic topology refresh; 0 = none. */
  public ClientOptions refreshIntervalMs(int ms) {
    u32[ClientOptionsLayout.REFRESH_INTERVAL_MS] = ms;
    return this;
  }

  public ClientOptions refreshMinGapMs(int ms) {
    u32[ClientOptionsLayout.REFRESH_MIN_GAP_MS] = ms;
    return this;
  }

  public ClientOptions maxRedirects(int n) {
    u32[ClientOptionsLayout.MAX_REDIRECTS] = n;
    return this;
  }

  public ClientOptions maxRetries(int n) {
    u32[ClientOptionsLayout.MAX_RETRIES] = n;
    return this;
  }

  public ClientOptions retryBackoffMs(int ms) {
    u32[ClientOptionsLayout.RETRY_BACKOFF_MS] = ms;
    return this;
  }

  public ClientOptions failuresBeforeRefresh(int n) {
    u32[ClientOptionsLayout.FAILURES_BEFORE_REFRESH] = n;
    return this;
  }

  public ClientOptions tcpKeepaliveS(int s) {
    u32[ClientOptionsLayout.TCP_KEEPALIVE_S] = s;
    return this;
  }

  public ClientOptions tcpUserTimeoutMs(int ms) {
    u32[ClientOptionsLayout.TCP_USER_TIMEOUT_MS] = ms;
    return this;
  }

  public ClientOptions maxReplyElements(int n) {
    u32[ClientOptionsLayout.MAX_REPLY_ELEMENTS] = n;
    return this;
  }

  public ClientOptions maxBulkLen(long bytes) {
    u64[ClientOptionsLayout.MAX_BULK_LEN] = bytes;
    return this;
  }

  public ClientOptions maxReplyBytes(long bytes) {
    u64[ClientOptionsLayout.MAX_REPLY_BYTES] = bytes;
    return this;
  }

  /** Read a replica last while it lags by more than bytes or seconds (0 = no bound). */
  public ClientOptions replicaMaxLag(long bytes, int seconds) {
    u64[ClientOptionsLayout.REPLICA_MAX_LAG_BYTES] = bytes;
    u32[ClientOptionsLayout.REPLICA_MAX_LAG_S] = seconds;
    return this;
  }

  /**
   * Hedged reads (off by default): a single-key read whose node has not answered within the hedge
   * delay goes to the next read candidate too, and the first answer wins; so do the open reads of
   * an MGET's or a pipeline's node share of reads only. FIXED waits {@link #hedgeDelayMs}; ADAPTIVE
   * waits the node's recent {@link #hedgePercentile} latency (at least {@link #hedgeMinDelayMs};
   * hedgeDelayMs until the node has enough samples). Writes are never hedged. Bad values are
   * refused when the client is created.
   */
  public ClientOptions hedgeMode(HedgeMode mode) {
    u32[ClientOptionsLayout.HEDGE_MODE] = mode.ordinal();
    return this;
  }

  public ClientOptions hedgeDelayMs(int ms) {
    u32[ClientOptionsLayout.HEDGE_DELAY_MS] = ms;
    return this;
  }

  public ClientOptions hedgeMinDelayMs(int ms) {
    u32[ClientOptionsLayout.HEDGE_MIN_DELAY_MS] = ms;
    return this;
  }

  /** Hedges at most this percentage of hedgeable reads (plus a small burst). */
  public ClientOptions hedgeBudgetPercent(int percent) {
    u32[ClientOptionsLayout.HEDGE_BUDGET_PERCENT] = percent;
    return this;
  }

  /** ADAPTIVE: the percentile of the node's recent round trips, in (0, 100]. */
  public ClientOptions hedgePercentile(double percentile) {
    u64[ClientOptionsLayout.HEDGE_PERCENTILE] = Double.doubleToRawLongBits(percentile);
    return this;
  }

  public HedgeMode hedgeMode() {
    return HedgeMode.of(u32[ClientOptionsLayout.HEDGE_MODE]);
  }

  public int hedgeDelayMs() {
    return u32[ClientOptionsLayout.HEDGE_DELAY_MS];
  }

  public int hedgeMinDelayMs() {
    return u32[ClientOptionsLayout.HEDGE_MIN_DELAY_MS];
  }

  public int hedgeBudgetPercent() {
    return u32[ClientOptionsLayout.HEDGE_BUDGET_PERCENT];
  }

  public double hedgePercentile() {
    return Double.longBitsToDouble(u64[ClientOptionsLayout.HEDGE_PERCENTILE]);
  }

  /**
   * Read your writes across calls (0 = off, the default): after this client writes to a slot, its
   * reads of that slot go to the slot's master for this many milliseconds from the write's end,
   * then to replicas again; such a read fails rather than read a replica when the master fails.
   * Within one batch (MGET/MSET/DEL) a read after a write of its slot always goes to the master.
   * Cost: those reads take the master's path (a cross-cloud hop when it is remote).
   *
   * @throws IllegalArgumentException if ms is negative
   */
  public ClientOptions readYourWritesMs(int ms) {
    if (ms < 0) throw new IllegalArgumentException("read_your_writes_ms must be >= 0, got " + ms);
    u32[ClientOptionsLayout.READ_YOUR_WRITES_MS] = ms;
    return this;
  }

  public int readYourWritesMs() {
    return u32[ClientOptionsLayout.READ_YOUR_WRITES_MS];
  }

  /**
   * The database (default 0): every new connection sends SELECT db in its handshake, so reconnects,
   * failovers and slot migrations keep it. A cluster that serves database 0 only fails the client's
   * start ({@link CloudRouteException.ServerErrorException} naming the server's reply); Valkey 9
   * with cluster-databases serves others.
   *
   * @throws IllegalArgumentException if db is negative
   */
  public ClientOptions db(int db) {
    if (db < 0) throw new IllegalArgumentException("db must be >= 0, got " + db);
    u32[ClientOptionsLayout.DB] = db;
    return this;
  }

  public int db() {
    return u32[ClientOptionsLayout.DB];
  }

  /**
   * Shared connections (default 2; 0: a pooled connection per command in flight): with n in 1-16,
   * every command that does not block, and every leg of a pipeline or multi-key call, goes on at
   * most n connections per node that all threads share, each reply matched to its request
   * (cr_client_options.shared_connections).
   *
   * @throws IllegalArgumentException if n is negative (the library refuses above 16)
   */
  public ClientOptions sharedConnections(int n) {
    if (n < 0) throw new IllegalArgumentException("shared_connections must be >= 0, got " + n);
    u32[ClientOptionsLayout.SHARED_CONNECTIONS] = n;
    return this;
  }

  public int sharedConnections() {
    return u32[ClientOptionsLayout.SHARED_CONNECTIONS];
  }

  /**
   * Where the futures of the client's asynchronous calls ({@link Client#commandAsync} ...) are
   * completed, and so where the stages that depend on them run (null, the default: one small pool
   * of daemon threads {@code cloudroute-async-N} that every such client shares). Never the
   * library's engine thread, unless executor runs tasks in the calling thread (e.g. {@code
   * Runnable::run}): then the stages run there, must not block, and may not make the client's
   * blocking calls (refused with CR_EINVAL). An executor that rejects a completion (shut down) has
   * it run on the default pool.
   */
  public ClientOptions asyncExecutor(Executor executor) {
    asyncExecutor = executor;
    return this;
  }

  public Executor asyncExecutor() {
    return asyncExecutor;
  }

  /** AUTH (ACL user may be null for the default user). The password is never logged. */
  public ClientOptions auth(String username, String password) {
    strings[ClientOptionsLayout.USERNAME] = username;
    strings[ClientOptionsLayout.PASSWORD] = password;
    return this;
  }

  public ClientOptions clientName(String name) {
    strings[ClientOptionsLayout.CLIENT_NAME] = name;
    return this;
  }

  /** TLS on every connection; verify checks the chain and the host name (default true). */
  public ClientOptions tls(boolean on, boolean verify) {
    u32[ClientOptionsLayout.TLS] = on ? 1 : 0;
    u32[ClientOptionsLayout.TLS_VERIFY] = verify ? 1 : 0;
    return this;
  }

  /** Trusted CAs (PEM bundle or OpenSSL hashed directory; null for the system store). */
  public ClientOptions tlsCa(String caFile, String caDir) {
    strings[ClientOptionsLayout.TLS_CA_FILE] = caFile;
    strings[ClientOptionsLayout.TLS_CA_DIR] = caDir;
    return this;
  }

  /** A client certificate chain and its unencrypted key (PEM). */
  public ClientOptions tlsClientCert(String certFile, String keyFile) {
    strings[ClientOptionsLayout.TLS_CERT_FILE] = certFile;
    strings[ClientOptionsLayout.TLS_KEY_FILE] = keyFile;
    return this;
  }

  /** Verify (and send as SNI) this name instead of each node's host. */
  public ClientOptions tlsServerName(String name) {
    strings[ClientOptionsLayout.TLS_SERVER_NAME] = name;
    return this;
  }

  private static native void defaults(int[] u32, long[] u64);
}
