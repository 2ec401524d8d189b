package io.cloudroute;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Statistics of one node a live client ({@link Client}, {@link ShardedClient}, {@link
 * SentinelClient}) has talked to.
 */
public final class NodeStats {
  public final int nodeHandle;
  public final String host;
  public final int port;
  public final long reads;
  public final long writes;

  /** Connection errors and timeouts. */
  public final long errors;

  /** Connections opened. */
  public final long connections;

  /** Moving average of round trips; 0 = none yet. */
  public final int latencyUs;

  public final int openConnections;
  public final int idleConnections;

  private NodeStats(long[] v, int at, String host) {
    nodeHandle = (int) v[at];
    this.host = host;
    port = (int) v[at + 1];
    reads = v[at + 2];
    writes = v[at + 3];
    errors = v[at + 4];
    connections = v[at + 5];
    latencyUs = (int) v[at + 6];
    openConnections = (int) v[at + 7];
    idleConnections = (int) v[at + 8];
  }

  private static final int FIELDS = 9; // per node, as the native nodeStats0 packs them

  static List<NodeStats> unpack(long[] v, String[] hosts) {
    List<NodeStats> out = new ArrayList<>(hosts.length);
    for (int i = 0; i < hosts.length; ++i) out.add(new NodeStats(v, i * FIELDS, hosts[i]));
    return Collections.unmodifiableList(out);
  }

  /** "host:port". */
  public String address() {
    return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
  }

  @Override
  public String toString() {
    return address() + ": reads " + reads + ", writes " + writes + ", errors " + errors;
  }
}
