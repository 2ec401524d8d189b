package io.cloudroute.jedis;

import io.cloudroute.Candidate;
import io.cloudroute.CloudRoute;
import io.cloudroute.Config;
import io.cloudroute.Role;
import io.cloudroute.Router;
import io.cloudroute.Topology;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicLongArray;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.CommandFlagsRegistry;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.StaticCommandFlagsRegistry;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.providers.ClusterConnectionProvider;

/**
 * A Jedis {@link ClusterConnectionProvider} whose connection for a read-only command (Jedis's
 * command flags) is the node libcloudroute chooses for the key's slot — cloud-local replicas first,
 * by the {@link Config}'s policy — with {@code READONLY} sent once on each replica connection;
 * writes, keyless and multi-slot commands, pipelines and redirects stay Jedis's own (the slot's
 * master). Use it with {@code new JedisCluster(provider, maxAttempts, maxTotalRetriesDuration)}.
 *
 * <p>Failures: a candidate that cannot be connected to is reported to the router and the next is
 * tried; when Jedis retries a command after a connection error on a connection this provider gave,
 * that node is reported failed and skipped. With the router's breaker (Config.breaker) a failed
 * node is not chosen again until its cool-down passes. The slot table is re-read from the cluster
 * whenever Jedis renews its own (MOVED, connection problems).
 *
 * <p>Read your writes: pipelines stay on the slots' masters, so a pipeline reads its own writes.
 * With {@link #readYourWritesMs(int)} a read of a slot this provider routed a write to within the
 * window goes to the slot's master too.
 */
public class CloudRouteClusterProvider extends ClusterConnectionProvider {
  private final Router router;
  private final CommandFlagsRegistry flags = StaticCommandFlagsRegistry.registry();
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
   * trip plus the replicas' usual lag. Jedis places a pipeline's commands without the provider's
   * per-command hook (on the masters), so a pipeline's writes do not open a window. Cost: those
   * reads take the master's path (a cross-cloud hop when it is remote); 128 KiB per provider. Call
   * before the provider is shared.
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
    AtomicLongArray written = writtenUntil;
    if (!flags.getFlags(args).contains(CommandFlagsRegistry.CommandFlag.READONLY)) {
      if (written != null) {
        int slot = slotOf(args.getKeys());
        if (slot >= 0) written.accumulateAndGet(slot, System.nanoTime() + windowNs, Math::max);
      }
      return super.getConnection(args);
    }
    int slot = slotOf(args.getKeys());
    if (slot < 0) return super.getConnection(args);
    if (written != null && written.get(slot) > System.nanoTime()) {
      return super.getConnection(args); // a slot this provider wrote within the window: the master
    }
    List<Candidate> candidates = router.candidatesSlot(slot);
    for (Candidate c : candidates) {
      if (c.down() || (retry && c.nodeHandle() == previous.node)) continue;
      Connection conn = null;
      try {
        conn = getConnection(new HostAndPort(c.host(), c.port()));
        if (c.role() == Role.REPLICA && !readOnly.contains(conn)) {
          conn.executeCommand(Protocol.Command.READONLY);
          readOnly.add(conn);
        }
        last.set(new Attempt(args, c.nodeHandle()));
        return conn;
      } catch (JedisException e) {
        router.reportFailure(c.nodeHandle());
        if (conn != null) conn.close();
      }
    }
    return super.getConnection(args); // every candidate failed: the master, Jedis's way
  }

  /** The one slot of keys (String or byte[]); -1 for none, several, or keys of other types. */
  private static int slotOf(List<Object> keys) {
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

  /** Reads CLUSTER SLOTS (from via, or a reachable primary) into the router. */
  private void refreshTopology(Connection via) {
    Map<String, ?> primaries = getPrimaryNodes();
    if (via == null && primaries.isEmpty()) return;
    Connection conn = via != null ? via : getConnection();
    try {
      Object reply =
          conn.executeCommand(new CommandArguments(Protocol.Command.CLUSTER).add("SLOTS"));
      try (Topology t = Topology.parseClusterSlots(RespEncoder.encode(reply))) {
        router.update(t);
      }
    } finally {
      if (via == null) conn.close();
    }
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
