#!/usr/bin/env bash
# Builds libcloudroute_jni.so (CMake, out of tree) and copies it where the jar
# carries it: target/classes/native/linux-x86_64/. Maven runs this in its
# generate-resources phase; it may also be run by hand.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${CR_JNI_BUILD_DIR:-$root/build/java-native}"
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
if [[ ! -f "$build/build.ninja" ]]; then
  cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build "$build" -j "${CR_JNI_JOBS:-2}" --target cloudroute_jni
dest="$here/target/classes/native/$os-$arch"
mkdir -p "$dest"
cp "$build/libcloudroute_jni.so" "$dest/libcloudroute_jni.so"
