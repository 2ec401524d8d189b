package io.cloudroute;

/** When a live {@link Client} hedges a read (cr_hedge_mode; the ordinals are its values). */
public enum HedgeMode {
  /** Never hedge (the default). */
  OFF,
  /** Hedge after a fixed delay ({@link ClientOptions#hedgeDelayMs}). */
  FIXED,
  /** Hedge after the node's recent latency percentile ({@link ClientOptions#hedgePercentile}). */
  ADAPTIVE
}
