# What the arm64 checks under qemu share (sourced by tests/package/arm64_test.sh
# and arm64_suites_test.sh, with $root set): the emulator (exits 77, skipped,
# saying so, without it), a scratch directory, the result lines and Debian's
# arm64 CPython.
#
# Every arm64 program runs with the arm64 glibc of multiarch (libc6:arm64):
# qemu without -L, as cmake/toolchain-aarch64-linux-gnu.cmake says why.
qemu=$(command -v qemu-aarch64-static || true)
[[ -n $qemu ]] || { echo "arm64: skipped: qemu-aarch64-static is not installed (scripts/deps.sh installs qemu-user-static)"; exit 77; }
work=$(mktemp -d /tmp/cr-arm64.XXXXXX)
trap 'rm -rf "$work"' EXIT
passed=0 skipped=0
ok() { echo "ok: $*"; passed=$((passed + 1)); }
skip() { echo "arm64: skipped: $*"; skipped=$((skipped + 1)); }
fail() { echo "FAIL: $*" >&2; echo "$passed passed, 1 failed, $skipped skipped"; exit 1; }
arm64_elf() { [[ $(readelf -h "$1" | sed -n 's/ *Machine: *//p') == AArch64 ]]; }

# Debian's arm64 CPython 3.11, unpacked by scripts/deps.sh (its version is the
# installed libpython3.11-minimal:arm64's), started through a script that runs
# it under qemu with that script as its argv[0]: sys.executable names the
# script, so a test that starts a second interpreter (subprocess with
# sys.executable) starts it under qemu too. arm64_cpython fails, naming what is
# missing in $arm64_py_missing, when it is not there.
py_ver=$(dpkg-query -W -f='${Version}' libpython3.11-minimal:arm64 2>/dev/null || true)
py=${XDG_CACHE_HOME:-$HOME/.cache}/cloudroute/python3.11-arm64-$py_ver/usr/bin/python3.11
arm64_py_missing="no arm64 CPython 3.11 (scripts/deps.sh unpacks python3.11-minimal:arm64)"
arm64_cpython() { [[ -n $py_ver && -x $py ]]; }
mkdir -p "$work/bin"
printf '#!/bin/sh\nexec "%s" -0 "$0" "%s" "$@"\n' "$qemu" "$py" >"$work/bin/python3.11"
chmod +x "$work/bin/python3.11"
site=$work/site-packages
arm64_py() { (cd / && PYTHONPATH=$site PYTHONDONTWRITEBYTECODE=1 "$work/bin/python3.11" "$@"); }
# arm64_install_wheel WHEEL TAG [REQUIREMENT...]: the aarch64 wheel and pure-Python
# requirements (from .venv/wheelhouse) into $site: pip on this x86_64 machine
# installs for the arm64 CPython when told its tags.
arm64_install_wheel() {
  local wheel=$1 tag=$2
  shift 2
  "$root/.venv/bin/python" -m pip install -q --disable-pip-version-check --no-index \
    --find-links "$root/.venv/wheelhouse" --target "$site" --platform "$tag" --python-version 3.11 \
    --implementation cp --abi cp311 --only-binary :all: "$wheel" "$@"
  arm64_elf "$(ls "$site"/cloudroute/_native*aarch64*.so)" || fail "the wheel's extension is not AArch64"
}
