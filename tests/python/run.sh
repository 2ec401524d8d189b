#!/usr/bin/env bash
# The Python stage of scripts/test.sh: build the sdist and, from it alone, the
# wheel users get (scripts/package.sh python-host: dist/), install that wheel in a
# FRESH virtualenv (nothing else in it), check that it imports from outside
# the repository, then run pytest and mypy (strict, on the package's stubs and
# a typed usage example) and stubtest (stubs vs the real module). The package
# stage (tests/package/python_test.sh) checks the same artifacts.
#
#   tests/python/run.sh            (after scripts/deps.sh has made .venv/)
#   tests/python/run.sh -k router  extra arguments go to pytest (and skip the
#                                  redis-py majors: tests/python/run_redis_py.sh,
#                                  and redis-py's own suite: run_redis_py_suite.sh)
#
# Every run builds the wheel from a fresh sdist (a full compile; ccache helps
# when it is installed), unless CR_PY_PREBUILT=1 says scripts/package.sh
# python has just built it (scripts/test.sh does, in the background).
# Test state: build/python/.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
tools=$root/.venv
out=$root/build/python
[[ -x $tools/bin/python ]] || { echo "python: $tools missing: run scripts/deps.sh" >&2; exit 1; }
# Each step prints its wall time after it (what the stage's time is made of).
t=$SECONDS
took() {
  echo "   (took $((SECONDS - t)) s)"
  t=$SECONDS
}

if [[ ${CR_PY_PREBUILT:-} == 1 ]]; then
  echo "== python: the wheel scripts/package.sh python-host built in dist/ (CR_PY_PREBUILT=1)"
else
  echo "== python: the sdist and the wheel built from it (scripts/package.sh python-host)"
  scripts/package.sh python-host
  took
fi
# This machine's wheel (dist/ holds one per architecture).
wheel=$(ls "$root"/dist/cloudroute-*-manylinux_*_"$(uname -m)".whl)

echo "== python: install $(basename "$wheel") in a fresh virtualenv"
venv=$out/venv-test
rm -rf "$venv"
"$tools/bin/python" -m venv "$venv"
"$venv/bin/python" -m pip install -q --no-index "$wheel"
(cd / && "$venv/bin/python" -c 'import cloudroute; print("import cloudroute:", cloudroute.__version__, cloudroute.__file__)')
"$venv/bin/python" -m pip install -q --no-index --find-links "$tools/wheelhouse" -r bindings/python/requirements-test.txt \
  -r bindings/python/requirements-peers.txt
took

echo "== python: pytest (the 15 slowest tests listed)"
CR_PY_LIVE_DIR=$out/live-cluster CR_PY_HARNESS_ROOT=$out/harness \
  "$venv/bin/python" -m pytest -q -p no:cacheprovider --durations=15 tests/python "$@"
took

echo "== python: mypy --strict (package stubs, typed usage example) and stubtest"
(cd "$out" && "$venv/bin/python" -m mypy --strict --cache-dir "$out/mypy-cache" -p cloudroute &&
  "$venv/bin/python" -m mypy --strict --cache-dir "$out/mypy-cache" "$root/tests/python/typing_usage.py")
(cd "$out" && "$venv/bin/python" -m mypy.stubtest cloudroute --allowlist "$root/tests/python/stubtest-allowlist.txt")
took

# The adapters against every other redis-py major (fresh virtualenvs, redis-py
# from PyPI); skipped when pytest was given arguments (a focused run) or with
# CR_PY_REDIS_MAJORS=none.
if (($# == 0)) && [[ ${CR_PY_REDIS_MAJORS:-} != none ]]; then
  echo "== python: the redis-py adapters against each redis-py major"
  read -ra majors <<<"${CR_PY_REDIS_MAJORS:-5 6 7 8}"
  CR_PY_REDIS_TESTED_MAJOR=$("$venv/bin/python" -c 'import redis; print(redis.__version__.split(".")[0])') \
    tests/python/run_redis_py.sh "$wheel" "${majors[@]}"
  took
fi

# redis-py's own cluster test suite through the adapters, compared with plain
# redis-py's recorded outcomes (tests/python/run_redis_py_suite.sh: clusters of
# its own); skipped when pytest was given arguments or with
# CR_PY_REDIS_SUITE=none.
if (($# == 0)) && [[ ${CR_PY_REDIS_SUITE:-} != none ]]; then
  echo "== python: redis-py's own cluster test suite against the adapters"
  tests/python/run_redis_py_suite.sh "$wheel"
  took
fi
