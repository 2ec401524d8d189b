package io.cloudroute.bench.e2e;

import io.cloudroute.Client;
import io.cloudroute.CloudRoute;
import io.cloudroute.Config;
import io.cloudroute.Policy;
import io.cloudroute.jedis.CloudRouteClusterProvider;
import io.cloudroute.jedis.CloudRouteJedisCluster;
import io.cloudroute.lettuce.CloudRouteReadFrom;
import glide.api.GlideClusterClient;
import glide.api.models.configuration.GlideClusterClientConfiguration;
import glide.api.models.configuration.NodeAddress;
import io.lettuce.core.KeyValue;
import io.lettuce.core.ReadFrom;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions.RefreshTrigger;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import redis.clients.jedis.ClusterPipeline;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.Response;

/**
 * The JVM clients of the peer benchmark, each with its natural "read N keys over all shards"
 * (the JVM counterpart of bench/e2e/clients.py). Every client object is shared by the driver's
 * threads. Locality given: cloudroute gets the client location, what the two zone names mean and
 * the CIDR of each cloud (as clients.py's cr_config); plain Jedis and Lettuce know no zones;
 * GLIDE is given the client's zone and learns the nodes' from the servers.
 * Timeouts: 1 s per command for Jedis and Lettuce (Lettuce's default is 60 s, Jedis's 2 s; 1 s is
 * what the Python driver gives redis-py), the library defaults for cloudroute.
 */
final class JvmClients {
  /** One fan-out read: the values of keys, in order (null for a missing key). */
  interface Reader extends AutoCloseable {
    List<?> read(List<String> keys) throws Exception;

    @Override
    void close();
  }

  static final Map<String, String> CLIENTS = new LinkedHashMap<>();

  static {
    CLIENTS.put("jedis-pipe", "Jedis 7.1.0 JedisCluster (primaries only), cluster pipeline of GETs");
    CLIENTS.put("jedis-slot-mget", "Jedis 7.1.0 JedisCluster (primaries only), one MGET per slot");
    CLIENTS.put("jedis-cr", "Jedis 7.1.0 + CloudRouteClusterProvider policy=local, one MGET per slot");
    CLIENTS.put("jedis-cr-pipe",
        "Jedis 7.1.0 CloudRouteJedisCluster policy=local, its routed pipeline of GETs");
    CLIENTS.put("lettuce-primary", "Lettuce 7.0.0 ReadFrom.UPSTREAM (default), async mget");
    CLIENTS.put("lettuce-lowest-latency", "Lettuce 7.0.0 ReadFrom.LOWEST_LATENCY, async mget");
    CLIENTS.put(
        "lettuce-replica-preferred", "Lettuce 7.0.0 ReadFrom.REPLICA_PREFERRED, async mget");
    CLIENTS.put("lettuce-cr", "Lettuce 7.0.0 + CloudRouteReadFrom policy=local (live view), async mget");
    CLIENTS.put("glide-java-az",
        "Valkey GLIDE Java 2.2.0, ReadFrom.AZ_AFFINITY + clientAZ (the client's zone), mget");
    CLIENTS.put("glide-java-az-rp",
        "Valkey GLIDE Java 2.2.0, ReadFrom.AZ_AFFINITY_REPLICAS_AND_PRIMARY + clientAZ, mget");
    CLIENTS.put("crjava-local", "cloudroute Java Client (JNI) policy=local, mget");
  }

  private static final int TIMEOUT_MS = 1000;

  private JvmClients() {}

  static Config crConfig(Map<String, String> env, Policy policy) {
    String locA = "cloud-a/region-a/" + env.get("ZONE_A");
    String locB = "cloud-b/region-b/" + env.get("ZONE_B");
    return new Config().clientLocation(locA).zone(env.get("ZONE_A"), locA)
        .zone(env.get("ZONE_B"), locB).locationRule(env.get("CLIENT_CIDR_A"), locA)
        .locationRule(env.get("PROXY_CIDR_B"), locB).policy(policy);
  }

  private static HostAndPort seed(Map<String, String> env) {
    String[] hp = env.get("CLOUD_A_NODES").split(",")[0].split(":");
    return new HostAndPort(hp[0], Integer.parseInt(hp[1]));
  }

  static Reader make(String name, Map<String, String> env) {
    switch (name) {
      case "jedis-pipe":
        return jedisPipeline(new JedisCluster(Set.of(seed(env)), jedisConfig()));
      case "jedis-slot-mget":
        return jedisSlotMget(new JedisCluster(Set.of(seed(env)), jedisConfig()));
      case "jedis-cr-pipe":
        try (Config c = crConfig(env, Policy.LOCAL)) {
          CloudRouteClusterProvider p =
              new CloudRouteClusterProvider(Set.of(seed(env)), jedisConfig(), c);
          return jedisPipeline(new CloudRouteJedisCluster(p, 5, Duration.ofSeconds(10)));
        }
      case "jedis-cr":
        try (Config c = crConfig(env, Policy.LOCAL)) {
          CloudRouteClusterProvider p =
              new CloudRouteClusterProvider(Set.of(seed(env)), jedisConfig(), c);
          return jedisSlotMget(new JedisCluster(p, 5, Duration.ofSeconds(10)));
        }
      case "lettuce-primary":
        return lettuce(env, client -> ReadFrom.UPSTREAM, () -> {});
      case "lettuce-lowest-latency":
        return lettuce(env, client -> ReadFrom.LOWEST_LATENCY, () -> {});
      case "lettuce-replica-preferred":
        return lettuce(env, client -> ReadFrom.REPLICA_PREFERRED, () -> {});
      case "lettuce-cr":
        try (Config c = crConfig(env, Policy.LOCAL)) {
          CloudRouteReadFrom rf = CloudRouteReadFrom.connect(env.get("CLOUD_A_NODES"), c);
          return lettuce(env, rf::attach, rf::close);
        }
      case "glide-java-az":
        return glide(env, glide.api.models.configuration.ReadFrom.AZ_AFFINITY);
      case "glide-java-az-rp":
        return glide(env, glide.api.models.configuration.ReadFrom.AZ_AFFINITY_REPLICAS_AND_PRIMARY);
      case "crjava-local":
        try (Config c = crConfig(env, Policy.LOCAL)) {
          Client client = Client.connect(env.get("CLOUD_A_NODES"), c);
          return reader(keys -> client.mget(keys.toArray()), client::close);
        }
      default:
        throw new IllegalArgumentException(
            "unknown client " + name + "; known: " + String.join(", ", CLIENTS.keySet()));
    }
  }

  private interface ReadFn {
    List<?> read(List<String> keys) throws Exception;
  }

  private static Reader reader(ReadFn fn, Runnable closer) {
    return new Reader() {
      @Override
      public List<?> read(List<String> keys) throws Exception {
        return fn.read(keys);
      }

      @Override
      public void close() {
        closer.run();
      }
    };
  }

  private static JedisClientConfig jedisConfig() {
    return DefaultJedisClientConfig.builder().socketTimeoutMillis(TIMEOUT_MS)
        .connectionTimeoutMillis(TIMEOUT_MS).build();
  }

  /**
   * N GETs in one cluster pipeline: Jedis's sends each node its GETs, always to primaries; a
   * CloudRouteJedisCluster's (jedis-cr-pipe) sends each GET where libcloudroute picks.
   */
  private static Reader jedisPipeline(JedisCluster jc) {
    return reader(keys -> {
      List<Response<String>> rs = new ArrayList<>(keys.size());
      try (ClusterPipeline p = jc.pipelined()) {
        for (String k : keys) rs.add(p.get(k));
        p.sync();
      }
      List<String> out = new ArrayList<>(rs.size());
      for (Response<String> r : rs) out.add(r.get());
      return out;
    }, jc::close);
  }

  /**
   * One MGET per slot, one after the other: the way a JedisCluster reads keys of many slots
   * through the command interface (a multi-slot MGET is refused); the cloudroute provider routes
   * exactly these single-slot reads (pipelines stay Jedis's, on primaries).
   */
  private static Reader jedisSlotMget(JedisCluster jc) {
    return reader(keys -> {
      Map<Integer, List<Integer>> bySlot = new LinkedHashMap<>();
      for (int i = 0; i < keys.size(); i++) {
        bySlot.computeIfAbsent(CloudRoute.keyslot(keys.get(i)), s -> new ArrayList<>()).add(i);
      }
      String[] out = new String[keys.size()];
      for (List<Integer> idx : bySlot.values()) {
        String[] ks = new String[idx.size()];
        for (int j = 0; j < ks.length; j++) ks[j] = keys.get(idx.get(j));
        List<String> vs = jc.mget(ks);
        for (int j = 0; j < ks.length; j++) out[idx.get(j)] = vs.get(j);
      }
      return Arrays.asList(out);
    }, jc::close);
  }

  /**
   * Valkey GLIDE's Java cluster client in an AZ mode: it learns each node's zone from the
   * servers (every node of the bench's cluster has availability-zone set) and reads in the zone
   * clientAZ names, as the Python driver's glide-az clients do. Its mget splits the keys by slot
   * in its Rust core. 1 s per request, as the others get.
   */
  private static Reader glide(Map<String, String> env, glide.api.models.configuration.ReadFrom rf) {
    HostAndPort s = seed(env);
    GlideClusterClient client;
    try {
      client = GlideClusterClient.createClient(GlideClusterClientConfiguration.builder()
              .address(NodeAddress.builder().host(s.getHost()).port(s.getPort()).build())
              .readFrom(rf).clientAZ(env.get("ZONE_A")).requestTimeout(TIMEOUT_MS).build())
          .get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("GLIDE could not connect to " + s, e);
    }
    return reader(keys -> Arrays.asList(client.mget(keys.toArray(new String[0]))
        .get(2L * TIMEOUT_MS, TimeUnit.MILLISECONDS)), () -> {
      try {
        client.close();
      } catch (Exception e) {
        throw new IllegalStateException("GLIDE's close failed", e);
      }
    });
  }

  /**
   * Lettuce's cluster connection: its mget splits the keys by slot and sends the per-slot MGETs
   * at once, each to the node the ReadFrom picks. Adaptive topology refresh on, as
   * bindings/java/README.md advises for following a failover (the trigger options are deprecated
   * in Lettuce 7 but still how it follows one).
   */
  @SuppressWarnings("deprecation")
  private static Reader lettuce(
      Map<String, String> env, Function<RedisClusterClient, ReadFrom> readFrom, Runnable after) {
    HostAndPort s = seed(env);
    RedisClusterClient client = RedisClusterClient.create(RedisURI.Builder
        .redis(s.getHost(), s.getPort()).withTimeout(Duration.ofMillis(TIMEOUT_MS)).build());
    client.setOptions(ClusterClientOptions.builder()
        .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
            .enableAdaptiveRefreshTrigger(RefreshTrigger.values())
            .adaptiveRefreshTriggersTimeout(Duration.ofSeconds(1))
            .build())
        .build());
    StatefulRedisClusterConnection<String, String> conn = client.connect();
    conn.setReadFrom(readFrom.apply(client));
    return reader(keys -> {
      List<KeyValue<String, String>> kvs =
          conn.async().mget(keys.toArray(new String[0])).get(2L * TIMEOUT_MS, TimeUnit.MILLISECONDS);
      List<String> out = new ArrayList<>(kvs.size());
      for (KeyValue<String, String> kv : kvs) out.add(kv.hasValue() ? kv.getValue() : null);
      return out;
    }, () -> {
      conn.close();
      client.shutdown();
      after.run();
    });
  }
}
