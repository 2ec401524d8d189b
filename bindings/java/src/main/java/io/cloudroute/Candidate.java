package io.cloudroute;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** A node of a shard's ordered read set, with why it sits where it does. */
public final class Candidate {
  private final int nodeHandle;
  private final String host;
  private final int port;
  private final Role role;
  private final Tier tier;
  private final int rank;
  private final int weight;
  private final int rttUs;
  private final boolean down;

  Candidate(
      int nodeHandle,
      String host,
      int port,
      Role role,
      Tier tier,
      int rank,
      int weight,
      int rttUs,
      boolean down) {
    this.nodeHandle = nodeHandle;
    this.host = host;
    this.port = port;
    this.role = role;
    this.tier = tier;
    this.rank = rank;
    this.weight = weight;
    this.rttUs = rttUs;
    this.down = down;
  }

  /** From the glue's packing (jni_route.h): 4 longs per candidate. */
  static List<Candidate> unpack(long[] p, HostCache cache) {
    List<Candidate> out = new ArrayList<>(p.length / 4);
    for (int i = 0; i + 3 < p.length; i += 4) {
      long a = p[i];
      int handle = (int) a;
      out.add(
          new Candidate(
              handle,
              cache.host(handle, p[i + 3]),
              (int) (a >>> 32) & 0xFFFF,
              Role.of((int) (a >>> 48) & 1),
              Tier.of((int) (a >>> 49) & 7),
              (int) p[i + 1],
              (int) (p[i + 1] >>> 32),
              (int) p[i + 2],
              ((a >>> 52) & 1) != 0));
    }
    return Collections.unmodifiableList(out);
  }

  public int nodeHandle() {
    return nodeHandle;
  }

  public String host() {
    return host;
  }

  public int port() {
    return port;
  }

  public Role role() {
    return role;
  }

  public Tier tier() {
    return tier;
  }

  /** Equal rank = chosen among by weight; lower is tried first. */
  public int rank() {
    return rank;
  }

  public int weight() {
    return weight;
  }

  /**
   * The RTT in microseconds the candidate order was built with, 0 when none: under {@link
   * Policy#NEAREST} each {@link Router#setRtt} rebuilds the order, under other policies a
   * measurement shows from the next rebuild (a topology update, a zone learned).
   */
  public int rttUs() {
    return rttUs;
  }

  /** Whether the health breaker currently skips this node. */
  public boolean down() {
    return down;
  }

  /** "host:port" ("[v6]:port" for an IPv6 host). */
  public String address() {
    return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
  }

  @Override
  public String toString() {
    return address()
        + " ("
        + role
        + ", "
        + tier
        + ", rank "
        + rank
        + ", weight "
        + weight
        + (down ? ", down" : "")
        + ")";
  }
}
