#!/usr/bin/env bash
# `cloudroute stats` against the operator-view cluster: one read counted in
# the Prometheus text on stdout, events on stderr with --log, bad input refused.
set -euo pipefail
cli=$1 env_file=$2
val() { grep -m1 "^$1=" "$env_file" | cut -d= -f2-; }
NODE1_ADDR=$(val NODE1_ADDR) SHARD1_KEY=$(val SHARD1_KEY)
fail=0
out=$("$cli" stats --seeds "$NODE1_ADDR" --local-cidr 127.0.1.0/24 --log debug "$SHARD1_KEY" 2>/tmp/cr-stats-err.$$)
err=$(cat /tmp/cr-stats-err.$$)
rm -f /tmp/cr-stats-err.$$
reads=$(printf '%s\n' "$out" | awk '/^cloudroute_reads_total\{/ {s += $2} END {print s}')
[[ $reads == 1 ]] || { echo "FAIL: reads_total sums to '$reads', want 1" >&2; fail=1; }
[[ $out == *'# TYPE cloudroute_node_latency_seconds histogram'* ]] || { echo "FAIL: no histogram" >&2; fail=1; }
[[ $err == *"cloudroute: debug: refresh done shards=3 nodes=9"* ]] || { echo "FAIL: events: $err" >&2; fail=1; }
if "$cli" stats --seeds "$NODE1_ADDR" --log loud 2>/dev/null; then echo "FAIL: --log loud accepted" >&2; fail=1; fi
if "$cli" stats 2>/dev/null; then echo "FAIL: stats without --seeds accepted" >&2; fail=1; fi
[[ $fail == 0 ]] && echo "stats CLI: ok"
exit $fail
