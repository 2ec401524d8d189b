#!/usr/bin/env bash
# Builds the Release bench config and runs every benchmark (5 repetitions,
# medians), the shared-library C API benchmarks and the allocation check,
# then prints a summary. Stops by itself: each binary runs under a timeout.
#   bench/run.sh [extra google-benchmark flags, e.g. --benchmark_filter=KeySlot]
set -euo pipefail
SRC="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${CR_BENCH_BUILD:-$SRC/build-bench}"
OUT="${CR_BENCH_OUT:-$BUILD/bench-results}"
MIN_TIME="${CR_BENCH_MIN_TIME:-0.2}"   # seconds per repetition (benchmark 1.7 syntax)
mkdir -p "$OUT"

cmake -S "$SRC" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCR_BUILD_BENCH=ON -DCR_BUILD_TESTS=OFF >/dev/null
ninja -C "$BUILD" -j2 cloudroute_bench cloudroute_bench_shared cloudroute_alloc_check cloudroute_scale_check

COMMON=(--benchmark_repetitions=5 --benchmark_report_aggregates_only=true
        --benchmark_min_time="$MIN_TIME" --benchmark_out_format=json)

steal() { awk '/^cpu /{print $9}' /proc/stat; }
steal0=$(steal)
echo "== load: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
echo "== cloudroute_bench (static library: core C++ and C API side by side)"
timeout 600 "$BUILD/bench/cloudroute_bench" "${COMMON[@]}" --benchmark_out="$OUT/bench.json" "$@"
echo "== cloudroute_bench_shared (C API through libcloudroute.so)"
timeout 300 "$BUILD/bench/cloudroute_bench_shared" "${COMMON[@]}" --benchmark_out="$OUT/bench_shared.json" "$@"
echo "== allocation check (counting operator new)"
alloc_rc=0
timeout 120 "$BUILD/bench/cloudroute_alloc_check" || alloc_rc=$?

echo "== topologies at scale (parse + install, heap; goals: 1000 shards <= 1 ms and <= 1 MB, 10 shards <= 100 KB)"
timeout 300 "$BUILD/bench/cloudroute_scale_check"

echo "== CPU steal during the run: $(( $(steal) - steal0 )) ticks (high = numbers from a busy host)"
echo "== summary (medians; JSON in $OUT)"
python3 "$SRC/bench/summarize.py" "$OUT/bench.json" "$OUT/bench_shared.json"
exit "$alloc_rc"
