#!/usr/bin/env bash
# The newest glibc and libstdc++ each shipped binary needs, against what the
# README's package table promises: for every binary in dist/ (both wheels'
# extension, the jar's two JNI libraries, the .debs' library and CLI for amd64
# and arm64), the highest GLIBC_ and GLIBCXX_ versions in its version needs
# (readelf -V: what the dynamic loader checks before it runs a line; readelf
# reads either architecture). A symbol from a newer glibc than promised fails
# the test: that is what a user on an older system would see as
# "version `GLIBC_2.34' not found".
#
#   tests/package/glibc_test.sh [DIST]     (default dist/)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
dist="$(cd "${1:-$root/dist}" && pwd)"
work=$(mktemp -d /tmp/cr-glibc.XXXXXX)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
ok() { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAIL: $*" >&2; failed=$((failed + 1)); }

# The promises (README, "Packages"): the wheels and the jar run on glibc 2.28
# (manylinux_2_28: RHEL 8, Debian 10, Ubuntu 20.04) and carry their C++
# runtime; the .debs are Debian 12's (glibc 2.34 or newer, GCC 12's libstdc++ at most).
portable_glibc=2.28 deb_glibc=2.34 deb_glibcxx=3.4.30

# highest FILE PREFIX: the highest PREFIX_x.y[.z] version FILE needs, or "none".
highest() {
  local v
  v=$(readelf -V -W "$1" | sed -n '/\.gnu\.version_r/,$p' | grep -oE "Name: $2_[0-9.]+" |
    sed "s/Name: $2_//" | sort -V | tail -1)
  echo "${v:-none}"
}
# check WHAT FILE MACHINE GLIBC_MAX GLIBCXX_MAX ("none": must need none)
check() {
  local what=$1 file=$2 machine=$3 gmax=$4 xmax=$5 g x
  [[ -f $file ]] || { bad "$what: $file missing"; return; }
  [[ $(readelf -h "$file" | sed -n 's/ *Machine: *//p') == "$machine" ]] ||
    { bad "$what: $(basename "$file") is not $machine"; return; }
  g=$(highest "$file" GLIBC) x=$(highest "$file" GLIBCXX)
  if [[ $g == none || $(printf '%s\n%s\n' "$g" "$gmax" | sort -V | tail -1) != "$gmax" ]]; then
    bad "$what: needs GLIBC_$g, promised $gmax or older"; return
  fi
  if [[ $xmax == none ]]; then
    [[ $x == none ]] || { bad "$what: needs GLIBCXX_$x, promised libstdc++ linked in"; return; }
  elif [[ $x != none && $(printf '%s\n%s\n' "$x" "$xmax" | sort -V | tail -1) != "$xmax" ]]; then
    bad "$what: needs GLIBCXX_$x, promised $xmax or older"; return
  fi
  ok "$what: needs GLIBC_$g (promised <= $gmax), GLIBCXX_$x (promised <= $xmax; none: linked in)"
}

x86="Advanced Micro Devices X86-64" arm="AArch64"
for arch in x86_64 aarch64; do
  machine=$x86 && [[ $arch == aarch64 ]] && machine=$arm
  wheel=$(ls "$dist"/cloudroute-*-manylinux_*_"$arch".whl 2>/dev/null) || { bad "no $arch wheel in $dist"; continue; }
  mkdir -p "$work/wheel-$arch" && (cd "$work/wheel-$arch" && unzip -q "$wheel")
  check "wheel $arch ($(basename "$wheel"))" "$(ls "$work/wheel-$arch"/cloudroute/_native*.so)" "$machine" \
    "$portable_glibc" none
done

jar=$(ls "$dist"/cloudroute-[0-9]*.jar | grep -v -e '-sources' -e '-javadoc')
(cd "$work" && unzip -q "$jar" 'native/*')
check "jar native/linux-x86_64" "$work/native/linux-x86_64/libcloudroute_jni.so" "$x86" "$portable_glibc" none
check "jar native/linux-aarch64" "$work/native/linux-aarch64/libcloudroute_jni.so" "$arm" "$portable_glibc" none

for deb_arch in amd64 arm64; do
  machine=$x86 multiarch=x86_64-linux-gnu
  [[ $deb_arch == arm64 ]] && machine=$arm multiarch=aarch64-linux-gnu
  for pkg in libcloudroute0 cloudroute; do
    deb=$(ls "$dist"/${pkg}_*_"$deb_arch".deb 2>/dev/null) || { bad "no ${pkg} $deb_arch .deb in $dist"; continue; }
    dpkg-deb -x "$deb" "$work/deb-$deb_arch"
  done
  check "deb $deb_arch libcloudroute.so.0" "$work/deb-$deb_arch/usr/lib/$multiarch/libcloudroute.so.0" "$machine" \
    "$deb_glibc" "$deb_glibcxx"
  check "deb $deb_arch /usr/bin/cloudroute" "$work/deb-$deb_arch/usr/bin/cloudroute" "$machine" \
    "$deb_glibc" "$deb_glibcxx"
done
echo "$passed passed, $failed failed"
((failed == 0))
