#!/usr/bin/env bash
# tables_test.sh ROOT — the bindings' tables generated from cloudroute.h
# (scripts/gen_tables.py) are current, and the check catches a header that
# changed under them: a changed default, a renamed enum member and a new
# status without an exception family, each on a copy of the tree.
set -euo pipefail
root="$1"
gen="$root/scripts/gen_tables.py"
python3 "$gen" --check --root "$root"

tmp="$(mktemp -d /tmp/cr-tables.XXXXXX)"
trap 'rm -rf "$tmp"' EXIT
copy() {
  rm -rf "$tmp/tree"
  for d in capi/include bindings/python/cloudroute bindings/python/src bindings/java/src/main/java/io/cloudroute \
    bindings/java/src/main/native; do
    mkdir -p "$tmp/tree/$d"
    cp -r "$root/$d"/. "$tmp/tree/$d/"
  done
}
expect_stale() { # what, sed expression on the header, expected exit code
  copy
  sed -i "$2" "$tmp/tree/capi/include/cloudroute.h"
  cmp -s "$root/capi/include/cloudroute.h" "$tmp/tree/capi/include/cloudroute.h" &&
    { echo "FAIL: $1: the sed changed nothing"; exit 1; }
  local rc=0
  python3 "$gen" --check --root "$tmp/tree" 2>"$tmp/err" || rc=$?
  if ((rc != $3)); then
    echo "FAIL: $1: exit $rc, expected $3"; cat "$tmp/err"; exit 1
  fi
  echo "ok: $1: $(head -1 "$tmp/err")"
}
expect_stale "a changed default" 's/(uint32_t)sizeof(cr_client_options), 1000u,/(uint32_t)sizeof(cr_client_options), 1500u,/' 1
expect_stale "a renamed enum member" 's/CR_HEDGE_MODE_OFF = 0/CR_HEDGE_MODE_NEVER = 0/; s/CR_HEDGE_MODE_OFF,/CR_HEDGE_MODE_NEVER,/g' 1
expect_stale "a status without a family" 's/^  CR_EVERSION = -15$/  CR_EVERSION = -15,\n  CR_ENEW = -16/' 2

# The generator writes what --check asks for: a header changed under the
# tables, regenerated, is current again.
copy
sed -i 's/(uint32_t)sizeof(cr_client_options), 1000u,/(uint32_t)sizeof(cr_client_options), 1500u,/' \
  "$tmp/tree/capi/include/cloudroute.h"
python3 "$gen" --root "$tmp/tree" >/dev/null
python3 "$gen" --check --root "$tmp/tree"
echo "ok: regenerated after a change, the tables are current"
echo "tables: 1 passed, 0 failed"
