#!/usr/bin/env bash
# The Python stage of scripts/test.sh: build the sdist and, from it, the wheel
# users get (scripts/package.sh python-host: dist/), install that wheel in a
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
# Every run builds the wheel from a fresh sdist (the extension; the library is
# the package tree's libcloudroute.a, built first if it is not; ccache helps
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
# from PyPI; CR_PY_REDIS_MAJORS=none skips them) and redis-py's own cluster test
# suite through the adapters, compared with plain redis-py's recorded outcomes
# (tests/python/run_redis_py_suite.sh; CR_PY_REDIS_SUITE=none skips it). Both
# are skipped when pytest was given arguments (a focused run). They use
# clusters of their own (tests/PORTS.md) and run side by side: the suite's
# async half alone keeps one core busy for most of its run, the majors another.
# Each one's output follows when both are done.
side_pids=() side_logs=()
side() { # NAME LOG COMMAND...: COMMAND in the background, its output and wall time in LOG
  local name=$1 log=$2
  shift 2
  {
    local start=$SECONDS rc=0
    echo "== python: $name"
    "$@" || rc=$?
    echo "   (took $((SECONDS - start)) s)"
    exit "$rc"
  } >"$log" 2>&1 &
  side_pids+=($!) side_logs+=("$log")
}
if (($# == 0)) && [[ ${CR_PY_REDIS_MAJORS:-} != none ]]; then
  read -ra majors <<<"${CR_PY_REDIS_MAJORS:-5 6 7 8}"
  tested=$("$venv/bin/python" -c 'import redis; print(redis.__version__.split(".")[0])')
  side "the redis-py adapters against each redis-py major" "$out/redis-py-majors.out" \
    env CR_PY_REDIS_TESTED_MAJOR="$tested" tests/python/run_redis_py.sh "$wheel" "${majors[@]}"
fi
if (($# == 0)) && [[ ${CR_PY_REDIS_SUITE:-} != none ]]; then
  side "redis-py's own cluster test suite against the adapters" "$out/redis-py-suite.out" \
    tests/python/run_redis_py_suite.sh "$wheel"
fi
if ((${#side_pids[@]})); then
  # Interrupted: the background steps and what each is running (its clusters stop with it).
  # (`|| true`: errexit holds inside a trap too, and the steps are usually gone by then.)
  trap 'for p in "${side_pids[@]}"; do pkill -TERM -P "$p" 2>/dev/null || true; kill "$p" 2>/dev/null || true; done' EXIT
  status=0
  for i in "${!side_pids[@]}"; do
    wait "${side_pids[$i]}" || status=1
    cat "${side_logs[$i]}"
  done
  echo "   (side by side: $((SECONDS - t)) s)"
  exit "$status"
fi
