package io.cloudroute;

import java.util.Objects;

/** A node of a {@link Topology}. */
public final class NodeInfo {
  private final String id;
  private final String host;
  private final String ip;
  private final int port;
  private final int tlsPort;
  private final Role role;
  private final ReportedHealth health;
  private final String zone;
  private final int shard;

  NodeInfo(
      String id,
      String host,
      String ip,
      int port,
      int tlsPort,
      Role role,
      ReportedHealth health,
      String zone,
      int shard) {
    this.id = id;
    this.host = host;
    this.ip = ip;
    this.port = port;
    this.tlsPort = tlsPort;
    this.role = role;
    this.health = health;
    this.zone = zone;
    this.shard = shard;
  }

  /** Node id ("" when the reply gave none). */
  public String id() {
    return id;
  }

  /** Endpoint: hostname or IP; "?" when unknown. */
  public String host() {
    return host;
  }

  /** IP when the reply gave one separately, else "". */
  public String ip() {
    return ip;
  }

  public int port() {
    return port;
  }

  /** 0 when none. */
  public int tlsPort() {
    return tlsPort;
  }

  public Role role() {
    return role;
  }

  public ReportedHealth health() {
    return health;
  }

  /** Server-reported availability zone, "" when none. */
  public String zone() {
    return zone;
  }

  /** Index of the node's shard. */
  public int shard() {
    return shard;
  }

  /** "host:port". */
  public String address() {
    return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof NodeInfo)) return false;
    NodeInfo n = (NodeInfo) o;
    return n.id.equals(id)
        && n.host.equals(host)
        && n.ip.equals(ip)
        && n.port == port
        && n.tlsPort == tlsPort
        && n.role == role
        && n.health == health
        && n.zone.equals(zone)
        && n.shard == shard;
  }

  @Override
  public int hashCode() {
    return Objects.hash(id, host, port, role, shard);
  }

  @Override
  public String toString() {
    return role + " " + address() + " shard " + shard + (zone.isEmpty() ? "" : " zone " + zone);
  }
}
