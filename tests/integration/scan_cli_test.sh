#!/usr/bin/env bash
# `cloudroute scan --seeds` against the cluster fixture: every key written is
# listed exactly once, from one node per shard; --type filters on the server;
# a key with control bytes is printed escaped; bad options are refused (exit 2).
set -euo pipefail
cli=$1 envfile=$2
seeds=$(sed -n 's/^SEEDS=//p' "$envfile")
cidr=$(sed -n 's/^CLOUD_A_CIDR=//p' "$envfile")
scan() { timeout 20 "$cli" scan --seeds "$seeds" --local-cidr "$cidr" "$@"; }
fail() { echo "FAIL: $1" >&2; exit 1; }
passed=0

# 40 string keys over all shards, one hash, one key with a tab and a control byte.
{
  for ((i = 0; i < 40; i++)); do echo "SET scancli:$i v"; done
  echo 'HSET scancli:h f v'
  echo 'SET "scancli:\t\x01" v'
} | timeout 20 "$cli" pipe --seeds "$seeds" >/dev/null || fail "writes failed"
want=$({
  for ((i = 0; i < 40; i++)); do echo "scancli:$i"; done
  echo 'scancli:h'
  echo 'scancli:\t\x01'
} | LC_ALL=C sort)

# Replicas catch up asynchronously: at most 50 tries, 0.1 s apart.
for ((i = 0; i < 50; i++)); do
  got=$(scan --match 'scancli:*' --count 7 | LC_ALL=C sort) || fail "scan failed: $got"
  [[ $got == "$want" ]] && break
  sleep 0.1
done
[[ $got == "$want" ]] || fail "scan listed
$got
want
$want"
passed=$((passed + 1))

nodes=$(scan --match 'scancli:*' --nodes | cut -d' ' -f1 | LC_ALL=C sort -u)
[[ $(wc -l <<<"$nodes") == 3 ]] || fail "--nodes: want one node per shard (3), got: $nodes"
passed=$((passed + 1))

got=$(scan --match 'scancli:*' --type hash)
[[ $got == "scancli:h" ]] || fail "--type hash listed '$got'"
passed=$((passed + 1))

for bad in "--count 0" "--count x" "--type" "--timeout 0" "scancli:*" "--bogus"; do
  rc=0
  # shellcheck disable=SC2086
  out=$(scan $bad 2>&1) || rc=$?
  [[ $rc == 2 ]] || fail "'scan $bad' exited $rc, want 2: $out"
done
rc=0
"$cli" scan --match x >/dev/null 2>&1 || rc=$?
[[ $rc == 2 ]] || fail "scan without --seeds exited $rc, want 2"
passed=$((passed + 1))

{
  for ((i = 0; i < 40; i++)); do echo "DEL scancli:$i"; done
  echo 'DEL scancli:h'
  echo 'DEL "scancli:\t\x01"'
} | timeout 20 "$cli" pipe --seeds "$seeds" >/dev/null || fail "cleanup failed"
echo "$passed passed, 0 failed"
