#!/usr/bin/env bash
# The redis-py adapters (cloudroute.redis_py, cloudroute.redis_asyncio) against
# the newest release of every redis-py major that has their extension point,
# each installed from PyPI into a FRESH virtualenv of its own with the wheel
# and pytest (from .venv/wheelhouse), then the adapter tests: reads placed,
# same results as redis-py, a killed local replica costing no failed read,
# redis-py's read arguments, READONLY refused, MOVED from a replica, all down.
# tests/python/run.sh calls it after the main suite, which already covered
# the redis-py of requirements-test.txt (its major is skipped here).
#
#   tests/python/run_redis_py.sh WHEEL [MAJOR...]     (default majors: 5 6 7 8)
#
# Bounded: pip gives up on PyPI after 60 s per request (2 retries); every
# pytest run stops its clusters itself. Servers: run under
# `flock /tmp/cr-servers.lock` as run.sh is. Ports: those of the adapter tests
# (7561-7569 session cluster, 8101-8109 faults, 8581-8589 pipeline faults,
# 8691-8699 all nodes down; tests/PORTS.md).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
tools=$root/.venv
out=$root/build/python
wheel=${1:?usage: $0 WHEEL [MAJOR...]}
shift
majors=("$@")
((${#majors[@]})) || majors=(5 6 7 8)
skip=${CR_PY_REDIS_TESTED_MAJOR:-}

for major in "${majors[@]}"; do
  if [[ $major == "$skip" ]]; then
    echo "== redis-py $major.x: covered by the main suite"
    continue
  fi
  venv=$out/venv-redis-$major
  rm -rf "$venv"
  "$tools/bin/python" -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-index "$wheel"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-index --find-links "$tools/wheelhouse" pytest
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --timeout 60 --retries 2 "redis>=$major,<$((major + 1))"
  version=$("$venv/bin/python" -c 'import redis; print(redis.__version__)')
  echo "== redis-py $version: adapter tests (fresh virtualenv $venv)"
  CR_PY_LIVE_DIR=$out/live-cluster CR_PY_HARNESS_ROOT=$out/harness \
    "$venv/bin/python" -m pytest -q -p no:cacheprovider \
    tests/python/test_redis_py.py tests/python/test_redis_asyncio.py tests/python/test_adapter_faults.py \
    tests/python/test_adapter_pipeline_faults.py tests/python/test_adapter_read_args.py \
    tests/python/test_adapter_all_down.py
done
