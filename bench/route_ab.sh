#!/usr/bin/env bash
# route_read of two bench builds side by side: this tree's (build-bench/, made
# by bench/run.sh) and another's, e.g. an older commit's, run interleaved so
# the machine's load falls on both alike. Prints medians of CPU time per key
# and the ratio new / base for the .so call and the core's call.
#
#   git worktree add /tmp/base REV && cmake -S /tmp/base -B /tmp/base/build-bench -G Ninja \
#     -DCMAKE_BUILD_TYPE=Release -DCR_BUILD_BENCH=ON -DCR_BUILD_TESTS=OFF &&
#     ninja -C /tmp/base/build-bench cloudroute_bench cloudroute_bench_shared
#   bench/route_ab.sh /tmp/base/build-bench [ROUNDS]     (default 5 rounds)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
base=${1:?usage: bench/route_ab.sh BASE_BENCH_BUILD [ROUNDS]}
rounds=${2:-5}
new=${CR_BENCH_BUILD:-$src/build-bench}
for d in "$base" "$new"; do
  [[ -x $d/bench/cloudroute_bench && -x $d/bench/cloudroute_bench_shared ]] ||
    { echo "route_ab: no bench binaries in $d (build cloudroute_bench and cloudroute_bench_shared)" >&2; exit 2; }
done
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for ((i = 0; i < rounds; i++)); do
  for t in base new; do
    d=$base
    [[ $t == new ]] && d=$new
    timeout 120 "$d/bench/cloudroute_bench_shared" --benchmark_filter='BM_Shared_RouteRead_CApi/shards:(3|100)$' \
      --benchmark_min_time=0.2 --benchmark_format=csv 2>/dev/null | grep '^"\?BM_' | sed "s/^/$t,/" >>"$out"
    timeout 120 "$d/bench/cloudroute_bench" --benchmark_filter='BM_RouteRead_Router/shards:(3|100)$' \
      --benchmark_min_time=0.2 --benchmark_format=csv 2>/dev/null | grep '^"\?BM_' | sed "s/^/$t,/" >>"$out"
  done
done
python3 - "$out" <<'PY'
import csv, statistics as st, sys, collections
d = collections.defaultdict(list)
for row in csv.reader(open(sys.argv[1])):
    d[(row[1], row[0])].append(float(row[4]) / 1024)  # cpu_time per iteration of 1024 keys
for name in sorted({n for n, _ in d}):
    b, n = st.median(d[(name, "base")]), st.median(d[(name, "new")])
    print("%-40s base %6.2f ns  new %6.2f ns  new/base %.3f" % (name, b, n, n / b))
PY
