#!/usr/bin/env bash
# Captures the fuzzers' seed corpora from real servers: CLUSTER SLOTS and
# CLUSTER SHARDS replies, RESP2 and RESP3, of a redis-server 7 cluster and a
# Valkey 8 cluster started by scripts/redis-harness.sh (ports 8401-8419,
# tests/PORTS.md), written byte for byte to tests/fuzz/seeds/<target>/.
# The seeds are committed; run this again only to refresh them.
#   tests/fuzz/capture_seeds.sh
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
out=$src/tests/fuzz/seeds
work=$(mktemp -d)
cleanup() {
  "$src/scripts/redis-harness.sh" stop "$work/redis" >/dev/null 2>&1 || true
  "$src/scripts/redis-harness.sh" stop "$work/valkey" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$out/cluster_slots" "$out/cluster_shards"

capture() {  # NAME HOST PORT
  python3 - "$out" "$1" "$2" "$3" <<'PY'
import socket, sys
out, name, host, port = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])

def read_reply(f):
    """The raw bytes of one whole reply (RESP2 or RESP3)."""
    line = f.readline()
    if not line.endswith(b"\r\n"):
        raise SystemExit("capture: connection closed mid-reply")
    kind, rest = line[:1], line[1:-2]
    raw = line
    if kind in b"$=!":
        n = int(rest)
        if n >= 0:
            raw += f.read(n + 2)
    elif kind in b"*~>%|":
        n = int(rest)
        for _ in range(max(n, 0) * (2 if kind in b"%|" else 1)):
            raw += read_reply(f)
        if kind == b"|":  # an attribute precedes the reply it annotates
            raw += read_reply(f)
    return raw

with socket.create_connection((host, port), timeout=5) as s:
    f = s.makefile("rb")
    for proto in (2, 3):
        if proto == 3:
            s.sendall(b"HELLO 3\r\n")
            read_reply(f)
        for cmd, target in ((b"CLUSTER SLOTS", "cluster_slots"), (b"CLUSTER SHARDS", "cluster_shards")):
            s.sendall(cmd + b"\r\n")
            reply = read_reply(f)
            if reply.startswith((b"-", b"!")):
                raise SystemExit(f"capture: {cmd.decode()} refused: {reply!r}")
            with open(f"{out}/{target}/{name}-resp{proto}.resp", "wb") as w:
                w.write(reply)
PY
}

"$src/scripts/redis-harness.sh" cluster "$work/redis" 8401 >/dev/null
capture redis7 127.0.1.1 8401
if command -v valkey-server >/dev/null; then
  REDIS_SERVER=valkey-server REDIS_CLI=valkey-cli \
    "$src/scripts/redis-harness.sh" cluster "$work/valkey" 8411 >/dev/null
  capture valkey8 127.0.1.1 8411
else
  echo "capture_seeds: valkey-server not found: Valkey seeds kept as they are" >&2
fi
ls -l "$out"/cluster_slots "$out"/cluster_shards
