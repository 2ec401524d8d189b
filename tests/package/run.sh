#!/usr/bin/env bash
# The package stage of scripts/test.sh: every artifact scripts/package.sh put in
# dist/, installed and checked the way a user gets it —
#   python_test.sh  the wheel (auditwheel, ldd) and the sdist, each in a fresh virtualenv
#   deb_test.sh     the Debian packages: apt-get install, a C consumer, dpkg -r
#   jar_test.sh     the jar alone on the class path (Java), with Clojure (Clojure)
#   glibc_test.sh   the newest glibc/libstdc++ each shipped binary needs, against
#                   the README's promise (glibc 2.28 for the wheels and the jar)
#   arm64_test.sh   the arm64 artifacts under qemu: ctest, the .debs' CLI, the
#                   wheel's smoke test in an arm64 CPython, the jar's arm64
#                   library (skipped without qemu)
#   arm64_suites_test.sh  the Python package's and the JVM binding's offline
#                   test suites in arm64 runtimes under qemu (minutes)
#
#   scripts/package.sh && tests/package/run.sh [DIST]
#   CR_PACKAGE_TESTS="deb arm64" tests/package/run.sh    some of them
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
dist=${1:-$root/dist}
passed=0 failed=0 skipped=0
for t in ${CR_PACKAGE_TESTS:-python deb jar glibc arm64 arm64_suites}; do
  echo "== package: tests/package/${t}_test.sh"
  rc=0
  start=$SECONDS
  "$root/tests/package/${t}_test.sh" "$dist" || rc=$?
  echo "   (${t}_test.sh took $((SECONDS - start)) s)"
  case $rc in
    0) passed=$((passed + 1)) ;;
    77) skipped=$((skipped + 1)) ;;
    *) failed=$((failed + 1)) ;;
  esac
done
echo "package: $passed passed, $failed failed, $skipped skipped"
((failed == 0))
