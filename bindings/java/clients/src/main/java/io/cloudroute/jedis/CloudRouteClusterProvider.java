package io.cloudroute.jedis;

import io.cloudroute.Candidate;
import io.cloudroute.CloudRoute;
import io.cloudroute.CloudRouteException;
import io.cloudroute.Config;
import io.cloudroute.NodeInfo;
import io.cloudroute.Role;
import io.cloudroute.Router;
import io.cloudroute.Topology;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.providers.ClusterConnectionProvider;

/**
 * A Jedis {@link ClusterConnectionProvider} whose connection for a read-only command is the node
 * libcloudroute chooses for the key's slot — cloud-local replicas first, by the {@link Config}'s
 * policy — with {@code READONLY} sent once on each replica connection; writes, keyless and
 * multi-slot commands and redirects stay Jedis's own (the slot's master). Whether a command is
 * read-only is the server's word ({@code COMMAND INFO}'s {@code readonly} flag, asked once per
 * command name, as the library's {@code CR_ACCESS_AUTO} does), so the same provider works with
 * Jedis 5 to 8. Use it with {@link CloudRouteJedisCluster}, whose {@code pipelined()} routes each
 * queued command the same way and follows MOVED and ASK; a plain {@code new JedisCluster(provider,
 * maxAttempts, maxTotalRetriesDuration)} routes single commands only (its pipelines stay on the
 * masters).
 *
 * <p>Topology: read as the library reads it — {@code CLUSTER SHARDS} (with the zone a Valkey 9.1
 * server puts there), {@code CLUSTER SLOTS} where a server refuses it — whenever Jedis renews its
 * own slot table (MOVED, connection problems). Each node of a new topology is asked {@code INFO
 * server} once: its {@code availability_zone} (Valkey 8+) when the topology carried none, and that
 * round trip as the node's RTT (Policy.NEAREST).
 *
 * <p>Failures: a candidate that cannot be connected to is reported to the router and the next is
 * tried; when Jedis retries a command after a connection error on a connection this provider gave,
 * that node is reported failed and skipped, and a command's success on it is reported too. With the
 * router's breaker (Config.breaker) a failed node is not chosen again until its cool-down passes.
 *
 * <p>Read your writes: a routed pipeline reads the slots it wrote earlier in the same pipeline from
 * their masters. With {@link #readYourWritesMs(int)} a read of a slot this provider routed a write
 * to within the window goes to the slot's master too.
 */
public class CloudRouteClusterProvider extends ClusterConnectionProvider {
  private final Router router;
  // Per command: whether the server flags it readonly (COMMAND INFO), learned on first use.
  private final ConcurrentHashMap<ProtocolCommand, Boolean> readOnlyCommands =
      new ConcurrentHashMap<>();
  // host:port of the nodes already asked INFO server (zone, RTT).
  private final Set<String> probed = ConcurrentHashMap.newKeySet();
  private final Set<Connection> readOnly =
      Collections.synchronizedSet(Collections.newSetFromMap(new WeakHashMap<>()));
  private final ThreadLocal<Attempt> last = new ThreadLocal<>();
  // Read your writes across calls: per slot, the System.nanoTime() until which reads go to the
  // master; null while off.
  private volatile long windowNs;
  private volatile AtomicLongArray writtenUntil;

  /** The node a read was last given to on this thread, for the command args. */
  private static final class Attempt {
    final CommandArguments args;
    final int node;

    Attempt(CommandArguments args, int node) {
      this.args = args;
      this.node = node;
    }
  }

  public CloudRouteClusterProvider(
      Set<HostAndPort> clusterNodes, JedisClientConfig clientConfig, Config config) {
    super(clusterNodes, clientConfig);
    router = new Router(config);
    refreshTopology(null);
  }

  public CloudRouteClusterProvider(
      Set<HostAndPort> clusterNodes,
      JedisClientConfig clientConfig,
      GenericObjectPoolConfig<Connection> poolConfig,
      Config config) {
    super(clusterNodes, clientConfig, poolConfig);
    router = new Router(config);
    refreshTopology(null);
  }

  /**
   * Read your writes across calls (0 = off, the default): after this provider routes a write to a
   * slot, reads of that slot go to its master for ms milliseconds, then to libcloudroute's
   * candidates again. The window starts when the write is sent: size it above the write's round
   * trip plus the replicas' usual lag. A {@link CloudRouteJedisCluster} pipeline's writes open it
   * too (a plain JedisCluster's pipeline stays on the masters, so it needs none). Cost: those reads
   * take the master's path (a cross-cloud hop when it is remote); 128 KiB per provider. Call before
   * the provider is shared.
   *
   * @throws IllegalArgumentException if ms is negative
   * @return this provider
   */
  public CloudRouteClusterProvider readYourWritesMs(int ms) {
    if (ms < 0) throw new IllegalArgumentException("read_your_writes_ms must be >= 0, got " + ms);
    AtomicLongArray until = null;
    if (ms > 0) {
      until = new AtomicLongArray(CloudRoute.SLOT_COUNT);
      for (int i = 0; i < until.length(); i++) until.set(i, Long.MIN_VALUE); // never written
    }
    windowNs = ms * 1_000_000L;
    writtenUntil = until;
    return this;
  }

  /** The libcloudroute router deciding reads (inspection: candidates, explain). */
  public Router router() {
    return router;
  }

  @Override
  public Connection getConnection(CommandArguments args) {
    Attempt previous = last.get();
    boolean retry = previous != null && previous.args == args;
    if (previous != null) {
      last.remove();
      if (retry) {
        router.reportFailure(previous.node);
      } else {
        router.reportSuccess(previous.node);
      }
    }
    if (!isRead(args)) {
      noteWrite(slotOf(args.getKeys()));
      return super.getConnection(args);
    }
    int slot = slotOf(args.getKeys());
    if (slot < 0) return super.getConnection(args);
    if (writtenRecently(slot)) {
      return super.getConnection(args); // a slot this provider wrote within the window: the master
    }
    List<Candidate> candidates = router.candidatesSlot(slot);
    for (Candidate c : candidates) {
      if (c.down() || (retry && c.nodeHandle() == previous.node)) continue;
      try {
        Connection conn = connectionTo(c.host(), c.port(), c.role() == Role.REPLICA);
        last.set(new Attempt(args, c.nodeHandle()));
        return conn;
      } catch (JedisException e) {
        router.reportFailure(c.nodeHandle());
      }
    }
    return super.getConnection(args); // every candidate failed: the master, Jedis's way
  }

  /**
   * A pooled connection to host:port, with READONLY sent once when it serves a replica's reads;
   * closed again (and the failure thrown) when that fails.
   */
  Connection connectionTo(String host, int port, boolean replica) {
    Connection conn = getConnection(new HostAndPort(host, port));
    if (replica && !readOnly.contains(conn)) {
      try {
        conn.executeCommand(Protocol.Command.READONLY);
      } catch (JedisException e) {
        release(conn);
        throw e;
      }
      readOnly.add(conn);
    }
    return conn;
  }

  /**
   * Gives conn back to its pool. A pool closed meanwhile cannot take it: Jedis 8 closes the pool of
   * a node that a slot-table renewal no longer lists (a replica marked failed leaves CLUSTER
   * SLOTS), and returning a connection to it throws "Could not return the (broken) resource to the
   * pool". Its socket is closed instead; the caller's outcome stands.
   */
  static void release(Connection conn) {
    try {
      conn.close();
    } catch (JedisException poolClosed) {
      try {
        conn.disconnect();
      } catch (RuntimeException alreadyClosed) {
        // nothing left to close
      }
    }
  }

  /**
   * Whether the server flags the command readonly (COMMAND INFO, asked once per command on any
   * node). A command the server does not know, or a container whose subcommands differ (OBJECT,
   * CLIENT …: no flags of its own), is not; a failed question leaves the command unlearned and
   * treated as a write (its master) this time.
   */
  boolean isRead(CommandArguments args) {
    ProtocolCommand command = args.getCommand();
    Boolean known = readOnlyCommands.get(command);
    if (known != null) return known;
    String name = new String(command.getRaw(), StandardCharsets.UTF_8);
    Object reply;
    try (Connection conn = getConnection()) {
      reply =
          conn.executeCommand(new CommandArguments(Protocol.Command.COMMAND).add("INFO").add(name));
    } catch (JedisException e) {
      return false;
    }
    boolean ro = false;
    if (reply instanceof List && !((List<?>) reply).isEmpty()) {
      Object info = ((List<?>) reply).get(0);
      if (info instanceof List && ((List<?>) info).size() > 2) {
        Object flags = ((List<?>) info).get(2);
        if (flags instanceof List) {
          for (Object f : (List<?>) flags) {
            if (f instanceof byte[]
                && "readonly".equals(new String((byte[]) f, StandardCharsets.UTF_8))) {
              ro = true;
            }
          }
        }
      }
    }
    readOnlyCommands.put(command, ro);
    return ro;
  }

  /** Opens the slot's read-your-writes window (no-op while off, or for slot -1). */
  void noteWrite(int slot) {
    AtomicLongArray written = writtenUntil;
    if (written != null && slot >= 0) {
      written.accumulateAndGet(slot, System.nanoTime() + windowNs, Math::max);
    }
  }

  /** Whether this provider wrote slot within the read-your-writes window. */
  boolean writtenRecently(int slot) {
    AtomicLongArray written = writtenUntil;
    return written != null && written.get(slot) > System.nanoTime();
  }

  /** The one slot of keys (String or byte[]); -1 for none, several, or keys of other types. */
  static int slotOf(List<Object> keys) {
    int slot = -1;
    for (Object k : keys) {
      int s;
      if (k instanceof byte[]) {
        s = CloudRoute.keyslot((byte[]) k);
      } else if (k instanceof String) {
        s = CloudRoute.keyslot((String) k);
      } else {
        return -1;
      }
      if (slot >= 0 && s != slot) return -1;
      slot = s;
    }
    return slot;
  }

  @Override
  public void renewSlotCache() {
    super.renewSlotCache();
    refreshTopology(null);
  }

  @Override
  public void renewSlotCache(Connection jedis) {
    super.renewSlotCache(jedis);
    refreshTopology(jedis);
  }

  /**
   * Reads CLUSTER SHARDS — CLUSTER SLOTS where the server refuses it (Redis before 7, an ACL
   * without it) — from via, or any reachable node, into the router; then asks each node not asked
   * before for its zone and RTT.
   */
  private void refreshTopology(Connection via) {
    if (via == null && getNodes().isEmpty()) return;
    Topology topology;
    Connection conn = via != null ? via : getConnection();
    try {
      Object reply;
      Topology.Format format = Topology.Format.CLUSTER_SHARDS;
      try {
        reply = conn.executeCommand(new CommandArguments(Protocol.Command.CLUSTER).add("SHARDS"));
      } catch (JedisDataException refused) {
        format = Topology.Format.CLUSTER_SLOTS;
        reply = conn.executeCommand(new CommandArguments(Protocol.Command.CLUSTER).add("SLOTS"));
      }
      topology = Topology.parse(RespEncoder.encode(reply), format);
    } finally {
      if (via == null) conn.close();
    }
    try (Topology t = topology) {
      router.update(t);
      for (NodeInfo n : t.nodes()) probe(n);
    }
  }

  /**
   * INFO server, once per node: the node's availability_zone (when the topology carried none) and
   * the round trip as its RTT. A node that cannot be asked is reported failed.
   */
  private void probe(NodeInfo n) {
    if (n.host() == null || !probed.add(n.address())) return;
    OptionalInt handle = router.findNode(n.host(), n.port());
    try (Connection conn = getConnection(new HostAndPort(n.host(), n.port()))) {
      long start = System.nanoTime();
      Object info = conn.executeCommand(new CommandArguments(Protocol.Command.INFO).add("server"));
      long us = (System.nanoTime() - start) / 1000;
      if (handle.isPresent())
        router.setRtt(handle.getAsInt(), (int) Math.max(1, Math.min(us, Integer.MAX_VALUE)));
      String zone =
          n.zone() == null || n.zone().isEmpty() ? infoField(info, "availability_zone") : null;
      if (zone != null && !zone.isEmpty()) router.setNodeZone(n.host(), n.port(), zone);
    } catch (JedisException | CloudRouteException e) {
      if (handle.isPresent()) router.reportFailure(handle.getAsInt());
    }
  }

  /** A field of an INFO reply ("name:value" lines); null when absent. */
  private static String infoField(Object info, String field) {
    if (!(info instanceof byte[])) return null;
    String prefix = field + ":";
    for (String line : new String((byte[]) info, StandardCharsets.UTF_8).split("\r\n")) {
      if (line.startsWith(prefix)) return line.substring(prefix.length()).trim();
    }
    return null;
  }

  @Override
  public void close() {
    try {
      super.close();
    } finally {
      router.close();
    }
  }
}
