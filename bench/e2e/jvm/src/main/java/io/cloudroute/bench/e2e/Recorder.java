package io.cloudroute.bench.e2e;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Per-request (start offset s, latency s, ok 1/0) of the requests started in the window. */
final class Recorder {
  final long tMeasure, tEnd;
  private final List<double[]> rows = new ArrayList<>();
  private final Map<String, Integer> errors = new TreeMap<>();

  Recorder(long tMeasure, long tEnd) {
    this.tMeasure = tMeasure;
    this.tEnd = tEnd;
  }

  synchronized void add(long t0, long t1, Throwable err) {
    if (t0 < tMeasure) return;
    rows.add(new double[] {(t0 - tMeasure) / 1e9, (t1 - t0) / 1e9, err == null ? 1 : 0});
    if (err != null) errors.merge(err.getClass().getSimpleName(), 1, Integer::sum);
  }

  synchronized List<double[]> rows() {
    return new ArrayList<>(rows);
  }

  synchronized Map<String, Integer> errors() {
    return new TreeMap<>(errors);
  }
}
