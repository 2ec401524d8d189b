#!/usr/bin/env bash
# The seed's batch of 100 keys on pre-sharded standalone servers: MSET /
# MGET / EXISTS / DEL of 100 keys as one batch call of the pre-sharded client
# (cr_sharded_client_*: one command per shard, every shard at once) against
# the same commands issued one by one (bench/batch_bench.cc --servers), and
# against a Jedis 3.10.0 ShardedJedis pipeline (bench/jedis/: Jedis from
# Maven Central into .m2/, run with the JDK's source launcher) with the same
# shard names and weights on the same servers — the same run, the two
# programs taking turns. Starts its own two redis-servers (127.0.0.1:8951-8952,
# tests/PORTS.md), stops them when done (also on failure), every step under a
# timeout. Not part of ctest. Run it under the servers' lock:
#   flock /tmp/cr-servers.lock bench/sharded_batch_bench.sh
#     [CR_BENCH_ITERATIONS=300] [CR_BENCH_REPS=3] [CR_BENCH_BUILD=dir]
# Each run prints BATCH_BENCH lines (p50/p99 of one 100-key call, of the 100
# single calls, or of one Jedis pipeline of 100 commands) and BATCH_RATIO
# lines; the table at the end has the medians over the runs and the ratios
# of each mode's p50 to the batch's.
set -euo pipefail
ITER="${CR_BENCH_ITERATIONS:-300}"
REPS="${CR_BENCH_REPS:-3}"
SHARDS="cache-a=1,cache-b=1"
PORTS=(8951 8952)
# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_build batch-bench cloudroute_batch_bench
DIR="$(mktemp -d "${TMPDIR:-/tmp}/cr-sharded-batch-bench.XXXXXX")"
stop() {
  for p in "${PORTS[@]}"; do
    [[ -f $DIR/$p.pid ]] && kill "$(cat "$DIR/$p.pid")" 2>/dev/null || true
  done
  rm -rf "$DIR"
}
trap stop EXIT
SERVERS=""
for p in "${PORTS[@]}"; do
  redis-server --port "$p" --bind 127.0.0.1 --daemonize yes --save '' --appendonly no --dir "$DIR" \
    --pidfile "$DIR/$p.pid" --logfile "$DIR/$p.log" >/dev/null
  timeout 30 bash -c "until [[ \$(redis-cli -p $p ping 2>/dev/null) == PONG ]]; do sleep 0.05; done"
  SERVERS+=${SERVERS:+,}127.0.0.1:$p
done
timeout 600 mvn -q -B "-Dmaven.repo.local=$SRC/.m2" -f "$SRC/bench/jedis/pom.xml" dependency:build-classpath \
  "-Dmdep.outputFile=$DIR/classpath" >/dev/null
bench_load "${ITER} iterations per run, ${REPS} runs; 100 keys over 2 shards ($SHARDS, $SERVERS)"
LINES="$DIR/lines"
: >"$LINES"
for rep in $(seq 1 "$REPS"); do
  timeout $((ITER + 120)) "$BIN" --servers "$SERVERS" --shards "$SHARDS" --iterations "$ITER" --keys 100 |
    tee -a "$LINES" | sed "s/^/run $rep  /"
  timeout $((ITER + 120)) java -cp "$(cat "$DIR/classpath")" "$SRC/bench/jedis/ShardedJedisBatchBench.java" \
    --servers "$SERVERS" --shards "$SHARDS" --iterations "$ITER" --keys 100 |
    tee -a "$LINES" | sed "s/^/run $rep  /"
done

echo "== medians over $REPS runs (ms per 100 keys; ratio: the mode's p50 / the batch's p50)"
bench_batch_table "$LINES"
