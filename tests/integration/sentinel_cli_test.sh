#!/usr/bin/env bash
# `cloudroute sentinel route|get|set|mget|mset|del|exists` against a real Sentinel setup of its own
# (scripts/redis-harness.sh sentinel, base port 8581: data nodes 8581-8586 on
# 127.0.1.3x / 127.0.2.3x, sentinels 8591-8593 on 127.0.x.4x): the stored
# family key and its group agree with `family-key` and `ring`; a write lands
# on that group's master under the stored key; a read comes back (escaped);
# both family-key variants; bad options and unknown masters exit 2.
set -euo pipefail
cli=$1 envfile=$2
var() { sed -n "s/^$1=//p" "$envfile"; }
sentinels=$(var SENTINELS) cloud_a=$(var CLOUD_A_CIDR) cloud_b=$(var CLOUD_B_CIDR)
run() { timeout 20 "$cli" "$@"; }
rcli() { # ADDR ARGS...
  local addr=$1
  shift
  timeout 5 redis-cli -h "${addr%:*}" -p "${addr##*:}" --raw "$@"
}
fail() { echo "FAIL: $*" >&2; exit 1; }
passed=0
ok() { passed=$((passed + 1)); }
expect_fail() { # RC PATTERN ARGS...
  local want=$1 pattern=$2 rc=0 err
  shift 2
  err=$(run "$@" 2>&1 >/dev/null) || rc=$?
  [[ $rc == "$want" && $err == *$pattern* ]] || fail "'$*' exited $rc, want $want; stderr '$err'"
}
base=(--sentinels "$sentinels" --masters group0,group1)
loc=(--local-cidr "$cloud_a" --location-rule "$cloud_b=cloud-b" --client-location cloud-a)

# For each variant: route agrees with family-key and ring, set writes the
# stored key on the group's master, get reads it back.
for variant in jedis commons-codec; do
  for user in 1 2 3 4 5 6; do
    stored=$(run family-key --variant "$variant" orders "user:$user")
    group=$(run ring --algo murmur --shards group0=1,group1=1 -- "$stored")
    master=$(var "GROUP${group}_MASTER")
    out=$(run sentinel route "${base[@]}" "${loc[@]}" --variant "$variant" orders "user:$user")
    head=$(head -n 1 <<<"$out")
    [[ $head == "family=orders key=user:$user stored=$stored group=$group name=group$group write=$master" ]] ||
      fail "route $variant user:$user: '$head' (stored $stored, group $group, master $master)"
    # Every instance of the group, the local ones (127.0.1.x) first.
    [[ $(grep -c '^  read [1-3]: ' <<<"$out") == 3 ]] || fail "route candidates: '$out'"
    first=$(sed -n 's/^  read 1: \([^ ]*\) .*/\1/p' <<<"$out")
    [[ $first == 127.0.1.* && $(sed -n 2p <<<"$out") == *" tier=local" ]] ||
      fail "route $variant user:$user: first read candidate not local: '$out'"
    [[ $(run sentinel set "${base[@]}" --variant "$variant" orders "user:$user" "v-$variant-$user") == OK ]] ||
      fail "sentinel set $variant user:$user"
    [[ $(rcli "$master" GET "$stored") == "v-$variant-$user" ]] || fail "$stored not on $master"
    [[ $(run sentinel get "${base[@]}" "${loc[@]}" --variant "$variant" orders "user:$user") == "v-$variant-$user" ]] ||
      fail "sentinel get $variant user:$user"
  done
  ok
done
# The two variants store the same (FAMILY, KEY) under different keys.
[[ $(run family-key orders user:1) != $(run family-key --variant commons-codec orders user:1) ]] ||
  fail "variants agree"
# A missing key; a value with control bytes comes back escaped.
[[ $(run sentinel get "${base[@]}" orders no-such-user) == "(nil)" ]] || fail "get of a missing key"
run sentinel set "${base[@]}" orders esc $'a\x1b[2Jb\n' >/dev/null
[[ $(run sentinel get "${base[@]}" orders esc) == 'a\x1b[2Jb\n' ]] || fail "escaped value"
ok
# Another ring: jump over the two groups (group = jump's bucket of the stored key).
stored=$(run family-key orders user:7)
group=$(run ring --algo jump --shards 2 -- "$stored")
out=$(run sentinel route "${base[@]}" --algo jump orders user:7)
[[ $out == *" group=$group name=group$group write=$(var "GROUP${group}_MASTER")"* ]] || fail "jump route: '$out'"
ok

# Batches: mset of 8 pairs (one MSET per group), mget in order with a
# missing key, exists and del counting; each stored key on its group's master.
pairs=() keys=()
for i in 1 2 3 4 5 6 7 8; do pairs+=("b$i" "bv$i"); keys+=("b$i"); done
[[ $(run sentinel mset "${base[@]}" orders "${pairs[@]}") == OK ]] || fail "sentinel mset"
for i in 1 8; do
  stored=$(run family-key orders "b$i")
  group=$(run ring --algo murmur --shards group0=1,group1=1 -- "$stored")
  [[ $(rcli "$(var "GROUP${group}_MASTER")" GET "$stored") == "bv$i" ]] || fail "mset: b$i not on its master"
done
want=$(printf 'bv%s\n' 1 2 3 4 5 6 7 8; echo '(nil)')
[[ $(run sentinel mget "${base[@]}" orders "${keys[@]}" nosuch) == "$want" ]] || fail "sentinel mget"
[[ $(run sentinel exists "${base[@]}" orders "${keys[@]}" nosuch) == 8 ]] || fail "sentinel exists"
[[ $(run sentinel del "${base[@]}" orders "${keys[@]}" nosuch) == 8 ]] || fail "sentinel del"
[[ $(run sentinel exists "${base[@]}" orders "${keys[@]}") == 0 ]] || fail "exists after del"
expect_fail 2 "keys and values must pair" sentinel mset "${base[@]}" orders k1 v1 k2
expect_fail 2 "sentinel mget: want FAMILY KEY" sentinel mget "${base[@]}" orders
ok

# Errors: exit 2 and the reason.
expect_fail 2 "CR_ENOTFOUND" sentinel get --sentinels "$sentinels" --masters group0,nosuch orders k
expect_fail 2 "--masters NAME" sentinel get --sentinels "$sentinels" orders k
expect_fail 2 "--sentinels HOST:PORT" sentinel get --masters group0 orders k
expect_fail 2 "want FAMILY KEY VALUE" sentinel set "${base[@]}" orders k
expect_fail 2 "want FAMILY KEY" sentinel get "${base[@]}" orders
expect_fail 2 "--remap does not apply" sentinel get "${base[@]}" --remap a:1=b:2 orders k
expect_fail 2 "no TLS options" sentinel get "${base[@]}" --tls orders k
expect_fail 2 "unknown verb" sentinel frob "${base[@]}" orders k
expect_fail 2 "CR_EINVAL" sentinel get "${base[@]}" orders:x k
expect_fail 2 "CR_EINVAL" sentinel get "${base[@]}" --shards group0=1 orders k
expect_fail 2 "127.0.0.1:8599" sentinel get --sentinels 127.0.0.1:8599 --masters group0 orders k
ok
echo "$passed passed, 0 failed"
