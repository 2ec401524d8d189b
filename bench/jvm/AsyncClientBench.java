// Asynchronous single-key GETs at a fixed number in flight: the JVM binding's Client.getAsync
// (CompletableFuture on cr_client_submit) against Lettuce's async API, on the same cluster.
// Run by bench/jvm_async_bench.sh with the JDK's source launcher (classpath: bench/jvm/pom.xml):
//   java -cp CP bench/jvm/AsyncClientBench.java --seeds HOST:PORT,... --client cloudroute|lettuce
//        [--in-flight 64] [--seconds 10] [--warmup 3] [--keys 1000]
// A closed loop: each of --in-flight lanes sends its next GET when the last one completed (in the
// completion's stage: cloudroute's executor thread, Lettuce's event loop thread). Prints one line:
//   ASYNC_BENCH client=… in_flight=64 req_s=… p50_us=… p99_us=… cpu_us_per_req=… errors=0 wrong=0
// (cpu: the whole JVM's process CPU time over the measured seconds, divided by the requests).
import io.cloudroute.Client;
import io.cloudroute.ClientOptions;
import io.cloudroute.Config;
import io.cloudroute.Policy;
import io.lettuce.core.ReadFrom;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

public final class AsyncClientBench {
  private static final int MAX_SAMPLES = 1 << 22;

  public static void main(String[] argv) throws Exception {
    String seeds = null;
    String which = null;
    int inFlight = 64;
    int seconds = 10;
    int warmup = 3;
    int keyCount = 1000;
    for (int i = 0; i + 1 < argv.length; i += 2) {
      switch (argv[i]) {
        case "--seeds" -> seeds = argv[i + 1];
        case "--client" -> which = argv[i + 1];
        case "--in-flight" -> inFlight = Integer.parseInt(argv[i + 1]);
        case "--seconds" -> seconds = Integer.parseInt(argv[i + 1]);
        case "--warmup" -> warmup = Integer.parseInt(argv[i + 1]);
        case "--keys" -> keyCount = Integer.parseInt(argv[i + 1]);
        default -> throw new IllegalArgumentException("unknown option " + argv[i]);
      }
    }
    if (seeds == null || which == null) {
      throw new IllegalArgumentException("--seeds and --client (cloudroute|lettuce) are required");
    }
    String[] keys = new String[keyCount];
    String[] values = new String[keyCount];
    for (int i = 0; i < keyCount; i++) {
      keys[i] = "bench:async:" + i;
      values[i] = "value-" + i;
    }
    try (Config config =
            new Config()
                .clientLocation("cloud-a/r1/z1")
                .localCidr("127.0.1.0/24")
                .locationRule("127.0.2.0/24", "cloud-b")
                .policy(Policy.LOCAL_REPLICAS_FIRST);
        Client loader = Client.connect(seeds, config, new ClientOptions())) {
      for (int i = 0; i < keyCount; i++) loader.set(keys[i], values[i]);
      // The replicas hold every value before a read may go there.
      for (int i = 0; i < keyCount; i++) {
        while (!values[i].equals(loader.get(keys[i]))) Thread.onSpinWait();
      }
      if (which.equals("cloudroute")) {
        try (Client c = Client.connect(seeds, config, new ClientOptions())) {
          run(which, inFlight, seconds, warmup, keys, values, c::getAsync);
        }
      } else if (which.equals("lettuce")) {
        List<RedisURI> uris = new ArrayList<>();
        for (String s : seeds.split(",")) {
          int colon = s.lastIndexOf(':');
          uris.add(RedisURI.create(s.substring(0, colon), Integer.parseInt(s.substring(colon + 1))));
        }
        RedisClusterClient lettuce = RedisClusterClient.create(uris);
        try (StatefulRedisClusterConnection<String, String> conn = lettuce.connect()) {
          conn.setReadFrom(ReadFrom.UPSTREAM); // Lettuce's default, said outright
          run(which, inFlight, seconds, warmup, keys, values, k -> conn.async().get(k));
        } finally {
          lettuce.shutdown();
        }
      } else {
        throw new IllegalArgumentException("--client is cloudroute or lettuce, not " + which);
      }
    }
  }

  /** The closed loop of inFlight lanes over get; prints the ASYNC_BENCH line. */
  private static void run(
      String which,
      int inFlight,
      int seconds,
      int warmup,
      String[] keys,
      String[] values,
      Function<String, CompletionStage<String>> get)
      throws Exception {
    Loop loop = new Loop(keys, values, get);
    long start = System.nanoTime();
    loop.measureFrom = start + TimeUnit.SECONDS.toNanos(warmup);
    loop.deadline = loop.measureFrom + TimeUnit.SECONDS.toNanos(seconds);
    loop.lanes = new CountDownLatch(inFlight);
    for (int i = 0; i < inFlight; i++) loop.next(i);
    long sleepMs = TimeUnit.NANOSECONDS.toMillis(loop.measureFrom - System.nanoTime());
    if (sleepMs > 0) Thread.sleep(sleepMs);
    long cpu0 = cpuNanos();
    if (!loop.lanes.await(seconds + warmup + 30L, TimeUnit.SECONDS)) {
      throw new IllegalStateException("lanes did not finish within the bound");
    }
    long cpu = cpuNanos() - cpu0;
    int n = Math.min(loop.count.get(), MAX_SAMPLES);
    int[] us = Arrays.copyOf(loop.samples, n);
    Arrays.sort(us);
    long done = loop.count.get();
    System.out.printf(
        "ASYNC_BENCH client=%s in_flight=%d req_s=%.0f p50_us=%d p99_us=%d cpu_us_per_req=%.1f"
            + " errors=%d wrong=%d%n",
        which,
        inFlight,
        done / (double) seconds,
        n == 0 ? 0 : us[n / 2],
        n == 0 ? 0 : us[(int) (n * 0.99)],
        done == 0 ? 0.0 : cpu / 1000.0 / done,
        loop.errors.get(),
        loop.wrong.get());
  }

  private static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private static final class Loop {
    final String[] keys;
    final String[] values;
    final Function<String, CompletionStage<String>> get;
    final int[] samples = new int[MAX_SAMPLES];
    final AtomicInteger count = new AtomicInteger();
    final AtomicLong errors = new AtomicLong();
    final AtomicLong wrong = new AtomicLong();
    /** A lane whose GET completed inline, many deep, continues here (a bounded stack). */
    final Executor bounce = Executors.newSingleThreadExecutor(r -> daemon(r));

    final ThreadLocal<int[]> depth = ThreadLocal.withInitial(() -> new int[1]);
    volatile long measureFrom;
    volatile long deadline;
    CountDownLatch lanes;

    Loop(String[] keys, String[] values, Function<String, CompletionStage<String>> get) {
      this.keys = keys;
      this.values = values;
      this.get = get;
    }

    private static Thread daemon(Runnable r) {
      Thread t = new Thread(r, "bench-bounce");
      t.setDaemon(true);
      return t;
    }

    void next(int lane) {
      long t0 = System.nanoTime();
      if (t0 >= deadline) {
        lanes.countDown();
        return;
      }
      int k = (int) Math.floorMod(t0 * 31 + lane * 0x9E3779B97F4A7C15L, (long) keys.length);
      get.apply(keys[k])
          .whenComplete(
              (v, e) -> {
                long t1 = System.nanoTime();
                if (t0 >= measureFrom && t1 <= deadline) {
                  int i = count.getAndIncrement();
                  if (i < MAX_SAMPLES) samples[i] = (int) ((t1 - t0) / 1000);
                  if (e != null) errors.incrementAndGet();
                  else if (!values[k].equals(v)) wrong.incrementAndGet();
                }
                int[] d = depth.get();
                if (d[0] > 64) {
                  bounce.execute(() -> next(lane));
                  return;
                }
                d[0]++;
                try {
                  next(lane);
                } finally {
                  d[0]--;
                }
              });
    }
  }
}
