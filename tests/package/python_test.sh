#!/usr/bin/env bash
# The Python artifacts of scripts/package.sh for this machine's architecture,
# as a user gets them (tests/package/arm64_test.sh checks the aarch64 wheel):
# - the wheel: `auditwheel show` finds it manylinux_2_28-clean; the extension
#   needs no libhiredis, libssl, libcrypto or libstdc++ (all linked statically);
#   `pip install` into a fresh virtualenv, smoke test; with the `redis` extra,
#   redis-py comes along and the adapter imports.
# - the sdist: it holds the C/C++ sources and no build tree, and it is
#   complete: unpacked in a fresh directory, its CMake project configures as
#   scikit-build-core would and every translation unit preprocesses from the
#   tarball alone (tests/package/sdist_check.py; with --build it compiles
#   whole, as `pip install cloudroute-V.tar.gz` does: minutes, not run here).
#
#   tests/package/python_test.sh [DIST]     (default dist/)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
dist="$(cd "${1:-$root/dist}" && pwd)"
tools=$root/.venv
[[ -x $tools/bin/python ]] || { echo "python: $tools missing: run scripts/deps.sh" >&2; exit 1; }
wheel=$(ls "$dist"/cloudroute-*-manylinux_*_"$(uname -m)".whl)
sdist=$(ls "$dist"/cloudroute-*.tar.gz)
work=$(mktemp -d /tmp/cr-pypkg.XXXXXX)
trap 'rm -rf "$work"' EXIT
passed=0
ok() { echo "ok: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*" >&2; echo "$passed passed, 1 failed"; exit 1; }

# What an installed extension loads: glibc's libraries only, nothing unresolved.
check_ldd() {  # venv what
  local so deps needed
  so=$(ls "$1"/lib/python3*/site-packages/cloudroute/_native*.so)
  deps=$(ldd "$so")
  echo "$deps" | sed "s|^|   $2 ldd: |"
  ! grep -q 'not found' <<<"$deps" || fail "$2: unresolved libraries"
  needed=$(readelf -d "$so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
  for lib in $needed; do
    [[ $lib =~ ^(libc|libm|libpthread|libdl|ld-linux-x86-64|ld-linux-aarch64)\.so ]] ||
      fail "$2: needs $lib (hiredis, OpenSSL and libstdc++ are linked in)"
  done
}

smoke() {  # venv what
  (cd / && "$1/bin/python" "$root/tests/package/smoke.py" "$root/examples/two-clouds.cluster-slots.resp") ||
    fail "$2: smoke test"
}

show=$("$tools/bin/auditwheel" show "$wheel" 2>&1)
tag=$(tr -s ' \n' ' ' <<<"$show" | grep -o 'consistent with the following platform tag: "manylinux_[0-9]*_[0-9]*_[a-z0-9_]*"' |
  grep -o 'manylinux_[0-9a-z_]*') || { echo "$show" >&2; fail "auditwheel show: not manylinux"; }
[[ $(basename "$wheel") == *"$tag"* ]] || fail "wheel named $(basename "$wheel"), auditwheel says $tag"
[[ $tag == manylinux_2_28_* ]] || fail "auditwheel show: $tag, not manylinux_2_28 (the README's promise)"
! grep -q hiredis <<<"$show" || fail "auditwheel show names hiredis"
ok "auditwheel show: $(basename "$wheel") is consistent with $tag ($(du -k "$wheel" | cut -f1) KiB)"

"$tools/bin/python" -m venv "$work/wheel"
"$work/wheel/bin/python" -m pip install -q --disable-pip-version-check --no-index "$wheel"
check_ldd "$work/wheel" wheel
smoke "$work/wheel" wheel
ok "wheel: fresh virtualenv, extension needs glibc only, smoke test"
# The README's `pip install 'cloudroute[redis]'`: the extra brings redis-py
# (offline here, from .venv/wheelhouse), and the adapter imports with it.
"$tools/bin/python" -m venv "$work/extra"
"$work/extra/bin/python" -m pip install -q --disable-pip-version-check --no-index \
  --find-links "$tools/wheelhouse" "$wheel[redis]" || fail "pip install '$(basename "$wheel")[redis]'"
(cd / && "$work/extra/bin/python" -c 'import redis, cloudroute.redis_py; print("redis-py", redis.__version__)') ||
  fail "the redis extra: redis-py or cloudroute.redis_py does not import"
ok "wheel with the redis extra: redis-py installed, cloudroute.redis_py imports"

members=$(tar tzf "$sdist")
grep -q '/libcloudroute/core/src/keyslot.cpp$' <<<"$members" || fail "sdist lacks the C++ sources"
! grep -q '/build/' <<<"$members" || fail "sdist carries a build tree"
"$tools/bin/python" "$root/tests/package/sdist_check.py" "$sdist" || fail "the sdist is not complete"
ok "sdist: $(basename "$sdist") holds the sources, no build tree, and every file its build reads"
echo "$passed passed, 0 failed"
