#!/usr/bin/env bash
# The live client of two bench builds side by side on one cluster: this
# tree's (build-client-bench/, made by bench/client_bench.sh) and another's,
# e.g. an older commit's, run interleaved so the machine's load falls on both
# alike. GET and a 100-key MGET over every slot, 1 thread; prints the median
# ops/s of each and the ratio new / base. Starts its own 3x3 cluster (ports
# of bench/client_bench.sh: BASE_PORT, default 7641) and stops it.
#
#   git worktree add /tmp/base REV && cmake -S /tmp/base -B /tmp/base/build-client-bench -G Ninja \
#     -DCMAKE_BUILD_TYPE=Release -DCR_BUILD_BENCH=ON -DCR_BUILD_TESTS=OFF &&
#     ninja -C /tmp/base/build-client-bench cloudroute_client_bench
#   flock /tmp/cr-servers.lock bench/client_ab.sh /tmp/base/build-client-bench [ROUNDS] [SECONDS]
#                                                       (default 5 rounds of 2 s per run)
set -euo pipefail
base=${1:?usage: bench/client_ab.sh BASE_BENCH_BUILD [ROUNDS] [SECONDS]}
rounds=${2:-5}
secs=${3:-2}
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_build client-bench cloudroute_client_bench
new=$BIN
old=$base/bench/cloudroute_client_bench
[[ -x $old ]] || { echo "client_ab: no $old (build cloudroute_client_bench there)" >&2; exit 2; }
bench_cluster client-ab "${BASE_PORT:-7641}"
bench_load "$rounds rounds of ${secs}s per run, interleaved"
out=$(mktemp)
trap '"$HARNESS" stop "$DIR" >/dev/null 2>&1 || true; rm -rf "$DIR" "$out"' EXIT
for ((i = 0; i < rounds; i++)); do
  for mode in get mget; do
    for t in base new; do
      bin=$old
      [[ $t == new ]] && bin=$new
      line=$(timeout $((secs * 4 + 60)) "$bin" --seeds "$SEEDS" --mode "$mode" --threads 1 --seconds "$secs")
      echo "$t $mode $(sed 's/.*ops_per_s=//' <<<"$line")" >>"$out"
    done
  done
done
python3 - "$out" <<'PY'
import collections, statistics as st, sys
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    t, mode, ops = line.split()
    d[(mode, t)].append(float(ops))
for mode in ("get", "mget"):
    b, n = st.median(d[(mode, "base")]), st.median(d[(mode, "new")])
    print("%-5s base %9.0f ops/s  new %9.0f ops/s  new/base %.3f  (runs: base %s, new %s)" % (
        mode, b, n, n / b, ", ".join("%.0f" % x for x in d[(mode, "base")]),
        ", ".join("%.0f" % x for x in d[(mode, "new")])))
PY
