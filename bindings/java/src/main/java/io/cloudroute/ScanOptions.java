package io.cloudroute;

/**
 * Options of {@link Client#scan(ScanOptions)} (the C API's {@code cr_scan_options}). Setters return
 * this.
 */
public final class ScanOptions {
  Object match;
  int count;
  String type;
  int timeoutMs;

  /** MATCH pattern (a String, sent as UTF-8); null (the default) for every key. */
  public ScanOptions match(String pattern) {
    match = pattern;
    return this;
  }

  /** MATCH pattern as bytes; null for every key. */
  public ScanOptions match(byte[] pattern) {
    match = pattern == null ? null : pattern.clone();
    return this;
  }

  /** COUNT hint per round trip; 0 (the default) for the server's. */
  public ScanOptions count(int count) {
    this.count = count;
    return this;
  }

  /** TYPE filter ("string", "hash" ...); null (the default) for every type. */
  public ScanOptions type(String type) {
    this.type = type;
    return this;
  }

  /** Per round trip; 0 (the default) for the node's tier timeout. */
  public ScanOptions timeoutMs(int ms) {
    timeoutMs = ms;
    return this;
  }
}
