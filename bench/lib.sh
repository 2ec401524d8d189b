# Sourced by the benchmarks that run against a live 3x3 cluster
# (bench/client_bench.sh, bench/hedge_bench.sh), after `set -euo pipefail`.
#
#   bench_build NAME TARGET   a Release tree with the benchmarks
#                             ($CR_BENCH_BUILD, default build-NAME at the
#                             root); builds TARGET under a timeout, sets BIN
#   bench_cluster NAME PORT   a cluster (scripts/redis-harness.sh; its
#                             settings from the environment) in a fresh DIR
#                             on PORT..PORT+8, bus ports +10000; exports its
#                             cluster.env; stopped and removed on exit
#   bench_load TEXT           the "== load" line every run starts with
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
