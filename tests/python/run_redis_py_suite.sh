#!/usr/bin/env bash
# redis-py's own cluster test suite (tests/test_cluster.py and
# tests/test_asyncio/test_cluster.py of the redis sdist pinned in
# bindings/python/requirements-redis-suite.txt, which ships tests/) with every
# RedisCluster replaced by cloudroute's adapter (redis_py_suite/cloudroute_swap.py),
# judged against the same suite with plain redis-py (redis_py_suite/compare.py).
# FAILS when a test plain redis-py passes does not pass under the adapter
# unless the test is listed, with its reason, in
# redis_py_suite/expected-differences.txt; when the adapter fails a test plain
# redis-py's outcomes do not know; or when a test of those outcomes did not
# run. tests/python/run.sh calls it.
#
# Plain redis-py's outcomes do not depend on this library: they are recorded
# once per redis-py version and server, in
# redis_py_suite/outcomes/redis-py-VERSION-SERVER-VERSION.txt (server: what
# `${REDIS_SERVER:-redis-server} --version` names), and a run compares the
# adapter's run with that record. Tests the record says plain redis-py passes
# that do not pass under the adapter are run again with plain redis-py right
# then (a slow machine can fail some of redis-py's own tests, which its 30 s
# timeout bounds); those it fails too are not held against the adapter.
# Without a record for this redis-py and server, plain redis-py runs too (on
# a cluster of its own, side by side) and the adapter is compared with that
# run; the script says so.
#
#   tests/python/run_redis_py_suite.sh WHEEL           (after scripts/deps.sh)
#   tests/python/run_redis_py_suite.sh --all WHEEL     the tests
#                                                      redis_py_suite/left-out.txt
#                                                      lists too
#   tests/python/run_redis_py_suite.sh --record WHEEL  plain redis-py only: write
#                                                      the record (printing each
#                                                      test whose outcome changed)
#   CR_PY_SUITE=sync|async|all (default all)           one half only
#
# Offline: the sdist from .venv/redis-py-sdist/, the wheels from
# .venv/wheelhouse/. Fresh virtualenv build/python/venv-redis-suite (the wheel,
# redis, pytest and the suite's plugins; nothing of the repository on its path
# but the plugin). Servers: a cluster per lane (scripts/redis-harness.sh
# cluster; the sync half 8681-8689; async, plain redis-py 8701-8709, the
# adapter 8931-8939; tests/PORTS.md), the lanes side by side, each cluster
# stopped when its lane ends; run under `flock /tmp/cr-servers.lock` as run.sh
# is. Each test is bounded by pytest-timeout (90 s: see test_timeout below).
# Cost with a record: two pytest runs of ~260 tests side by side (sync, async
# through the adapter); without one, four, in three lanes. run.sh skips it
# with CR_PY_REDIS_SUITE=none.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
tools=$root/.venv
out=$root/build/python
record=0 all=0
[[ ${1:-} == --record ]] && { record=1; shift; }
[[ ${1:-} == --all ]] && { all=1; shift; }
wheel=${1:?usage: $0 [--record | --all] WHEEL}
req=$root/bindings/python/requirements-redis-suite.txt
suite_dir=$root/tests/python/redis_py_suite
version=$(sed -n 's/^redis==//p' "$req")
sdist=$tools/redis-py-sdist/redis-$version.tar.gz
[[ -f $sdist ]] || { echo "redis-py suite: $sdist missing: run scripts/deps.sh" >&2; exit 1; }
server_bin=${REDIS_SERVER:-redis-server}
# "Redis server v=7.0.15 sha=…" -> redis-7.0.15 (Valkey: valkey-8.1.1)
server=$("$server_bin" --version | sed -n 's/^\([A-Za-z]*\) server v=\([^ ]*\).*/\1-\2/p' | tr '[:upper:]' '[:lower:]')
[[ -n $server ]] || { echo "redis-py suite: cannot tell the version of $server_bin" >&2; exit 1; }
outcomes=$suite_dir/outcomes/redis-py-$version-$server.txt
halves=(sync async)
case ${CR_PY_SUITE:-all} in
  all) ;;
  sync | async) halves=("$CR_PY_SUITE") ;;
  *) echo "redis-py suite: CR_PY_SUITE must be sync, async or all" >&2; exit 2 ;;
esac

work=$out/redis-py-suite
rm -rf "$work"
mkdir -p "$work"
# Only the tests and the suite's pytest configuration: redis itself is the
# installed wheel, never the sdist's source tree.
tar -xzf "$sdist" -C "$work" "redis-$version/tests" "redis-$version/pyproject.toml"
src=$work/redis-$version

venv=$out/venv-redis-suite
rm -rf "$venv"
"$tools/bin/python" -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check --no-index "$wheel"
"$venv/bin/python" -m pip install -q --disable-pip-version-check --no-index --find-links "$tools/wheelhouse" -r "$req"

harness=$root/scripts/redis-harness.sh
# The adapter's runs deselect what redis_py_suite/left-out.txt lists (each with
# its reason there; compare.py is told, so those tests do not count as not
# run), unless --all. Plain redis-py's runs (--record) always run everything.
left_out=() left_out_check=()
if ((all == 0)); then
  left_out_check=(--left-out "$suite_dir/left-out.txt")
  while read -r prefix; do left_out+=(--deselect "$prefix"); done \
    < <(sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^[[:space:]]*$/d' "$suite_dir/left-out.txt")
fi
declare -A files=([sync]=tests/test_cluster.py [async]=tests/test_asyncio/test_cluster.py)
# Each test's bound (pytest-timeout): redis-py's own configuration says 30 s,
# but some of its tests spend most of that in its own retry loop — the async
# test_not_require_full_coverage_cluster_down_error closes every connection,
# sleeps 0.25 s and reconnects ten times: 5-6 s alone, 15-40 s beside the other
# stages, with plain redis-py and the adapter alike — so a loaded machine timed
# it out at 30 s. 90 s bounds a hang as well.
test_timeout=90

# A lane: one half (sync or async) in one or more modes (plain redis-py, the
# adapter; recheck: plain redis-py on the tests of $work/HALF-suspects.txt
# only; adapter-recheck: the adapter on those of $work/HALF-timeouts.txt),
# one after another, on a cluster of its own (the suite flushes and
# reconfigures its cluster), stopped when the lane ends. Exit status 1 when
# pytest itself failed to run (exit 2-5: interrupted, internal, usage, no
# tests); failed tests are compared afterwards, not fatal here.
lane() {
  local name=$1 half=$2 port=$3 cluster=$out/harness/redis-py-suite-$1 url mode plugin rc start tests
  shift 3
  mkdir -p "$cluster"
  [[ -e $cluster/pids ]] && "$harness" stop "$cluster" >/dev/null 2>&1
  "$harness" cluster "$cluster" "$port" >/dev/null || return 1
  url=redis://$(sed -n 's/^SEEDS=\([^:,]*:[0-9]*\).*/\1/p' "$cluster/cluster.env")
  for mode in "$@"; do
    plugin=() rc=0 start=$SECONDS tests=("${files[$half]}")
    [[ $mode == adapter* ]] && plugin=(-p cloudroute_swap "${left_out[@]}")
    [[ $mode == recheck ]] && mapfile -t tests <"$work/$half-suspects.txt"
    [[ $mode == adapter-recheck ]] && mapfile -t tests <"$work/$half-timeouts.txt"
    (cd "$src" && PYTHONPATH=$suite_dir "$venv/bin/python" -m pytest -q -p no:cacheprovider "${plugin[@]}" \
      --timeout="$test_timeout" --redis-url="$url" --redis-cluster-nodes=9 --junitxml="$work/$half-$mode.xml" -o junit_family=xunit1 \
      "${tests[@]}" >"$work/$half-$mode.log" 2>&1) || rc=$?
    what=${files[$half]}
    [[ $mode == *recheck ]] && what="${#tests[@]} test(s) of $what"
    echo "== redis-py $version suite, $half, $mode ($what on $url, $((SECONDS - start)) s):"
    echo "   $(tail -n 1 "$work/$half-$mode.log") (log: $work/$half-$mode.log)"
    if ((rc > 1)); then
      echo "redis-py suite: pytest exited $rc (see the log)" >&2
      "$harness" stop "$cluster" >/dev/null 2>&1
      return 1
    fi
  done
  "$harness" stop "$cluster" >/dev/null 2>&1
}

# Which runs: with a record of plain redis-py on this redis-py and server,
# the adapter only; --record, plain redis-py only; otherwise both.
if ((record == 1)); then
  modes=(redis-py)
elif [[ -f $outcomes ]]; then
  modes=(adapter)
  echo "== redis-py $version suite: plain redis-py's outcomes on $server recorded in ${outcomes#"$root"/}"
else
  modes=(redis-py adapter)
  echo "== redis-py $version suite: no record of plain redis-py's outcomes on $server" \
    "(${outcomes#"$root"/}): plain redis-py runs too; tests/python/run_redis_py_suite.sh --record WHEEL makes it"
fi
# The lanes side by side: the sync half's runs (2-4 minutes each) one after
# the other, each async run (4-7 minutes) in a lane of its own.
lanes=()
for h in "${halves[@]}"; do
  case $h in
    sync) lanes+=("sync sync 8681 ${modes[*]}") ;;
    async)
      for m in "${modes[@]}"; do
        case $m in
          redis-py) lanes+=("async-redis-py async 8701 redis-py") ;;
          adapter) lanes+=("async-adapter async 8931 adapter") ;;
        esac
      done
      ;;
  esac
done
pids=() names=()
for l in "${lanes[@]}"; do
  read -ra args <<<"$l"
  lane "${args[@]}" >"$work/${args[0]}.out" 2>&1 &
  pids+=($!) names+=("${args[0]}")
done
# `|| true`: errexit holds inside a trap too, and the lanes and their clusters
# are usually gone by then (a failing kill would make the exit 1).
trap 'kill "${pids[@]}" 2>/dev/null || true
      for n in "${names[@]}"; do "$harness" stop "$out/harness/redis-py-suite-$n" >/dev/null 2>&1 || true; done' EXIT
trap 'exit 130' INT TERM  # the EXIT trap stops the clusters
status=0
for i in "${!names[@]}"; do
  wait "${pids[$i]}" || status=1
  cat "$work/${names[$i]}.out"
done
((status == 0)) || exit 1
if ((record == 1)); then
  mkdir -p "$(dirname "$outcomes")"
  runs=()
  for h in "${halves[@]}"; do runs+=("$work/$h-redis-py.xml"); done
  plugins=$("$venv/bin/python" -m pip list --format=freeze 2>/dev/null | grep -E '^pytest' | paste -sd ' ')
  echo "== redis-py $version suite: recording plain redis-py's outcomes on $server"
  "$venv/bin/python" "$suite_dir/compare.py" record "$outcomes" \
    "Plain redis-py $version's own cluster test suite on $server ($("$server_bin" --version | cut -d' ' -f1-3)), 9 nodes of
scripts/redis-harness.sh: the outcome of every test. tests/python/run_redis_py_suite.sh judges the
adapter's run against it instead of running plain redis-py each time.
Made by: tests/python/run_redis_py_suite.sh --record WHEEL
($("$venv/bin/python" --version), $plugins)." "${runs[@]}"
  exit 0
fi
check() { # HALF BASELINE [PLAIN-RECHECK.xml [ADAPTER-RECHECK.xml]]
  local again=()
  (($# < 4)) || again=(--adapter-recheck "$4")
  "$venv/bin/python" "$suite_dir/compare.py" check --suspects "$work/$1-suspects.txt" \
    --timeouts "$work/$1-timeouts.txt" "${again[@]}" "${left_out_check[@]}" \
    "$suite_dir/expected-differences.txt" "$2" "$work/$1-adapter.xml" "${@:3:1}"
}
for h in "${halves[@]}"; do
  echo "== redis-py $version suite, $h: the adapter against plain redis-py"
  if [[ ${modes[0]} != adapter ]]; then
    check "$h" "$work/$h-redis-py.xml" || status=1
    continue
  fi
  check "$h" "$outcomes" >"$work/$h-check.out" 2>&1 && { cat "$work/$h-check.out"; continue; }
  if [[ ! -s $work/$h-suspects.txt ]]; then
    cat "$work/$h-check.out"
    status=1
    continue
  fi
  # Tests the record says plain redis-py passes did not pass under the
  # adapter: plain redis-py runs them now, on this machine as loaded as it
  # is (a redis-py test bounded by its own timeout can fail when the machine
  # is slow); those it fails too are not the adapter's doing. Those the
  # adapter lost to pytest-timeout it runs again too, right after plain
  # redis-py and on the same cluster: the first run's load may have passed
  # by, and the adapter is then judged at the same moment as plain redis-py.
  # A test the adapter failed in any other way is not run again.
  echo "   $(wc -l <"$work/$h-suspects.txt") test(s) the record says plain redis-py passes did not pass" \
    "under the adapter: plain redis-py runs them now" \
    "($(wc -l <"$work/$h-timeouts.txt") of them timed out: the adapter runs those again after it)"
  port=8681
  [[ $h == async ]] && port=8701
  names+=("$h-recheck")
  again=(recheck) rechecks=("$work/$h-recheck.xml")
  if [[ -s $work/$h-timeouts.txt ]]; then
    again+=(adapter-recheck) rechecks+=("$work/$h-adapter-recheck.xml")
  fi
  lane "$h-recheck" "$h" "$port" "${again[@]}" || { status=1; continue; }
  check "$h" "$outcomes" "${rechecks[@]}" || status=1
done
exit $status
