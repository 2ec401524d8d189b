#!/usr/bin/env bash
# The Debian packages of scripts/package.sh, installed for real: `apt-get install`
# of the three .debs in DIST, the files where Debian puts them, the CLI, a C
# program built and run against them four ways (tests/abi/check_install.sh
# --system: CMake package and pkg-config, shared and static), then `dpkg -r` of
# all three and every file they installed gone.
#
# It changes the machine only while it runs: on exit it removes what it
# installed, and at the start it removes the packages a killed run left behind.
# Needs root (CI is root) or sudo; exits 77 (skipped) without. One run at a time
# on a machine (/tmp/cr-debs.lock).
#
#   tests/package/deb_test.sh [DIST]     (default dist/)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
dist="$(cd "${1:-$root/dist}" && pwd)"
sudo=()
if [[ $(id -u) -ne 0 ]]; then
  sudo -n true 2>/dev/null || { echo "deb: skipped: installing packages needs root or sudo"; exit 77; }
  sudo=(sudo -n)
fi
exec 8>/tmp/cr-debs.lock
flock 8

# This machine's architecture (tests/package/arm64_test.sh checks the arm64 ones).
arch=$(dpkg --print-architecture)
debs=("$dist"/libcloudroute0_*_"$arch".deb "$dist"/libcloudroute-dev_*_"$arch".deb "$dist"/cloudroute_*_"$arch".deb)
for d in "${debs[@]}"; do [[ -f $d ]] || { echo "deb: $d missing: run scripts/package.sh deb" >&2; exit 1; }; done
version=$(dpkg-deb -f "${debs[0]}" Version)
pkgs=(cloudroute libcloudroute-dev libcloudroute0)   # dependents first, for dpkg -r
work=$(mktemp -d /tmp/cr-deb.XXXXXX)
passed=0
ok() { echo "ok: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*" >&2; echo "$passed passed, 1 failed"; exit 1; }
status() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true; }
installed() { [[ $(status "$1") == "install ok installed" ]]; }
# Purged, not only removed: dpkg keeps a removed package with a postrm (the
# ldconfig trigger of libcloudroute0) in its database as config-files.
remove_ours() {
  local p present=()
  for p in "${pkgs[@]}"; do [[ $(status "$p") == *" installed" || $(status "$p") == *config-files ]] && present+=("$p"); done
  ((${#present[@]} == 0)) || "${sudo[@]}" dpkg -P "${present[@]}" >/dev/null
}
trap 'remove_ours; rm -rf "$work"' EXIT

for p in "${pkgs[@]}"; do
  [[ -z $(status "$p") || $(status "$p") == *not-installed ]] || echo "deb: purging $p ($(status "$p")), left by an earlier run"
done
remove_ours

# apt-get resolves the Depends (libhiredis0.14, libssl3, libhiredis-dev, ...).
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
  -o DPkg::Lock::Timeout=300 "${debs[@]}" >"$work/apt.log" 2>&1 || { cat "$work/apt.log" >&2; fail "apt-get install"; }
for p in "${pkgs[@]}"; do
  [[ $(dpkg-query -W -f='${Status} ${Version}' "$p") == "install ok installed $version" ]] || fail "$p not installed"
done
ok "apt-get install ${debs[*]##*/}"

multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
libdir=/usr/lib/$multiarch
for f in /usr/include/cloudroute.h "$libdir/libcloudroute.so.0" "$libdir/libcloudroute.so" \
         "$libdir/libcloudroute.a" "$libdir/cmake/cloudroute/cloudrouteConfig.cmake" \
         "$libdir/pkgconfig/cloudroute.pc" /usr/bin/cloudroute; do
  [[ -e $f ]] || fail "$f not installed"
done
[[ $(dpkg -S "$libdir/libcloudroute.so.0" | cut -d: -f1) == libcloudroute0 ]] || fail "libcloudroute.so.0 not in libcloudroute0"
[[ $(dpkg -S "$libdir/libcloudroute.a" | cut -d: -f1) == libcloudroute-dev ]] || fail "libcloudroute.a not in libcloudroute-dev"
grep -q "libcloudroute.so.0 " <<<"$(ldconfig -p)" || fail "libcloudroute.so.0 not in the ld.so cache"
ok "files in $libdir, /usr/include, /usr/bin; libcloudroute.so.0 in the ld.so cache"

deps=$(dpkg-query -W -f='${Depends}' libcloudroute0)
[[ $deps == *libhiredis* && $deps == *libssl3* ]] || fail "libcloudroute0 Depends: $deps"
[[ $(dpkg-query -W -f='${Depends}' cloudroute) == *"libcloudroute0 (= $version)"* ]] || fail "cloudroute Depends"
ok "Depends: libcloudroute0: $deps"

[[ $(/usr/bin/cloudroute keyslot user:1000) == 1649 ]] || fail "cloudroute keyslot"
route=$(/usr/bin/cloudroute route --cluster-slots "$root/examples/two-clouds.cluster-slots.resp" \
  --local-cidr 127.0.1.0/24 --policy local-replicas-first --json user:1000)
[[ $route == *'"read": ["127.0.1.'* ]] || fail "cloudroute route: $route"
ok "/usr/bin/cloudroute keyslot, route"

"$root/tests/abi/check_install.sh" --system "$work/consumer" "$root/tests/abi/consumer" >"$work/consumer.log" 2>&1 ||
  { cat "$work/consumer.log" >&2; fail "a C program against the installed packages"; }
ok "a C program against the packages: $(tail -1 "$work/consumer.log") (find_package and pkg-config, shared and static)"

for p in "${pkgs[@]}"; do dpkg -L "$p"; done | while read -r f; do [[ -d $f ]] || echo "$f"; done >"$work/files"
(($(wc -l <"$work/files") >= 8)) || fail "dpkg -L listed $(wc -l <"$work/files") files"
"${sudo[@]}" dpkg -r "${pkgs[@]}" >/dev/null
for p in "${pkgs[@]}"; do ! installed "$p" || fail "$p still installed after dpkg -r"; done
while read -r f; do [[ ! -e $f && ! -L $f ]] || fail "$f left after dpkg -r"; done <"$work/files"
! grep -q "libcloudroute.so.0 " <<<"$(ldconfig -p)" || fail "libcloudroute.so.0 still in the ld.so cache"
remove_ours
for p in "${pkgs[@]}"; do [[ -z $(status "$p") || $(status "$p") == *not-installed ]] || fail "$p: $(status "$p") after dpkg -P"; done
ok "dpkg -r: $(wc -l <"$work/files") files removed, none left; dpkg -P: no trace in dpkg's database"
echo "$passed passed, 0 failed"
