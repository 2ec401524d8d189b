# Sourced by the benchmarks that run against live servers (bench/client_bench.sh,
# bench/hedge_bench.sh, bench/*_batch_bench.sh), after `set -euo pipefail`.
#
#   bench_build NAME TARGET   a Release tree with the benchmarks
#                             ($CR_BENCH_BUILD, default build-NAME at the
#                             root); builds TARGET under a timeout, sets BIN
#   bench_cluster NAME PORT   a cluster (scripts/redis-harness.sh; its
#                             settings from the environment) in a fresh DIR
#                             on PORT..PORT+8, bus ports +10000; exports its
#                             cluster.env; stopped and removed on exit
#   bench_load TEXT           the "== load" line every run starts with
#   bench_batch_table FILE    the medians over runs of the BATCH_BENCH lines
#                             in FILE (bench/batch_bench.cc and its peers):
#                             per op, the batch against every other mode
SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HARNESS="$SRC/scripts/redis-harness.sh"

bench_build() {
  local name=$1 target=$2
  BUILD="${CR_BENCH_BUILD:-$SRC/build-$name}"
  cmake -S "$SRC" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCR_BUILD_BENCH=ON -DCR_BUILD_TESTS=OFF >/dev/null
  timeout 1200 ninja -C "$BUILD" -j2 "$target" >/dev/null
  BIN="$BUILD/bench/$target"
}

bench_cluster() {
  local name=$1 port=$2
  DIR="$(mktemp -d "${TMPDIR:-/tmp}/cr-$name.XXXXXX")"
  trap '"$HARNESS" stop "$DIR" >/dev/null 2>&1 || true; rm -rf "$DIR"' EXIT
  timeout 120 "$HARNESS" cluster "$DIR" "$port" >/dev/null
  # shellcheck disable=SC1091
  set -a
  . "$DIR/cluster.env"
  set +a
}

bench_load() {
  echo "== load: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs; redis $(redis-server --version | sed 's/.*v=\([^ ]*\).*/\1/'); $*"
}

bench_batch_table() {
  python3 - "$1" <<'PY'
import statistics, sys
runs, modes = {}, []
for line in open(sys.argv[1]):
    if not line.startswith("BATCH_BENCH"):
        continue
    f = dict(kv.split("=", 1) for kv in line.split()[1:])
    runs.setdefault((f["op"], f["mode"]), []).append(f)
    if f["mode"] != "batch" and f["mode"] not in modes:
        modes.append(f["mode"])
med = lambda rs, k: statistics.median(float(r[k]) for r in rs) / 1000
print(f"{'op':7} {'batch p50':>10} {'p99':>7}" + "".join(f" {m + ' p50':>20} {'p99':>7} {'ratio p50':>9}" for m in modes))
for op in ("mset", "mget", "exists", "del"):
    b = runs.get((op, "batch"), [])
    if not b:
        continue
    row = f"{op:7} {med(b, 'p50_us'):10.3f} {med(b, 'p99_us'):7.3f}"
    for m in modes:
        o = runs.get((op, m), [])
        row += (f" {med(o, 'p50_us'):20.3f} {med(o, 'p99_us'):7.3f} {med(o, 'p50_us') / med(b, 'p50_us'):8.1f}x"
                if o else f" {'-':>20} {'-':>7} {'-':>9}")
    print(row)
PY
}
