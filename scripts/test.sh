#!/usr/bin/env bash
# Builds libcloudroute and runs every test: unit (GoogleTest), C API (CMocka),
# ABI and install checks, and integration tests against real redis-server
# processes that the tests start and stop themselves on 127.0.x.x. Then the
# unit and C API tests again under ASan + UBSan.
#
#   ./scripts/test.sh            everything (a few minutes on 2 cores)
#   ./scripts/test.sh --fast     skip the sanitizer pass
#   tests/python/run.sh          the Python stage alone (after scripts/deps.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
fast=0
[[ ${1:-} == --fast ]] && fast=1

bash scripts/deps.sh
jobs=$(nproc)

echo "== build (preset default: RelWithDebInfo)"
cmake --preset default >/dev/null
cmake --build --preset default -j "$jobs"
echo "== tests (unit, capi, abi, integration)"
ctest --preset default -j "$jobs"
# Python binding: the wheel in a fresh virtualenv, pytest, mypy (tests/python/run.sh).
tests/python/run.sh

if ((fast == 0)); then
  echo "== build (preset asan: ASan + UBSan)"
  cmake --preset asan >/dev/null
  cmake --build --preset asan -j "$jobs"
  echo "== tests under ASan + UBSan (unit, capi)"
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --preset asan -j "$jobs" -L 'unit|capi'
fi
echo "== all tests passed"
