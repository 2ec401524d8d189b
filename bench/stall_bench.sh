#!/usr/bin/env bash
# Stall: a cloud-A replica stopped for 5 s under the seed workload — the C client
# (bench/e2e/cdriver.cc), 60-key MGETs of random keys over every shard, 4 threads on one
# client, cloud B 3 ms away (one way) behind bench/e2e/cluster.sh's latency proxies —
# with hedged reads off, fixed (20 ms) and adaptive (p99, at least 2 ms), in the same run.
# Each measured window is 7 s: shard 2's only cloud-A node, its replica n6 (the first read
# candidate of shard 2 under the `local` policy; its next ones are in cloud B), is stopped
# with SIGSTOP 1 s in and resumed 5 s later. (Shard 1's cloud-A replica NODE2, which
# bench/e2e's fault run stops, is never read first under `local`: its master is in cloud A.) The client's options are the defaults otherwise (local timeout
# 500 ms, breaker cool-down 2 s). Starts its own two-cloud Valkey cluster on ports
# 8731-8739 (bus ports +10000, proxies on 127.0.3.x with the same ports; valkey-server
# needed), stops it when done (also on failure), every step under a timeout.
#   bench/stall_bench.sh   [CR_BENCH_REPS=3] [CR_BENCH_BUILD=dir]
# Build first (the Release tree bench/lib.sh uses), then run it under the servers' lock:
#   bench/stall_bench.sh --build-only && flock /tmp/cr-servers.lock bench/stall_bench.sh
# Each run prints the driver's JSON line; the table at the end has the medians over the
# repetitions (failed requests, p50, p99 and the slowest request, in ms; hedges sent/won).
set -euo pipefail
REPS="${CR_BENCH_REPS:-3}"
STALL=5 SECS=7
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_build stall-bench cloudroute_e2e_cdriver
[[ ${1:-} == --build-only ]] && exit 0
DIR="$(mktemp -d "${TMPDIR:-/tmp}/cr-stall-bench.XXXXXX")"
trap '"$SRC/bench/e2e/cluster.sh" stop "$DIR" >/dev/null 2>&1 || true; rm -rf "$DIR"' EXIT
ENV_FILE=$(timeout 180 "$SRC/bench/e2e/cluster.sh" start "$DIR" "${BASE_PORT:-8731}")
timeout 60 "$SRC/bench/e2e/cluster.sh" delay "$DIR" 3
bench_load "cloud B 3 ms away; fan-out 60, 4 threads, ${SECS}s windows, n6 stopped for ${STALL}s; $REPS runs"
# The key set (e2e:0 .. e2e:9999), written once through the client.
timeout 120 "$BIN" --env "$ENV_FILE" --mode get --seconds 0.1 --warmup 0 --load 1 <<<go >/dev/null
LINES="$DIR/lines"
: >"$LINES"
for rep in $(seq 1 "$REPS"); do
  for mode in off fixed adaptive; do
    line=$(timeout $((SECS + 60)) "$BIN" --env "$ENV_FILE" --mode mget --fanout 60 --threads 4 \
           --seconds "$SECS" --warmup 1 --hedge "$mode" --stall "$STALL" --stall-node 6 <<<go | tail -n 1)
    echo "run $rep hedge=$mode $line"
    echo "$mode $line" >>"$LINES"
    sleep 1  # n6 resumes; its replication catches up
  done
done

echo "== medians over $REPS runs (ms; failed = failed requests of the window)"
python3 - "$LINES" <<'PY'
import collections, json, statistics, sys
runs = collections.defaultdict(list)
with open(sys.argv[1]) as f:
    for mode, js in (line.split(" ", 1) for line in f):
        runs[mode].append(json.loads(js))
print(f"{'hedge':9} {'requests':>8} {'failed':>6} {'p50':>7} {'p99':>7} {'slowest':>8} {'hedges':>6} {'won':>5}")
for mode in ("off", "fixed", "adaptive"):
    rs = runs.get(mode, [])
    if not rs:
        continue
    med = lambda k: statistics.median(float(r[k]) for r in rs)
    print(f"{mode:9} {med('requests'):8.0f} {med('failed'):6.0f} {med('p50_ms'):7.2f} {med('p99_ms'):7.2f} "
          f"{med('max_ms'):8.1f} {med('hedges'):6.0f} {med('hedges_won'):5.0f}")
PY
