#!/usr/bin/env bash
# Instructions and simulated L1 data misses per routed key, counted by
# valgrind's callgrind: numbers that do not move with the load of a shared
# machine (wall-clock medians from bench/run.sh do). Compare two builds side by
# side, e.g. the tree before and after a change:
#
#   bench/callgrind_route.sh BUILD_DIR [BENCHMARK_REGEX...]
#     BUILD_DIR  a bench build (bench/run.sh makes build-bench/)
#     default benchmarks: BM_Shared_RouteRead_CApi/shards:{3,100} (the C API
#     through libcloudroute.so) and BM_RouteRead_Router/shards:{3,100} (the core)
#
# Per key = the benchmark's totals, less its one-time setup, divided by the
# calls of cloudroute::KeySlot (one per routed key; cloudroute::HashTag in
# builds before KeySlot moved out of line), or of the C entry point where the
# slot is computed inline (cr_router_route_read, cr_snapshot_route_read). Each run is bounded (900 s).
set -euo pipefail
build=${1:?usage: bench/callgrind_route.sh BUILD_DIR [BENCHMARK_REGEX...]}
shift
command -v valgrind >/dev/null || { echo "callgrind_route: valgrind is missing (apt-get install valgrind)" >&2; exit 2; }
benches=("$@")
((${#benches[@]} > 0)) || benches=('BM_Shared_RouteRead_CApi/shards:3$' 'BM_Shared_RouteRead_CApi/shards:100$'
                                    'BM_RouteRead_Router/shards:3$' 'BM_RouteRead_Router/shards:100$')
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for b in "${benches[@]}"; do
  name=${b%%/*}
  bin=$build/bench/cloudroute_bench
  [[ $name == BM_Shared_* ]] && bin=$build/bench/cloudroute_bench_shared
  LD_BIND_NOW=1 timeout 900 valgrind --tool=callgrind --cache-sim=yes --toggle-collect="*${name}*" \
    --callgrind-out-file="$out/cg" "$bin" --benchmark_filter="$b" --benchmark_min_time=0.5 >/dev/null 2>&1
  python3 - "$out/cg" "$b" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().split("\n")
events = totals = None
names = {}
for l in lines:
    if l.startswith("events:"):
        events = l.split()[1:]
    elif l.startswith(("summary:", "totals:")):
        totals = [int(x) for x in l.split()[1:]]
    m = re.match(r"c?fn=\((\d+)\) (.*)", l)
    if m:
        names[m.group(1)] = m.group(2)
keys = {"KeySlot": 0, "HashTag": 0, "entry": 0}
callee, setup, take = None, [0] * len(events), False
for l in lines:
    m = re.match(r"cfn=\((\d+)\)", l)
    if m:
        callee = names.get(m.group(1), "")
        continue
    if take:  # the cost line after a setup call: not per-key work
        for i, x in enumerate(l.split()[1:]):
            setup[i] += int(x)
        take = False
        continue
    if l.startswith("calls=") and callee is not None:
        for k in keys:
            if callee.startswith("cloudroute::" + k + "("):
                keys[k] += int(l.split("=")[1].split()[0])
        if callee in ("cr_router_route_read", "cr_snapshot_route_read"):
            keys["entry"] += int(l.split("=")[1].split()[0])
        take = bool(re.search(r"GetC?World|ShortKeys|MakeKeys|DescribeOnce", callee))
        callee = None
d = dict(zip(events, [t - s for t, s in zip(totals, setup)]))
keys = keys["KeySlot"] or keys["HashTag"] or keys["entry"]
if keys == 0:
    sys.exit("callgrind_route: no routed keys counted for " + sys.argv[2])
print("%-42s %7.1f instructions/key %6.2f L1d misses/key" %
      (sys.argv[2], d["Ir"] / keys, (d.get("D1mr", 0) + d.get("D1mw", 0)) / keys))
PY
done
