package io.cloudroute.jedis;

import io.cloudroute.Candidate;
import io.cloudroute.CloudRouteException;
import io.cloudroute.Role;
import io.cloudroute.Route;
import io.cloudroute.Router;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisAskDataException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisMovedDataException;

/**
 * The one "connection" a {@link CloudRoutePipeline} queues its single-slot commands on: it owns no
 * socket. {@link #sendCommand(CommandArguments)} records a command; {@link #getMany(int)} (called
 * by Jedis's sync) places each on the node the router picks — a read on the slot's best candidate
 * (a slot written earlier in this pipeline, or within the provider's read-your-writes window, on
 * its master), a write on the master — sends every node its commands, flushes them all, then reads
 * the replies node by node, so the round trips overlap without a thread per node. A MOVED is
 * reported to the router (which patches the slot at once) and retried there, an ASK retried once
 * with ASKING at its target, a connection error or timeout reported as the node's failure and the
 * node's commands retried (reads on their next candidate; writes on the master after the slot table
 * is renewed, as Jedis retries a command: a write whose connection broke may apply twice). A
 * replica's LOADING or MASTERDOWN moves a read to its next candidate; TRYAGAIN and CLUSTERDOWN (a
 * failover or a slot move under way) are retried after the same renewal and pause. Rounds are
 * bounded by the cluster's maxAttempts and maxTotalRetriesDuration; what still fails is a
 * JedisDataException in its place. Replies come back in the order queued.
 *
 * <p>Not thread-safe: one pipeline, one thread (as Jedis's pipelines).
 */
final class RoutedBatch extends Connection {
  // Connection.flush is protected: without it each node's batch would be flushed by its own
  // getMany, one round trip after the other. Null where the JVM refuses access (a module path):
  // the batches are then sent as they are read.
  private static final Method FLUSH = flushMethod();

  private final CloudRouteClusterProvider provider;
  private final Router router;
  private final int maxAttempts;
  private final long maxRetryNanos;
  private final List<Queued> queued = new ArrayList<>();
  // Slots written earlier in this pipeline: their later reads go to the master, after the write.
  private final BitSet written = new BitSet();

  private static Method flushMethod() {
    try {
      Method m = Connection.class.getDeclaredMethod("flush");
      m.setAccessible(true);
      return m;
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }

  /** A queued command and what became of it. */
  private static final class Queued {
    final CommandArguments args;
    final int slot;
    final boolean toMaster;
    HostAndPort ask; // an ASK's target: the next try sends ASKING there
    Object reply;
    boolean done;

    Queued(CommandArguments args, int slot, boolean toMaster) {
      this.args = args;
      this.slot = slot;
      this.toMaster = toMaster;
    }
  }

  /** The node of one round's commands and its connection. */
  private final class NodeBatch {
    final String host;
    final int port;
    final int handle; // -1: a node the router does not know (an ASK target before a refresh)
    boolean replica; // read as a replica: READONLY on its connection (harmless on a master)
    final List<Queued> commands = new ArrayList<>();
    Connection conn;
    int replies; // replies expected: the commands plus one per ASKING
    boolean refused; // LOADING / MASTERDOWN to a read: its next round goes to another node
    boolean waitAsked; // TRYAGAIN / CLUSTERDOWN (LOADING / MASTERDOWN to a master): pause first

    NodeBatch(String host, int port, int handle) {
      this.host = host;
      this.port = port;
      this.handle = handle;
    }

    /** Connects and writes every command; false (reported, connection closed) on failure. */
    boolean send() {
      try {
        conn = provider.connectionTo(host, port, replica);
        for (Queued q : commands) {
          if (q.ask != null) {
            conn.sendCommand(Protocol.Command.ASKING);
            replies++;
          }
          conn.sendCommand(q.args);
          replies++;
        }
        if (FLUSH != null) FLUSH.invoke(conn);
        return true;
      } catch (JedisException e) {
        failed(e);
      } catch (InvocationTargetException e) {
        Throwable cause = e.getCause();
        failed(
            cause instanceof JedisException
                ? (JedisException) cause
                : new JedisConnectionException(cause));
      } catch (IllegalAccessException e) {
        failed(new JedisConnectionException(e));
      }
      return false;
    }

    /** Reads the replies; false (reported, connection closed) on failure. */
    boolean read() {
      List<Object> got;
      try {
        got = conn.getMany(replies);
      } catch (JedisException e) {
        failed(e);
        return false;
      }
      CloudRouteClusterProvider.release(conn);
      if (handle >= 0) feedback(() -> router.reportSuccess(handle));
      int i = 0;
      for (Queued q : commands) {
        if (q.ask != null) i++; // ASKING's +OK
        Object r = got.get(i++);
        if (r instanceof JedisMovedDataException) {
          JedisMovedDataException m = (JedisMovedDataException) r;
          feedback(
              () ->
                  router.reportMoved(
                      m.getSlot(), m.getTargetNode().getHost(), m.getTargetNode().getPort()));
          q.ask = null;
          q.reply = r;
        } else if (r instanceof JedisAskDataException) {
          JedisAskDataException a = (JedisAskDataException) r;
          feedback(
              () ->
                  router.reportAsk(
                      a.getSlot(), a.getTargetNode().getHost(), a.getTargetNode().getPort()));
          q.ask = a.getTargetNode();
          q.reply = r;
        } else if (r instanceof JedisDataException && !q.toMaster && refusesReads(r)) {
          // A replica still loading, or cut from its master: the read moves on to the next
          // candidate, and the node counts as failed for the router as for this pipeline.
          q.reply = r;
          refused = true;
        } else if (r instanceof JedisDataException && asksToWait(r)) {
          // A cluster mid-failover or a slot mid-move (a master loading or cut off): the command
          // goes again after a pause, on the table as it then stands.
          q.reply = r;
          waitAsked = true;
        } else {
          q.reply = r;
          q.done = true;
        }
      }
      if (refused && handle >= 0) feedback(() -> router.reportFailure(handle));
      return true;
    }

    private void failed(JedisException e) {
      if (handle >= 0) feedback(() -> router.reportFailure(handle));
      if (conn != null) {
        if (!(e instanceof JedisDataException)) conn.setBroken();
        CloudRouteClusterProvider.release(conn);
      }
      JedisDataException error =
          new JedisDataException(host + ":" + port + ": " + e.getMessage(), e);
      for (Queued q : commands) q.reply = error;
    }
  }

  /**
   * Tells the router what happened. A report it refuses (a handle an update reclaimed meanwhile, a
   * redirect naming no usable address) changes no route and fails no command: the reply stands.
   */
  private static void feedback(Runnable report) {
    try {
      report.run();
    } catch (CloudRouteException refused) {
      // the router keeps what it knew
    }
  }

  RoutedBatch(CloudRouteClusterProvider provider, int maxAttempts, long maxRetryNanos) {
    super(
        () -> {
          throw new JedisConnectionException("a routed pipeline batch has no socket of its own");
        });
    this.provider = provider;
    this.router = provider.router();
    this.maxAttempts = Math.max(1, maxAttempts);
    this.maxRetryNanos = maxRetryNanos;
  }

  /** Queues a command whose keys are all in one slot (the pipeline only sends those here). */
  @Override
  public void sendCommand(CommandArguments args) {
    int slot = CloudRouteClusterProvider.slotOf(args.getKeys());
    boolean read = provider.isRead(args);
    boolean toMaster = !read || written.get(slot) || provider.writtenRecently(slot);
    if (!read) {
      written.set(slot);
      provider.noteWrite(slot);
    }
    queued.add(new Queued(args, slot, toMaster));
  }

  @Override
  public List<Object> getMany(int count) {
    if (count != queued.size()) {
      throw new IllegalStateException(
          "pipeline asked for " + count + " replies of " + queued.size() + " routed commands");
    }
    try {
      return run();
    } finally {
      queued.clear();
      written.clear();
    }
  }

  private List<Object> run() {
    long deadline = System.nanoTime() + maxRetryNanos;
    Set<Integer> failedNodes = new HashSet<>();
    for (int attempt = 1; ; attempt++) {
      // One connection per node, taken in address order: pipelines on other threads take theirs
      // in the same order, so none holds one node's connection while waiting for another's that a
      // second pipeline holds (Jedis's pools block when a node's connections are all taken).
      Map<String, NodeBatch> batches = new TreeMap<>();
      for (Queued q : queued) {
        if (!q.done) place(q, failedNodes, batches);
      }
      if (batches.isEmpty()) break;
      List<NodeBatch> sent = new ArrayList<>(batches.size());
      for (NodeBatch b : batches.values()) {
        if (b.send()) {
          sent.add(b);
        } else if (b.handle >= 0) {
          failedNodes.add(b.handle);
        }
      }
      boolean masterFailed = sent.size() < batches.size() && anyMasterFailed(batches, sent);
      boolean waitAsked = false;
      for (NodeBatch b : sent) {
        if (!b.read()) {
          if (b.handle >= 0) failedNodes.add(b.handle);
          masterFailed |= !b.replica;
        } else {
          if (b.refused && b.handle >= 0) failedNodes.add(b.handle);
          waitAsked |= b.waitAsked;
        }
      }
      if (attempt >= maxAttempts || System.nanoTime() >= deadline) break;
      boolean pending = false;
      for (Queued q : queued) pending |= !q.done;
      if (!pending) break;
      if (masterFailed || waitAsked) {
        // A master that cannot be reached, or a server asking to wait: perhaps failing over.
        // Renew the slot table (and the router's topology) and wait a share of the retry budget
        // left, as Jedis does after a connection failure.
        try {
          provider.renewSlotCache();
        } catch (JedisException renewFailed) {
          // no node answered now: the next round tries again
        }
        int left = maxAttempts - attempt;
        long wait = (deadline - System.nanoTime()) / ((long) left * (left + 1));
        if (wait > 0) LockSupport.parkNanos(Math.min(wait, TimeUnit.SECONDS.toNanos(1)));
      }
    }
    if (router.isRefreshNeeded()) {
      try {
        provider.renewSlotCache();
      } catch (JedisException renewFailed) {
        // the router keeps the MOVED patches; the next MOVED asks again
      }
    }
    Object[] out = new Object[queued.size()];
    for (int i = 0; i < out.length; i++) out[i] = queued.get(i).reply;
    return Arrays.asList(out);
  }

  /** An error reply's first word, as the server sends it ("TRYAGAIN", "LOADING", ...). */
  private static String errorPrefix(Object reply) {
    String m = ((JedisDataException) reply).getMessage();
    if (m == null) return "";
    int space = m.indexOf(' ');
    return space < 0 ? m : m.substring(0, space);
  }

  /** LOADING / MASTERDOWN: the node cannot serve a read yet (the C engine's rule as well). */
  private static boolean refusesReads(Object reply) {
    String prefix = errorPrefix(reply);
    return prefix.equals("LOADING") || prefix.equals("MASTERDOWN");
  }

  /** TRYAGAIN / CLUSTERDOWN, and LOADING / MASTERDOWN from a master: retried after a pause. */
  private static boolean asksToWait(Object reply) {
    String prefix = errorPrefix(reply);
    return prefix.equals("TRYAGAIN") || prefix.equals("CLUSTERDOWN") || refusesReads(reply);
  }

  private static boolean anyMasterFailed(Map<String, NodeBatch> batches, List<NodeBatch> sent) {
    for (NodeBatch b : batches.values()) {
      if (!b.replica && !sent.contains(b)) return true;
    }
    return false;
  }

  /** Where a command goes this round. */
  private static final class Target {
    final String host;
    final int port;
    final int handle;
    final boolean replica;

    Target(String host, int port, int handle, boolean replica) {
      this.host = host;
      this.port = port;
      this.handle = handle;
      this.replica = replica;
    }

    static Target of(Route r) {
      return new Target(r.host(), r.port(), r.nodeHandle(), r.role() == Role.REPLICA);
    }

    static Target of(Candidate c) {
      return new Target(c.host(), c.port(), c.nodeHandle(), c.role() == Role.REPLICA);
    }
  }

  /** Adds q to the batch of the node it goes to this round. */
  private void place(Queued q, Set<Integer> failedNodes, Map<String, NodeBatch> batches) {
    Target t;
    if (q.ask != null) {
      t = unrouted(q.ask);
    } else {
      try {
        t = q.toMaster ? Target.of(router.routeWriteSlot(q.slot)) : readTarget(q.slot, failedNodes);
      } catch (CloudRouteException e) {
        // No topology, an uncovered slot: Jedis's own slot table decides.
        HostAndPort master = provider.getNode(q.slot);
        if (master == null) {
          q.reply = new JedisDataException("no node serves slot " + q.slot + ": " + e.getMessage());
          q.done = true;
          return;
        }
        t = unrouted(master);
      }
    }
    Target target = t;
    NodeBatch b =
        batches.computeIfAbsent(
            target.host + ":" + target.port,
            k -> new NodeBatch(target.host, target.port, target.handle));
    b.replica |= target.replica;
    b.commands.add(q);
  }

  /** A master named by a redirect or by Jedis's slot table. */
  private Target unrouted(HostAndPort node) {
    OptionalInt h = router.findNode(node.getHost(), node.getPort());
    return new Target(node.getHost(), node.getPort(), h.isPresent() ? h.getAsInt() : -1, false);
  }

  /**
   * The router's pick for a read of slot; when this pipeline already failed on that node, the first
   * candidate (rank order) it did not fail on; the master when none is left.
   */
  private Target readTarget(int slot, Set<Integer> failedNodes) {
    Route r = router.routeReadSlot(slot);
    if (!failedNodes.contains(r.nodeHandle())) return Target.of(r);
    for (Candidate c : router.candidatesSlot(slot)) {
      if (!c.down() && !failedNodes.contains(c.nodeHandle())) return Target.of(c);
    }
    return Target.of(router.routeWriteSlot(slot));
  }

  @Override
  public void close() {
    queued.clear();
    written.clear();
  }
}
