package io.cloudroute.bench.e2e;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** driver.py's summary(): the same percentile rule, failed requests in the latency too. */
final class Stats {
  private Stats() {}

  static double pct(double[] sorted, double p) {
    if (sorted.length == 0) return Double.NaN;
    int i = (int) Math.round(p / 100.0 * sorted.length + 0.5) - 1;
    return sorted[Math.min(sorted.length - 1, Math.max(0, i))];
  }

  static Map<String, Object> summary(List<double[]> rows, double seconds) {
    double[] every = rows.stream().mapToDouble(r -> r[1]).sorted().toArray();
    double[] ok = rows.stream().filter(r -> r[2] > 0).mapToDouble(r -> r[1]).sorted().toArray();
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("requests", rows.size());
    out.put("failed", rows.size() - ok.length);
    out.put("rps", seconds > 0 ? ok.length / seconds : Double.NaN);
    out.put("p50_ms", pct(every, 50) * 1e3);
    out.put("p99_ms", pct(every, 99) * 1e3);
    out.put("p999_ms", pct(every, 99.9) * 1e3);
    out.put("max_ms", every.length > 0 ? every[every.length - 1] * 1e3 : Double.NaN);
    out.put("ok_p99_ms", pct(ok, 99) * 1e3);
    return out;
  }

  /** [bin start s, requests, worst latency ms] per 250 ms of start time. */
  static List<List<Double>> timeline(List<double[]> rows) {
    Map<Integer, double[]> bins = new TreeMap<>();
    for (double[] r : rows) {
      double[] b = bins.computeIfAbsent((int) (r[0] / 0.25), k -> new double[2]);
      b[0] += 1;
      b[1] = Math.max(b[1], r[1] * 1e3);
    }
    List<List<Double>> out = new ArrayList<>();
    bins.forEach((k, b) -> out.add(Arrays.asList(k * 0.25, b[0], b[1])));
    return out;
  }
}
