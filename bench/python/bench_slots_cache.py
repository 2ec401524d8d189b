#!/usr/bin/env python3
"""What the redis-py adapters pay to turn redis-py's slot table into a
cloudroute Topology (cloudroute._cluster_reads.topology_from_slots_cache):
once per adapter and once per rebuild after redis-py re-reads the cluster.

A 3-shard table of 16384 slots, each slot holding its shard's node objects
(as redis-py's NodesManager does); prints the median of --repeat builds.
To compare two versions side by side, put each package first on PYTHONPATH.

Run it with the installed wheel, e.g. after tests/python/run.sh:
    build/python/venv-test/bin/python bench/python/bench_slots_cache.py
"""

from __future__ import annotations

import argparse
import statistics
import time

from cloudroute._cluster_reads import topology_from_slots_cache


class Node:
    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    shards = [[Node(f"127.0.{c}.{i}", 7000 + i) for c in (1, 2, 3)] for i in range(3)]
    cache = {slot: list(shards[slot * 3 // 16384]) for slot in range(16384)}
    times = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        topology_from_slots_cache(cache)
        times.append(time.perf_counter() - start)
    print(f"topology_from_slots_cache, 3 shards x 3 nodes: median {1000 * statistics.median(times):.2f} ms "
          f"of {args.repeat}")


if __name__ == "__main__":
    main()
