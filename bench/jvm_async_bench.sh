#!/usr/bin/env bash
# The JVM binding's asynchronous calls against Lettuce's, CR_BENCH_IN_FLIGHT
# (default 64) requests in flight, a closed loop per lane, on a cluster of its
# own (127.0.x.y, ports 8991-8999, tests/PORTS.md), the clients taking turns,
# one JVM per client and run (bench/jvm/AsyncClientBench.java with the JDK's
# source launcher; the binding installed into .m2/ from bindings/java, Lettuce
# from Maven Central). Not part of ctest. Run it under the servers' lock:
#   flock /tmp/cr-servers.lock bench/jvm_async_bench.sh
#     [CR_BENCH_WORKLOAD=get|seed] [CR_BENCH_SECONDS=10] [CR_BENCH_WARMUP=3]
#     [CR_BENCH_REPS=3] [CR_BENCH_IN_FLIGHT=64] [CR_BENCH_FANOUT=60]
#     [CR_BENCH_DELAY_MS=3]
# CR_BENCH_WORKLOAD:
#   get  (default) a request is one GET: io.cloudroute.Client.getAsync
#        (CompletableFuture on cr_client_submit; completed on the binding's
#        default executor) against Lettuce 7's RedisClusterClient async get
#        (ReadFrom.UPSTREAM, its default; completed on its event loop); the
#        redis-server cluster of scripts/redis-harness.sh, no added delay.
#   seed the product's seed workload: a request is CR_BENCH_FANOUT (60) GETs
#        of distinct keys, as many on each of the 3 shards, done when every
#        reply is in — cloudroute: one Client.pipeline() of GETs and
#        executeAsync(), local replicas first; Lettuce: one async get per key
#        and CompletableFuture.allOf, with ReadFrom.UPSTREAM (client
#        "lettuce") and ReadFrom.LOWEST_LATENCY (formerly NEAREST; client
#        "lettuce-nearest"). The two-cloud Valkey cluster of
#        bench/e2e/cluster.sh: every cloud-B node behind a latency proxy on
#        127.0.3.x (same ports) adding CR_BENCH_DELAY_MS (default 3, as
#        bench/e2e) each way; the clients are given the cloud-A nodes as seeds.
# Every GET's value is checked: a failed GET counts in errors, another value
# in wrong (per GET, not per request). After each run, GETS_BY_CLOUD: the GETs
# the cloud-A and cloud-B nodes served in it (INFO commandstats, reset before
# the run: the loading and the warm-up count too); the table gives the median
# share served in cloud A. With seed, proxy_cpu_us_per_req: the latency
# proxies' CPU time (they share the machine's cores with the clients and the
# servers) over the measured seconds, per request.
# Prints the load, each run's ASYNC_BENCH line, then the medians over the runs
# and the ratios cloudroute / each Lettuce client (req/s: higher is better;
# p50, p99, CPU per request: lower is better), and the load at the end.
set -euo pipefail
SECS="${CR_BENCH_SECONDS:-10}"
WARMUP="${CR_BENCH_WARMUP:-3}"
REPS="${CR_BENCH_REPS:-3}"
IN_FLIGHT="${CR_BENCH_IN_FLIGHT:-64}"
WORKLOAD="${CR_BENCH_WORKLOAD:-get}"
FANOUT="${CR_BENCH_FANOUT:-60}"
DELAY_MS="${CR_BENCH_DELAY_MS:-3}"
case "$WORKLOAD" in
  get) CLIENTS=(cloudroute lettuce) ;;
  seed) CLIENTS=(cloudroute lettuce lettuce-nearest) ;;
  *) echo "CR_BENCH_WORKLOAD is get or seed, not $WORKLOAD" >&2; exit 2 ;;
esac
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
mvn=(mvn -q -B "-Dmaven.repo.local=$SRC/.m2")
timeout 1200 "${mvn[@]}" -f "$SRC/bindings/java/pom.xml" install -DskipTests >/dev/null
if [[ $WORKLOAD == get ]]; then
  bench_cluster jvm-async-bench 8991
  BENCH_SEEDS=$SEEDS
  PROXY_PIDS=""
  WHAT="GET of 1000 keys"
else
  DIR="$(mktemp -d "${TMPDIR:-/tmp}/cr-jvm-async-bench.XXXXXX")"
  trap '"$SRC/bench/e2e/cluster.sh" stop "$DIR" >/dev/null 2>&1 || true; rm -rf "$DIR"' EXIT
  timeout 180 "$SRC/bench/e2e/cluster.sh" start "$DIR" 8991 >/dev/null
  timeout 60 "$SRC/bench/e2e/cluster.sh" delay "$DIR" "$DELAY_MS"
  # shellcheck disable=SC1091
  . "$DIR/e2e.env"
  BENCH_SEEDS=$CLOUD_A_NODES
  PROXY_PIDS=$(cat "$DIR"/proxy-*.pid | paste -sd,)
  WHAT="seed: $FANOUT GETs over the 3 shards of 1000 keys per request, cloud B $DELAY_MS ms away (each way); valkey $(valkey-server --version | sed 's/.*v=\([^ ]*\).*/\1/')"
fi
timeout 600 "${mvn[@]}" -f "$SRC/bench/jvm/pom.xml" dependency:build-classpath \
  "-Dmdep.outputFile=$DIR/classpath" >/dev/null
bench_load "$IN_FLIGHT in flight, ${WARMUP}+${SECS} s per run, $REPS runs; $WHAT; $(java -version 2>&1 | head -1)"
LINES="$DIR/lines"
: >"$LINES"
IFS=, read -ra NODES <<<"$SEEDS"
# The GETs each node served (INFO commandstats), as "cloud-A cloud-B" sums; every node's
# counters are reset before each run (so the loader's 1000 GETs and the warm-up count too).
gets_by_cloud() {
  local a n ca=0 cb=0
  for a in "${NODES[@]}"; do
    n=$(timeout 5 redis-cli -h "${a%:*}" -p "${a##*:}" INFO commandstats |
      sed -n 's/^cmdstat_get:calls=\([0-9]*\).*/\1/p')
    if [[ ${a%:*} == 127.0.1.* ]]; then ca=$((ca + ${n:-0})); else cb=$((cb + ${n:-0})); fi
  done
  echo "$ca $cb"
}
for rep in $(seq 1 "$REPS"); do
  for client in "${CLIENTS[@]}"; do
    for a in "${NODES[@]}"; do
      timeout 5 redis-cli -h "${a%:*}" -p "${a##*:}" CONFIG RESETSTAT >/dev/null
    done
    timeout $((SECS + WARMUP + 120)) java -cp "$(cat "$DIR/classpath")" \
      "$SRC/bench/jvm/AsyncClientBench.java" --seeds "$BENCH_SEEDS" --client "$client" \
      --workload "$WORKLOAD" --fanout "$FANOUT" --proxy-pids "$PROXY_PIDS" \
      --in-flight "$IN_FLIGHT" --seconds "$SECS" --warmup "$WARMUP" |
      tee -a "$LINES" | sed "s/^/run $rep  /"
    read -r ga gb < <(gets_by_cloud)
    echo "GETS_BY_CLOUD client=$client cloud_a=$ga cloud_b=$gb" | tee -a "$LINES" | sed "s/^/run $rep  /"
  done
done

echo "== medians over $REPS runs"
python3 - "$LINES" "$WORKLOAD" <<'PY'
import statistics, sys
runs, local = {}, {}
for line in open(sys.argv[1]):
    if not line.startswith(("ASYNC_BENCH", "GETS_BY_CLOUD")):
        continue
    f = dict(kv.split("=", 1) for kv in line.split()[1:])
    if line.startswith("ASYNC_BENCH"):
        runs.setdefault(f["client"], []).append(f)
    else:
        a, b = int(f["cloud_a"]), int(f["cloud_b"])
        local.setdefault(f["client"], []).append(a / (a + b) if a + b else float("nan"))
cols = ["req_s", "p50_us", "p99_us", "cpu_us_per_req", "errors", "wrong"]
if sys.argv[2] == "seed":
    cols.insert(4, "proxy_cpu_us_per_req")
med = {c: {k: statistics.median(float(r[k]) for r in rs) for k in cols} for c, rs in runs.items()}
print("| client | " + " | ".join(cols) + " | GETs in cloud A |")
print("|---" * (len(cols) + 2) + "|")
for c, m in med.items():
    share = f"{statistics.median(local[c]):.2f}" if c in local else "-"
    print(f"| {c} | " + " | ".join(f"{m[k]:.1f}" if "cpu" in k else f"{m[k]:.0f}" for k in cols) + f" | {share} |")
for other in (c for c in med if c.startswith("lettuce")):
    if "cloudroute" not in med:
        break
    a, b = med["cloudroute"], med[other]
    ratio = lambda k: a[k] / b[k] if b[k] else float("nan")
    print(f"cloudroute / {other}: req/s {ratio('req_s'):.2f}x, p50 {ratio('p50_us'):.2f}x, "
          f"p99 {ratio('p99_us'):.2f}x, cpu per request {ratio('cpu_us_per_req'):.2f}x")
PY
echo "== load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
