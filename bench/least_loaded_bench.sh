#!/usr/bin/env bash
# Load-aware selection: one local replica 20 ms slower. Shard 1's three nodes
# (master n1, replicas n2 and n3) are one local rank under local-spread; n2 is
# dialed through scripts/latency-proxy.py adding 10 ms each way. GETs, then
# MGETs of 4 keys, from 4 threads on one client, with random, round-robin and
# least-loaded selection in the same run (bench/least_loaded_bench.cc): the
# request p50/p99 and each node's share of the reads. Starts its own cluster
# with scripts/redis-harness.sh on ports 9111-9119 (bus ports +10000) and the
# proxy on 127.0.3.2:9112, stops both when done (also on failure), every step
# under a timeout. Not part of ctest.
#   bench/least_loaded_bench.sh   [CR_BENCH_SECONDS=5] [CR_BENCH_REPS=3] [CR_BENCH_BUILD=dir]
# Build first, then run it under the servers' lock:
#   bench/least_loaded_bench.sh --build-only && flock /tmp/cr-servers.lock bench/least_loaded_bench.sh
# Each run prints a LEAST_LOADED_BENCH line; the table at the end has the
# medians over the repetitions.
set -euo pipefail
SECS="${CR_BENCH_SECONDS:-5}"
REPS="${CR_BENCH_REPS:-3}"
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_build least-loaded-bench cloudroute_least_loaded_bench
[[ ${1:-} == --build-only ]] && exit 0
bench_cluster least-loaded-bench "${BASE_PORT:-9111}"
PROXY="127.0.3.2:$NODE2_PORT"
echo forward >"$DIR/proxy.ctl"
python3 "$SRC/scripts/latency-proxy.py" --listen "$PROXY" --target "$NODE2_IP:$NODE2_PORT" \
  --delay-ms 10 --control "$DIR/proxy.ctl" --lifetime-s 3600 >"$DIR/proxy.out" 2>"$DIR/proxy.err" &
PROXY_PID=$!
trap 'kill "$PROXY_PID" 2>/dev/null || true; "$HARNESS" stop "$DIR" >/dev/null 2>&1 || true; rm -rf "$DIR"' EXIT
for _ in $(seq 1 200); do
  grep -q "latency-proxy ready" "$DIR/proxy.out" 2>/dev/null && break
  sleep 0.1
done
grep -q "latency-proxy ready" "$DIR/proxy.out" || { echo "the proxy did not start" >&2; exit 1; }
bench_load "n2 +20 ms (proxy $PROXY); 4 threads, ${SECS}s per run after 1 s warm-up, ${REPS} runs each"
LINES="$DIR/lines"
: >"$LINES"
for rep in $(seq 1 "$REPS"); do
  for op in get mget; do
    for sel in random round-robin least-loaded; do
      line=$(timeout $((SECS * 2 + 60)) "$BIN" --env "$DIR/cluster.env" --proxy "$PROXY" \
             --selection "$sel" --op "$op" --seconds "$SECS" --threads 4)
      echo "run $rep  $line"
      echo "$line" >>"$LINES"
    done
  done
done

echo "== medians over $REPS runs (latencies in ms; shares of shard 1's reads; n2 is the slow replica)"
python3 - "$LINES" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    f = dict(kv.split("=", 1) for kv in line.split()[1:])
    runs.setdefault((f["op"], f["selection"]), []).append(f)
print(f"{'op':5} {'selection':13} {'requests':>9} {'failed':>6} {'p50':>7} {'p99':>7} {'max':>7} {'n1':>6} {'n2 (slow)':>9} {'n3':>6}")
for op in ("get", "mget"):
    for sel in ("random", "round-robin", "least-loaded"):
        rs = runs.get((op, sel), [])
        if not rs:
            continue
        med = lambda k: statistics.median(float(r[k]) for r in rs)
        print(f"{op:5} {sel:13} {med('requests'):9.0f} {med('failed'):6.0f} {med('p50_us')/1000:7.2f} "
              f"{med('p99_us')/1000:7.2f} {med('max_us')/1000:7.1f} {med('n1'):6.3f} {med('n2'):9.4f} {med('n3'):6.3f}")
PY
