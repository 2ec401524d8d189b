#!/usr/bin/env bash
# Live-client throughput next to redis-benchmark, against the same cluster in
# the same run: GET and 100-key MGET per second, on 1 and 2 threads
# (redis-benchmark: 1 and 2 connections). Starts its own 3x3 cluster with
# scripts/redis-harness.sh on its own ports (BASE_PORT, default 7641; bus ports
# +10000), stops it when done (also on failure), every step under a timeout.
#   bench/client_bench.sh               [CR_BENCH_SECONDS=3] [CR_BENCH_BUILD=dir]
# Prints one line per measurement and a ratio table (client / redis-benchmark).
set -euo pipefail
SECS="${CR_BENCH_SECONDS:-3}"
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_build client-bench cloudroute_client_bench
bench_cluster client-bench "${BASE_PORT:-7641}"
bench_load "${SECS}s per client run"

declare -A CLIENT BENCH
mget_args=()
for i in $(seq 0 99); do mget_args+=("{bench}:$i"); done

slot=$(redis-cli -h "$NODE1_IP" -p "$NODE1_PORT" CLUSTER KEYSLOT '{bench}')
tag_owner=$(redis-cli -h "$NODE1_IP" -p "$NODE1_PORT" CLUSTER NODES | awk -v s="$slot" '$3 ~ /master/ {
  for (i = 9; i <= NF; i++) { split($i, r, "-"); if (r[2] == "") r[2] = r[1]
    if (s + 0 >= r[1] + 0 && s + 0 <= r[2] + 0) { split($2, a, "@"); print a[1] } } }')
for t in 1 2; do
  for mode in get mget-tag mget; do
    line=$(timeout $((SECS * 4 + 60)) "$BIN" --seeds "$SEEDS" --mode "$mode" --threads "$t" --seconds "$SECS")
    echo "client          $line"
    CLIENT[$mode.$t]=$(sed 's/.*ops_per_s=//' <<<"$line")
  done
  # redis-benchmark in cluster mode, t connections: GET of key:0..99999 (hits
  # after the client's populate) and MGET of the same 100 tagged keys.
  out=$(timeout 120 redis-benchmark --cluster -h "$NODE1_IP" -p "$NODE1_PORT" -c "$t" -n $((t * 60000)) \
        -r 100000 -q -t get 2>/dev/null | tr '\r' '\n' | grep -E '^GET' | tail -n 1) || true
  echo "redis-benchmark c=$t $out"
  BENCH[get.$t]=$(awk '{print $2}' <<<"$out")
  # MGET of 100 keys sharing one tag: one slot, so straight to its master
  # (redis-benchmark --cluster sends a command-line command nowhere useful
  # with fewer connections than masters).
  out=$(timeout 120 redis-benchmark -h "${tag_owner%:*}" -p "${tag_owner##*:}" -c "$t" -n $((t * 15000)) \
        -q MGET "${mget_args[@]}" 2>/dev/null | tr '\r' '\n' | grep -E '^MGET' | tail -n 1) || true
  echo "redis-benchmark c=$t MGET(100 keys, {bench}) on $tag_owner: ${out##*: }"
  BENCH[mget-tag.$t]=$(awk -F': ' '{print $NF}' <<<"$out" | awk '{print $1}')
done

echo "== ratios (client ops/s / redis-benchmark requests/s; same cluster, same run)"
printf '%-28s %12s %12s %7s\n' workload client redis-bench ratio
for t in 1 2; do
  for mode in get mget-tag; do
    c=${CLIENT[$mode.$t]} b=${BENCH[$mode.$t]}
    printf '%-28s %12s %12s %7s\n' "$mode threads=$t" "$c" "$b" "$(awk -v c="$c" -v b="$b" 'BEGIN { if (b > 0) printf "%.2f", c / b; else print "-" }')"
  done
  printf '%-28s %12s %12s %7s\n' "mget(100 keys, ~100 slots) threads=$t" "${CLIENT[mget.$t]}" "-" "-"
done
