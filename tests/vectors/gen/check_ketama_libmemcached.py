#!/usr/bin/env python3
"""Cross-checks the ketama cases of tests/vectors/rings.json with libmemcached.

Builds ketama_libmemcached.c against the system libmemcached (Debian:
libmemcached-dev) and compares its placement of every key. Cases with key
tags pass the Jedis tag of each key (libmemcached has no tags of its own).

    python3 tests/vectors/gen/check_ketama_libmemcached.py
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ring_vectors  # noqa: E402  (key_tag)


def main():
    with open(os.path.join(HERE, "..", "rings.json")) as f:
        vectors = json.load(f)
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "ketama_libmemcached")
        subprocess.run(["cc", "-O1", "-o", exe, os.path.join(HERE, "ketama_libmemcached.c"), "-lmemcached"],
                       check=True)
        bad = checked = 0
        for case in vectors["rings"]:
            if case["algo"] != "ketama":
                continue
            spec = ",".join("%s=%d" % (s["name"], s["weight"]) for s in case["shards"])
            keys = []
            for k in case["keys"]:
                key = bytes.fromhex(k["key_hex"])
                if case["key_tags"]:
                    key = ring_vectors.key_tag(key)
                keys.append(key.hex() or "-")
            out = subprocess.run([exe, spec], input="\n".join(keys) + "\n", capture_output=True, text=True,
                                 check=True).stdout.split()
            want = [str(k["shard"]) for k in case["keys"]]
            if out != want:
                bad += 1
                print("MISMATCH in %r: %s" % (case["name"], [(w, o) for w, o in zip(want, out) if w != o][:5]),
                      file=sys.stderr)
            checked += len(want)
    print("%d keys checked against libmemcached, %d cases differ" % (checked, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
