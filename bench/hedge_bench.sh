#!/usr/bin/env bash
# Hedged reads: read latency while the local replica n6 is
# stopped with SIGSTOP, hedging off / fixed 20 ms / adaptive p99, and the
# extra reads hedging costs when nothing is wrong. Starts its own 3x3 cluster
# with scripts/redis-harness.sh on ports 8651-8659 (bus ports +10000;
# cluster-node-timeout 15 s so the servers never act on the stall), stops it
# when done (also on failure), every step under a timeout. Not part of ctest.
#   bench/hedge_bench.sh   [CR_BENCH_SECONDS=5] [CR_BENCH_REPS=3] [CR_BENCH_BUILD=dir]
# Each run prints a HEDGE_BENCH line (bench/hedge_bench.cc); the table at the
# end has the medians over the repetitions. Run it under the servers' lock:
#   flock /tmp/cr-servers.lock bench/hedge_bench.sh
set -euo pipefail
SECS="${CR_BENCH_SECONDS:-5}"
REPS="${CR_BENCH_REPS:-3}"
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_build hedge-bench cloudroute_hedge_bench
CLUSTER_NODE_TIMEOUT_MS=15000 bench_cluster hedge-bench "${BASE_PORT:-8651}"
bench_load "${SECS}s per run, ${REPS} runs each"
LINES="$DIR/lines"
: >"$LINES"
for rep in $(seq 1 "$REPS"); do
  for scenario in stall quiet; do
    for mode in off fixed adaptive; do
      line=$(timeout $((SECS * 3 + 60)) "$BIN" --env "$DIR/cluster.env" --mode "$mode" \
             --scenario "$scenario" --seconds "$SECS" --threads 2)
      echo "run $rep  $line"
      echo "$line" >>"$LINES"
      sleep 0.5  # n6 resumes; its replication catches up
    done
  done
done

echo "== medians over $REPS runs (latencies in ms; extra = hedges per 1000 reads)"
python3 - "$LINES" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    f = dict(kv.split("=", 1) for kv in line.split()[1:])
    runs.setdefault((f["scenario"], f["mode"]), []).append(f)
print(f"{'scenario':8} {'mode':9} {'reads':>8} {'failed':>6} {'p50':>7} {'p99':>7} {'max':>7} {'extra/1000':>10} {'won':>5}")
for scenario in ("stall", "quiet"):
    for mode in ("off", "fixed", "adaptive"):
        rs = runs.get((scenario, mode), [])
        if not rs:
            continue
        med = lambda k: statistics.median(float(r[k]) for r in rs)
        print(f"{scenario:8} {mode:9} {med('reads'):8.0f} {med('failed'):6.0f} {med('p50_us')/1000:7.2f} "
              f"{med('p99_us')/1000:7.2f} {med('max_us')/1000:7.1f} {med('hedges_per_1000'):10.2f} {med('won'):5.0f}")
PY
