#!/usr/bin/env python3
"""Cross-checks the Jedis cases of tests/vectors/rings.json with JedisModel.java.

JedisModel.java rebuilds each ring on the JDK's TreeMap, String concatenation,
MessageDigest and java.util.regex (a third implementation beside the Python
generator and the C++ core). Needs a JDK 11+ (`java File.java`).

    python3 tests/vectors/gen/check_jedis_model.py
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    with open(os.path.join(HERE, "..", "rings.json")) as f:
        vectors = json.load(f)
    bad = checked = 0
    for case in vectors["rings"]:
        if case["algo"] != "jedis":
            continue
        spec = ",".join("%s=%d" % (s["name"] or "", s["weight"]) for s in case["shards"])
        keys = "".join((k["key_hex"] or "-") + "\n" for k in case["keys"])
        out = subprocess.run(
            ["java", os.path.join(HERE, "JedisModel.java"), case["hash"], case.get("naming", "jedis3"),
             "tags" if case["key_tags"] else "notags", spec],
            input=keys, capture_output=True, text=True, check=True).stdout.split()
        want = [str(k["shard"]) for k in case["keys"]]
        if out != want:
            bad += 1
            print("MISMATCH in %r" % case["name"], file=sys.stderr)
        checked += len(want)
    print("%d keys checked, %d cases differ" % (checked, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
