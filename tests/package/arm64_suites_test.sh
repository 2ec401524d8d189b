#!/usr/bin/env bash
# The Python package's and the JVM binding's offline test suites on arm64,
# under user-mode emulation (qemu-aarch64-static), against the artifacts of
# scripts/package.sh:
#   - tests/python under pytest, as tests/python/run.sh runs it but without
#     servers (CR_PY_LIVE=0 skips the tests that need redis-server), in
#     Debian's arm64 CPython 3.11 with the aarch64 wheel installed;
#   - the JVM binding's JUnit tests in Debian's arm64 OpenJDK 17 (unpacked by
#     scripts/deps.sh) against the jar, which loads its native/linux-aarch64
#     library there (the tests that need servers are skipped: they are given
#     theirs by tests/java/run.sh).
# Minutes of emulated CPU: scripts/test.sh runs this in the background beside
# the server-bound stages. Exits 77 (skipped), saying so, without qemu; each
# suite is skipped, saying so, without its arm64 runtime (77 when both are).
#
#   tests/package/arm64_suites_test.sh [DIST]     (default dist/)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
dist="$(cd "${1:-$root/dist}" && pwd)"
source "$root/tests/package/arm64_env.sh"

# --- pytest tests/python in the arm64 CPython
if ! arm64_cpython; then
  skip "pytest in the arm64 CPython: $arm64_py_missing"
else
  wheel=$(ls "$dist"/cloudroute-*-manylinux_*_aarch64.whl) || fail "no aarch64 wheel: run scripts/package.sh python"
  tag=$(basename "$wheel" .whl | sed 's/.*-//')
  # pytest, redis-py (the adapters' tests import it; below CPython 3.11.3 it
  # needs async-timeout) and prometheus_client are pure Python.
  arm64_install_wheel "$wheel" "$tag" pytest redis async-timeout prometheus_client
  start=$SECONDS
  CR_PY_LIVE=0 arm64_py -m pytest -q -p no:cacheprovider "$root/tests/python" >"$work/pytest.log" 2>&1 ||
    { tail -60 "$work/pytest.log" >&2; fail "pytest tests/python (arm64 CPython, CR_PY_LIVE=0)"; }
  summary=$(tail -1 "$work/pytest.log")
  (($(grep -o '[0-9]* passed' <<<"$summary" | cut -d' ' -f1) >= 200)) || fail "pytest ran too few tests: $summary"
  ok "pytest tests/python in Debian's arm64 CPython $py_ver under qemu, offline (CR_PY_LIVE=0), $((SECONDS - start)) s: $summary"
fi

# --- JUnit in the arm64 JVM, against the jar
# Debian's arm64 OpenJDK 17, unpacked by scripts/deps.sh (the newest there).
jre_dir=$(ls -d "${XDG_CACHE_HOME:-$HOME/.cache}"/cloudroute/openjdk-17-arm64-* 2>/dev/null | sort -V | tail -1 || true)
jre=$jre_dir/usr/lib/jvm/java-17-openjdk-arm64
java_dir=$root/bindings/java
if [[ -z $jre_dir || ! -x $jre/bin/java ]]; then
  skip "JUnit in an arm64 JVM: no arm64 JVM (scripts/deps.sh unpacks openjdk-17-jre-headless:arm64)"
else
  jar=$(ls "$dist"/cloudroute-[0-9]*.jar | grep -v -e '-sources' -e '-javadoc') || fail "no jar: run scripts/package.sh jar"
  [[ -d $java_dir/target/test-classes/io/cloudroute ]] || fail "no compiled JUnit tests: run scripts/package.sh jar"
  # The class path of tests/java/run.sh's JUnit run, with the jar in place of
  # target/classes and JUnit's console launcher in place of Maven's surefire
  # (Maven would run emulated too). Maven resolves both.
  mvn=(${MVN:-mvn} -B -q "-Dmaven.repo.local=$root/.m2")
  (cd "$java_dir" && "${mvn[@]}" dependency:build-classpath -Dmdep.includeScope=test \
    -Dmdep.outputFile="$work/test-classpath.txt") >"$work/mvn.log" 2>&1 ||
    { cat "$work/mvn.log" >&2; fail "mvn dependency:build-classpath"; }
  platform=$(tr ':' '\n' <"$work/test-classpath.txt" | sed -n 's|.*/junit-platform-commons-\(.*\)\.jar$|\1|p')
  launcher=org.junit.platform:junit-platform-console-standalone:$platform
  (cd "$java_dir" && "${mvn[@]}" dependency:get -Dartifact="$launcher" -Dtransitive=false) >"$work/mvn.log" 2>&1 ||
    { cat "$work/mvn.log" >&2; fail "mvn dependency:get $launcher"; }
  # The launcher carries JUnit itself: the test scope's JUnit jars stay out.
  deps=$(tr ':' '\n' <"$work/test-classpath.txt" | grep -v -e '/org/junit/' -e '/org/opentest4j/' -e '/org/apiguardian/' |
    paste -sd:)
  console=$root/.m2/org/junit/platform/junit-platform-console-standalone/$platform/junit-platform-console-standalone-$platform.jar
  # Under qemu:
  # - QEMU_RTSIG_MAP: the host has fewer real-time signals than the guest, and
  #   qemu's default map leaves out the guest's top four, among them
  #   SIGRTMAX-2, with which the JDK wakes a thread blocked in a socket call
  #   when the socket closes (ServerSocket.close failed with an IOException);
  #   this map leaves out guest signals 58-61 instead, which neither glibc nor
  #   the JDK uses.
  # - launchMechanism=FORK: the JDK's default starts programs through its
  #   arm64 jspawnhelper, which the kernel cannot run (qemu is not registered
  #   with binfmt_misc here); forked, the emulated JVM execs readelf, an
  #   x86_64 program the kernel runs.
  # - -XX:TieredStopAtLevel=1 -XX:+UseSerialGC: the client compiler alone and
  #   one GC thread; the optimising compiler's work, emulated, cost more than
  #   it won back in these short tests (79 s of CPU against 36 s here).
  # Left out: NativeLibraryTest's probes of a library named by property and of
  #   the temporary files the jar's library leaves, which start a second, arm64
  #   JVM (binfmt_misc again), and ConcurrencyTest's
  #   sixteen threads in 1.5 s, which asserts a native-speed floor (more than
  #   1000 routes; about 500 under emulation on a loaded machine).
  # From bindings/java, as surefire runs them (NativeLibraryTest reads
  # target/classes/native/).
  start=$SECONDS
  (cd "$java_dir" && QEMU_RTSIG_MAP="32 36 26,62 62 3" "$qemu" "$jre/bin/java" \
    -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Djdk.lang.Process.launchMechanism=FORK -cp "$jar:$java_dir/target/test-classes:$deps:$console" \
    org.junit.platform.console.ConsoleLauncher execute --disable-banner --details=summary --fail-if-no-tests \
    --scan-class-path="$java_dir/target/test-classes" \
    --exclude-methodname='io\.cloudroute\.NativeLibraryTest#anInstalledLibraryByProperty' \
    --exclude-methodname='io\.cloudroute\.NativeLibraryTest#theJarsLibraryLeavesNoTemporaryFiles' \
    --exclude-methodname='io\.cloudroute\.ConcurrencyTest#sixteenThreadsRouteWhileTheTopologyChanges') \
    >"$work/junit.log" 2>&1 || { tail -80 "$work/junit.log" >&2; fail "JUnit in the arm64 JVM"; }
  # The launcher's summary: "[ N tests successful ]", "aborted" (skipped by an
  # assumption: no servers).
  count() { sed -n "s/.*\[ *\([0-9]*\) tests $1 *\].*/\1/p" "$work/junit.log"; }
  ran=$(count successful)
  ((ran >= 60)) || { cat "$work/junit.log" >&2; fail "JUnit ran too few tests: ${ran:-none} successful"; }
  ok "JUnit in Debian's arm64 OpenJDK ${jre_dir##*/openjdk-17-arm64-} under qemu against $(basename "$jar")" \
    "(native/linux-aarch64), offline, $((SECONDS - start)) s: $ran successful, $(count aborted) skipped (need servers)"
fi
echo "$passed passed, 0 failed, $skipped skipped"
((passed > 0)) || exit 77 # both skipped
