#!/usr/bin/env bash
# The seed's batch of 100 keys on Sentinel shard groups: MSET / MGET /
# EXISTS / DEL of 100 family keys as one batch call (one command per group,
# both groups at once) against the same commands issued one by one, in the
# same process and run (bench/batch_bench.cc --sentinels). Starts its own
# Sentinel setup with scripts/redis-harness.sh (data nodes 8844-8849,
# sentinels 8854-8856: tests/PORTS.md), stops it when done (also on failure),
# every step under a timeout. Not part of ctest. Run it under the servers' lock:
#   flock /tmp/cr-servers.lock bench/sentinel_batch_bench.sh
#     [CR_BENCH_ITERATIONS=300] [CR_BENCH_REPS=3] [CR_BENCH_BUILD=dir]
# Each run prints BATCH_BENCH lines (p50/p99 of one 100-key call, or of the
# 100 single calls) and BATCH_RATIO lines; the table at the end has the
# medians over the runs.
set -euo pipefail
ITER="${CR_BENCH_ITERATIONS:-300}"
REPS="${CR_BENCH_REPS:-3}"
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_build batch-bench cloudroute_batch_bench
DIR="$(mktemp -d "${TMPDIR:-/tmp}/cr-sentinel-batch-bench.XXXXXX")"
trap '"$HARNESS" stop "$DIR" >/dev/null 2>&1 || true; rm -rf "$DIR"' EXIT
timeout 120 "$HARNESS" sentinel "$DIR" "${BASE_PORT:-8844}" >/dev/null
var() { sed -n "s/^$1=//p" "$DIR/sentinel.env"; }
bench_load "${ITER} iterations per run, ${REPS} runs; 100 keys over 2 groups"
LINES="$DIR/lines"
: >"$LINES"
for rep in $(seq 1 "$REPS"); do
  timeout $((ITER + 120)) "$BIN" --sentinels "$(var SENTINELS)" --local-cidr "$(var CLOUD_A_CIDR)" \
    --iterations "$ITER" --keys 100 |
    tee -a "$LINES" | sed "s/^/run $rep  /"
done

echo "== medians over $REPS runs (ms per 100 keys; ratio: the mode's p50 / the batch's p50)"
bench_batch_table "$LINES"
