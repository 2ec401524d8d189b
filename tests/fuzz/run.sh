#!/usr/bin/env bash
# Builds the libFuzzer targets (preset fuzz: clang 14, ASan + UBSan, optimized;
# CR_FUZZ_PRESET=asan uses the Debug ASan tree that scripts/test.sh builds) and runs
# each one for a bounded time over its committed seeds (tests/fuzz/seeds/,
# real replies of redis-server 7 and Valkey 8) and every saved bad input
# (tests/fuzz/regressions/). New interesting inputs go to a scratch corpus,
# never into the tree. Prints executions and coverage per target; exits
# non-zero on the first crash, leak or broken invariant (libFuzzer leaves the
# reproducer as crash-*/leak-* in the output directory it names).
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
  targets=(cluster_slots cluster_shards static_topology config rings shard_groups reply_reader)
command -v clang++-14 >/dev/null || { echo "fuzz: clang++-14 is missing: run ./scripts/deps.sh" >&2; exit 1; }

preset=${CR_FUZZ_PRESET:-fuzz}
[[ $preset == fuzz || $preset == asan ]] || { echo "fuzz: CR_FUZZ_PRESET is fuzz or asan, not '$preset'" >&2; exit 2; }
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)" --target fuzz_targets

out=${CR_FUZZ_OUT:-$(mktemp -d)}
echo "fuzz: $seconds s per target; scratch corpora and any reproducer in $out"
for t in "${targets[@]}"; do
  bin=build/$preset/tests/fuzz/fuzz_$t
  [[ -x $bin ]] || { echo "fuzz: no target $t" >&2; exit 2; }
  dirs=()
  for d in tests/fuzz/seeds/$t tests/fuzz/regressions/$t; do [[ -d $d ]] && dirs+=("$d"); done
  mkdir -p "$out/$t"
  log=$out/$t.log
  # -rss_limit_mb bounds memory per input; the library's own caps must keep
  # every parse far below it. -timeout: one input may take at most 10 s.
  if ! (cd "$out" && timeout $((seconds + 120)) "$src/$bin" -max_total_time="$seconds" \
      -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 "$out/$t" \
      "${dirs[@]/#/$src/}" >"$log" 2>&1); then
    echo "fuzz: $t FAILED; the end of its log ($log):" >&2
    tail -n 40 "$log" >&2
    exit 1
  fi
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -1)
  echo "fuzz: $t ok: $execs executions, $cov (edges), corpus $(ls "$out/$t" | wc -l) new inputs"
done
