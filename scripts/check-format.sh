#!/usr/bin/env bash
# Checks that the C and C++ sources (*.c *.h *.cc *.cpp *.hpp) follow
# .clang-format; with --fix, rewrites the ones that do not.
#
#   scripts/check-format.sh              check the formatted directories below
#   scripts/check-format.sh --fix        reformat them
#   scripts/check-format.sh [--fix] DIR...   the same for other directories
#
# Formatted (and so checked by scripts/test.sh): core, net, capi, tools, bench,
# tests, the Python binding's C++ (bindings/python/src) and the JVM binding's C
# (bindings/java/src/main/native).
#
# Files are the ones git knows (tracked, or new and not ignored), so build
# trees and virtualenvs are never looked at. clang-format comes from
# scripts/deps.sh (Debian's clang-format, version 14); $CLANG_FORMAT overrides.
set -euo pipefail
cd "$(dirname "$0")/.."

fix=0
if [[ ${1:-} == --fix ]]; then
  fix=1
  shift
fi
dirs=("$@")
((${#dirs[@]} > 0)) || dirs=(core net capi tools bench tests bindings/python/src bindings/java/src/main/native)
for d in "${dirs[@]}"; do
  [[ -d $d ]] || { echo "check-format: no such directory: $d" >&2; exit 2; }
done

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
if ((${#files[@]} == 0)); then
  echo "check-format: no C or C++ files under ${dirs[*]}" >&2
  exit 2
fi

if ((fix == 1)); then
  "$cf" -i --style=file "${files[@]}"
  echo "check-format: formatted ${#files[@]} files under ${dirs[*]} ($("$cf" --version))"
  exit 0
fi

bad=()
for f in "${files[@]}"; do
  "$cf" --style=file --dry-run --Werror "$f" >/dev/null 2>&1 || bad+=("$f")
done
if ((${#bad[@]} > 0)); then
  echo "check-format: ${#bad[@]} of ${#files[@]} files differ from .clang-format ($("$cf" --version)):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  echo "check-format: see the changes with '$cf --style=file ${bad[0]} | diff ${bad[0]} -'," >&2
  echo "check-format: rewrite them with 'scripts/check-format.sh --fix ${dirs[*]}'" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files under ${dirs[*]} follow .clang-format"
