package io.cloudroute;

/** Counters of a {@link SentinelClient} since it was created. */
public final class SentinelStats {
  /** Whether the client is subscribed to a sentinel's events now. */
  public final boolean subscribed;

  /** Read commands an instance answered. */
  public final long reads;

  /** Write commands a master answered. */
  public final long writes;

  /** Reads served by a later instance after one failed. */
  public final long fallbacks;

  /** Writes tried again (not executed the first time). */
  public final long retries;

  public final long connErrors;
  public final long timeouts;

  /** Error replies returned to the caller. */
  public final long serverErrors;

  /** A group's master moved. */
  public final long masterChanges;

  /** +switch-master messages received. */
  public final long switchEvents;

  /** Groups asked about. */
  public final long asks;

  /** ... when no sentinel answered. */
  public final long askFailures;

  /** Successful (re)subscriptions. */
  public final long subscriptions;

  SentinelStats(long[] v) {
    subscribed = v[0] != 0;
    reads = v[1];
    writes = v[2];
    fallbacks = v[3];
    retries = v[4];
    connErrors = v[5];
    timeouts = v[6];
    serverErrors = v[7];
    masterChanges = v[8];
    switchEvents = v[9];
    asks = v[10];
    askFailures = v[11];
    subscriptions = v[12];
  }

  @Override
  public String toString() {
    return "SentinelStats(subscribed "
        + subscribed
        + ", reads "
        + reads
        + ", writes "
        + writes
        + ", fallbacks "
        + fallbacks
        + ", master changes "
        + masterChanges
        + ")";
  }
}
