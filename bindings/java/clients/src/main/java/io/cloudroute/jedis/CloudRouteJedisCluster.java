package io.cloudroute.jedis;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import redis.clients.jedis.ClusterCommandObjects;
import redis.clients.jedis.ClusterPipeline;
import redis.clients.jedis.JedisCluster;

/**
 * A {@link JedisCluster} on a {@link CloudRouteClusterProvider} whose {@link #pipelined()} is a
 * {@link CloudRoutePipeline}: the pipeline's reads go where libcloudroute picks (cloud-local
 * replicas first), MOVED and ASK are followed, a failed read moves to its next candidate, and an
 * MGET over several slots is fanned out per node. Single commands are routed by the provider as in
 * a plain JedisCluster built on it. Thread-safe as JedisCluster (each pipeline is one thread's).
 */
public class CloudRouteJedisCluster extends JedisCluster {
  private final CloudRouteClusterProvider routing;
  private final int maxAttempts;
  private final long maxRetryNanos;

  /**
   * @param provider the provider (closed with this cluster)
   * @param maxAttempts tries of a command, and rounds of a pipeline's sync (at least 1)
   * @param maxTotalRetriesDuration the time a command's retries, or a sync's rounds, may take
   */
  public CloudRouteJedisCluster(
      CloudRouteClusterProvider provider, int maxAttempts, Duration maxTotalRetriesDuration) {
    super(provider, maxAttempts, maxTotalRetriesDuration);
    this.routing = provider;
    this.maxAttempts = maxAttempts;
    this.maxRetryNanos = maxTotalRetriesDuration.toNanos();
  }

  /** The provider this cluster routes with (its router: candidates, explain). */
  public CloudRouteClusterProvider provider() {
    return routing;
  }

  /**
   * A {@link CloudRoutePipeline}. Declared as Jedis declares it (ClusterPipeline): a narrower
   * return type would make the compiler add a bridge method naming the pipeline base class of the
   * Jedis it was built against (PipelineBase in Jedis 5 and 6, AbstractPipeline in 7 and 8), and
   * this class would not load with the others.
   */
  @Override
  public ClusterPipeline pipelined() {
    return new CloudRoutePipeline(
        routing, (ClusterCommandObjects) commandObjects, maxAttempts, maxRetryNanos);
  }

  /**
   * Jedis 8's overload (a plain method on Jedis 5 to 7), so that it routes too: the same pipeline
   * as {@link #pipelined()}. The executor is not used: the routed commands share one queue, whose
   * nodes' round trips overlap without threads (Jedis 6 and later sync one queue on the calling
   * thread).
   */
  public ClusterPipeline pipelined(ExecutorService executor) {
    return pipelined();
  }
}
