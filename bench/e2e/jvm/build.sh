#!/usr/bin/env bash
# bench/e2e/jvm/build.sh — builds the JVM driver of bench/e2e (the binding's jars installed into
# the repository's .m2/ first, as bench/jmh/run.sh does) and prints its class path.
# Environment: MVN (default mvn).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
mvn=(${MVN:-mvn} -B -q "-Dmaven.repo.local=$root/.m2")
"${mvn[@]}" -f "$root/bindings/java/pom.xml" -DskipTests install >&2
# clean: target/ may hold classes tests/java/run.sh built against another Jedis major
"${mvn[@]}" -f "$root/bindings/java/clients/pom.xml" -DskipTests clean install >&2
"${mvn[@]}" -f "$here/pom.xml" package dependency:build-classpath \
  -Dmdep.outputFile=target/classpath.txt >&2
echo "$here/target/classes:$(cat "$here/target/classpath.txt")"
