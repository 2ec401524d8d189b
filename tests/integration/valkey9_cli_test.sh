#!/usr/bin/env bash
# The CLI on the Valkey 9.1 cluster fixture: `route --client-zone` ranks the
# nodes by the zones the servers report (az-a in cloud A, az-b in cloud B;
# set here) and `--explain` says so; `set/get --db 2` work in database 2 and
# the key is absent from database 0; exec classes HTTL as a read and HGETEX
# as a write, as the server's command table says.
set -euo pipefail
cli=$1 envfile=$2
env_of() { sed -n "s/^$1=//p" "$envfile"; }
run() { timeout 20 "$cli" "$@"; }
nodes=$(env_of NODE_COUNT)
for ((n = 1; n <= nodes; n++)); do
  addr=$(env_of "NODE${n}_ADDR")
  zone=az-b
  [[ $(env_of "NODE${n}_CLOUD") == A ]] && zone=az-a
  [[ $(timeout 5 redis-cli -h "${addr%:*}" -p "${addr#*:}" CONFIG SET availability-zone "$zone") == OK ]] ||
    { echo "CONFIG SET availability-zone on $addr failed" >&2; exit 1; }
done
node1=$(env_of NODE1_ADDR)
# The zones spread over the cluster bus: poll (bounded) until the route sees them all.
for ((i = 0; i < 100; i++)); do
  out=$(run route --seeds "$node1" --client-zone az-a --explain cli9:k 2>&1) || true
  (($(grep -c 'from=server zone' <<<"$out") == 3)) && break
  sleep 0.1
done
grep -q 'tier=local .*from=server zone az-a (the client zone)' <<<"$out" ||
  { echo "route --explain printed '$out'" >&2; exit 1; }
grep -q 'tier=same-region .*from=server zone az-b (not the client zone az-a)' <<<"$out" ||
  { echo "route --explain printed '$out'" >&2; exit 1; }
if grep -q 'tier=unknown' <<<"$out"; then echo "a node of unknown tier: '$out'" >&2; exit 1; fi

# exec classes commands by the server's own table: HTTL is a read on Valkey 9.1
# (served in az-a: --stats names the node), HGETEX a write (no read served).
zone_args=(--seeds "$node1" --client-zone az-a --policy local-replicas-first --stats)
run exec "${zone_args[@]}" -- HSET cli9:h f v g w >/dev/null 2>&1
run exec "${zone_args[@]}" -- HEXPIRE cli9:h 1000 FIELDS 1 f >/dev/null 2>&1
for ((i = 0; i < 100; i++)); do  # the local replica has the expiry (bounded poll)
  out=$(run exec "${zone_args[@]}" -- HTTL cli9:h FIELDS 1 f 2>&1) || true
  [[ $out == *'1) (integer) '[1-9]* ]] && break
  sleep 0.1
done
[[ $out == *'1) (integer) '[1-9]* && $out == *'served HTTL: 1 read(s) by '*'(local)'* ]] ||
  { echo "exec HTTL printed '$out'" >&2; exit 1; }
out=$(run exec "${zone_args[@]}" -- HGETEX cli9:h PERSIST FIELDS 1 g 2>&1)
[[ $out == *'"w"'* && $out != *served* ]] || { echo "exec HGETEX printed '$out'" >&2; exit 1; }

[[ $(run set --seeds "$node1" --db 2 cli9:db hello) == OK ]] || { echo "set --db 2 failed" >&2; exit 1; }
out=$(run get --seeds "$node1" --db 2 cli9:db) && [[ $out == hello ]] || { echo "get --db 2 printed '$out'" >&2; exit 1; }
out=$(run get --seeds "$node1" cli9:db) && [[ $out == '(nil)' ]] || { echo "get (db 0) printed '$out'" >&2; exit 1; }
if run get --seeds "$node1" --db -1 cli9:db 2>/dev/null; then echo "--db -1 accepted" >&2; exit 1; fi
echo "1 passed, 0 failed: client-zone tiers, commands classed by the server and --db on Valkey 9.1"
