#!/usr/bin/env bash
# Builds libcloudroute_jni.so and copies it where the jar carries it:
# target/classes/native/<os>-<arch>/, one directory per platform, and lists
# those platforms in target/classes/native/platforms.txt (the loader names
# them when the running JVM's platform is missing). Maven runs this in its
# generate-resources phase; it may also be run by hand.
#
# The library is target cloudroute_jni of the root project (CR_BUILD_JNI),
# built in the tree of CMake preset package (build/package/, Release): the
# Debian packages of scripts/package.sh build there too, so the two share one
# compile of libcloudroute's sources. CR_JNI_BUILD_DIR moves the tree.
#
# CR_JNI_ARCHES (default: this machine's) lists the architectures to build,
# e.g. "x86_64 aarch64": aarch64 on an x86_64 machine is cross-built in the
# tree of preset package-arm64 (build/package-arm64/; scripts/deps.sh installs
# the cross toolchain). scripts/package.sh jar builds both; platforms not
# listed are removed from target/classes/native/.
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
build_host() {
  if ! grep -qs '^CR_BUILD_JNI:BOOL=ON$' "$build/CMakeCache.txt"; then
    (cd "$root" && cmake --preset package -B "$build" -DCR_BUILD_JNI=ON >/dev/null)
  fi
  cmake --build "$build" -j "${CR_JNI_JOBS:-$(nproc)}" --target cloudroute_jni >&2
  echo "$build/bindings/java/libcloudroute_jni.so"
}
build_aarch64_cross() {
  local tree=$root/build/package-arm64
  if ! grep -qs '^CR_BUILD_JNI:BOOL=ON$' "$tree/CMakeCache.txt"; then
    (cd "$root" && cmake --preset package-arm64 -DCR_BUILD_JNI=ON >/dev/null) >&2
  fi
  cmake --build "$tree" -j "${CR_JNI_JOBS:-$(nproc)}" --target cloudroute_jni >&2
  echo "$tree/bindings/java/libcloudroute_jni.so"
}
native="$here/target/classes/native"
arches=(${CR_JNI_ARCHES:-$arch})
mkdir -p "$native"
for a in "${arches[@]}"; do
  case $a in
    "$arch") lib=$(build_host) ;;
    aarch64) [[ $arch == x86_64 ]] || { echo "build-native: cannot build aarch64 on $arch" >&2; exit 1; }
      command -v aarch64-linux-gnu-g++ >/dev/null ||
        { echo "build-native: aarch64-linux-gnu-g++ missing: run scripts/deps.sh" >&2; exit 1; }
      lib=$(build_aarch64_cross) ;;
    *) echo "build-native: unknown architecture '$a' (x86_64, aarch64)" >&2; exit 1 ;;
  esac
  mkdir -p "$native/$os-$a"
  cp "$lib" "$native/$os-$a/libcloudroute_jni.so"
done
# Only the platforms built now stay: a library left by an earlier run would
# ship stale.
for d in "$native"/*/; do
  p=$(basename "$d") keep=0
  for a in "${arches[@]}"; do [[ $p == "$os-$a" ]] && keep=1; done
  ((keep)) || rm -rf "$d"
done
(cd "$native" && ls -d */ | tr -d / | sort >platforms.txt)
echo "build-native: $native holds $(tr '\n' ' ' <"$native/platforms.txt")"
