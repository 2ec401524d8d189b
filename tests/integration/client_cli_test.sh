#!/usr/bin/env bash
# `cloudroute set/get/mget --seeds` against the cluster fixture: values come
# back, and --stats shows a cloud-A client's reads served by cloud-A nodes.
set -euo pipefail
cli=$1 envfile=$2
seeds=$(sed -n 's/^SEEDS=//p' "$envfile")
run() { timeout 20 "$cli" "$@"; }
errf=$(mktemp)
trap 'rm -f "$errf"' EXIT
# Runs the tool until it prints $1 (at most 50 tries, 0.1 s apart): replicas
# catch up asynchronously. Leaves the last output in $out, its stderr in $errf.
read_until() {
  local want=$1 i
  shift
  for ((i = 0; i < 50; i++)); do
    out=$(run "$@" 2>"$errf") || true
    [[ $out == "$want" ]] && return 0
    sleep 0.1
  done
  return 1
}
[[ $(run set --seeds "$seeds" cli:k1 hello) == OK ]] || { echo "set failed" >&2; exit 1; }
run set --seeds "$seeds" cli:k2 world >/dev/null
read_until hello get --seeds "$seeds" --local-cidr 127.0.1.0/24 --stats cli:k1 ||
  { echo "get printed '$out'" >&2; exit 1; }
stats=$(cat "$errf")
grep -q '^served cli:k1: 1 read(s) by 127\.0\.1\.[0-9]*:[0-9]* (local)$' <<<"$stats" || { echo "stats: $stats" >&2; exit 1; }
read_until $'hello\n(nil)\nworld' mget --seeds "$seeds" cli:k1 cli:nope cli:k2 ||
  { echo "mget printed '$out'" >&2; exit 1; }
# What a server returns is printed escaped: no byte of a value can drive the terminal.
run set --seeds "$seeds" cli:esc $'\e[31mred\r\nfake line\\' >/dev/null
read_until '\x1b[31mred\r\nfake line\\' get --seeds "$seeds" cli:esc ||
  { echo "get of control bytes printed '$out'" >&2; exit 1; }
if run get --seeds 127.0.0.1:1 cli:k1 2>/dev/null; then echo "no-server get succeeded" >&2; exit 1; fi
if run get --bogus 2>/dev/null; then echo "bad usage accepted" >&2; exit 1; fi
# redis 7 in cluster mode serves database 0 only: --db 2 fails with the server's reply.
if run get --seeds "$seeds" --db 2 cli:k1 2>"$errf"; then echo "get --db 2 succeeded" >&2; exit 1; fi
grep -q 'SELECT 2 refused: ERR SELECT is not allowed in cluster mode' "$errf" ||
  { echo "get --db 2 said: $(cat "$errf")" >&2; exit 1; }
# topology / route read the live cluster (--seeds) instead of a saved reply.
shard1_master=$(sed -n 's/^SHARD1_MASTER=//p' "$envfile") shard1_key=$(sed -n 's/^SHARD1_KEY=//p' "$envfile")
node1=$(sed -n 's/^NODE1_ADDR=//p' "$envfile")
out=$(run topology --seeds "$node1" --local-cidr 127.0.1.0/24)
grep -q '^3 shards, 9 nodes, policy local$' <<<"$out" || { echo "topology printed '$out'" >&2; exit 1; }
grep -q "1\. $shard1_master .*master  tier=local" <<<"$out" || { echo "topology order: '$out'" >&2; exit 1; }
out=$(run route --seeds "$seeds" --local-cidr 127.0.1.0/24 --json "$shard1_key")
grep -q "\"write\": \"$shard1_master\", \"read\": \[\"$shard1_master\"" <<<"$out" || { echo "route printed '$out'" >&2; exit 1; }
if run topology --seeds 127.0.0.1:1 2>/dev/null; then echo "topology without a server succeeded" >&2; exit 1; fi
if run topology --seeds "$node1" --static /dev/null 2>/dev/null; then echo "two sources accepted" >&2; exit 1; fi
echo "11 passed, 0 failed"
