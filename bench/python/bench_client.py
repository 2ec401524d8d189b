#!/usr/bin/env python3
"""A routed GET through cloudroute.Client against redis-py's RedisCluster.get on
the same nodes, in one run; and MGET of 100 keys in any slots.

Prints the median (of --repeat rounds of --ops calls) cost per call of:
  * GET:   cloudroute.Client.get(key)  vs  redis.cluster.RedisCluster.get(key)
           vs  cloudroute.redis_py.CloudRouteCluster.get(key) (the adapter),
  * MGET:  Client.mget(100 keys)  vs  RedisCluster.mget_nonatomic(100 keys),
and the ratios (redis-py / ours: > 1 means ours is faster).

"Same nodes": the keys are those of shards whose master is in cloud A, and
every client is told cloud A is local with policy 'local' — each GET of each
client goes to the key's master (the adapter and our client choose it as
the nearest candidate, redis-py as the primary), so only client cost differs.

Without --seeds it starts its own two-cloud cluster with
scripts/redis-harness.sh on --port (default 7571) in a temporary directory
and stops it afterwards. Run it with the installed wheel, e.g. after
tests/python/run.sh:
    build/python/venv-test/bin/python bench/python/bench_client.py
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Callable, Dict, List

import cloudroute
from cloudroute.redis_py import CloudRouteCluster
from redis.cluster import RedisCluster

REPO = pathlib.Path(__file__).resolve().parents[2]
HARNESS = REPO / "scripts" / "redis-harness.sh"


def per_call_us(fns: Dict[str, Callable[[], object]], ops: int, repeat: int) -> Dict[str, float]:
    """Median cost per call of each fn; rounds are interleaved (fn1, fn2, ...,
    fn1, fn2, ...) so that drift on a shared machine hits every client alike."""
    times: Dict[str, List[float]] = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            for _ in range(ops):
                fn()
            times[name].append((time.perf_counter() - t0) / ops)
    return {name: statistics.median(t) * 1e6 for name, t in times.items()}


def cycle(fn: Callable[[str], object], keys: List[str]) -> Callable[[], object]:
    it = iter(range(1 << 62))
    n = len(keys)
    return lambda: fn(keys[next(it) % n])


def run(env: Dict[str, str], args: argparse.Namespace) -> None:
    seeds = env["SEEDS"]
    host, port = seeds.split(",")[0].split(":")
    cfg = cloudroute.Config(local_cidrs=[env.get("CLOUD_A_CIDR", "127.0.1.0/24")], policy="local")
    ours = cloudroute.Client(seeds, cfg)
    theirs = RedisCluster(host=host, port=int(port))
    adapter = CloudRouteCluster(host=host, port=int(port), config=cfg)

    a_masters = {env[f"SHARD{n}_MASTER"] for n in (1, 2, 3) if env.get(f"SHARD{n}_MASTER_CLOUD") == "A"}
    keys: List[str] = []
    i = 0
    router = ours.router
    while len(keys) < 200:
        k = f"bench:{i}"
        i += 1
        w = router.route_write(k)
        if f"{w.host}:{w.port}" in a_masters:
            keys.append(k)
    for k in keys:
        ours.set(k, "x" * 32)
    any_keys = [f"bench:mget:{i}" for i in range(100)]
    ours.mset({k: "y" * 32 for k in any_keys})

    # Every client's GET of these keys goes to the same node: the master.
    for k in keys[:20]:
        assert router.route_read(k).role == cloudroute.Role.MASTER

    gets = {"ours": cycle(ours.get, keys), "theirs": cycle(theirs.get, keys), "adapter": cycle(adapter.get, keys)}
    per_call_us(gets, 200, 1)  # warm up connections
    rows = []
    g = per_call_us(gets, args.ops, args.repeat)
    get_ours, get_theirs, get_adapter = g["ours"], g["theirs"], g["adapter"]
    mops = max(args.ops // 20, 50)
    m = per_call_us({"ours": lambda: ours.mget(any_keys), "theirs": lambda: theirs.mget_nonatomic(any_keys)},
                    mops, args.repeat)
    mget_ours, mget_theirs = m["ours"], m["theirs"]
    assert ours.mget(any_keys) == theirs.mget_nonatomic(any_keys)
    slots = len({cloudroute.keyslot(k) for k in any_keys})

    rows.append(("GET  cloudroute.Client.get", get_ours, None))
    rows.append(("GET  redis-py RedisCluster.get", get_theirs, get_theirs / get_ours))
    rows.append(("GET  cloudroute.redis_py.CloudRouteCluster.get", get_adapter, get_adapter / get_ours))
    rows.append((f"MGET 100 keys ({slots} slots) cloudroute.Client.mget", mget_ours, None))
    rows.append(("MGET 100 keys redis-py RedisCluster.mget_nonatomic", mget_theirs, mget_theirs / mget_ours))
    print(f"cloudroute {cloudroute.__version__}, redis-py {__import__('redis').__version__}, "
          f"python {sys.version.split()[0]}; median of {args.repeat} rounds")
    for name, us, ratio in rows:
        extra = f"   x{ratio:.2f} the cost of cloudroute.Client" if ratio is not None else ""
        print(f"  {name:<55} {us:9.1f} us/call{extra}")
    print(f"ratio GET  redis-py / cloudroute.Client = {get_theirs / get_ours:.2f}")
    print(f"ratio GET  CloudRouteCluster / redis-py  = {get_adapter / get_theirs:.2f} (adapter overhead)")
    print(f"ratio MGET redis-py / cloudroute.Client = {mget_theirs / mget_ours:.2f}")

    ours.delete(*keys, *any_keys)
    ours.close()
    theirs.close()
    adapter.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ops", type=int, default=2000, help="GET calls per round (default 2000)")
    ap.add_argument("--repeat", type=int, default=7, help="rounds per measurement; the median is kept")
    ap.add_argument("--port", type=int, default=7571, help="harness base port (default 7571)")
    ap.add_argument("--env", help="cluster.env of a running harness cluster (else one is started)")
    args = ap.parse_args()
    on_cluster(run, args)
    return 0


def on_cluster(fn: Callable[[Dict[str, str], argparse.Namespace], None], args: argparse.Namespace) -> None:
    """fn(env, args) on the cluster of args.env, or on a harness cluster started
    on args.port for the call and stopped afterwards."""
    if args.env:
        fn(parse_env(pathlib.Path(args.env)), args)
        return
    with tempfile.TemporaryDirectory(prefix="cr-bench-") as d:
        subprocess.run([str(HARNESS), "cluster", "--noncontiguous", d, str(args.port)], check=True,
                       stdout=subprocess.DEVNULL, timeout=180)
        try:
            fn(parse_env(pathlib.Path(d) / "cluster.env"), args)
        finally:
            subprocess.run([str(HARNESS), "stop", d], check=False, stdout=subprocess.DEVNULL, timeout=60)


def parse_env(path: pathlib.Path) -> Dict[str, str]:
    env = {}
    for line in path.read_text().splitlines():
        if "=" in line and not line.startswith("#"):
            k, v = line.split("=", 1)
            env[k] = v
    return env


if __name__ == "__main__":
    sys.exit(main())
