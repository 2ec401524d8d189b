#!/usr/bin/env bash
# Builds a C program against an installed libcloudroute four ways: CMake
# package (shared and static) and pkg-config (shared and static). Each binary
# must run and print the expected route.
#
#   check_install.sh BUILD WORK CONSUMER     installs BUILD into WORK/prefix first
#   check_install.sh --system WORK CONSUMER  what is installed under /usr (the
#       Debian packages, tests/package/deb_test.sh): default search paths only
set -euo pipefail
build=$1 work=$2 consumer=$3
rm -rf "$work"
mkdir -p "$work"
if [[ $build == --system ]]; then
  prefix=/usr
  libdir=$(pkg-config --variable=libdir cloudroute)
  cmake_args=()
  run_env=()
else
  prefix=$work/prefix
  cmake --install "$build" --prefix "$prefix" >/dev/null
  libdir=$(find "$prefix" -name 'libcloudroute.so.0' -printf '%h\n' | head -1)
  export PKG_CONFIG_PATH=$libdir/pkgconfig
  cmake_args=(-DCMAKE_PREFIX_PATH="$prefix")
  run_env=(LD_LIBRARY_PATH="$libdir")
fi
[[ -f $prefix/include/cloudroute.h ]] || { echo "header not installed" >&2; exit 1; }
passed=0
run() {  # name binary
  local out
  out=$(env "${run_env[@]}" "$2")
  [[ $out == "foo 12182 127.0.0.1:6379" ]] || { echo "$1: unexpected output '$out'" >&2; exit 1; }
  passed=$((passed + 1))
}
for kind in shared static; do
  cmake -S "$consumer" -B "$work/cmake-$kind" -G Ninja "${cmake_args[@]}" -DCR_LINK="$kind" >/dev/null
  cmake --build "$work/cmake-$kind" >/dev/null
  run "cmake-$kind" "$work/cmake-$kind/consumer"
done
cc -std=c99 -Wall -Werror "$consumer/consumer.c" -o "$work/pc-shared" \
   $(pkg-config --cflags --libs cloudroute)
run pkg-config-shared "$work/pc-shared"
cc -std=c99 -Wall -Werror "$consumer/consumer.c" -o "$work/pc-static" $(pkg-config --cflags cloudroute) \
   -L"$libdir" -Wl,-Bstatic -lcloudroute -Wl,-Bdynamic $(pkg-config --libs-only-l --static cloudroute | sed 's/-lcloudroute//')
if ldd "$work/pc-static" | grep -q libcloudroute; then echo "pc-static linked the shared library" >&2; exit 1; fi
run pkg-config-static "$work/pc-static"
echo "$passed passed, 0 failed"
