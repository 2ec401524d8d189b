#!/usr/bin/env bash
# The soak: the live client under mixed traffic from 4 threads, a topology
# refresh every second and a CLUSTER FAILOVER every minute (every SECONDS/5
# for runs under 300 s), against its own 3x3 cluster (scripts/redis-harness.sh,
# ports 8571-8579, bus ports +10000), stopped again when done, also on failure.
# Prints RSS, heap, open descriptors and threads before, during and after; fails
# when they are not flat after the warm-up (tolerances printed at the start),
# when the freed client leaves descriptors or threads behind, or when an
# acknowledged write is lost (tests/soak/soak.cc).
#
#   tests/soak/run.sh [SECONDS]     default 300; scripts/test.sh runs 30
#
# Env: CR_SOAK_BUILD (a configured build directory, default build/default: the
# cloudroute_soak target is built there first), BASE_PORT (default 8571).
# Like every test that starts servers, run it under flock /tmp/cr-servers.lock
# when others may be starting servers too.
set -euo pipefail
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
SECONDS_TOTAL="${1:-300}"
[[ $SECONDS_TOTAL =~ ^[0-9]+$ && $SECONDS_TOTAL -ge 10 ]] || {
  echo "usage: tests/soak/run.sh [SECONDS >= 10]" >&2
  exit 2
}
BUILD="${CR_SOAK_BUILD:-$SRC/build/default}"
BASE_PORT="${BASE_PORT:-8571}"
HARNESS="$SRC/scripts/redis-harness.sh"
DIR="$(mktemp -d "${TMPDIR:-/tmp}/cr-soak.XXXXXX")"
trap '"$HARNESS" stop "$DIR" >/dev/null 2>&1 || true; rm -rf "$DIR"' EXIT

[[ -f $BUILD/CMakeCache.txt ]] || {
  echo "soak: $BUILD is not a configured build directory (cmake --preset default)" >&2
  exit 2
}
cmake --build "$BUILD" --target cloudroute_soak >/dev/null
timeout 120 "$HARNESS" cluster "$DIR" "$BASE_PORT" >/dev/null
# shellcheck disable=SC1091
set -a; . "$DIR/cluster.env"; set +a
timeout $((SECONDS_TOTAL + 180)) "$BUILD/tests/soak/cloudroute_soak" --seeds "$SEEDS" \
  --seconds "$SECONDS_TOTAL"
