#!/usr/bin/env bash
# The JVM binding's asynchronous calls against Lettuce's: single-key GETs at
# CR_BENCH_IN_FLIGHT (default 64) in flight, a closed loop per lane, through
# io.cloudroute.Client.getAsync (CompletableFuture on cr_client_submit; the
# futures completed on the binding's default executor) and through Lettuce
# 7's RedisClusterClient async API (ReadFrom.UPSTREAM, its default; futures
# completed on its event loop) — on one cluster of its own (127.0.x.y,
# ports 8991-8999, tests/PORTS.md), the two clients taking turns, one JVM
# per client and run (bench/jvm/AsyncClientBench.java with the JDK's source
# launcher; the binding installed into .m2/ from bindings/java, Lettuce from
# Maven Central). Not part of ctest. Run it under the servers' lock:
#   flock /tmp/cr-servers.lock bench/jvm_async_bench.sh
#     [CR_BENCH_SECONDS=10] [CR_BENCH_WARMUP=3] [CR_BENCH_REPS=3] [CR_BENCH_IN_FLIGHT=64]
# Prints each run's ASYNC_BENCH line, then the medians over the runs and the
# ratios cloudroute / Lettuce (req/s: higher is better; p50, p99, CPU per
# request: lower is better).
set -euo pipefail
SECS="${CR_BENCH_SECONDS:-10}"
WARMUP="${CR_BENCH_WARMUP:-3}"
REPS="${CR_BENCH_REPS:-3}"
IN_FLIGHT="${CR_BENCH_IN_FLIGHT:-64}"
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
mvn=(mvn -q -B "-Dmaven.repo.local=$SRC/.m2")
timeout 1200 "${mvn[@]}" -f "$SRC/bindings/java/pom.xml" install -DskipTests >/dev/null
bench_cluster jvm-async-bench 8991
timeout 600 "${mvn[@]}" -f "$SRC/bench/jvm/pom.xml" dependency:build-classpath \
  "-Dmdep.outputFile=$DIR/classpath" >/dev/null
bench_load "$IN_FLIGHT in flight, ${WARMUP}+${SECS} s per run, $REPS runs; GET of 1000 keys; $(java -version 2>&1 | head -1)"
LINES="$DIR/lines"
: >"$LINES"
for rep in $(seq 1 "$REPS"); do
  for client in cloudroute lettuce; do
    timeout $((SECS + WARMUP + 120)) java -cp "$(cat "$DIR/classpath")" \
      "$SRC/bench/jvm/AsyncClientBench.java" --seeds "$SEEDS" --client "$client" \
      --in-flight "$IN_FLIGHT" --seconds "$SECS" --warmup "$WARMUP" |
      tee -a "$LINES" | sed "s/^/run $rep  /"
  done
done

echo "== medians over $REPS runs"
python3 - "$LINES" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    if not line.startswith("ASYNC_BENCH"):
        continue
    f = dict(kv.split("=", 1) for kv in line.split()[1:])
    runs.setdefault(f["client"], []).append(f)
cols = ["req_s", "p50_us", "p99_us", "cpu_us_per_req", "errors", "wrong"]
med = {c: {k: statistics.median(float(r[k]) for r in rs) for k in cols} for c, rs in runs.items()}
print("| client | " + " | ".join(cols) + " |")
print("|---" * (len(cols) + 1) + "|")
for c, m in med.items():
    print(f"| {c} | " + " | ".join(f"{m[k]:.1f}" if k == "cpu_us_per_req" else f"{m[k]:.0f}" for k in cols) + " |")
if "cloudroute" in med and "lettuce" in med:
    a, b = med["cloudroute"], med["lettuce"]
    ratio = lambda k: a[k] / b[k] if b[k] else float("nan")
    print(f"cloudroute / lettuce: req/s {ratio('req_s'):.2f}x, p50 {ratio('p50_us'):.2f}x, "
          f"p99 {ratio('p99_us'):.2f}x, cpu per request {ratio('cpu_us_per_req'):.2f}x")
PY
