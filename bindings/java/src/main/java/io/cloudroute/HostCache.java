package io.cloudroute;

/**
 * Host names by node handle, so each host String is made once; routing then allocates only the
 * Route. A handle's low 20 bits are its registry slot and the high bits a generation: a router
 * reclaims nodes gone from its topologies and reuses their slots under new handles, so an entry
 * answers only for the exact handle it was made for, and {@link #clear} forgets every entry after
 * an update (the only time a router reclaims) so that a handle number coming back much later can
 * never find an old host.
 */
final class HostCache {
  private static final int MAX = 1 << 16;
  private static final int SLOT_MASK = (1 << 20) - 1;

  private static final class Entry {
    final int handle;
    final String host;

    Entry(int handle, String host) {
      this.handle = handle;
      this.host = host;
    }
  }

  private volatile Entry[] hosts = new Entry[64];

  static {
    NativeLoader.load();
  }

  /** The host of handle; ptr is the library's host text (valid during the call that gave it). */
  String host(int handle, long ptr) {
    int slot = handle & SLOT_MASK;
    Entry[] h = hosts;
    if (slot < h.length) {
      Entry e = h[slot];
      if (e != null && e.handle == handle) return e.host;
    }
    String s = hostAt(ptr);
    if (slot < MAX) store(slot, new Entry(handle, s));
    return s;
  }

  /** Forgets every host (after a router update, which may have reclaimed nodes). */
  synchronized void clear() {
    hosts = new Entry[64];
  }

  private synchronized void store(int slot, Entry e) {
    Entry[] h = hosts;
    if (slot >= h.length) {
      Entry[] bigger = new Entry[Math.min(MAX, Math.max(h.length * 2, slot + 1))];
      System.arraycopy(h, 0, bigger, 0, h.length);
      h = bigger;
    } else {
      h = h.clone();
    }
    h[slot] = e;
    hosts = h;
  }

  private static native String hostAt(long ptr);
}
