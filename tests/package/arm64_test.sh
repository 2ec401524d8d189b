#!/usr/bin/env bash
# The arm64 artifacts of scripts/package.sh, run on this x86_64 machine under
# user-mode emulation (qemu-aarch64-static; scripts/deps.sh installs it and the
# arm64 libraries the programs load):
#   - the C unit and C API tests and the CLI's golden-vector scripts, built in
#     the arm64 tree (ctest --preset package-arm64: label emulated);
#   - the arm64 .debs' CLI and library, unpacked, against the golden vectors
#     (tests/core/ring_cli_test.sh) and the two-clouds example;
#   - the aarch64 wheel: auditwheel names manylinux_2_28_aarch64; installed for
#     Debian's arm64 CPython 3.11 (unpacked by scripts/deps.sh), the smoke test
#     (key slots, a CLUSTER SLOTS reply parsed, reads and writes routed);
#   - the jar's native/linux-aarch64 library: an AArch64 ELF that needs glibc's
#     libraries only, hiredis inside and not exported, that an arm64 process
#     loads with every symbol bound.
# The Python package's and the JVM binding's offline test suites in those arm64
# runtimes take minutes: tests/package/arm64_suites_test.sh.
# Every arm64 program runs with the arm64 glibc of multiarch (libc6:arm64):
# qemu without -L, as cmake/toolchain-aarch64-linux-gnu.cmake says why.
# Exits 77 (skipped), saying so, when qemu-aarch64-static is not installed; the
# wheel's smoke test alone is skipped, saying so, without the arm64 CPython.
#
#   tests/package/arm64_test.sh [DIST]     (default dist/)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
dist="$(cd "${1:-$root/dist}" && pwd)"
source "$root/tests/package/arm64_env.sh"

# --- ctest in the arm64 tree (scripts/package.sh deb builds it)
[[ -f $root/build/package-arm64/CTestTestfile.cmake ]] || fail "build/package-arm64 missing: run scripts/package.sh deb"
(cd "$root" && ctest --preset package-arm64 -j "$(nproc)") >"$work/ctest.log" 2>&1 ||
  { tail -40 "$work/ctest.log" >&2; fail "ctest --preset package-arm64"; }
summary=$(grep -E '^[0-9]+% tests passed' "$work/ctest.log")
(($(grep -cE '^ *[0-9]+/[0-9]+ Test +#' "$work/ctest.log") >= 50)) || fail "ctest ran too few tests: $summary"
ok "ctest --preset package-arm64 under qemu: $summary"

# --- the .debs, unpacked: the CLI and its library as Debian would install them
for pkg in libcloudroute0 cloudroute; do
  deb=$(ls "$dist"/${pkg}_*_arm64.deb) || fail "no ${pkg}_*_arm64.deb: run scripts/package.sh deb"
  [[ $(dpkg-deb -f "$deb" Architecture) == arm64 ]] || fail "$(basename "$deb"): Architecture $(dpkg-deb -f "$deb" Architecture)"
  dpkg-deb -x "$deb" "$work/deb"
done
deps=$(dpkg-deb -f "$(ls "$dist"/libcloudroute0_*_arm64.deb)" Depends)
[[ $deps == *libhiredis* && $deps == *libssl3* ]] || fail "libcloudroute0 arm64 Depends: $deps"
cli=$work/deb/usr/bin/cloudroute
arm64_elf "$cli" && arm64_elf "$work/deb/usr/lib/aarch64-linux-gnu/libcloudroute.so.0" || fail "the .debs' binaries are not AArch64"
printf '#!/bin/sh\nexec "%s" -E LD_LIBRARY_PATH="%s" "%s" "$@"\n' "$qemu" \
  "$work/deb/usr/lib/aarch64-linux-gnu" "$cli" >"$work/cloudroute"
chmod +x "$work/cloudroute"
[[ $("$work/cloudroute" keyslot user:1000) == 1649 ]] || fail "cloudroute keyslot"
route=$("$work/cloudroute" route --cluster-slots "$root/examples/two-clouds.cluster-slots.resp" \
  --local-cidr 127.0.1.0/24 --policy local-replicas-first --json user:1000)
[[ $route == *'"read": ["127.0.1.'* ]] || fail "cloudroute route: $route"
"$root/tests/core/ring_cli_test.sh" "$work/cloudroute" >"$work/ring.log" 2>&1 || { cat "$work/ring.log" >&2; fail "ring_cli_test.sh"; }
ok "arm64 .debs (Depends: $deps): the packaged CLI keyslot, route, and the ring golden vectors"

# --- the aarch64 wheel
wheel=$(ls "$dist"/cloudroute-*-manylinux_*_aarch64.whl) || fail "no aarch64 wheel: run scripts/package.sh python"
show=$("$root/.venv/bin/auditwheel" show "$wheel" 2>&1)
tag=$(tr -s ' \n' ' ' <<<"$show" | grep -o 'consistent with the following platform tag: "manylinux_[0-9]*_[0-9]*_[a-z0-9_]*"' |
  grep -o 'manylinux_[0-9a-z_]*') || { echo "$show" >&2; fail "auditwheel show: not manylinux"; }
[[ $tag == manylinux_2_28_aarch64 && $(basename "$wheel") == *"$tag"* ]] || fail "auditwheel: $tag for $(basename "$wheel")"
ok "auditwheel show: $(basename "$wheel") is consistent with $tag"

# Debian's arm64 CPython 3.11 (tests/package/arm64_env.sh).
if ! arm64_cpython; then
  skip "the aarch64 wheel's smoke test: $arm64_py_missing"
else
  arm64_install_wheel "$wheel" "$tag"
  [[ $(arm64_py -c 'import platform; print(platform.machine())') == aarch64 ]] || fail "the arm64 CPython does not run"
  arm64_py "$root/tests/package/smoke.py" "$root/examples/two-clouds.cluster-slots.resp" || fail "smoke test (arm64 CPython)"
  ok "the aarch64 wheel in Debian's arm64 CPython $py_ver under qemu: smoke test"
fi

# --- the jar's aarch64 library
jar=$(ls "$dist"/cloudroute-[0-9]*.jar | grep -v -e '-sources' -e '-javadoc')
(cd "$work" && unzip -q "$jar" 'native/*')
so=$work/native/linux-aarch64/libcloudroute_jni.so
[[ -f $so ]] || fail "no native/linux-aarch64/libcloudroute_jni.so in $(basename "$jar")"
arm64_elf "$so" || fail "native/linux-aarch64/libcloudroute_jni.so is not AArch64"
for lib in $(readelf -d "$so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
  [[ $lib =~ ^(libc|libm|libpthread|libdl|ld-linux-aarch64)\.so ]] || fail "native/linux-aarch64: needs $lib"
done
grep -q ' redisReaderCreate$' <<<"$(readelf -Ws "$so")" || fail "hiredis is not linked into the aarch64 library"
! grep -q ' redisReaderCreate$' <<<"$(readelf -W --dyn-syms "$so")" || fail "hiredis symbols exported (aarch64)"
[[ $(sort "$work/native/platforms.txt" | tr '\n' ' ') == "linux-aarch64 linux-x86_64 " ]] ||
  fail "native/platforms.txt: $(cat "$work/native/platforms.txt")"
# Loaded for real, every symbol bound at once (RTLD_NOW): each glibc version it
# asks for resolves on arm64 too (a JVM binds lazily).
if arm64_cpython; then
  arm64_py -c 'import ctypes, os, sys; ctypes.CDLL(sys.argv[1], mode=os.RTLD_NOW); print("dlopen ok")' "$so" >/dev/null ||
    fail "native/linux-aarch64/libcloudroute_jni.so does not load (RTLD_NOW) in an arm64 process"
  ok "jar: native/linux-aarch64 (AArch64, glibc libraries only, hiredis inside, loads with RTLD_NOW), platforms.txt names both"
else
  ok "jar: native/linux-aarch64 (AArch64, glibc libraries only, hiredis inside), platforms.txt names both"
fi

echo "$passed passed, 0 failed, $skipped skipped"
