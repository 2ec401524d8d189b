package io.cloudroute;

/**
 * Host names by node handle. A handle names one address for the lifetime of its router or
 * shard-group table, so each host String is made once; routing then allocates only the Route.
 */
final class HostCache {
  private static final int MAX = 1 << 16;
  private volatile String[] hosts = new String[64];

  static {
    NativeLoader.load();
  }

  /** The host of handle; ptr is the library's host text (valid during the call that gave it). */
  String host(int handle, long ptr) {
    String[] h = hosts;
    if (handle >= 0 && handle < h.length) {
      String s = h[handle];
      if (s != null) return s;
    }
    String s = hostAt(ptr);
    if (handle >= 0 && handle < MAX) store(handle, s);
    return s;
  }

  private synchronized void store(int handle, String s) {
    String[] h = hosts;
    if (handle >= h.length) {
      String[] bigger = new String[Math.min(MAX, Math.max(h.length * 2, handle + 1))];
      System.arraycopy(h, 0, bigger, 0, h.length);
      h = bigger;
    } else {
      h = h.clone();
    }
    h[handle] = s;
    hosts = h;
  }

  private static native String hostAt(long ptr);
}
