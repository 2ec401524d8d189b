package io.cloudroute;

/**
 * Options of the live cluster {@link Client}; defaults are the library's. Setters return this.
 * Times are in milliseconds unless named otherwise.
 */
public final class ClientOptions {
  static {
    NativeLoader.load();
  }

  // The order of cr_client_options' uint32 fields, as jni_client.c reads them.
  private static final int CONNECT = 0;
  private static final int COMMAND = 1; // 5 per-tier timeouts
  private static final int POOL_SIZE = 6;
  private static final int POOL_IDLE = 7;
  private static final int REFRESH_INTERVAL = 8;
  private static final int REFRESH_MIN_GAP = 9;
  private static final int MAX_REDIRECTS = 10;
  private static final int MAX_RETRIES = 11;
  private static final int RETRY_BACKOFF = 12;
  private static final int FAILURES_BEFORE_REFRESH = 13;
  private static final int KEEPALIVE = 14;
  private static final int USER_TIMEOUT = 15;
  private static final int MAX_ELEMENTS = 16;
  private static final int LAG_SECONDS = 17;
  private static final int HEDGE_MODE = 18;
  private static final int HEDGE_DELAY = 19;
  private static final int HEDGE_MIN_DELAY = 20;
  private static final int HEDGE_BUDGET = 21;
  private static final int READ_YOUR_WRITES = 22;
  private static final int DB = 23;
  private static final int SHARED = 24;
  // u64: max_bulk_len, max_reply_bytes, replica_max_lag_bytes, then the raw
  // bits of hedge_percentile (a double).
  private static final int HEDGE_PERCENTILE = 3;

  final int[] u32 = new int[25];
  final long[] u64 = new long[4];
  final String[] strings = new String[8];
  boolean tls;
  boolean tlsVerify = true;

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
    for (int t = 0; t < 5; t++) u32[COMMAND + t] = ms;
    return this;
  }

  public ClientOptions poolSize(int connectionsPerNode) {
    u32[POOL_SIZE] = connectionsPerNode;
    return this;
  }

  public ClientOptions poolIdleMs(int ms) {
    u32[POOL_IDLE] = ms;
    return this;
  }

  /** Periodic topology refresh; 0 = none. */
  public ClientOptions refreshIntervalMs(int ms) {
    u32[REFRESH_INTERVAL] = ms;
    return this;
  }

  public ClientOptions refreshMinGapMs(int ms) {
    u32[REFRESH_MIN_GAP] = ms;
    return this;
  }

  public ClientOptions maxRedirects(int n) {
    u32[MAX_REDIRECTS] = n;
    return this;
  }

  public ClientOptions maxRetries(int n) {
    u32[MAX_RETRIES] = n;
    return this;
  }

  public ClientOptions retryBackoffMs(int ms) {
    u32[RETRY_BACKOFF] = ms;
    return this;
  }

  public ClientOptions failuresBeforeRefresh(int n) {
    u32[FAILURES_BEFORE_REFRESH] = n;
    return this;
  }

  public ClientOptions tcpKeepaliveS(int s) {
    u32[KEEPALIVE] = s;
    return this;
  }

  public ClientOptions tcpUserTimeoutMs(int ms) {
    u32[USER_TIMEOUT] = ms;
    return this;
  }

  public ClientOptions maxReplyElements(int n) {
    u32[MAX_ELEMENTS] = n;
    return this;
  }

  public ClientOptions maxBulkLen(long bytes) {
    u64[0] = bytes;
    return this;
  }

  public ClientOptions maxReplyBytes(long bytes) {
    u64[1] = bytes;
    return this;
  }

  /** Read a replica last while it lags by more than bytes or seconds (0 = no bound). */
  public ClientOptions replicaMaxLag(long bytes, int seconds) {
    u64[2] = bytes;
    u32[LAG_SECONDS] = seconds;
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
    u32[HEDGE_MODE] = mode.ordinal();
    return this;
  }

  public ClientOptions hedgeDelayMs(int ms) {
    u32[HEDGE_DELAY] = ms;
    return this;
  }

  public ClientOptions hedgeMinDelayMs(int ms) {
    u32[HEDGE_MIN_DELAY] = ms;
    return this;
  }

  /** Hedges at most this percentage of hedgeable reads (plus a small burst). */
  public ClientOptions hedgeBudgetPercent(int percent) {
    u32[HEDGE_BUDGET] = percent;
    return this;
  }

  /** ADAPTIVE: the percentile of the node's recent round trips, in (0, 100]. */
  public ClientOptions hedgePercentile(double percentile) {
    u64[HEDGE_PERCENTILE] = Double.doubleToRawLongBits(percentile);
    return this;
  }

  public HedgeMode hedgeMode() {
    return HedgeMode.values()[u32[HEDGE_MODE]];
  }

  public int hedgeDelayMs() {
    return u32[HEDGE_DELAY];
  }

  public int hedgeMinDelayMs() {
    return u32[HEDGE_MIN_DELAY];
  }

  public int hedgeBudgetPercent() {
    return u32[HEDGE_BUDGET];
  }

  public double hedgePercentile() {
    return Double.longBitsToDouble(u64[HEDGE_PERCENTILE]);
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
    u32[READ_YOUR_WRITES] = ms;
    return this;
  }

  public int readYourWritesMs() {
    return u32[READ_YOUR_WRITES];
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
    u32[DB] = db;
    return this;
  }

  public int db() {
    return u32[DB];
  }

  /**
   * Shared connections (default 0: off): with n in 1-16, every command that does not block, and
   * every leg of a pipeline or multi-key call, goes on at most n connections per node that all
   * threads share, each reply matched to its request (cr_client_options.shared_connections).
   *
   * @throws IllegalArgumentException if n is negative (the library refuses above 16)
   */
  public ClientOptions sharedConnections(int n) {
    if (n < 0) throw new IllegalArgumentException("shared_connections must be >= 0, got " + n);
    u32[SHARED] = n;
    return this;
  }

  public int sharedConnections() {
    return u32[SHARED];
  }

  /** AUTH (ACL user may be null for the default user). The password is never logged. */
  public ClientOptions auth(String username, String password) {
    strings[0] = username;
    strings[1] = password;
    return this;
  }

  public ClientOptions clientName(String name) {
    strings[2] = name;
    return this;
  }

  /** TLS on every connection; verify checks the chain and the host name (default true). */
  public ClientOptions tls(boolean on, boolean verify) {
    tls = on;
    tlsVerify = verify;
    return this;
  }

  /** Trusted CAs (PEM bundle or OpenSSL hashed directory; null for the system store). */
  public ClientOptions tlsCa(String caFile, String caDir) {
    strings[3] = caFile;
    strings[4] = caDir;
    return this;
  }

  /** A client certificate chain and its unencrypted key (PEM). */
  public ClientOptions tlsClientCert(String certFile, String keyFile) {
    strings[5] = certFile;
    strings[6] = keyFile;
    return this;
  }

  /** Verify (and send as SNI) this name instead of each node's host. */
  public ClientOptions tlsServerName(String name) {
    strings[7] = name;
    return this;
  }

  private static native void defaults(int[] u32, long[] u64);
}
