#!/usr/bin/env bash
# `cloudroute family-key` against the real-Java vectors (tests/vectors/
# family_keys.json, ASCII and UTF-8 cases alike) and `--policy`/`--selection`
# on the two-clouds example. CASES (default 200) family-key vectors: a
# sanitizer or emulated tree passes 20 (each run of an ASan binary or one
# under qemu costs ~0.1 s, and the package tree runs all 200; see
# docs/testing.md).
set -euo pipefail
cli=$1 repo=$2 cases=${3:-200}
fail=0
n=0
# family_hex key_hex jedis commons_codec, for the first CASES cases whose key is
# a valid command-line argument (no NUL; every case is UTF-8).
while read -r fam key jedis codec; do
  f=$(printf '%s' "$fam" | xxd -r -p) k=$(printf '%s' "${key#-}" | xxd -r -p)
  got_j=$("$cli" family-key -- "$f" "$k") got_c=$("$cli" family-key --variant commons-codec -- "$f" "$k")
  if [[ $got_j != "$jedis" || $got_c != "$codec" ]]; then
    echo "FAIL family-key $fam $key: got $got_j $got_c, want $jedis $codec" >&2; fail=1
  fi
  n=$((n + 1))
done < <(python3 -c '
import json, sys
for f, k, j, c in json.load(open(sys.argv[1]))["cases"][:int(sys.argv[2])]:
    print(f, k or "-", j, c)' "$repo/tests/vectors/family_keys.json" "$cases")
[[ $n == "$cases" ]] || { echo "FAIL: read $n family-key cases" >&2; fail=1; }
if "$cli" family-key --variant guava f k 2>/dev/null; then echo "FAIL: --variant guava accepted" >&2; fail=1; fi
if "$cli" family-key 'a:b' k 2>/dev/null; then echo "FAIL: family a:b accepted" >&2; fail=1; fi

src=(--cluster-slots "$repo/examples/two-clouds.cluster-slots.resp" --local-cidr 127.0.1.0/24)
want='{"key": "user:1000", "slot": 1649, "write": "127.0.1.1:7001", "read": ["127.0.1.1:7001", "127.0.1.2:7002", "127.0.2.2:7102"]}'
got=$("$cli" route "${src[@]}" --policy local-spread --json user:1000)
[[ $got == "$want" ]] || { echo "FAIL local-spread: $got" >&2; fail=1; }
got=$("$cli" route "${src[@]}" --policy replica-only --selection round-robin --explain user:1000)
[[ $got == *"policy replica-only selection round-robin"* && $got != *"master tier"* ]] ||
  { echo "FAIL replica-only explain: $got" >&2; fail=1; }
if "$cli" route "${src[@]}" --selection sticky user:1000 2>/dev/null; then
  echo "FAIL: --selection sticky accepted" >&2; fail=1
fi
[[ $fail == 0 ]] && echo "read modes CLI: $n family keys, policies and selection ok"
exit $fail
