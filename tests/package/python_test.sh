#!/usr/bin/env bash
# The Python artifacts of scripts/package.sh, as a user gets them:
# - the wheel: `auditwheel show` finds it manylinux-clean; the extension needs
#   no libhiredis (linked statically) and finds libssl/libcrypto in the wheel's
#   own cloudroute.libs/; `pip install` into a fresh virtualenv, smoke test.
# - the sdist: it holds the C/C++ sources and no build tree; the wheel that
#   scripts/package.sh built from nothing but the tarball (what `pip install
#   cloudroute-V.tar.gz` does: build isolation, the build requirements from
#   .venv/wheelhouse, offline, a fresh directory) installs into a fresh
#   virtualenv and passes the smoke test; its extension needs no libhiredis.
#
#   tests/package/python_test.sh [DIST]     (default dist/)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
dist="$(cd "${1:-$root/dist}" && pwd)"
tools=$root/.venv
[[ -x $tools/bin/python ]] || { echo "python: $tools missing: run scripts/deps.sh" >&2; exit 1; }
wheel=$(ls "$dist"/cloudroute-*-manylinux_*.whl)
sdist=$(ls "$dist"/cloudroute-*.tar.gz)
work=$(mktemp -d /tmp/cr-pypkg.XXXXXX)
trap 'rm -rf "$work"' EXIT
passed=0
ok() { echo "ok: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*" >&2; echo "$passed passed, 1 failed"; exit 1; }

# What an installed extension loads: no libhiredis, nothing unresolved, and
# (for the wheel) OpenSSL from the wheel itself.
check_ldd() {  # venv what bundled(0|1)
  local so deps
  so=$(ls "$1"/lib/python3*/site-packages/cloudroute/_native*.so)
  deps=$(ldd "$so")
  echo "$deps" | sed "s|^|   $2 ldd: |"
  ! grep -q 'not found' <<<"$deps" || fail "$2: unresolved libraries"
  ! grep -q libhiredis <<<"$deps" || fail "$2: needs libhiredis"
  ! grep -q 'NEEDED.*hiredis' <<<"$(readelf -d "$so")" || fail "$2: NEEDED libhiredis"
  # The README promises the C++ runtime of GCC 11 (GLIBCXX_3.4.29) is enough:
  # a newer symbol version raises the manylinux tag past glibc 2.34.
  local newer
  newer=$(objdump -T "$so" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\(?GLIBCXX_3\.4\.[0-9]+\)?$/) {
    gsub(/[()]/, "", $i); split($i, v, "."); if (v[3] + 0 > 29) print $i } }' | sort -u | tr '\n' ' ')
  [[ -z $newer ]] || fail "$2: needs libstdc++ symbols newer than GCC 11's: $newer"
  if (($3)); then
    for lib in libssl libcrypto; do
      grep -Eq "$lib-[0-9a-f]+\.so\.[0-9]+ => \S*/cloudroute\.libs/$lib-" <<<"$deps" || fail "$2: $lib not the bundled copy"
    done
  fi
}

smoke() {  # venv what
  (cd / && "$1/bin/python" "$root/tests/package/smoke.py" "$root/examples/two-clouds.cluster-slots.resp") ||
    fail "$2: smoke test"
}

show=$("$tools/bin/auditwheel" show "$wheel" 2>&1)
tag=$(tr -s ' \n' ' ' <<<"$show" | grep -o 'consistent with the following platform tag: "manylinux_[0-9]*_[0-9]*_[a-z0-9_]*"' |
  grep -o 'manylinux_[0-9a-z_]*') || { echo "$show" >&2; fail "auditwheel show: not manylinux"; }
[[ $(basename "$wheel") == *"$tag"* ]] || fail "wheel named $(basename "$wheel"), auditwheel says $tag"
! grep -q hiredis <<<"$show" || fail "auditwheel show names hiredis"
ok "auditwheel show: $(basename "$wheel") is consistent with $tag ($(du -k "$wheel" | cut -f1) KiB)"

"$tools/bin/python" -m venv "$work/wheel"
"$work/wheel/bin/python" -m pip install -q --disable-pip-version-check --no-index "$wheel"
check_ldd "$work/wheel" wheel 1
smoke "$work/wheel" wheel
ok "wheel: fresh virtualenv, extension needs no libhiredis, OpenSSL from cloudroute.libs/, smoke test"

members=$(tar tzf "$sdist")
grep -q '/libcloudroute/core/src/keyslot.cpp$' <<<"$members" || fail "sdist lacks the C++ sources"
! grep -q '/build/' <<<"$members" || fail "sdist carries a build tree"
# scripts/package.sh built the wheel from the sdist alone (an isolated pip
# build in a fresh directory, as `pip install cloudroute-V.tar.gz` does); that
# wheel, before auditwheel, is what such an install puts in place.
sdist_wheel=$(ls "$root"/build/python/package-wheel/cloudroute-*.whl 2>/dev/null) ||
  fail "no wheel built from the sdist in build/python/package-wheel/: run scripts/package.sh python"
[[ $sdist_wheel -nt $sdist ]] || fail "$(basename "$sdist_wheel") is older than $(basename "$sdist")"
"$tools/bin/python" -m venv "$work/sdist"
"$work/sdist/bin/python" -m pip install -q --disable-pip-version-check --no-index "$sdist_wheel"
check_ldd "$work/sdist" sdist 0
smoke "$work/sdist" sdist
ok "sdist: the wheel pip built from the tarball alone, in a fresh virtualenv: no libhiredis, smoke test"
echo "$passed passed, 0 failed"
