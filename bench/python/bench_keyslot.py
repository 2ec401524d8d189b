#!/usr/bin/env python3
"""cloudroute.keyslot against redis-py's key-slot function, in one run.

Prints the median (of --repeat runs) cost per key of:
  * a single call:  cloudroute.keyslot(key)  vs  redis.crc.key_slot(key)
    (bytes keys; and str keys, which redis-py must encode first, as
    RedisCluster.keyslot does),
  * a batch call:   cloudroute.keyslots(keys) (one crossing into C for all keys)
    vs  [key_slot(k) for k in keys],
  * for reference: Router.route_read(key) on a 3-shard topology,
and the ratios. With --check it exits 1 when a target is missed
(single call >= 3x faster than redis-py, batch <= 60 ns per key).

Run it with the installed wheel, e.g. after tests/python/run.sh:
    build/python/venv-test/bin/python bench/python/bench_keyslot.py
"""

from __future__ import annotations

import argparse
import pathlib
import random
import statistics
import sys
import time
from typing import Callable, List

import cloudroute
from redis.crc import key_slot

REPO = pathlib.Path(__file__).resolve().parents[2]


def per_key_ns(fn: Callable[[], object], n_keys: int, repeat: int, baseline: float = 0.0) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return max(statistics.median(times) - baseline, 1e-12) / n_keys * 1e9


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--keys", type=int, default=100_000, help="keys per run (default 100000)")
    ap.add_argument("--repeat", type=int, default=9, help="runs per measurement; the median is kept")
    ap.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = ap.parse_args()

    rng = random.Random(1)
    # Typical keys: 8-30 bytes, a tenth with a {hash tag}.
    texts: List[str] = []
    for i in range(args.keys):
        k = f"user:{rng.randrange(10**9)}:profile"[: rng.randrange(8, 31)]
        texts.append(f"{{user:{i % 1000}}}:cart" if i % 10 == 0 else k)
    keys = [t.encode() for t in texts]
    n = len(keys)
    assert cloudroute.keyslots(keys) == [key_slot(k) for k in keys]

    ks = cloudroute.keyslot
    ksb = cloudroute.keyslots

    def empty() -> None:
        for _ in keys:
            pass

    def cr_single() -> None:
        for k in keys:
            ks(k)

    def py_single() -> None:
        for k in keys:
            key_slot(k)

    def cr_single_str() -> None:
        for t in texts:
            ks(t)

    def py_single_str() -> None:
        for t in texts:
            key_slot(t.encode())

    loop = statistics.median(
        [(lambda t0: (empty(), time.perf_counter() - t0)[1])(time.perf_counter()) for _ in range(args.repeat)]
    )
    results = {
        "single bytes: cloudroute.keyslot": per_key_ns(cr_single, n, args.repeat, loop),
        "single bytes: redis.crc.key_slot": per_key_ns(py_single, n, args.repeat, loop),
        "single str:   cloudroute.keyslot": per_key_ns(cr_single_str, n, args.repeat, loop),
        "single str:   key_slot(s.encode())": per_key_ns(py_single_str, n, args.repeat, loop),
        "batch:        cloudroute.keyslots(keys)": per_key_ns(lambda: ksb(keys), n, args.repeat),
        "batch str:    cloudroute.keyslots(strs)": per_key_ns(lambda: ksb(texts), n, args.repeat),
        "batch:        [key_slot(k) for k in keys]": per_key_ns(lambda: [key_slot(k) for k in keys], n, args.repeat),
    }
    reply = (REPO / "examples" / "two-clouds.cluster-slots.resp").read_bytes()
    router = cloudroute.Router(cloudroute.Config(local_cidrs=["127.0.1.0/24"]), cloudroute.parse_cluster_slots(reply))
    rr = router.route_read

    def route() -> None:
        for k in keys:
            rr(k)

    results["reference:    Router.route_read(key)"] = per_key_ns(route, n, args.repeat, loop)

    print(f"cloudroute {cloudroute.__version__}, Python {sys.version.split()[0]}, {n} keys, median of {args.repeat}")
    for name, ns in results.items():
        print(f"  {name:<44} {ns:8.1f} ns/key")
    single_ratio = results["single bytes: redis.crc.key_slot"] / results["single bytes: cloudroute.keyslot"]
    str_ratio = results["single str:   key_slot(s.encode())"] / results["single str:   cloudroute.keyslot"]
    batch_ns = results["batch:        cloudroute.keyslots(keys)"]
    batch_ratio = results["batch:        [key_slot(k) for k in keys]"] / batch_ns
    print(f"  single call: {single_ratio:.2f}x faster than redis-py (bytes), {str_ratio:.2f}x (str)   target >= 3x")
    print(f"  batch call:  {batch_ns:.1f} ns/key, {batch_ratio:.2f}x faster than redis-py          target <= 60 ns/key")
    ok = single_ratio >= 3.0 and batch_ns <= 60.0
    print("  targets:", "met" if ok else "MISSED")
    return 0 if ok or not args.check else 1


if __name__ == "__main__":
    sys.exit(main())
