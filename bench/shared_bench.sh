#!/usr/bin/env bash
# Shared connections against a pooled connection per request in flight, side by side in one
# run: the C client (bench/e2e/cdriver.cc) on the seed workload — 60-key MGETs of random keys
# over every shard, cloud B 3 ms away (one way) behind bench/e2e/cluster.sh's latency proxies —
# at 1, 4, 16, 64 and 256 requests in flight (threads on one client), with
# cr_client_options.shared_connections 0 (a pooled connection per request in flight, the
# default before shared connections) and 2 (the default). Starts its own
# two-cloud Valkey cluster on ports 8741-8749 (bus ports +10000, proxies on 127.0.3.x with the
# same ports; valkey-server needed), stops it when done (also on failure), every step under a
# timeout.
#   bench/shared_bench.sh   [CR_BENCH_REPS=3] [CR_BENCH_SECONDS=3] [CR_BENCH_BUILD=dir]
# Build first (the Release tree bench/lib.sh uses), then run it under the servers' lock:
#   bench/shared_bench.sh --build-only && flock /tmp/cr-servers.lock bench/shared_bench.sh
# The table at the end has the medians over the repetitions: requests per second, p50 and
# p99 in ms, client CPU per request in µs, and the most connections any node was dialed for.
set -euo pipefail
REPS="${CR_BENCH_REPS:-3}"
SECS="${CR_BENCH_SECONDS:-3}"
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_build shared-bench cloudroute_e2e_cdriver
[[ ${1:-} == --build-only ]] && exit 0
DIR="$(mktemp -d "${TMPDIR:-/tmp}/cr-shared-bench.XXXXXX")"
trap '"$SRC/bench/e2e/cluster.sh" stop "$DIR" >/dev/null 2>&1 || true; rm -rf "$DIR"' EXIT
ENV_FILE=$(timeout 180 "$SRC/bench/e2e/cluster.sh" start "$DIR" "${BASE_PORT:-8741}")
timeout 60 "$SRC/bench/e2e/cluster.sh" delay "$DIR" 3
bench_load "cloud B 3 ms away; fan-out 60; 1/4/16/64/256 in flight; ${SECS}s windows; $REPS runs"
timeout 120 "$BIN" --env "$ENV_FILE" --mode get --seconds 0.1 --warmup 0 --load 1 <<<go >/dev/null
LINES="$DIR/lines"
: >"$LINES"
for rep in $(seq 1 "$REPS"); do
  for inflight in 1 4 16 64 256; do
    for shared in 0 2; do
      line=$(timeout $((SECS + 90)) "$BIN" --env "$ENV_FILE" --mode mget --fanout 60 \
             --threads "$inflight" --seconds "$SECS" --warmup 1 --shared "$shared" <<<go | tail -n 1)
      echo "run $rep in_flight=$inflight shared=$shared $line"
      echo "$inflight $shared $line" >>"$LINES"
    done
  done
done

echo "== medians over $REPS runs (shared 0: a pooled connection per request in flight; 2: the default)"
python3 - "$LINES" <<'PY'
import collections, json, statistics, sys
runs = collections.defaultdict(list)
with open(sys.argv[1]) as f:
    for inflight, shared, js in (line.split(" ", 2) for line in f):
        runs[(int(inflight), int(shared))].append(json.loads(js))
print(f"{'in flight':>9} {'shared':>6} {'req/s':>8} {'p50':>7} {'p99':>7} {'cpu us':>7} "
      f"{'conns/node':>10} {'failed':>6} {'req/s ratio':>11}")
for (inflight, shared), rs in sorted(runs.items()):
    med = lambda k, rs=rs: statistics.median(float(r[k]) for r in rs)
    base = runs.get((inflight, 0))
    ratio = med("rps") / statistics.median(float(r["rps"]) for r in base) if base else float("nan")
    print(f"{inflight:9d} {shared:6d} {med('rps'):8.0f} {med('p50_ms'):7.2f} {med('p99_ms'):7.2f} "
          f"{med('cpu_us_per_req'):7.1f} {med('max_node_connections'):10.0f} {med('failed'):6.0f} "
          f"{ratio:11.2f}")
PY
