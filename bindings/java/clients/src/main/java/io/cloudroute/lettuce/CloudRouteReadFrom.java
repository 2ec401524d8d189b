package io.cloudroute.lettuce;

import io.cloudroute.Candidate;
import io.cloudroute.Client;
import io.cloudroute.ClientOptions;
import io.cloudroute.CloudRouteException;
import io.cloudroute.Config;
import io.cloudroute.Policy;
import io.cloudroute.Router;
import io.lettuce.core.ReadFrom;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.event.ClusterTopologyChangedEvent;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.event.Event;
import io.lettuce.core.event.connection.ConnectionActivatedEvent;
import io.lettuce.core.event.connection.ConnectionEvent;
import io.lettuce.core.event.connection.ReconnectFailedEvent;
import io.lettuce.core.models.role.RedisNodeDescription;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import reactor.core.Disposable;

/**
 * A Lettuce {@link ReadFrom} that orders a slot's nodes (its master and replicas) by
 * libcloudroute's live view of the cluster: a live {@link Client} discovers the topology (CLUSTER
 * SHARDS with the zones the servers report), measures round trips and marks failed nodes, and its
 * router ranks each shard's candidates for the {@link Config}'s locality and policy. {@code
 * connection.setReadFrom(readFrom)} is the whole change for a connection; {@link
 * #attach(RedisClusterClient)} also feeds Lettuce's connection events (a reconnect that failed, a
 * connection up again, a topology change) to that view and makes Lettuce re-ask this ReadFrom when
 * the view changed its order.
 *
 * <p>Lettuce asks a ReadFrom once per slot and remembers the answer until its partitions are
 * refreshed; it then reads from the first open connection of an order-sensitive answer, or from a
 * random open one of an order-insensitive answer. So for a spreading read policy ({@link
 * Policy#LOCAL_SPREAD}, or {@link #spreading(boolean) spreading(true)} for weights or round-robin
 * selection) this ReadFrom is order-insensitive and answers the best rank's nodes that are up, each
 * repeated in proportion to its weight, so Lettuce spreads the reads as libcloudroute would; for
 * every other policy it is order-sensitive and answers the ranked candidates (nodes marked down
 * last), so Lettuce reads the best one that is up. Nodes the policy excludes (the master, for
 * {@link Policy#REPLICA_ONLY}) are left out. Cluster connections only: for other node sets (a
 * master/replica connection) Lettuce's order is returned unchanged.
 *
 * <p>Nodes are matched by address: Lettuce's URIs must name nodes as the cluster announces them
 * (the IP or host name CLUSTER SHARDS gives). Thread-safe. {@link #close()} stops the view's
 * thread, the event subscriptions and a client this ReadFrom opened.
 */
public final class CloudRouteReadFrom extends ReadFrom implements AutoCloseable {
  /** How often the view is compared with the answers given (a change resets Lettuce's). */
  private static final long CHECK_NS = TimeUnit.MILLISECONDS.toNanos(200);

  /** At most one refresh of the view this often (asked by events and disagreements). */
  private static final long REFRESH_GAP_NS = TimeUnit.SECONDS.toNanos(1);

  /** How often every node is pinged, so that new nodes get a connection, a zone and an RTT. */
  private static final long DIAL_NS = TimeUnit.SECONDS.toNanos(30);

  /**
   * After a failed reconnect, Lettuce's partitions are refreshed this often for FAILED_FOR_NS, so
   * that Lettuce drops the node as soon as the cluster flags it failed (its node filter permitting)
   * and sends the commands queued on the node's connection again through the cluster's routing.
   */
  private static final long FAILED_REFRESH_NS = TimeUnit.MILLISECONDS.toNanos(500);

  private static final long FAILED_FOR_NS = TimeUnit.SECONDS.toNanos(10);

  /** At most this many entries in a spreading answer (weights are scaled down to fit). */
  private static final int MAX_SPREAD = 64;

  private final Client client;
  private final boolean ownsClient;
  private final Router router;
  private volatile boolean spread;
  private final Map<String, Answer> answers = new ConcurrentHashMap<>();
  private final List<RedisClusterClient> attached = new CopyOnWriteArrayList<>();
  private final List<Disposable> subscriptions = new CopyOnWriteArrayList<>();
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition wake = lock.newCondition();
  private boolean refreshWanted; // guarded by lock
  private boolean checkWanted; // guarded by lock
  private volatile boolean closed;
  private volatile long failedUntil = System.nanoTime(); // refresh Lettuce's partitions until
  private final Thread watcher;

  /** One answer given to Lettuce: the node set it asked about and what it got. */
  private static final class Answer {
    final List<RedisNodeDescription> nodes;
    final int slot;
    final List<RedisNodeDescription> ordered;

    Answer(List<RedisNodeDescription> nodes, int slot, List<RedisNodeDescription> ordered) {
      this.nodes = nodes;
      this.slot = slot;
      this.ordered = ordered;
    }
  }

  private CloudRouteReadFrom(Client client, boolean ownsClient, Policy policy) {
    this.client = client;
    this.ownsClient = ownsClient;
    this.router = client.router();
    this.spread = policy == Policy.LOCAL_SPREAD;
    watcher = new Thread(this::watch, "cloudroute-readfrom");
    watcher.setDaemon(true);
    watcher.start();
  }

  /**
   * Connects a live {@link Client} to the cluster through seeds ("host:port[,host:port...]") with
   * config (locality, policy, weights, breaker; copied) and default client options; close the
   * ReadFrom to close it. Throws the client's {@link CloudRouteException} when no seed answers.
   */
  public static CloudRouteReadFrom connect(String seeds, Config config) {
    return connect(seeds, config, new ClientOptions());
  }

  /** As {@link #connect(String, Config)}, with the live client's options (refresh interval ...). */
  public static CloudRouteReadFrom connect(String seeds, Config config, ClientOptions options) {
    Client c = Client.connect(seeds, config, options);
    try {
      return new CloudRouteReadFrom(c, true, config == null ? Policy.LOCAL : config.policy());
    } catch (RuntimeException | Error e) {
      c.close();
      throw e;
    }
  }

  /**
   * A ReadFrom on the live view of a client the application already has, connected to the same
   * cluster; policy is the one the client's config set (the client ranks by it; here it decides
   * whether answers spread). Closing the ReadFrom leaves the client open.
   */
  public static CloudRouteReadFrom of(Client client, Policy policy) {
    if (client == null || policy == null) throw new IllegalArgumentException("null argument");
    return new CloudRouteReadFrom(client, false, policy);
  }

  /**
   * Whether answers spread (order-insensitive: the best rank's nodes, by weight) or rank
   * (order-sensitive). The default is to spread for {@link Policy#LOCAL_SPREAD} only; set it for
   * weights among equal-rank nodes or round-robin selection under another policy. Set it before the
   * ReadFrom is given to a connection.
   */
  public CloudRouteReadFrom spreading(boolean on) {
    spread = on;
    answers.clear();
    return this;
  }

  /**
   * Feeds lettuce's connection events to the live view — a failed reconnect marks its node failed,
   * a connection (re)activated marks it up, a topology change refreshes the view — and, whenever
   * the view changes an answer this ReadFrom gave, refreshes lettuce's partitions so that its
   * connections ask again. After a failed reconnect it also refreshes them twice a second for 10 s:
   * with a node filter that leaves out the nodes the cluster flags failed, Lettuce then drops the
   * dead node as soon as the cluster flags it, and sends the commands queued on its connection
   * again through the cluster's routing (before they time out). Returns this.
   */
  public CloudRouteReadFrom attach(RedisClusterClient lettuce) {
    if (lettuce == null) throw new IllegalArgumentException("null client");
    attached.add(lettuce);
    subscriptions.add(lettuce.getResources().eventBus().get().subscribe(this::onEvent));
    return this;
  }

  /** The live client whose view ranks the nodes. */
  public Client client() {
    return client;
  }

  private void onEvent(Event e) {
    if (e instanceof ClusterTopologyChangedEvent) {
      signal(true);
    } else if (e instanceof ReconnectFailedEvent || e instanceof ConnectionActivatedEvent) {
      OptionalInt h = handle(((ConnectionEvent) e).remoteAddress());
      if (!h.isPresent()) return;
      try {
        if (e instanceof ReconnectFailedEvent) {
          failedUntil = System.nanoTime() + FAILED_FOR_NS;
          router.reportFailure(h.getAsInt());
        } else {
          router.reportSuccess(h.getAsInt());
        }
      } catch (CloudRouteException reclaimed) {
        return; // the node left the view since the look-up
      }
      signal(false);
    }
  }

  private OptionalInt handle(SocketAddress a) {
    if (!(a instanceof InetSocketAddress)) return OptionalInt.empty();
    InetSocketAddress i = (InetSocketAddress) a;
    return router.findNode(i.getHostString(), i.getPort());
  }

  private void signal(boolean refresh) {
    lock.lock();
    try {
      refreshWanted |= refresh;
      checkWanted = true;
      wake.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** The view's thread: refreshes when asked, pings every node now and then, checks answers. */
  private void watch() {
    long nextDial = System.nanoTime();
    long nextRefresh = nextDial;
    long nextLettuceRefresh = nextDial;
    while (!closed) {
      boolean refresh;
      lock.lock();
      try {
        if (!checkWanted) wake.awaitNanos(CHECK_NS);
        refresh = refreshWanted;
        refreshWanted = false;
        checkWanted = false;
      } catch (InterruptedException e) {
        return;
      } finally {
        lock.unlock();
      }
      if (closed) return;
      try {
        if (refresh && System.nanoTime() - nextRefresh < 0) {
          // At most one refresh per REFRESH_GAP_NS: this one waits its turn (no busy wait).
          lock.lock();
          try {
            refreshWanted = true;
          } finally {
            lock.unlock();
          }
        } else if (refresh) {
          nextRefresh = System.nanoTime() + REFRESH_GAP_NS;
          client.refresh();
        }
        if (System.nanoTime() - nextDial >= 0) {
          // A connection to every node: its zone is asked on connect, and its idle PINGs give
          // the RTT and notice a node that stopped answering.
          client.onAllNodes("PING");
          nextDial = System.nanoTime() + DIAL_NS;
        }
        long now = System.nanoTime();
        boolean failing = now - failedUntil < 0 && now - nextLettuceRefresh >= 0;
        if (changed()) {
          answers.clear();
          failing = true;
        }
        if (failing) {
          nextLettuceRefresh = now + FAILED_REFRESH_NS;
          for (RedisClusterClient c : attached) c.refreshPartitionsAsync();
        }
      } catch (RuntimeException e) {
        if (closed) return;
        // The view stays as it was (the client logs its own failures); the next round retries.
      }
    }
  }

  /** Whether the view now answers any remembered node set differently. */
  private boolean changed() {
    for (Answer a : answers.values()) {
      if (!a.ordered.equals(order(a.nodes, a.slot))) return true;
    }
    return false;
  }

  private static String address(RedisURI uri) {
    String h = uri.getHost();
    return (h.indexOf(':') >= 0 ? "[" + h + "]" : h) + ":" + uri.getPort();
  }

  @Override
  public List<RedisNodeDescription> select(Nodes nodes) {
    List<RedisNodeDescription> list = nodes.getNodes();
    RedisClusterNode master = null;
    StringBuilder key = new StringBuilder();
    for (RedisNodeDescription n : list) {
      if (n.getRole().isUpstream() && n instanceof RedisClusterNode) {
        master = (RedisClusterNode) n;
      }
      key.append(n.getRole().isUpstream() ? 'M' : 'R').append(address(n.getUri())).append(' ');
    }
    if (master == null || master.hasNoSlots()) return list; // no shard to rank: Lettuce's order
    Answer a = answers.get(key.toString());
    if (a == null) {
      List<RedisNodeDescription> copy = new ArrayList<>(list);
      int slot = master.getSlots().get(0);
      a = new Answer(copy, slot, order(copy, slot));
      answers.put(key.toString(), a);
    }
    return a.ordered;
  }

  /** Lettuce's nodes of slot, as the live view ranks them (see the class comment). */
  private List<RedisNodeDescription> order(List<RedisNodeDescription> nodes, int slot) {
    List<Candidate> ranked;
    try {
      ranked = router.candidatesSlot(slot);
    } catch (CloudRouteException noView) {
      signal(true); // no topology, or the slot uncovered in it: ask the cluster again
      return Collections.unmodifiableList(nodes);
    }
    Map<String, RedisNodeDescription> byAddress = new HashMap<>();
    for (RedisNodeDescription n : nodes) byAddress.put(address(n.getUri()), n);
    List<RedisNodeDescription> up = new ArrayList<>();
    List<RedisNodeDescription> down = new ArrayList<>();
    List<Candidate> best = new ArrayList<>();
    for (Candidate c : ranked) {
      RedisNodeDescription n = byAddress.get(c.address());
      if (n == null) continue;
      (c.down() ? down : up).add(n);
      if (!c.down() && (best.isEmpty() || best.get(0).rank() == c.rank())) best.add(c);
    }
    if (up.isEmpty() && down.isEmpty()) {
      signal(true); // the view and Lettuce disagree on this shard's nodes: ask the cluster again
      return Collections.unmodifiableList(nodes);
    }
    if (spread && best.size() > 1) return Collections.unmodifiableList(byWeight(best, byAddress));
    up.addAll(down);
    return Collections.unmodifiableList(up);
  }

  /** Each of the rank's nodes repeated weight / gcd times (scaled to MAX_SPREAD entries). */
  private static List<RedisNodeDescription> byWeight(
      List<Candidate> rank, Map<String, RedisNodeDescription> byAddress) {
    long total = 0;
    int gcd = 0;
    for (Candidate c : rank) {
      total += c.weight();
      gcd = gcd(gcd, c.weight());
    }
    List<RedisNodeDescription> out = new ArrayList<>();
    for (Candidate c : rank) {
      long times;
      if (total == 0) {
        times = 1; // every weight 0: last resorts all, chosen among evenly
      } else {
        long scaled = c.weight() / gcd;
        times =
            total / gcd <= MAX_SPREAD
                ? scaled
                : Math.round((double) c.weight() * MAX_SPREAD / total);
        if (c.weight() > 0 && times == 0) times = 1;
      }
      for (long i = 0; i < times; i++) out.add(byAddress.get(c.address()));
    }
    return out;
  }

  private static int gcd(int a, int b) {
    return b == 0 ? a : gcd(b, a % b);
  }

  @Override
  protected boolean isOrderSensitive() {
    return !spread;
  }

  /** Stops the view's thread and the event subscriptions; closes a client connect() opened. */
  @Override
  public void close() {
    closed = true;
    signal(false);
    for (Disposable d : subscriptions) d.dispose();
    subscriptions.clear();
    attached.clear();
    try {
      watcher.join(TimeUnit.SECONDS.toMillis(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (ownsClient) client.close();
  }

  @Override
  public String toString() {
    return "CloudRouteReadFrom(" + (spread ? "spreading" : "ranked") + ")";
  }
}
