#!/usr/bin/env python3
"""Regenerates tests/vectors/routing.json with the cloudroute CLI.

Each case names a saved reply (path from the repository root), a locality
configuration and a policy; each key records slot, write node and read
candidates in order. The expectations were reviewed by hand against the
rules in ARCHITECTURE.md (tier order, then the policy's master/replica order,
ties by address) when they were first generated; regenerate only when a rule
changes on purpose, and review the diff.

    python3 tests/vectors/gen/routing_vectors.py build/default/tools/cloudroute > tests/vectors/routing.json
"""
import json
import subprocess
import sys

ROOT = __file__.rsplit("/tests/", 1)[0]
KEYS = ["user:1", "user:2", "{user:1}:cart", "order:77", "a", "b", "c", "session:9f3c", "", "foo{}{bar}"]
CASES = [
    ("two clouds, local", "examples/two-clouds.cluster-slots.resp", "cluster-slots",
     {"client_location": "aws/us-east-1/a", "local_cidrs": ["127.0.1.0/24"],
      "location_rules": [["127.0.2.0/24", "gcp/us-central1"]], "policy": "local"}),
    ("two clouds, local-replicas-first", "examples/two-clouds.cluster-slots.resp", "cluster-slots",
     {"local_cidrs": ["127.0.1.0/24"], "policy": "local-replicas-first"}),
    ("two clouds, seen from cloud B", "examples/two-clouds.cluster-slots.resp", "cluster-slots",
     {"client_location": "gcp/us-central1/b", "location_rules": [["127.0.1.0/24", "aws/us-east-1"],
      ["127.0.2.0/24", "gcp/us-central1/b"]], "policy": "local-replicas-first"}),
    ("two clouds, prefer-replica", "examples/two-clouds.cluster-slots.resp", "cluster-slots",
     {"local_cidrs": ["127.0.2.0/24"], "policy": "prefer-replica"}),
    ("two clouds, master", "examples/two-clouds.cluster-slots.resp", "cluster-slots",
     {"local_cidrs": ["127.0.1.0/24"], "policy": "master"}),
]


def main():
    cli = sys.argv[1]
    out = {"about": "candidate order per key; read by the C, Python and JVM tests", "cases": []}
    for name, reply, kind, cfg in CASES:
        args = [cli, "route", "--json", "--" + kind, ROOT + "/" + reply, "--policy", cfg["policy"]]
        if "client_location" in cfg:
            args += ["--client-location", cfg["client_location"]]
        for c in cfg.get("local_cidrs", []):
            args += ["--local-cidr", c]
        for c, loc in cfg.get("location_rules", []):
            args += ["--location-rule", c + "=" + loc]
        lines = subprocess.run(args + ["--"] + KEYS, check=True, capture_output=True, text=True).stdout
        keys = [json.loads(line) for line in lines.splitlines()]
        out["cases"].append({"name": name, "reply_file": reply, "reply_kind": kind, "config": cfg, "keys": keys})
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
