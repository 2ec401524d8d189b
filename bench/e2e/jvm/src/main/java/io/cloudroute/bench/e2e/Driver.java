package io.cloudroute.bench.e2e;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * One measured run of one JVM client of the peer benchmark: the JVM twin of bench/e2e/driver.py
 * (same request shape, same metrics, same JSON rows, so bench/e2e/report.py tables them alike).
 *
 * <pre>
 * Driver run --env E2E_ENV --client jedis-cr --fanout 60 --concurrency 1,4 --seconds 3
 *            --warmup 3 [--fault] [--keys 10000] --out result.json
 * </pre>
 *
 * <p>Each worker thread picks fanout random keys of the loaded set and does one fan-out read, until
 * the window ends; the threads share one client. CPU per request is the whole JVM's CPU time
 * (com.sun.management: every thread, JIT and GC included) over the window divided by the requests;
 * the latency proxies' and the servers' CPU time per request (they share the machine) and the share
 * of the machine's CPUs busy (/proc/stat: every process, the benchmark's own included) are taken
 * over the same window, with the JIT compilers' time in it (jit_ms: a window that still compiles
 * much was not warm). The share of reads in cloud A comes from INFO commandstats deltas (MGET +
 * GET) of every node around the window. --fault: driver.py's schedule (NODE2 SIGSTOP at +2 s,
 * SIGCONT at +7 s, CLUSTER FAILOVER to NODE3 at +9 s) with per-phase numbers and a 250 ms timeline.
 */
public final class Driver {
  static final double STALL_AT = 2.0, STALL_S = 5.0, FAILOVER_AT = 9.0, FAULT_SECONDS = 14.0;

  private Driver() {}

  static final class Args {
    String env, client, out;
    int keys = 10000;
    List<Integer> fanouts = List.of(60), concs = List.of(1);
    double seconds = 4.0, warmup = 1.0;
    boolean fault;
  }

  public static void main(String[] argv) throws Exception {
    Args a = parse(argv);
    ClusterEnv env = new ClusterEnv(Path.of(a.env));
    double seconds = a.fault ? FAULT_SECONDS : a.seconds;
    long tOpen = System.nanoTime();
    List<Map<String, Object>> results = new ArrayList<>();
    try (JvmClients.Reader reader = JvmClients.make(a.client, env.env)) {
      double openS = (System.nanoTime() - tOpen) / 1e9;
      for (int f : a.fanouts) {
        for (int c : a.concs) {
          Map<String, Object> r = measure(env, a, reader, f, c, seconds);
          r.put("open_s", openS);
          results.add(r);
        }
      }
    }
    Files.writeString(Path.of(a.out), Json.write(results), StandardCharsets.UTF_8);
    System.exit(0); // client libraries may leave non-daemon threads behind
  }

  private static Args parse(String[] argv) {
    Args a = new Args();
    if (argv.length == 0 || !argv[0].equals("run")) usage("first argument must be 'run'");
    for (int i = 1; i < argv.length; i++) {
      String k = argv[i];
      if (k.equals("--fault")) {
        a.fault = true;
        continue;
      }
      if (i + 1 >= argv.length) usage(k + " needs a value");
      String v = argv[++i];
      switch (k) {
        case "--env": a.env = v; break;
        case "--client": a.client = v; break;
        case "--out": a.out = v; break;
        case "--keys": a.keys = Integer.parseInt(v); break;
        case "--fanout": a.fanouts = ints(v); break;
        case "--concurrency": a.concs = ints(v); break;
        case "--seconds": a.seconds = Double.parseDouble(v); break;
        case "--warmup": a.warmup = Double.parseDouble(v); break;
        default: usage("unknown option " + k);
      }
    }
    if (a.env == null || a.client == null || a.out == null) usage("--env, --client, --out needed");
    if (!JvmClients.CLIENTS.containsKey(a.client)) usage("unknown client " + a.client);
    for (int f : a.fanouts) if (f < 1 || f > a.keys) usage("need 1 <= fanout <= keys");
    for (int c : a.concs) if (c < 1) usage("need concurrency >= 1");
    if (a.seconds <= 0 || (a.fault && a.fanouts.size() * a.concs.size() != 1)) {
      usage("need seconds > 0; --fault takes one cell");
    }
    return a;
  }

  private static List<Integer> ints(String text) {
    List<Integer> out = new ArrayList<>();
    for (String s : text.split(",")) if (!s.isEmpty()) out.add(Integer.parseInt(s));
    return out;
  }

  private static void usage(String why) {
    System.err.println("Driver: " + why + "\nusage: Driver run --env F --client NAME --out F"
        + " [--fanout 60] [--concurrency 1,4] [--seconds 4] [--warmup 1] [--keys 10000] [--fault]"
        + "\nclients: " + String.join(", ", JvmClients.CLIENTS.keySet()));
    System.exit(2);
  }

  static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory
        .getOperatingSystemMXBean()).getProcessCpuTime();
  }

  /** The machine's [busy, total] CPU time so far, in /proc/stat's ticks (iowait counts as idle). */
  static long[] machineTicks() throws java.io.IOException {
    // "cpu  user nice system idle iowait irq softirq steal guest guest_nice"
    String cpu = Files.readAllLines(Path.of("/proc/stat")).get(0);
    long busy = 0, total = 0;
    String[] f = cpu.trim().split("\\s+");
    for (int i = 1; i < f.length && i <= 8; i++) { // user .. steal; guest is inside user
      long v = Long.parseLong(f[i]);
      total += v;
      if (i != 4 && i != 5) busy += v;
    }
    return new long[] {busy, total};
  }

  /** One phase: conc threads reading until rec's window ends; every request recorded. */
  static void phase(JvmClients.Reader reader, int fanout, int conc, int nkeys, Recorder rec)
      throws InterruptedException {
    List<Thread> threads = new ArrayList<>();
    for (int w = 0; w < conc; w++) {
      Random rng = new Random(w * 7919L + 1);
      Thread t = new Thread(() -> {
        while (true) {
          long t0 = System.nanoTime();
          if (t0 >= rec.tEnd) return;
          List<String> keys = Keys.sample(rng, nkeys, fanout);
          Throwable err = null;
          try {
            List<?> values = reader.read(keys);
            if (values.size() != fanout || values.contains(null)) {
              err = new IllegalStateException("wrong reply (missing values)");
            }
          } catch (Exception e) { // every failure counts; the run goes on
            err = e;
          }
          rec.add(t0, System.nanoTime(), err);
        }
      }, "e2e-worker-" + w);
      t.setDaemon(true);
      t.start();
      threads.add(t);
    }
    for (Thread t : threads) {
      t.join(Math.max(1000, (rec.tEnd - System.nanoTime()) / 1_000_000 + 30_000));
    }
  }

  static Map<String, Object> measure(ClusterEnv env, Args a, JvmClients.Reader reader, int fanout,
      int conc, double seconds) throws Exception {
    double loadBefore = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    long warm = System.nanoTime() + (long) (a.warmup * 1e9);
    phase(reader, fanout, conc, a.keys, new Recorder(warm, warm));
    Map<String, Long> calls0 = env.readCalls();
    long cpu0 = cpuNanos();
    java.time.Duration proxy0 = env.proxyCpu();
    java.time.Duration server0 = env.serverCpu();
    long jit0 = ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
    long[] machine0 = machineTicks();
    long tStart = System.nanoTime();
    Recorder rec = new Recorder(tStart, tStart + (long) (seconds * 1e9));
    List<Object[]> actions = Collections.synchronizedList(new ArrayList<>());
    Thread faults = a.fault ? Faults.start(env, rec.tMeasure, actions) : null;
    phase(reader, fanout, conc, a.keys, rec);
    long cpu1 = cpuNanos();
    java.time.Duration proxy1 = env.proxyCpu();
    java.time.Duration server1 = env.serverCpu();
    long jit1 = ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
    long[] machine1 = machineTicks();
    Map<String, Long> calls1 = env.readCalls();
    if (faults != null) faults.join(10_000);
    long da = calls1.get("A") - calls0.get("A"), db = calls1.get("B") - calls0.get("B");
    List<double[]> rows = rec.rows();
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("client", a.client);
    out.put("description", JvmClients.CLIENTS.get(a.client));
    out.put("fanout", fanout);
    out.put("concurrency", conc);
    String delay = env.env.get("PROXY_DELAY_MS");
    out.put("delay_ms", delay == null ? Double.NaN : Double.parseDouble(delay));
    out.put("seconds", seconds);
    out.put("loadavg_1m", loadBefore);
    out.put("cpu_us_per_req", (cpu1 - cpu0) / 1e3 / Math.max(1, rows.size()));
    out.put("proxy_cpu_us_per_req",
        proxy1.minus(proxy0).toNanos() / 1e3 / Math.max(1, rows.size()));
    out.put("server_cpu_us_per_req",
        server1.minus(server0).toNanos() / 1e3 / Math.max(1, rows.size()));
    out.put("jit_ms", jit1 - jit0);
    out.put("machine_busy", (double) (machine1[0] - machine0[0])
        / Math.max(1, machine1[1] - machine0[1]));
    out.put("local_share", da + db > 0 ? (double) da / (da + db) : Double.NaN);
    out.put("read_calls_a", da);
    out.put("read_calls_b", db);
    out.put("errors", rec.errors());
    out.putAll(Stats.summary(rows, seconds));
    if (a.fault) {
      List<double[]> stall = new ArrayList<>(), fo = new ArrayList<>();
      for (double[] r : rows) {
        if (r[0] < STALL_AT + STALL_S + 1.0 && r[0] + r[1] >= STALL_AT) stall.add(r);
        if (r[0] + r[1] >= FAILOVER_AT) fo.add(r);
      }
      out.put("stall", Stats.summary(stall, STALL_S + 1.0));
      out.put("failover", Stats.summary(fo, seconds - FAILOVER_AT));
      out.put("actions", actions);
      out.put("timeline", Stats.timeline(rows));
    }
    System.out.printf("%-20s fan-out %-3d conc %-2d delay %s ms: %8.1f req/s  p50 %7.2f  p99 %7.2f ms"
        + "  failed %s  local %.2f  cpu/req %.0f us  proxy cpu/req %.0f us  server cpu/req %.0f us"
        + "  jit %d ms  busy %.2f  load %.1f%n",
        a.client, fanout, conc, delay, out.get("rps"), out.get("p50_ms"), out.get("p99_ms"),
        out.get("failed"), out.get("local_share"), out.get("cpu_us_per_req"),
        out.get("proxy_cpu_us_per_req"), out.get("server_cpu_us_per_req"), out.get("jit_ms"),
        out.get("machine_busy"), loadBefore);
    return out;
  }
}
