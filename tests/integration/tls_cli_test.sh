#!/usr/bin/env bash
# The CLI's TLS options against scripts/redis-tls-harness.sh servers of their
# own (ports 8581-8594): every live command over TLS to the 4-node cluster;
# a client certificate, a CA directory, --sni and --insecure; a refused
# certificate, a missing client certificate and an unreadable file each named
# in the error (exit 2); TLS options without a live cluster are a usage error.
set -euo pipefail
cli=$1 envfile=$2
var() { sed -n "s/^$1=//p" "$envfile"; }
seed=$(var TLS_CLUSTER_SEED) ca=$(var TLS_CA) cadir=$(var TLS_CA_DIR) evil=$(var TLS_EVIL_CA)
cert=$(var TLS_CLIENT_CERT) key=$(var TLS_CLIENT_KEY) untrusted=$(var TLS_UNTRUSTED)
wrongname=$(var TLS_WRONGNAME) clientauth=$(var TLS_CLIENTAUTH) plain=$(var TLS_CLUSTER_PLAIN_SEED)
run() { timeout 20 "$cli" "$@"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
passed=0
ok() { passed=$((passed + 1)); }
# expect_fail RC PATTERN ARGS...: the command exits RC and its stderr matches PATTERN.
expect_fail() {
  local want=$1 pattern=$2 rc=0 err
  shift 2
  err=$(run "$@" 2>&1 >/dev/null) || rc=$?
  [[ $rc == "$want" && $err == *$pattern* ]] || fail "'$*' exited $rc, want $want; stderr '$err'"
}
tls=(--tls --cacert "$ca")

# Every live command over TLS (from a clean slate: the fixture may be reused).
run exec --seeds "$seed" "${tls[@]}" -- DEL tls:n >/dev/null
[[ $(run set --seeds "$seed" "${tls[@]}" tls:cli v1) == OK ]] || fail "set over TLS"
[[ $(run get --seeds "$seed" "${tls[@]}" tls:cli) == v1 ]] || fail "get over TLS"
[[ $(run mget --seeds "$seed" "${tls[@]}" tls:cli tls:none) == $'v1\n(nil)' ]] || fail "mget over TLS"
ok
out=$(run exec --seeds "$seed" "${tls[@]}" --all-masters -- PING)
[[ $(grep -c '^  PONG$' <<<"$out") == 2 ]] || fail "exec --all-masters over TLS printed '$out'"
[[ $(run exec --seeds "$seed" "${tls[@]}" -- INCRBY tls:n 3) == "(integer) 3" ]] || fail "exec INCRBY"
ok
out=$(printf 'SET tls:p 1\nGET tls:p\nDEL tls:p\n' | run pipe --seeds "$seed" "${tls[@]}")
[[ $out == $'OK\n"1"\n(integer) 1'* ]] || fail "pipe over TLS printed '$out'"
ok
out=$(run stats --seeds "$seed" "${tls[@]}" tls:cli)
grep -q '^cloudroute_reads_total{tier="[a-z-]*"} 1$' <<<"$out" || fail "stats over TLS printed '$out'"
out=$(run route --seeds "$seed" "${tls[@]}" tls:cli)
[[ $out == "tls:cli slot="*" write=127.0."*":859"[1-4]" read="* ]] || fail "route --seeds over TLS: '$out'"
ok
# The same commands without TLS cannot talk to TLS ports.
expect_fail 2 "$seed" get --seeds "$seed" tls:cli
ok

# Verification: a CA directory, a client certificate, --sni, --insecure.
[[ $(run get --seeds "$seed" --cacertdir "$cadir" tls:cli) == v1 ]] || fail "--cacertdir (implies --tls)"
expect_fail 2 "does the server require a client certificate?" get --seeds "$clientauth" --cacert "$ca" tls:cli
[[ $(run get --seeds "$clientauth" --cacert "$ca" --cert "$cert" --key "$key" tls:cli) == "(nil)" ]] ||
  fail "client certificate"
ok
expect_fail 2 "TLS certificate verification failed: IP address mismatch" \
  get --seeds "$wrongname" --cacert "$ca" tls:cli
[[ $(run get --seeds "$wrongname" --cacert "$ca" --sni wrong.example tls:cli) == "(nil)" ]] || fail "--sni"
ok
expect_fail 2 "TLS certificate verification failed" get --seeds "$untrusted" --cacert "$ca" tls:cli
expect_fail 2 "TLS certificate verification failed" get --seeds "$seed" --cacert "$evil" tls:cli
[[ $(run get --seeds "$untrusted" --insecure tls:cli) == "(nil)" ]] || fail "--insecure"
ok

# Bad options: exit 2, the file and the reason named; nothing is dialed.
expect_fail 2 "--cacert '/nonexistent/ca.crt': cannot read: No such file or directory" \
  get --seeds "$seed" --cacert /nonexistent/ca.crt tls:cli
expect_fail 2 "--cacertdir '/nonexistent': cannot read" get --seeds "$seed" --cacertdir /nonexistent tls:cli
expect_fail 2 "--key '/nonexistent.key': cannot read" \
  exec --seeds "$seed" --cacert "$ca" --cert "$cert" --key /nonexistent.key -- GET k
expect_fail 2 "--cert and --key go together" get --seeds "$seed" --cacert "$ca" --cert "$cert" tls:cli
expect_fail 2 "--sni needs a value" get --seeds "$seed" --sni
expect_fail 2 "cannot load the CA file" get --seeds "$seed" --cacert "$envfile" tls:cli
ok
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
echo 'shard slots=0-16383 master=127.0.0.1:1' >"$tmp"
expect_fail 2 "the TLS options are for a live cluster" route --static "$tmp" --tls tls:cli
ok
# The plaintext port of the same cluster still works without TLS (the seeds decide).
[[ $(run get --seeds "$plain" tls:cli) == v1 ]] || fail "plaintext get"
ok
echo "$passed passed, 0 failed"
