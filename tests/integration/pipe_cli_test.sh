#!/usr/bin/env bash
# `cloudroute pipe --seeds` against the cluster fixture: commands from stdin
# with redis-cli quoting, replies printed in order in redis-cli's format,
# errors in place (exit 1), keyless commands through --node, a line that
# does not parse refused before anything is sent (exit 2), and
# --read-your-writes.
set -euo pipefail
cli=$1 envfile=$2
seeds=$(sed -n 's/^SEEDS=//p' "$envfile")
node1=$(sed -n 's/^NODE1_ADDR=//p' "$envfile")
pipe() { timeout 20 "$cli" pipe --seeds "$seeds" "$@"; }
fail() { echo "$1" >&2; exit 1; }

pipe <<<$'DEL "pipe cli:k1"\ndel pipe:k2\nDEL pipe:h\nDEL pipe:n' >/dev/null || fail "DELs failed"
writes=$(pipe <<'IN'
SET "pipe cli:k1" "a\tb\x41"
SET pipe:k2 'it\'s'

HSET pipe:h f "\x41\x42 c"
INCR pipe:n
INCR pipe:n
IN
) || fail "writes failed: $writes"
want=$'OK\nOK\n(integer) 1\n(integer) 1\n(integer) 2'
[[ $writes == "$want" ]] || fail "writes printed '$writes'"

reads=$'GET "pipe cli:k1"\nGET pipe:k2\nHGETALL pipe:h\nGET pipe:h\nGET pipe:missing\nPING\nGET pipe:n'
want=$'"a\\tbA"\n"it\'s"\n1) "f"\n2) "AB c"\n(error) WRONGTYPE Operation against a key holding the wrong kind of value\n(nil)\n(error) PING has no key: give --node HOST:PORT to send it\n"2"'
# Replicas catch up asynchronously: at most 50 tries, 0.1 s apart.
for ((i = 0; i < 50; i++)); do
  rc=0
  out=$(pipe <<<"$reads") || rc=$?
  [[ $out == "$want" ]] && break
  sleep 0.1
done
[[ $out == "$want" ]] || fail "reads printed '$out'"
[[ $rc == 1 ]] || fail "errors in place must exit 1, not $rc"

out=$(pipe --node "$node1" <<<$'PING\nECHO "x y"') || fail "--node failed: $out"
[[ $out == $'PONG\n"x y"' ]] || fail "--node printed '$out'"
# A --node that is not HOST:PORT or [IPv6]:PORT is a usage error (exit 2,
# nothing read or sent), the reason named.
for bad in 127.0.0.1:99999 127.0.0.1:0 127.0.0.1:7000x 127.0.0.1 :7000 '[::1]' '[127.0.0.1]:7000' \
  ::1:7000; do
  rc=0
  out=$(pipe --node "$bad" <<<'PING' 2>&1) || rc=$?
  [[ $rc == 2 && $out == *"--node wants HOST:PORT or [IPv6]:PORT, not '$bad' ("* ]] ||
    fail "--node $bad: rc=$rc '$out'"
done

rc=0
out=$(pipe <<<$'SET pipe:never 1\nGET "unbalanced' 2>&1) || rc=$?
[[ $rc == 2 && $out == *"stdin line 2: unbalanced quotes"* ]] || fail "bad quoting: rc=$rc '$out'"
out=$(pipe <<<'EXISTS pipe:never')
[[ $out == "(integer) 0" ]] || fail "a refused input sent something: '$out'"

# Read your writes: a GET after its SET in the same pipe reads the new value
# (the engine sends it to the master: tests/integration/ryw_test.cc proves
# the placement); --read-your-writes sets the cross-call window.
out=$(pipe --read-your-writes 1000 <<<$'SET pipe:ryw v1\nGET pipe:ryw\nSET pipe:ryw v2\nGET pipe:ryw') ||
  fail "--read-your-writes failed: $out"
[[ $out == $'OK\n"v1"\nOK\n"v2"' ]] || fail "read your writes printed '$out'"
rc=0
out=$(pipe --read-your-writes soon <<<'GET pipe:ryw' 2>&1) || rc=$?
[[ $rc == 2 && $out == *"--read-your-writes wants milliseconds"* ]] ||
  fail "a bad --read-your-writes: rc=$rc '$out'"
echo "8 passed, 0 failed"
