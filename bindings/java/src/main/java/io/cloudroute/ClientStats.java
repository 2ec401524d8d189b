package io.cloudroute;

/** Counters of a live {@link Client} since it was created. */
public final class ClientStats {
  /** Read commands a node answered. */
  public final long reads;

  /** Reads by the serving node's tier, indexed by {@link Tier#ordinal()}. */
  private final long[] readsByTier;

  /** Write commands a master answered. */
  public final long writes;

  /** Reads served by a later candidate after one failed. */
  public final long fallbacks;

  public final long moved;
  public final long ask;

  /** TRYAGAIN / CLUSTERDOWN / LOADING retries. */
  public final long retries;

  public final long connErrors;
  public final long timeouts;

  /** Error replies returned to the caller. */
  public final long serverErrors;

  public final long refreshes;
  public final long refreshFailures;

  /** Connections opened. */
  public final long connections;

  /** Reads also sent to the next candidate (hedged reads). */
  public final long hedges;

  /** Hedges the next candidate answered first. */
  public final long hedgesWon;

  /** Reads past their hedge delay that the hedge budget did not hedge. */
  public final long hedgesDenied;

  /**
   * Connections closed because what a server sent stopped matching what was asked (an unsolicited
   * reply, a reply of a shape its command cannot produce).
   */
  public final long poisoned;

  ClientStats(long[] v) {
    reads = v[0];
    readsByTier = new long[] {v[1], v[2], v[3], v[4], v[5]};
    writes = v[6];
    fallbacks = v[7];
    moved = v[8];
    ask = v[9];
    retries = v[10];
    connErrors = v[11];
    timeouts = v[12];
    serverErrors = v[13];
    refreshes = v[14];
    refreshFailures = v[15];
    connections = v[16];
    hedges = v[17];
    hedgesWon = v[18];
    hedgesDenied = v[19];
    poisoned = v[20];
  }

  /** The values stats0 fills, in this order. */
  static final int FIELDS = 21;

  /** Reads served by nodes of tier. */
  public long readsByTier(Tier tier) {
    return readsByTier[tier.ordinal()];
  }

  @Override
  public String toString() {
    return "ClientStats(reads "
        + reads
        + ", local "
        + readsByTier[0]
        + ", writes "
        + writes
        + ", fallbacks "
        + fallbacks
        + ", moved "
        + moved
        + ", conn errors "
        + connErrors
        + ", timeouts "
        + timeouts
        + ", refreshes "
        + refreshes
        + ", hedges "
        + hedges
        + ", poisoned "
        + poisoned
        + ")";
  }
}
