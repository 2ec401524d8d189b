#!/usr/bin/env bash
# Builds libcloudroute_jni.so and copies it where the jar carries it:
# target/classes/native/linux-x86_64/. Maven runs this in its
# generate-resources phase; it may also be run by hand.
#
# The library is target cloudroute_jni of the root project (CR_BUILD_JNI),
# built in the tree of CMake preset package (build/package/, Release): the
# Debian packages of scripts/package.sh build there too, so the two share one
# compile of libcloudroute's sources. CR_JNI_BUILD_DIR moves the tree.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${CR_JNI_BUILD_DIR:-$root/build/package}"
os="$(uname -s | tr 'A-Z' 'a-z')"
arch="$(uname -m)"
[[ "$arch" == amd64 ]] && arch=x86_64
[[ "$arch" == arm64 ]] && arch=aarch64
# jni.h comes from the JDK that runs Maven (or the javac on PATH).
if [[ -z "${JAVA_HOME:-}" ]]; then
  JAVA_HOME="$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")"
fi
export JAVA_HOME
export CMAKE_C_COMPILER_LAUNCHER="${CMAKE_C_COMPILER_LAUNCHER:-$(command -v ccache || true)}"
export CMAKE_CXX_COMPILER_LAUNCHER="${CMAKE_CXX_COMPILER_LAUNCHER:-$(command -v ccache || true)}"
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}" CCACHE_NOHASHDIR=1
# Configure when the tree is new or was configured without the JNI target
# (scripts/package.sh deb configures it without).
if ! grep -qs '^CR_BUILD_JNI:BOOL=ON$' "$build/CMakeCache.txt"; then
  (cd "$root" && cmake --preset package -B "$build" -DCR_BUILD_JNI=ON >/dev/null)
fi
cmake --build "$build" -j "${CR_JNI_JOBS:-$(nproc)}" --target cloudroute_jni
dest="$here/target/classes/native/$os-$arch"
mkdir -p "$dest"
cp "$build/bindings/java/libcloudroute_jni.so" "$dest/libcloudroute_jni.so"
