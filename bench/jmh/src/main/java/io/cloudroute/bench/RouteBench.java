package io.cloudroute.bench;

import io.cloudroute.Config;
import io.cloudroute.Policy;
import io.cloudroute.Route;
import io.cloudroute.Router;
import io.cloudroute.Topology;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/** route_read through JNI: the key's slot, its shard's candidates, the weighted pick. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class RouteBench {
  private Router router;
  private final byte[] bytes = "user:123456".getBytes(StandardCharsets.UTF_8);

  @Setup
  public void setup() {
    StringBuilder text = new StringBuilder();
    for (int s = 0; s < 3; s++) {
      int from = s * 5462;
      int to = Math.min(16383, from + 5461);
      text.append("shard slots=").append(from).append('-').append(to).append(" master=10.0.")
          .append(s).append(".1:6379 replicas=10.1.").append(s).append(".2:6379,10.2.")
          .append(s).append(".3:6379\n");
    }
    try (Config c = new Config().clientLocation("aws/us-east-1/a").localCidr("10.1.0.0/16")
            .locationRule("10.2.0.0/16", "gcp/us-central1").policy(Policy.LOCAL_REPLICAS_FIRST);
        Topology t = Topology.parseStatic(text.toString())) {
      router = new Router(c, t);
    }
  }

  @TearDown
  public void close() {
    router.close();
  }

  @Benchmark
  public Route routeReadString() {
    return router.routeRead("user:123456");
  }

  @Benchmark
  public Route routeReadBytes() {
    return router.routeRead(bytes);
  }
}
