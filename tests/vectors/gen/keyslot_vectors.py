#!/usr/bin/env python3
"""Regenerates tests/vectors/keyslot.json from a real redis-server.

The slots are facts answered by `CLUSTER KEYSLOT` of the server named by
--port (started with --cluster-enabled yes); this script only picks keys and
records what the server says. Keys are stored hex-encoded (they are binary).

    python3 tests/vectors/gen/keyslot_vectors.py --port 6390 > tests/vectors/keyslot.json
"""
import argparse
import json
import random
import socket


def command(sock, *args):
    out = b"*%d\r\n" % len(args)
    for a in args:
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    sock.sendall(out)
    buf = b""
    while not buf.endswith(b"\r\n"):
        buf += sock.recv(4096)
    if not buf.startswith(b":"):
        raise SystemExit("unexpected reply %r" % buf)
    return int(buf[1:-2])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, required=True)
    args = ap.parse_args()
    rng = random.Random(20261129)
    keys = [b"", b"foo", b"bar", b"123456789", b"user:123456", b"{user1000}.following",
            b"foo{}{bar}", b"foo{{bar}}zap", b"foo{bar}{zap}", b"{}", b"{a}", b"}{x}",
            b"a\x00b", b"x{\x00}y", b"\xff\xfe\xfd", "ключ".encode(), b"{" * 10, b"}" * 10,
            b"x" * 64, b"{tag}" + b"y" * 100]
    for _ in range(300):
        n = rng.randrange(0, 48)
        keys.append(bytes(rng.randrange(256) for _ in range(n)))
    for _ in range(100):
        body = bytes(rng.choice(b"ab{}c") for _ in range(rng.randrange(1, 12)))
        keys.append(body)
    with socket.create_connection((args.host, args.port)) as s:
        cases = [{"key_hex": k.hex(), "slot": command(s, b"CLUSTER", b"KEYSLOT", k)} for k in keys]
    print(json.dumps({"source": "CLUSTER KEYSLOT of redis-server 7.0", "cases": cases}, indent=1))


if __name__ == "__main__":
    main()
