#!/usr/bin/env bash
# The dynamic symbols libcloudroute exports must be exactly the checked-in
# list: a new symbol is a deliberate ABI addition (update the list in the same
# commit), a missing one is an ABI break.
set -euo pipefail
lib=$1 expected=$2
actual=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRW]$/ {print $3}' | sed 's/@.*//' | sort -u)
if ! diff -u "$expected" <(printf '%s\n' "$actual"); then
  echo "exported symbols differ from $expected (lines with + are exported but not listed)" >&2
  exit 1
fi
soname=$(objdump -p "$lib" | awk '/SONAME/ {print $2}')
[[ $soname == libcloudroute.so.0 ]] || { echo "SONAME is '$soname', want libcloudroute.so.0" >&2; exit 1; }
echo "1 passed, 0 failed: $(wc -l <"$expected") symbols, SONAME $soname"
