// Asynchronous requests at a fixed number in flight: the JVM binding's Client against Lettuce's
// async API, on the same cluster. Run by bench/jvm_async_bench.sh with the JDK's source launcher
// (classpath: bench/jvm/pom.xml):
//   java -cp CP bench/jvm/AsyncClientBench.java --seeds HOST:PORT,...
//        --client cloudroute|lettuce|lettuce-nearest [--workload get|seed] [--fanout 60]
//        [--in-flight 64] [--seconds 10] [--warmup 3] [--keys 1000] [--proxy-pids PID,...]
// Workloads (a request is what one lane waits for):
//   get   one GET (cloudroute: Client.getAsync; Lettuce: async().get)
//   seed  --fanout GETs of distinct keys, as many of each shard (the cluster's CLUSTER SLOTS
//         masters) as the fan-out divides evenly: cloudroute queues them on one Pipeline and
//         runs executeAsync(); Lettuce sends each through async().get and waits for all of them
//         with CompletableFuture.allOf. Done when every reply is in.
// Clients: cloudroute reads local replicas first (Config below: 127.0.1.0/24 is its zone,
// 127.0.2.0/24 and 127.0.3.0/24 — bench/e2e/cluster.sh's latency proxies of cloud B — another
// cloud); lettuce reads with ReadFrom.UPSTREAM (its default), lettuce-nearest with
// ReadFrom.LOWEST_LATENCY (formerly NEAREST: the node of lowest latency measured at topology
// discovery, master or replica).
// A closed loop: each of --in-flight lanes sends its next request when the last one completed (in
// the completion's stage: cloudroute's executor thread, Lettuce's event loop thread). Prints one
// line:
//   ASYNC_BENCH client=… workload=get fanout=1 in_flight=64 req_s=… p50_us=… p99_us=…
//     cpu_us_per_req=… errors=0 wrong=0
// (cpu: the whole JVM's process CPU time over the measured seconds, divided by the requests;
// errors and wrong: GET replies that failed or held another value than the one written, counted
// per GET — a request of the seed workload counts up to --fanout of each; proxy_cpu_us_per_req:
// the CPU time of the processes --proxy-pids names — bench/e2e/cluster.sh's latency proxies,
// which share the machine — over the same seconds, divided by the requests; 0 without them).
import io.cloudroute.Client;
import io.cloudroute.ClientOptions;
import io.cloudroute.CloudRoute;
import io.cloudroute.Config;
import io.cloudroute.Pipeline;
import io.cloudroute.Policy;
import io.lettuce.core.ReadFrom;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

public final class AsyncClientBench {
  private static final int MAX_SAMPLES = 1 << 22;

  public static void main(String[] argv) throws Exception {
    String seeds = null;
    String which = null;
    String workload = "get";
    int fanout = 60;
    int inFlight = 64;
    int seconds = 10;
    int warmup = 3;
    int keyCount = 1000;
    long[] proxyPids = new long[0];
    for (int i = 0; i + 1 < argv.length; i += 2) {
      switch (argv[i]) {
        case "--seeds" -> seeds = argv[i + 1];
        case "--client" -> which = argv[i + 1];
        case "--workload" -> workload = argv[i + 1];
        case "--fanout" -> fanout = Integer.parseInt(argv[i + 1]);
        case "--in-flight" -> inFlight = Integer.parseInt(argv[i + 1]);
        case "--seconds" -> seconds = Integer.parseInt(argv[i + 1]);
        case "--warmup" -> warmup = Integer.parseInt(argv[i + 1]);
        case "--keys" -> keyCount = Integer.parseInt(argv[i + 1]);
        case "--proxy-pids" ->
            proxyPids =
                Arrays.stream(argv[i + 1].split(","))
                    .filter(p -> !p.isEmpty())
                    .mapToLong(Long::parseLong)
                    .toArray();
        default -> throw new IllegalArgumentException("unknown option " + argv[i]);
      }
    }
    if (seeds == null || which == null) {
      throw new IllegalArgumentException(
          "--seeds and --client (cloudroute|lettuce|lettuce-nearest) are required");
    }
    if (!workload.equals("get") && !workload.equals("seed")) {
      throw new IllegalArgumentException("--workload is get or seed, not " + workload);
    }
    boolean seed = workload.equals("seed");
    if (!seed) fanout = 1;
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
                .locationRule("127.0.3.0/24", "cloud-b")
                .policy(Policy.LOCAL_REPLICAS_FIRST);
        Client loader = Client.connect(seeds, config, new ClientOptions())) {
      for (int i = 0; i < keyCount; i++) loader.set(keys[i], values[i]);
      // The replicas hold every value before a read may go there.
      for (int i = 0; i < keyCount; i++) {
        while (!values[i].equals(loader.get(keys[i]))) Thread.onSpinWait();
      }
      Loop loop = new Loop(keys, values, fanout, shards(loader, seeds, keys, fanout));
      loop.proxyPids = proxyPids;
      if (which.equals("cloudroute")) {
        try (Client c = Client.connect(seeds, config, new ClientOptions())) {
          if (seed) {
            loop.batch =
                ks -> {
                  Pipeline p = c.pipeline();
                  for (String k : ks) p.get(k);
                  return p.executeAsync();
                };
          } else {
            loop.get = c::getAsync;
          }
          run(which, workload, inFlight, seconds, warmup, loop);
        }
      } else if (which.equals("lettuce") || which.equals("lettuce-nearest")) {
        List<RedisURI> uris = new ArrayList<>();
        for (String s : seeds.split(",")) {
          int colon = s.lastIndexOf(':');
          uris.add(
              RedisURI.create(s.substring(0, colon), Integer.parseInt(s.substring(colon + 1))));
        }
        RedisClusterClient lettuce = RedisClusterClient.create(uris);
        try (StatefulRedisClusterConnection<String, String> conn = lettuce.connect()) {
          // UPSTREAM is Lettuce's default, said outright.
          conn.setReadFrom(which.equals("lettuce") ? ReadFrom.UPSTREAM : ReadFrom.LOWEST_LATENCY);
          RedisAdvancedClusterAsyncCommands<String, String> async = conn.async();
          if (seed) {
            loop.batch = ks -> lettuceAll(async, ks);
          } else {
            loop.get = async::get;
          }
          run(which, workload, inFlight, seconds, warmup, loop);
        } finally {
          lettuce.shutdown();
        }
      } else {
        throw new IllegalArgumentException(
            "--client is cloudroute, lettuce or lettuce-nearest, not " + which);
      }
    }
  }

  /**
   * One GET per key on Lettuce's async API; every reply (or its failure) in order, once all are in.
   */
  private static CompletionStage<List<Object>> lettuceAll(
      RedisAdvancedClusterAsyncCommands<String, String> async, String[] ks) {
    CompletableFuture<?>[] fs = new CompletableFuture<?>[ks.length];
    for (int i = 0; i < ks.length; i++) fs[i] = async.get(ks[i]).toCompletableFuture();
    return CompletableFuture.allOf(fs)
        .handle(
            (ignored, e) -> {
              Object[] out = new Object[fs.length];
              for (int i = 0; i < fs.length; i++) {
                try {
                  out[i] = fs[i].join();
                } catch (RuntimeException failed) {
                  out[i] = failed;
                }
              }
              return Arrays.asList(out);
            });
  }

  /**
   * The key indices of each shard (the masters of CLUSTER SLOTS, asked of the first seed), for the
   * seed workload; null for single GETs.
   */
  private static int[][] shards(Client loader, String seeds, String[] keys, int fanout) {
    if (fanout <= 1) return null;
    List<?> slots = (List<?>) loader.onNode(seeds.split(",")[0], "CLUSTER", "SLOTS");
    int[] shardOfSlot = new int[16384];
    Map<Long, Integer> shardOfMaster = new LinkedHashMap<>();
    for (Object o : slots) {
      List<?> range = (List<?>) o;
      long port = (Long) ((List<?>) range.get(2)).get(1);
      int shard = shardOfMaster.computeIfAbsent(port, p -> shardOfMaster.size());
      for (long s = (Long) range.get(0); s <= (Long) range.get(1); s++)
        shardOfSlot[(int) s] = shard;
    }
    List<List<Integer>> byShard = new ArrayList<>();
    for (int i = 0; i < shardOfMaster.size(); i++) byShard.add(new ArrayList<>());
    for (int i = 0; i < keys.length; i++) {
      byShard.get(shardOfSlot[CloudRoute.keyslot(keys[i])]).add(i);
    }
    int[][] out = new int[byShard.size()][];
    for (int s = 0; s < out.length; s++) {
      out[s] = byShard.get(s).stream().mapToInt(Integer::intValue).toArray();
      if (out[s].length * out.length < fanout) {
        throw new IllegalArgumentException("too few keys in shard " + s + " for the fan-out");
      }
    }
    return out;
  }

  /** The closed loop of inFlight lanes; prints the ASYNC_BENCH line. */
  private static void run(
      String which, String workload, int inFlight, int seconds, int warmup, Loop loop)
      throws Exception {
    long start = System.nanoTime();
    loop.measureFrom = start + TimeUnit.SECONDS.toNanos(warmup);
    loop.deadline = loop.measureFrom + TimeUnit.SECONDS.toNanos(seconds);
    loop.lanes = new CountDownLatch(inFlight);
    for (int i = 0; i < inFlight; i++) loop.next(i);
    long sleepMs = TimeUnit.NANOSECONDS.toMillis(loop.measureFrom - System.nanoTime());
    if (sleepMs > 0) Thread.sleep(sleepMs);
    long cpu0 = cpuNanos();
    long proxy0 = ticks(loop.proxyPids);
    if (!loop.lanes.await(seconds + warmup + 30L, TimeUnit.SECONDS)) {
      throw new IllegalStateException("lanes did not finish within the bound");
    }
    long cpu = cpuNanos() - cpu0;
    long proxyTicks = ticks(loop.proxyPids) - proxy0;
    int n = Math.min(loop.count.get(), MAX_SAMPLES);
    int[] us = Arrays.copyOf(loop.samples, n);
    Arrays.sort(us);
    long done = loop.count.get();
    System.out.printf(
        "ASYNC_BENCH client=%s workload=%s fanout=%d in_flight=%d req_s=%.0f p50_us=%d p99_us=%d"
            + " cpu_us_per_req=%.1f proxy_cpu_us_per_req=%.1f errors=%d wrong=%d%n",
        which,
        workload,
        loop.fanout,
        inFlight,
        done / (double) seconds,
        n == 0 ? 0 : us[n / 2],
        n == 0 ? 0 : us[(int) (n * 0.99)],
        done == 0 ? 0.0 : cpu / 1000.0 / done,
        done == 0 ? 0.0 : proxyTicks * (1e6 / CLOCK_TICKS) / done,
        loop.errors.get(),
        loop.wrong.get());
  }

  /** Linux's USER_HZ: the unit of /proc/PID/stat's CPU times. */
  private static final double CLOCK_TICKS = 100;

  /** The user + system CPU time of the processes pids, in clock ticks (/proc/PID/stat). */
  private static long ticks(long[] pids) throws java.io.IOException {
    long sum = 0;
    for (long pid : pids) {
      String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/" + pid + "/stat"));
      // Fields after the command name (which ends at the last ')'): state is field 3, utime 14.
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      sum += Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }
    return sum;
  }

  private static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private static final class Loop {
    final String[] keys;
    final String[] values;
    final int fanout;
    final int[][] shards;
    long[] proxyPids = new long[0];

    /** A request of one GET (workload get) ... */
    Function<String, CompletionStage<String>> get;

    /** ... or of fanout GETs (workload seed): the replies in order, a failed GET's exception. */
    Function<String[], CompletionStage<? extends List<?>>> batch;

    final int[] samples = new int[MAX_SAMPLES];
    final AtomicInteger count = new AtomicInteger();
    final AtomicLong errors = new AtomicLong();
    final AtomicLong wrong = new AtomicLong();

    /** A lane whose request completed inline, many deep, continues here (a bounded stack). */
    final Executor bounce = Executors.newSingleThreadExecutor(r -> daemon(r));

    final ThreadLocal<int[]> depth = ThreadLocal.withInitial(() -> new int[1]);
    volatile long measureFrom;
    volatile long deadline;
    CountDownLatch lanes;

    Loop(String[] keys, String[] values, int fanout, int[][] shards) {
      this.keys = keys;
      this.values = values;
      this.fanout = fanout;
      this.shards = shards;
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
      if (batch != null) {
        nextBatch(lane, t0);
        return;
      }
      int k = (int) Math.floorMod(t0 * 31 + lane * 0x9E3779B97F4A7C15L, (long) keys.length);
      get.apply(keys[k])
          .whenComplete(
              (v, e) -> {
                long failed = e != null ? 1 : 0;
                long bad = e == null && !values[k].equals(v) ? 1 : 0;
                completed(lane, t0, failed, bad);
              });
    }

    /** fanout distinct keys, spread evenly over the shards (the first ones get the remainder). */
    private void nextBatch(int lane, long t0) {
      ThreadLocalRandom rnd = ThreadLocalRandom.current();
      int[] picked = new int[fanout];
      String[] ks = new String[fanout];
      for (int i = 0; i < fanout; i++) {
        int[] shard = shards[i % shards.length];
        int k;
        do {
          k = shard[rnd.nextInt(shard.length)];
        } while (taken(picked, i, k));
        picked[i] = k;
        ks[i] = keys[k];
      }
      batch
          .apply(ks)
          .whenComplete(
              (replies, e) -> {
                long failed = 0;
                long bad = 0;
                if (e != null || replies.size() != fanout) {
                  failed = fanout;
                } else {
                  for (int i = 0; i < fanout; i++) {
                    Object v = replies.get(i);
                    if (v instanceof Throwable) failed++;
                    else if (!values[picked[i]].equals(v)) bad++;
                  }
                }
                completed(lane, t0, failed, bad);
              });
    }

    private static boolean taken(int[] picked, int n, int k) {
      for (int i = 0; i < n; i++) if (picked[i] == k) return true;
      return false;
    }

    /** Counts a request that ended (inside the measured window) and sends the lane's next. */
    private void completed(int lane, long t0, long failed, long bad) {
      long t1 = System.nanoTime();
      if (t0 >= measureFrom && t1 <= deadline) {
        int i = count.getAndIncrement();
        if (i < MAX_SAMPLES) samples[i] = (int) ((t1 - t0) / 1000);
        if (failed != 0) errors.addAndGet(failed);
        if (bad != 0) wrong.addAndGet(bad);
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
    }
  }
}
