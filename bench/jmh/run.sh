#!/usr/bin/env bash
# bench/jmh/run.sh — JMH: libcloudroute's JNI keyslot (single and batch), route_read and
# Jedis ring lookup beside Jedis 3.9.0's pure Java (JedisClusterCRC16.getSlot,
# Sharded.getShardInfo), in one run. Installs the binding's jar (bindings/java, tests
# skipped) into the repository's .m2/, builds the benchmarks, runs JMH.
# Extra arguments go to JMH (e.g. a regex of benchmarks, -prof gc). The run's shape is
# JMH_OPTS, default "-f 1 -wi 3 -w 1s -i 5 -r 1s" (1 fork, 3 x 1 s warm-up, 5 x 1 s).
# Medians and ratios to Jedis: add "-rf json -rff FILE", then bench/jmh/ratios.py FILE.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
mvn=(${MVN:-mvn} -B -q "-Dmaven.repo.local=$root/.m2")
"${mvn[@]}" -f "$root/bindings/java/pom.xml" -DskipTests install
cd "$root/bench/jmh"
"${mvn[@]}" package dependency:build-classpath -Dmdep.outputFile=target/classpath.txt
read -r -a opts <<<"${JMH_OPTS:--f 1 -wi 3 -w 1s -i 5 -r 1s}"
exec java -cp "target/classes:$(cat target/classpath.txt)" org.openjdk.jmh.Main "${opts[@]}" "$@"
