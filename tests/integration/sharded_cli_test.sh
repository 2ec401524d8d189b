#!/usr/bin/env bash
# `cloudroute sharded get|set|exec` against two standalone redis-server
# processes it starts itself (127.0.0.1:8825-8826, tests/PORTS.md) and kills on
# exit: a write lands on the shard `cloudroute ring` names for its key and on
# no other; get reads it back; exec prints each kind of reply as `cloudroute
# exec` does (status, integer, array, bulk string, nil), arguments after `--`
# whatever they look like; a server's error reply exits 1 naming it; a bad
# --server exits 2.
set -euo pipefail
cli=$1
ports=(8825 8826)
dir=$(mktemp -d /tmp/cr-sharded-cli.XXXXXX)
stop() {
  local p
  for p in "${ports[@]}"; do
    [[ -f $dir/$p.pid ]] && kill -9 "$(<"$dir/$p.pid")" 2>/dev/null || true
  done
  rm -rf "$dir"
}
trap stop EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
run() { timeout 20 "$cli" "$@"; }
rcli() { timeout 5 redis-cli -h 127.0.0.1 -p "$1" --raw "${@:2}"; }

for p in "${ports[@]}"; do
  redis-server --port "$p" --bind 127.0.0.1 --daemonize yes --save '' --appendonly no \
    --dir "$dir" --pidfile "$dir/$p.pid" --logfile "$dir/$p.log" >/dev/null
done
for p in "${ports[@]}"; do
  for _ in $(seq 100); do
    [[ $(rcli "$p" PING 2>/dev/null) == PONG && -s $dir/$p.pid ]] && break
    sleep 0.1
  done
  [[ $(rcli "$p" PING 2>/dev/null) == PONG ]] || fail "redis-server on $p did not start: $(tail -5 "$dir/$p.log")"
done
servers=(--server "127.0.0.1:${ports[0]}" --server "127.0.0.1:${ports[1]}")
passed=0

# set and get: the key on the shard the default ring (Jedis murmur, two
# unnamed shards) names, and on no other.
for key in user:1 user:2 user:3 user:4; do
  [[ $(run sharded set "${servers[@]}" "$key" "v-$key") == OK ]] || fail "set $key"
  shard=$(run ring --algo murmur --shards =1,=1 -- "$key")
  other=$((1 - shard))
  [[ $(rcli "${ports[$shard]}" GET "$key") == "v-$key" ]] || fail "$key is not on shard $shard"
  [[ $(rcli "${ports[$other]}" EXISTS "$key") == 0 ]] || fail "$key is on shard $other too"
  [[ $(run sharded get "${servers[@]}" "$key") == "v-$key" ]] || fail "get $key"
done
passed=$((passed + 1))

# exec: every kind of reply printed whole.
check() { # WANT ARGS...
  local want=$1 out
  shift
  out=$(run sharded exec "${servers[@]}" "$@") || fail "exec $*: exit $?"
  [[ $out == "$want" ]] || fail "exec $*: printed '$out', want '$want'"
}
check OK SET counter 41
check '(integer) 42' INCR counter
check '(integer) 2' RPUSH list a b
check $'1) "a"\n2) "b"' -- LRANGE list 0 -1
check '"v-user:1"' --read GET user:1
check '(nil)' --read GET no:such:key
passed=$((passed + 1))

# A server's error reply: exit 1, the error on stderr, nothing on stdout.
rc=0
err=$(run sharded exec "${servers[@]}" HGET user:1 field 2>&1 >/dev/null) || rc=$?
[[ $rc == 1 && $err == *WRONGTYPE* ]] || fail "an error reply: rc=$rc '$err'"
passed=$((passed + 1))

# A bad --server is a usage error.
rc=0
err=$(run sharded get --server 127.0.0.1:99999 k 2>&1 >/dev/null) || rc=$?
[[ $rc == 2 && $err == *"bad port"* ]] || fail "a bad --server: rc=$rc '$err'"
passed=$((passed + 1))

echo "$passed passed, 0 failed"
