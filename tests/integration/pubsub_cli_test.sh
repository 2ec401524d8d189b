#!/usr/bin/env bash
# `cloudroute subscribe|psubscribe|ssubscribe` and `publish|spublish` against
# the pub/sub cluster: a subscriber in cloud A (--local-cidr) prints the
# messages published by another process, one line each, its events (with a
# cloud-A node) on stderr, ends after --count messages, fails after
# --timeout without them; bad input is refused. Bounded: every wait polls
# with a deadline, every process has a timeout.
set -euo pipefail
cli=$1 env_file=$2
val() { grep -m1 "^$1=" "$env_file" | cut -d= -f2-; }
SEEDS=$(val SEEDS) NODE2_ADDR=$(val NODE2_ADDR)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
loc=(--seeds "$SEEDS" --local-cidr 127.0.1.0/24 --policy local-replicas-first)

# Starts a subscriber in the background ($1 verb, rest: names), waits until
# every name is subscribed (stderr), sets $sub_pid.
start_sub() {
  local verb=$1 name=$2
  shift 2
  timeout 30 "$cli" "$verb" "${loc[@]}" --count 3 --timeout 20000 "$name" "$@" \
    >"$tmp/$verb.out" 2>"$tmp/$verb.err" &
  sub_pid=$!
  for _ in $(seq 1 200); do
    grep -q "^subscribed $name at " "$tmp/$verb.err" 2>/dev/null && return 0
    sleep 0.05
  done
  echo "FAIL: $verb: never subscribed: $(cat "$tmp/$verb.err")" >&2
  fail=1
}

# subscribe: three messages, through the CLI's publish.
start_sub subscribe cli:news
for i in 1 2 3; do
  n=$(timeout 10 "$cli" publish "${loc[@]}" cli:news "hello $i")
  [[ $n =~ ^[0-9]+$ ]] || { echo "FAIL: publish printed '$n'" >&2; fail=1; }
done
wait "$sub_pid" || { echo "FAIL: subscribe exited $?" >&2; fail=1; }
want=$'cli:news hello 1\ncli:news hello 2\ncli:news hello 3'
[[ $(cat "$tmp/subscribe.out") == "$want" ]] || { echo "FAIL: subscribe printed: $(cat "$tmp/subscribe.out")" >&2; fail=1; }
grep -q "^subscribed cli:news at 127\.0\.1\." "$tmp/subscribe.err" ||
  { echo "FAIL: not on a cloud-A node: $(cat "$tmp/subscribe.err")" >&2; fail=1; }

# psubscribe: the pattern, then the channel.
start_sub psubscribe 'cli:p.*'
for i in 1 2 3; do timeout 10 "$cli" publish "${loc[@]}" "cli:p.$i" "m$i" >/dev/null; done
wait "$sub_pid" || { echo "FAIL: psubscribe exited $?" >&2; fail=1; }
want=$'cli:p.* cli:p.1 m1\ncli:p.* cli:p.2 m2\ncli:p.* cli:p.3 m3'
[[ $(cat "$tmp/psubscribe.out") == "$want" ]] || { echo "FAIL: psubscribe printed: $(cat "$tmp/psubscribe.out")" >&2; fail=1; }

# ssubscribe: a shard channel in shard 1's slot (the hash tag of the harness's
# shard-1 key) on shard 1's cloud-A replica, through spublish.
ch="{$(val SHARD1_KEY)}cli"
start_sub ssubscribe "$ch"
grep -q "^subscribed $ch at $NODE2_ADDR" "$tmp/ssubscribe.err" ||
  { echo "FAIL: ssubscribe not on $NODE2_ADDR: $(cat "$tmp/ssubscribe.err")" >&2; fail=1; }
for i in 1 2 3; do timeout 10 "$cli" spublish "${loc[@]}" "$ch" "s$i" >/dev/null; done
wait "$sub_pid" || { echo "FAIL: ssubscribe exited $?" >&2; fail=1; }
[[ $(cat "$tmp/ssubscribe.out") == "$ch s1"$'\n'"$ch s2"$'\n'"$ch s3" ]] ||
  { echo "FAIL: ssubscribe printed: $(cat "$tmp/ssubscribe.out")" >&2; fail=1; }

# --timeout without --count reached: exit 1, after about that long.
if timeout 10 "$cli" subscribe "${loc[@]}" --count 1 --timeout 300 cli:quiet 2>/dev/null; then
  echo "FAIL: --timeout with --count not reached exited 0" >&2
  fail=1
fi
timeout 10 "$cli" subscribe "${loc[@]}" --timeout 300 cli:quiet 2>/dev/null ||
  { echo "FAIL: --timeout alone did not exit 0" >&2; fail=1; }

# Bad input.
if "$cli" subscribe "${loc[@]}" 2>/dev/null; then echo "FAIL: no channel accepted" >&2; fail=1; fi
if "$cli" subscribe "${loc[@]}" --count x a 2>/dev/null; then echo "FAIL: --count x accepted" >&2; fail=1; fi
if "$cli" subscribe a 2>/dev/null; then echo "FAIL: no --seeds accepted" >&2; fail=1; fi
if "$cli" publish "${loc[@]}" onlychannel 2>/dev/null; then echo "FAIL: publish without message accepted" >&2; fail=1; fi
[[ $fail == 0 ]] && echo "pubsub CLI: ok"
exit $fail
