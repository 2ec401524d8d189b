#!/usr/bin/env bash
# The package stage of scripts/test.sh: every artifact scripts/package.sh put in
# dist/, installed and checked the way a user gets it —
#   python_test.sh  the wheel (auditwheel, ldd) and the sdist, each in a fresh virtualenv
#   deb_test.sh     the Debian packages: apt-get install, a C consumer, dpkg -r
#   jar_test.sh     the jar alone on the class path (Java), with Clojure (Clojure)
#
#   scripts/package.sh && tests/package/run.sh [DIST]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
dist=${1:-$root/dist}
passed=0 failed=0 skipped=0
for t in python deb jar; do
  echo "== package: tests/package/${t}_test.sh"
  rc=0
  "$root/tests/package/${t}_test.sh" "$dist" || rc=$?
  case $rc in
    0) passed=$((passed + 1)) ;;
    77) skipped=$((skipped + 1)) ;;
    *) failed=$((failed + 1)) ;;
  esac
done
echo "package: $passed passed, $failed failed, $skipped skipped"
((failed == 0))
