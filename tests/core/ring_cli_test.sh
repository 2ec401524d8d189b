#!/usr/bin/env bash
# The command-line forms of `cloudroute jedis-hash` and `cloudroute ring`
# that scripts depend on, with placements from tests/vectors/rings.json.
set -euo pipefail
cli=$1
fail=0
check() {  # check NAME EXPECTED COMMAND...
  local name=$1 want=$2; shift 2
  local got
  got=$("$@" | tr '\n' ' ')
  if [[ $got != "$want" ]]; then echo "FAIL $name: got '$got', want '$want'" >&2; fail=1; fi
}
keys=(a foo bar user:1 user:1000 123456789)
check murmur "-7063922479176959649 7990182172224381693 -1498251713141396620 " \
  "$cli" jedis-hash --algo murmur foo a key:10.200.107.10:9002
check md5 "3675831724 " "$cli" jedis-hash --algo md5 foo
check stdin "-7063922479176959649 3649838548 " bash -c "printf 'foo\n' | '$cli' jedis-hash --algo murmur; '$cli' jedis-hash --algo md5 ''"
check jedis3 "2 2 0 1 2 1 " "$cli" ring --algo murmur --naming jedis3 --shards shard-a=1,shard-b=1,shard-c=2 "${keys[@]}"
check jedis2 "2 2 0 0 2 2 " "$cli" ring --algo murmur --naming jedis2 --shards shard-a=1,shard-b=1,shard-c=2 "${keys[@]}"
check tags "1 3 3 1 3 1 " "$cli" ring --algo murmur --key-tags --shards redis-1=1,=2,redis-3=1,redis-4=3,=1 "${keys[@]}"
check md5ring "0 1 0 1 0 0 " "$cli" ring --algo md5 --shards 10.0.0.1:6379=1,10.0.0.2:6379=1,10.0.0.3:6379=1 "${keys[@]}"
check ketama "2 2 2 0 0 0 " "$cli" ring --algo ketama --shards 10.0.0.1:6379=1,10.0.0.2:6379=1,10.0.0.3:6379=1 "${keys[@]}"
check jump "1 1 6 4 0 4 " "$cli" ring --algo jump --shards 10 "${keys[@]}"
check ring_stdin "2 2 0 1 2 1 " bash -c "printf '%s\n' ${keys[*]} | '$cli' ring --algo murmur --naming jedis3 --shards shard-a=1,shard-b=1,shard-c=2"
for bad in "--algo murmur --shards a=0" "--algo murmur --shards a=1,a=1" "--algo sha1 --shards a=1" \
           "--algo jump --shards 0" "--algo murmur" "--algo ketama --shards =1"; do
  # shellcheck disable=SC2086
  if "$cli" ring $bad x 2>/dev/null; then echo "FAIL: ring $bad succeeded" >&2; fail=1; fi
done
[[ $fail == 0 ]] && echo "ring CLI: all forms ok"
exit $fail
