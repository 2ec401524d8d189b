#!/usr/bin/env bash
# Checks that the sources follow the project's formatters and linters; with
# --fix, rewrites what they can:
#   C and C++ (*.c *.h *.cc *.cpp *.hpp)  clang-format, .clang-format
#   Python (*.py *.pyi)                   ruff check, ruff.toml (lint only)
#   Java (*.java)                         google-java-format (its one style)
#
#   scripts/check-format.sh              check the directories below
#   scripts/check-format.sh --fix        rewrite them (ruff: its safe fixes)
#   scripts/check-format.sh [--fix] DIR...   the same for other directories
#   scripts/check-format.sh --tools      only fetch google-java-format (deps.sh)
#
# Checked (by scripts/test.sh): C/C++ in core, net, capi, tools, bench, tests,
# the Python binding's C++ (bindings/python/src) and the JVM binding's C
# (bindings/java/src/main/native); Python everywhere; Java in bindings/java
# (the binding, its tests and the adapters of bindings/java/clients).
#
# Files are the ones git knows (tracked, or new and not ignored), so build
# trees and virtualenvs are never looked at. The tools come from
# scripts/deps.sh: clang-format (Debian's, version 14; $CLANG_FORMAT
# overrides), ruff (the version pinned in bindings/python/requirements-dev.txt,
# in .venv; $RUFF overrides) and google-java-format (the version pinned below,
# from Maven Central into Maven's local repository .m2/, as tests/java/run.sh
# uses it; $GOOGLE_JAVA_FORMAT_JAR overrides), run by the JDK's java.
set -euo pipefail
cd "$(dirname "$0")/.."

gjf_version=1.28.0 # the newest that runs on Java 17 (Debian 12's default JDK)
gjf_jar=${GOOGLE_JAVA_FORMAT_JAR:-.m2/com/google/googlejavaformat/google-java-format/$gjf_version/google-java-format-$gjf_version-all-deps.jar}
# google-java-format uses javac's parser: JDK 16 and later export it only on request.
gjf=(java)
for pkg in api code file parser tree util; do
  gjf+=("--add-exports=jdk.compiler/com.sun.tools.javac.$pkg=ALL-UNNAMED")
done
gjf+=(-jar "$gjf_jar")
fetch_gjf() {
  [[ -f $gjf_jar ]] && return 0
  echo "check-format: fetching google-java-format $gjf_version into .m2/ (Maven)"
  ${MVN:-mvn} -B -q -Dmaven.repo.local="$PWD/.m2" dependency:get -Dtransitive=false \
    -Dartifact="com.google.googlejavaformat:google-java-format:$gjf_version:jar:all-deps" >&2 &&
    [[ -f $gjf_jar ]]
}
if [[ ${1:-} == --tools ]]; then
  fetch_gjf
  exit
fi

fix=0
if [[ ${1:-} == --fix ]]; then
  fix=1
  shift
fi
dirs=("$@")
py_dirs=("$@")
java_dirs=("$@")
if ((${#dirs[@]} == 0)); then
  dirs=(core net capi tools bench tests bindings/python/src bindings/java/src/main/native)
  py_dirs=(.)
  java_dirs=(bindings/java)
fi
for d in "${dirs[@]}"; do
  [[ -d $d ]] || { echo "check-format: no such directory: $d" >&2; exit 2; }
done
status=0

cf=${CLANG_FORMAT:-}
if [[ -z $cf ]]; then
  for c in clang-format clang-format-14; do
    if command -v "$c" >/dev/null; then
      cf=$c
      break
    fi
  done
fi
if [[ -z $cf ]] || ! command -v "$cf" >/dev/null; then
  echo "check-format: clang-format not found; install it with scripts/deps.sh" >&2
  exit 2
fi

mapfile -t files < <(git ls-files --cached --others --exclude-standard -- "${dirs[@]}" |
  grep -E '\.(c|h|cc|cpp|hpp)$' | sort -u)
mapfile -t py_files < <(git ls-files --cached --others --exclude-standard -- "${py_dirs[@]}" |
  grep -E '\.pyi?$' | sort -u)
mapfile -t java_files < <(git ls-files --cached --others --exclude-standard -- "${java_dirs[@]}" |
  grep -E '\.java$' | sort -u)
if ((${#files[@]} + ${#py_files[@]} + ${#java_files[@]} == 0)); then
  echo "check-format: no C, C++, Python or Java files under ${dirs[*]}" >&2
  exit 2
fi

ruff=${RUFF:-.venv/bin/ruff}
if ((${#py_files[@]} > 0)) && ! command -v "$ruff" >/dev/null; then
  echo "check-format: ruff not found ($ruff); install it with scripts/deps.sh" >&2
  exit 2
fi
if ((${#java_files[@]} > 0)); then
  if ! command -v java >/dev/null; then
    echo "check-format: java not found; install it with scripts/deps.sh" >&2
    exit 2
  fi
  fetch_gjf || { echo "check-format: no google-java-format jar at $gjf_jar; run scripts/deps.sh" >&2; exit 2; }
fi

if ((fix == 1)); then
  if ((${#files[@]} > 0)); then
    "$cf" -i --style=file "${files[@]}"
    echo "check-format: formatted ${#files[@]} C/C++ files ($("$cf" --version))"
  fi
  if ((${#py_files[@]} > 0)); then
    "$ruff" check --fix --quiet "${py_files[@]}" || status=1
    echo "check-format: ruff fixed what it safely could in ${#py_files[@]} Python files ($("$ruff" --version))"
  fi
  if ((${#java_files[@]} > 0)); then
    "${gjf[@]}" --replace "${java_files[@]}"
    echo "check-format: formatted ${#java_files[@]} Java files (google-java-format $gjf_version)"
  fi
  exit "$status"
fi

bad=()
for f in "${files[@]}"; do
  "$cf" --style=file --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if ((${#bad[@]} > 0)); then
  echo "check-format: ${#bad[@]} of ${#files[@]} files differ from .clang-format ($("$cf" --version)):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  echo "check-format: see the changes with '$cf --style=file ${bad[0]} | diff ${bad[0]} -'," >&2
  echo "check-format: rewrite them with 'scripts/check-format.sh --fix'" >&2
  status=1
elif ((${#files[@]} > 0)); then
  echo "check-format: ${#files[@]} C/C++ files under ${dirs[*]} follow .clang-format"
fi

if ((${#py_files[@]} > 0)); then
  if "$ruff" check --quiet "${py_files[@]}" >&2; then
    echo "check-format: ${#py_files[@]} Python files pass ruff ($("$ruff" --version), ruff.toml)"
  else
    echo "check-format: ruff found the problems above; 'scripts/check-format.sh --fix' fixes some" >&2
    status=1
  fi
fi

if ((${#java_files[@]} > 0)); then
  gjf_out=$("${gjf[@]}" --dry-run "${java_files[@]}") || {
    echo "check-format: google-java-format failed (above)" >&2
    exit 1
  }
  mapfile -t bad_java < <(printf '%s' "$gjf_out" | grep .)
  if ((${#bad_java[@]} > 0)); then
    echo "check-format: ${#bad_java[@]} of ${#java_files[@]} Java files differ from google-java-format $gjf_version:" >&2
    printf '  %s\n' "${bad_java[@]}" >&2
    echo "check-format: rewrite them with 'scripts/check-format.sh --fix'" >&2
    status=1
  else
    echo "check-format: ${#java_files[@]} Java files follow google-java-format $gjf_version"
  fi
fi
exit "$status"
