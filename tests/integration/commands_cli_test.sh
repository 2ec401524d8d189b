#!/usr/bin/env bash
# `cloudroute exec` and `--remap` against the commands fixture (ports
# 8051-8059): any command routed by its key, to one node, every master or
# every node; error replies per node; --timeout for a blocking command; a
# remapped shard really dialed elsewhere; usage errors exit 2.
set -euo pipefail
cli=$1 envfile=$2
var() { sed -n "s/^$1=//p" "$envfile"; }
seeds=$(var SEEDS) node1=$(var NODE1_ADDR) node2=$(var NODE2_ADDR) node3=$(var NODE3_ADDR)
node4=$(var NODE4_ADDR) node7=$(var NODE7_ADDR) key1=$(var SHARD1_KEY)
run() { timeout 20 "$cli" "$@"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
passed=0
ok() { passed=$((passed + 1)); }

out=$(run exec --seeds "$seeds" --all-masters -- PING)
[[ $out == "$node1 (master):"$'\n'"  PONG"$'\n'"$node4 (master):"$'\n'"  PONG"$'\n'"$node7 (master):"$'\n'"  PONG" ]] ||
  fail "exec --all-masters PING printed '$out'"
ok
out=$(run exec --seeds "$seeds" --all-nodes -- DBSIZE)
[[ $(grep -c '^  (integer) ' <<<"$out") == 9 && $(grep -c '(replica):$' <<<"$out") == 6 ]] ||
  fail "exec --all-nodes DBSIZE printed '$out'"
ok
# An error reply is the node's: printed under it, exit 1.
rc=0
out=$(run exec --seeds "$seeds" --node "$node2" -- FLUSHALL) || rc=$?
[[ $rc == 1 && $out == "$node2 (replica):"$'\n'"  (error) READONLY"* ]] || fail "FLUSHALL on a replica: rc=$rc '$out'"
ok
[[ $(run exec --seeds "$seeds" -- SET cli:exec 5) == OK ]] || fail "exec SET"
[[ $(run exec --seeds "$seeds" -- INCRBY cli:exec 2) == "(integer) 7" ]] || fail "exec INCRBY"
run exec --seeds "$seeds" -- RPUSH cli:list a b >/dev/null
[[ $(run exec --seeds "$seeds" --read -- LRANGE cli:list 0 -1) == $'1) "a"\n2) "b"' ]] || fail "exec LRANGE"
ok
# A blocking command waits longer than the tier timeout when asked to.
start=$(date +%s%N)
[[ $(run exec --seeds "$seeds" --timeout 3000 -- BLPOP cli:empty 1) == "(nil)" ]] || fail "exec BLPOP"
(($(date +%s%N) - start >= 900000000)) || fail "BLPOP 1 returned in under 0.9 s"
ok
# --remap: shard 1's nodes dialed at ports nothing listens on.
remaps=(--remap "$node1=127.0.0.1:8094" --remap "$node2=127.0.0.1:8095" --remap "$node3=127.0.0.1:8096")
[[ $(run set --seeds "$seeds" "$key1" cli-value) == OK ]] || fail "set $key1"
[[ $(run get --seeds "$node4" --policy master "$key1") == cli-value ]] || fail "get without remaps"
rc=0
err=$(run get --seeds "$node4" --policy master "${remaps[@]}" "$key1" 2>&1) || rc=$?
[[ $rc == 1 && $err == *127.0.0.1:8094* ]] || fail "get with remaps: rc=$rc '$err'"
rc=0
err=$(run exec --seeds "$node4" "${remaps[@]}" --read -- GET "$key1" 2>&1) || rc=$?
[[ $rc == 1 && $err == *127.0.0.1:8095* ]] || fail "exec with remaps: rc=$rc '$err'"
ok
# Usage errors: exit 2.
for bad in "exec --seeds $seeds -- PING" "exec --seeds $seeds --all-masters" \
  "exec --seeds $seeds --bogus -- PING" "exec --seeds $seeds --timeout 0 -- GET k" \
  "exec --seeds $seeds --remap nonsense -- GET k"; do
  rc=0
  run $bad >/dev/null 2>&1 || rc=$?
  [[ $rc == 2 ]] || fail "'$bad' exited $rc, want 2"
done
ok
rc=0
run exec --seeds "$seeds" --node 127.0.0.1:1 -- PING >/dev/null 2>&1 || rc=$?
[[ $rc == 1 ]] || fail "an unknown --node exited $rc"
ok
# Commands that would change a pooled connection's state are refused before
# they are sent (exit 1, the reason on stderr), by key and on nodes alike.
refused() { # exec ARGS... must exit 1 naming the rule
  local rc=0 err
  err=$(run exec --seeds "$seeds" "$@" 2>&1) || rc=$?
  [[ $rc == 1 && $err == *"is not sent on the client's pooled connections"* ]] ||
    fail "exec $*: rc=$rc '$err'"
}
for cmd in "SSUBSCRIBE {k1}a {k1}b" "SUBSCRIBE ch" "CLIENT REPLY OFF" "SELECT 1"; do
  refused -- $cmd
  refused --all-nodes -- $cmd
done
refused --all-nodes -- MONITOR
refused --all-masters -- MULTI
printf 'SET cli:pipe:sub v\nSUBSCRIBE ch\nGET cli:pipe:sub\n' >"${TMPDIR:-/tmp}/cr-pipe-sub.$$"
rc=0
out=$(run pipe --seeds "$seeds" <"${TMPDIR:-/tmp}/cr-pipe-sub.$$" 2>&1) || rc=$?
rm -f "${TMPDIR:-/tmp}/cr-pipe-sub.$$"
[[ $out == *"is not sent on the client's pooled connections"* && $out == *'"v"'* ]] ||
  fail "pipe with SUBSCRIBE: rc=$rc '$out'"
ok
echo "$passed passed, 0 failed"
