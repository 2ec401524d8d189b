#!/usr/bin/env bash
# Builds libcloudroute strictly (-Werror) and runs every test: the format check, unit
# (GoogleTest), C API (CMocka), ABI and install checks; the Python and JVM
# stages; a 30 s soak of the live client (tests/soak/run.sh); then the unit, C
# API and integration tests (against real redis-server processes that the
# tests start and stop themselves on 127.0.x.x) under ASan + UBSan, the
# concurrency tests under ThreadSanitizer, and a short run of every libFuzzer
# target. The package
# stage builds the artifacts of scripts/package.sh and installs each
# (tests/package/run.sh). Stages that mostly wait on servers run beside
# others (logs in build/stage-logs/, printed whole when both end).
#
# Two cores are the budget, and most test stages wait on servers: so once the
# first build (the package tree: tests, CLI, the JVM library) is done, the other
# build trees (the wheel, the arm64 tree and wheel, ASan, TSan) compile one after another in the background
# at nice 19, on the CPU the tests leave idle; a stage that needs one waits
# for it. Every tree compiles through ccache (scripts/deps.sh installs it;
# cache in ~/.cache/ccache), so a second run recompiles only what changed.
#
#   ./scripts/deps.sh && ./scripts/test.sh   the README's command (CI runs it)
#   ./scripts/test.sh --fast     skip the ASan + UBSan, TSan and fuzz passes (the
#                                integration tests run in the package tree instead)
#   tests/python/run.sh          the Python stage alone
#
# It installs nothing: scripts/deps.sh does. It stops at once, naming
# scripts/deps.sh, when something deps.sh installs is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
fast=0
[[ ${1:-} == --fast ]] && fast=1

missing=()
for tool in cmake ninja ccache c++ clang++-14 ld.lld-14 aarch64-linux-gnu-g++ pkg-config redis-server redis-cli valkey-server openssl java mvn; do
  command -v "$tool" >/dev/null || missing+=("$tool")
done
command -v clang-format >/dev/null || command -v clang-format-14 >/dev/null || missing+=(clang-format)
[[ -x .venv/bin/python ]] || missing+=(".venv (the Python tools)")
[[ -x .venv/bin/ruff ]] || missing+=("ruff (in .venv)")
if ((${#missing[@]} > 0)); then
  echo "test: missing ${missing[*]}: run ./scripts/deps.sh first" >&2
  exit 1
fi

jobs=$(nproc)
# Paths relative to the checkout, so clones elsewhere share the cache.
export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
export CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-10G}
# CPU seconds used so far by the finished children of this script (the
# background builds' CPU lands whole in the stage during which their chain
# ends, the TSan wait in a full run; each build step prints its own): the second
# line of `times`, which must run in this shell, not in a $(...) subshell
# (servers that daemonize are not its children and not counted).
# With the wall time it shows whether a stage computes or waits — what
# deciding which stages may run side by side needs.
times_file=build/stage-logs/.times
mkdir -p build/stage-logs
children_cpu() {
  awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] } printf "%d", t }' "$times_file"
}
stage_start=$SECONDS
stage_cpu=0
stage() {
  local now=$SECONDS cpu
  times >"$times_file"
  cpu=$(children_cpu)
  ((now > stage_start)) && echo "   (took $((now - stage_start)) s, $((cpu - stage_cpu)) s of CPU)"
  stage_start=$now
  stage_cpu=$cpu
  echo "== $*"
}

stage "format (scripts/check-format.sh)"
scripts/check-format.sh

# One tree for the tests and the x86_64 artifacts: the package preset (Release,
# -Werror, -Wconversion on the core, the net layer and the C API) builds the
# tests, the CLI and the JVM library beside the libraries the .debs carry, so
# the JVM stage and scripts/package.sh deb find them built (the werror preset is
# the same with debug information, for developers' own builds). Its
# integration tests are built only with --fast: a full run runs them once, in
# the ASan tree (CR_INTEGRATION_TESTS).
integration=ON
((fast == 1)) || integration=OFF
stage "build (preset package: Release, -Werror, -Wconversion; the tests and the JVM library too)"
JAVA_HOME=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")} \
  cmake --preset package -DCR_BUILD_JNI=ON -DCR_INTEGRATION_TESTS=$integration >/dev/null
cmake --build build/package -j "$jobs"
logs=build/stage-logs

# The background builds, in the order the stages need them. Each step's log
# is build/stage-logs/build-STEP.log, its exit status build-STEP.rc; a failed
# step stops the chain. `await_build STEP` waits for one and fails the run
# when it failed.
# The sdist and the x86_64 wheel (the Python stage): the extension, linking the package tree's library.
build_wheel() { scripts/package.sh python-host; }
# The arm64 tree: the .debs, the emulated tests and the JVM library of the
# package stage (configured as bindings/java/build-native.sh does, which then
# finds it built; the x86_64 package tree is the JVM stage's, so it is left
# alone here), and the arm64 wheel.
build_arm64() {
  JAVA_HOME=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")} \
    cmake --preset package-arm64 -DCR_BUILD_JNI=ON >/dev/null &&
    cmake --build --preset package-arm64 -j "$jobs" && scripts/package.sh python-arm64
}
build_asan() { cmake --preset asan >/dev/null && cmake --build --preset asan -j "$jobs"; }
build_tsan() { cmake --preset tsan >/dev/null && cmake --build --preset tsan -j "$jobs"; }
background_builds() {
  local step rc
  renice -n 19 -p "$BASHPID" >/dev/null
  TIMEFORMAT="   (took %0R s, %0U+%0S s of CPU at nice 19)"
  for step in "$@"; do
    rc=0
    { time "build_$step" >"$logs/build-$step.log" 2>&1; } 2>"$logs/build-$step.time" || rc=$?
    echo "$rc" >"$logs/build-$step.rc"
    ((rc == 0)) || return "$rc"
  done
}
await_build() {
  local step=$1 waited=$SECONDS
  while [[ ! -f $logs/build-$step.rc ]]; do
    kill -0 "$builds_pid" 2>/dev/null || { echo "test: the background builds stopped before '$step'" >&2; exit 1; }
    sleep 1
  done
  echo "-- background build '$step' ($logs/build-$step.log), waited $((SECONDS - waited)) s for it:"
  cat "$logs/build-$step.time"
  if [[ $(<"$logs/build-$step.rc") != 0 ]]; then
    tail -60 "$logs/build-$step.log"
    echo "test: the background build '$step' failed" >&2
    exit 1
  fi
}
rm -f "$logs"/build-*
steps=(wheel arm64)
((fast == 1)) || steps+=(asan tsan)
# What runs in the background does so in a process group of its own (set -m),
# listed in `bg_groups`: a failing stage stops each whole on exit. The
# servers of the stages' harness directories under build/ (pytest's and the
# CTest fixtures') daemonize out of those groups, and a stage stopped
# mid-way never runs its fixtures' teardown: on exit, every directory whose
# pids file still names a live process is stopped too, so that the next run
# on this machine finds its ports free.
bg_groups=()
stop_left_servers() {
  local f kind name pid rest
  while IFS= read -r f; do
    while read -r kind name pid rest; do
      if kill -0 "$pid" 2>/dev/null; then
        scripts/redis-harness.sh stop "${f%/pids}" >/dev/null 2>&1 || true
        break
      fi
    done <"$f"
  done < <(find build -name pids -type f 2>/dev/null)
}
trap 'for g in "${bg_groups[@]}"; do kill -- "-$g" 2>/dev/null || true; done; stop_left_servers' EXIT
set -m
background_builds "${steps[@]}" &
builds_pid=$!
set +m
bg_groups+=("$builds_pid")

# The integration tests run once: in the ASan + UBSan tree below (memory
# errors and undefined behaviour on every path a real server drives), or here
# with --fast, which skips that tree. Here always: the rest, and the harness's
# self-test (label slow: it checks shell scripts, not the library, so the
# ASan pass leaves it out).
if ((fast == 1)); then
  stage "tests (unit, capi, abi, integration; the background builds: ${steps[*]})"
  ctest --preset package -j "$jobs"
else
  stage "tests (unit, capi, abi; the harness self-test; the background builds: ${steps[*]})"
  ctest --preset package -j "$jobs" -LE integration
  ctest --preset package -L slow
fi

# The Python stage (the longest: pytest, then the redis-py majors beside
# redis-py's own suite) runs in the background from here through the JVM
# stage, the packages and the soak, into the ASan stage (to its end with
# --fast). Each has servers of its own (tests/PORTS.md).
stage "python, beside java/clojure, the packages and the soak, and the ASan tests (tests/python/run.sh, tests/java/run.sh)"
set -m
{ await_build wheel && CR_PY_PREBUILT=1 tests/python/run.sh; } >"$logs/python.log" 2>&1 &
py_pid=$!
set +m
bg_groups+=("$py_pid")
suites_pid=
java_rc=0
tests/java/run.sh >"$logs/java.log" 2>&1 || java_rc=$?
echo "-- java stage ($logs/java.log):"
cat "$logs/java.log"
((java_rc == 0)) || { echo "test: the java stage failed (exit $java_rc)" >&2; exit 1; }

# Packages: the rest of scripts/package.sh's artifacts into dist/ (the
# background builds made the sdist, the wheel and the package tree the .debs
# come from; the jar reuses the JVM stage's build), then each installed as a
# user gets it: the wheels in fresh virtualenvs, the .debs with apt-get
# (removed again), the jar alone; the glibc each binary needs; the arm64 ones
# under qemu (ctest in the arm64 tree, the .debs' CLI, the wheel's smoke test
# in an arm64 CPython; skipped, saying so, without qemu-aarch64-static). The
# Python package's and the JVM binding's offline suites on arm64 under qemu
# (tests/package/arm64_suites_test.sh: minutes of emulated CPU) start in the
# background once the jar is built, beside the rest of this stage and the
# ASan + UBSan tests (which mostly wait on servers); their log is printed
# after those.
# Beside it, the soak, short: the live client under mixed traffic, a refresh
# every second and a CLUSTER FAILOVER every 6 s for 30 s (its own cluster,
# ports 8571-8579); memory, heap, descriptors and threads must stay flat and no
# acknowledged write may be lost (tests/soak/run.sh; the README's long run is
# 300 s). The soak mostly waits on its servers.
echo "== packages (scripts/package.sh deb jar, tests/package/run.sh) and the soak (tests/soak/run.sh 30), side by side"
await_build arm64
CR_SOAK_BUILD=build/package tests/soak/run.sh 30 >"$logs/soak.log" 2>&1 &
soak_pid=$!
pkg_rc=0 soak_rc=0
if scripts/package.sh deb jar; then
  set -m
  CR_PACKAGE_TESTS=arm64_suites tests/package/run.sh >"$logs/arm64-suites.log" 2>&1 &
  suites_pid=$!
  set +m
  bg_groups+=("$suites_pid")
  CR_PACKAGE_TESTS="python deb jar glibc arm64" tests/package/run.sh || pkg_rc=$?
else
  pkg_rc=1
fi
# await_suites: the arm64 suites' end, their log, and the run's failure when they failed.
await_suites() {
  local rc=0
  [[ -n $suites_pid ]] || return 0
  wait "$suites_pid" || rc=$?
  suites_pid=
  echo "-- the arm64 suites under qemu, in the background since the package stage ($logs/arm64-suites.log):"
  cat "$logs/arm64-suites.log"
  ((rc == 0)) || { echo "test: the arm64 suites failed (exit $rc)" >&2; exit 1; }
}
wait "$soak_pid" || soak_rc=$?
echo "-- soak ($logs/soak.log):"
cat "$logs/soak.log"
((pkg_rc == 0)) || { echo "test: the package stage failed (exit $pkg_rc)" >&2; exit 1; }
((soak_rc == 0)) || { echo "test: the soak failed (exit $soak_rc)" >&2; exit 1; }
# await_python: the Python stage's end, its log, and the run's failure when it failed.
await_python() {
  local rc=0
  wait "$py_pid" || rc=$?
  echo "-- python stage ($logs/python.log), in the background since the JVM stage began:"
  cat "$logs/python.log"
  ((rc == 0)) || { echo "test: the python stage failed (exit $rc)" >&2; exit 1; }
}
if ((fast == 1)); then
  # No ASan stage follows to run beside: the Python stage and the suites end here.
  await_python
  await_suites
else
  stage "build (preset asan: clang 14, ASan + UBSan, the libFuzzer targets; in the background)"
  await_build asan
  # libFuzzer over the C API parsers, config, rings, shard groups and the net
  # reader: seeds from real servers and every saved bad input, then 10 s of
  # new inputs per target, invariants checked on each (tests/fuzz/run.sh). The
  # targets come from the ASan tree (clang, coverage-instrumented). It runs
  # beside the ASan tests: a fixed time per target, so sharing the CPU costs
  # it inputs, not time, and the ASan tests the CPU it takes, not its ~60 s.
  set -m
  CR_FUZZ_PRESET=asan tests/fuzz/run.sh 10 >"$logs/fuzz.log" 2>&1 &
  fuzz_pid=$!
  set +m
  bg_groups+=("$fuzz_pid")
  # The test preset sets ASAN_OPTIONS=detect_leaks=1 and UBSan's halt_on_error.
  # The harness self-test (label slow) checks shell scripts, not the library.
  # The Python stage's tail (redis-py's own suite) runs on beside them: every
  # fixture has ports of its own (tests/PORTS.md). Most integration tests wait
  # on servers (failovers, timeouts), so three run at once.
  stage "tests under ASan + UBSan (unit, capi, integration: the one integration pass); fuzz and the Python stage beside them"
  ctest --preset asan -j "$((jobs + 1))" -L 'unit|capi|integration' -LE slow
  fuzz_rc=0
  wait "$fuzz_pid" || fuzz_rc=$?
  echo "-- fuzz (tests/fuzz/run.sh 10: the asan tree's 8 libFuzzer targets; $logs/fuzz.log):"
  cat "$logs/fuzz.log"
  ((fuzz_rc == 0)) || { echo "test: fuzzing failed (exit $fuzz_rc)" >&2; exit 1; }

  # The TSan tests, beside the Python stage's tail too (after them the run
  # would end on them alone, one core idle).
  stage "build (preset tsan: ThreadSanitizer, the tsan_tests target; in the background)"
  await_build tsan
  stage "tests under TSan (label tsan: router, snapshot cell, shard groups, pool, live client); the Python stage beside them"
  ctest --preset tsan -j "$jobs"
  await_suites
  await_python
fi
stage "all tests passed"
