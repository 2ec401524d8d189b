package io.cloudroute;

/** The hash of keys (and of Jedis ring points). */
public enum HashAlgo {
  /** The algorithm's own: MURMUR, except MD5 for KETAMA. */
  DEFAULT("default"),
  /** Jedis Hashing.MURMUR_HASH (MurmurHash64A, seed 0x1234ABCD). */
  MURMUR("murmur"),
  /** Jedis Hashing.MD5 (digest bytes 0-3, little-endian, unsigned). */
  MD5("md5");

  private static final HashAlgo[] VALUES = values();
  private final String label;

  HashAlgo(String label) {
    this.label = label;
  }

  /** The library's name for the value ("default", ...). */
  public String label() {
    return label;
  }

  /** The value of a C code (its ordinal). */
  static HashAlgo of(int code) {
    return VALUES[code];
  }

  /** The value named label (case-insensitive, '_' == '-'). */
  public static HashAlgo fromLabel(String label) {
    String l = label.replace('_', '-');
    for (HashAlgo v : VALUES) {
      if (v.label.equalsIgnoreCase(l)) return v;
    }
    throw new CloudRouteException.InvalidArgumentException(
        CloudRouteException.EINVAL, "no HashAlgo named '" + label + "'");
  }

  @Override
  public String toString() {
    return label;
  }
}
