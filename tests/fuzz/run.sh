#!/usr/bin/env bash
# Builds the libFuzzer targets (preset fuzz: clang 14, ASan + UBSan, optimized;
# CR_FUZZ_PRESET=asan uses the Debug ASan tree that scripts/test.sh builds) and runs
# each one for a bounded time over its committed seeds (tests/fuzz/seeds/,
# real replies of redis-server 7 and Valkey 8) and every saved bad input
# (tests/fuzz/regressions/). New interesting inputs go to a scratch corpus,
# never into the tree. Prints executions and coverage per target; exits
# non-zero on the first crash, leak or broken invariant (libFuzzer leaves the
# reproducer as crash-*/leak-* in the output directory it names). Targets run
# side by side, CR_FUZZ_JOBS at a time (default: the number of cores).
#
#   tests/fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...]   default 20 s, every target
#   scripts/test.sh runs it with 10 s per target; long runs: tests/fuzz/run.sh 3600
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
cd "$src"
seconds=${1:-20}
shift || true
targets=("$@")
((${#targets[@]} > 0)) ||
  targets=(cluster_slots cluster_shards cluster_paths static_topology config rings shard_groups
    reply_reader client command_table)
command -v clang++-14 >/dev/null || { echo "fuzz: clang++-14 is missing: run ./scripts/deps.sh" >&2; exit 1; }

preset=${CR_FUZZ_PRESET:-fuzz}
[[ $preset == fuzz || $preset == asan ]] || { echo "fuzz: CR_FUZZ_PRESET is fuzz or asan, not '$preset'" >&2; exit 2; }
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)" --target fuzz_targets

out=${CR_FUZZ_OUT:-$(mktemp -d)}
echo "fuzz: $seconds s per target; scratch corpora and any reproducer in $out"
# One target: its log in $out/T.log, its one-line summary in $out/T.result.
run_target() {
  local t=$1 bin=build/$preset/tests/fuzz/fuzz_$1 dirs=() d s log execs cov srcs=("$1")
  # cluster_paths compares the two parses of both reply kinds: their inputs.
  [[ $t == cluster_paths ]] && srcs=(cluster_slots cluster_shards)
  for s in "${srcs[@]}"; do
    for d in tests/fuzz/seeds/$s tests/fuzz/regressions/$s; do [[ -d $d ]] && dirs+=("$d"); done
  done
  mkdir -p "$out/$t"
  log=$out/$t.log
  # -rss_limit_mb bounds memory per input; the library's own caps must keep
  # every parse far below it. -timeout: one input may take at most 10 s.
  if ! (cd "$out" && timeout $((seconds + 120)) "$src/$bin" -max_total_time="$seconds" \
      -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 "$out/$t" \
      "${dirs[@]/#/$src/}" >"$log" 2>&1); then
    echo "FAILED" >"$out/$t.result"
    return 1
  fi
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -1)
  echo "fuzz: $t ok: $execs executions, $cov (edges), corpus $(ls "$out/$t" | wc -l) new inputs" >"$out/$t.result"
}

for t in "${targets[@]}"; do
  [[ -x build/$preset/tests/fuzz/fuzz_$t ]] || { echo "fuzz: no target $t" >&2; exit 2; }
done
# CR_FUZZ_JOBS targets at a time (default: one per core); each is one process
# on one core, so the wall time is about seconds x targets / jobs.
jobs=${CR_FUZZ_JOBS:-$(nproc)}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "fuzz: CR_FUZZ_JOBS is a positive number, not '$jobs'" >&2; exit 2; }
echo "fuzz: $jobs target(s) at a time"
running=0
for t in "${targets[@]}"; do
  if ((running >= jobs)); then
    wait -n || true
    running=$((running - 1))
  fi
  run_target "$t" &
  running=$((running + 1))
done
wait || true
failed=0
for t in "${targets[@]}"; do
  if [[ $(cat "$out/$t.result" 2>/dev/null) == fuzz:* ]]; then
    cat "$out/$t.result"
  else
    echo "fuzz: $t FAILED; the end of its log ($out/$t.log):" >&2
    tail -n 40 "$out/$t.log" >&2
    failed=1
  fi
done
exit "$failed"
