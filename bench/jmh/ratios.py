#!/usr/bin/env python3
"""Medians of a JMH JSON result (bench/jmh/run.sh ... -rf json -rff FILE) and the ratio of each
libcloudroute benchmark to its Jedis counterpart in the same run (KeyslotBench: jniString /
jedisString, jniBytes / jedisBytes, jniBatch100* / jedisBatch100, per key length).

The median of a benchmark is that of its measured iterations (every fork's), steadier than
JMH's mean on a shared machine; a ratio below 1 means libcloudroute is faster.

    python3 bench/jmh/ratios.py jmh.json
"""
import json
import statistics
import sys

# libcloudroute's benchmark -> Jedis's in the same class
PAIRS = {
    "jniString": "jedisString",
    "jniBytes": "jedisBytes",
    "jniBatch100": "jedisBatch100",
    "jniBatch100Bytes": "jedisBatch100",
    "jniBatch100Packed": "jedisBatch100",
}


def main(path: str) -> None:
    with open(path, encoding="utf-8") as f:
        runs = json.load(f)
    medians = {}
    for r in runs:
        name = r["benchmark"].rsplit(".", 1)[1]
        params = ",".join(f"{k}={v}" for k, v in sorted((r.get("params") or {}).items()))
        samples = [x for fork in r["primaryMetric"]["rawData"] for x in fork]
        medians[(name, params)] = (statistics.median(samples), r["primaryMetric"]["scoreUnit"])
    print(f"{'benchmark':<20} {'params':<12} {'median':>12} {'Jedis median':>14} {'ratio':>7}")
    for (name, params), (m, unit) in sorted(medians.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        if name not in PAIRS:
            continue
        j = medians.get((PAIRS[name], params))
        if j is None:
            continue
        print(f"{name:<20} {params:<12} {m:>9.1f} {unit:<2} {j[0]:>11.1f} {unit:<2} {m / j[0]:>6.2f}x")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
