#!/usr/bin/env python3
"""An 80-command mixed pipeline over all shards, three ways, against the same
cluster in one run:

  * cloudroute.Client.pipeline()   one round: grouped per node, all nodes at once,
  * the same 80 commands one by one through cloudroute.Client,
  * redis-py's ClusterPipeline (RedisCluster.pipeline()).

The 80 commands are 16 keys (covering all three shards) x GET, HGETALL,
ZRANGE, SMEMBERS and SET. Every client sends every command to the key's
master (ours with policy 'master', redis-py without read_from_replicas), so
only client cost differs. Prints the median (of --repeat rounds of --ops
pipelines) time per 80-command request and the ratios (> 1: ours is faster).

Without --env it starts its own two-cloud cluster with scripts/redis-harness.sh
on --port (default 8021; bus ports +10000) and stops it afterwards. Run it
with the installed wheel, e.g. after tests/python/run.sh:
    build/python/venv-test/bin/python bench/python/bench_pipeline.py
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Callable, Dict, List, Tuple

import cloudroute
from bench_client import on_cluster, per_call_us
from redis.cluster import RedisCluster

#: One request: (method name, args) for each of the 80 commands.
Request = List[Tuple[str, Tuple[Any, ...]]]


def request(keys: List[str]) -> Request:
    out: Request = []
    for k in keys:
        out += [("get", (k,)), ("hgetall", (f"{k}:h",)), ("zrange", (f"{k}:z", 0, -1)),
                ("smembers", (f"{k}:s",)), ("set", (f"{k}:w", "w" * 16))]
    return out


def queued(pipe: Any, req: Request) -> Callable[[], List[Any]]:
    def run() -> List[Any]:
        for name, args in req:
            getattr(pipe, name)(*args)
        result: List[Any] = pipe.execute()
        return result
    return run


def one_by_one(client: cloudroute.Client, req: Request) -> Callable[[], List[Any]]:
    calls = []
    for name, args in req:
        if name == "set":
            calls.append(lambda a=args: client.set(*a))
        elif name == "get":
            calls.append(lambda a=args: client.get(*a))
        elif name == "hgetall":
            calls.append(lambda a=args: client.hgetall(*a))
        else:  # ZRANGE / SMEMBERS: any read
            calls.append(lambda n=name, a=args: client.execute_command(n.upper(), *a, read=True))
    return lambda: [c() for c in calls]


def run(env: Dict[str, str], args: argparse.Namespace) -> None:
    seeds = env["SEEDS"]
    host, port = seeds.split(",")[0].split(":")
    cfg = cloudroute.Config(local_cidrs=[env.get("CLOUD_A_CIDR", "127.0.1.0/24")], policy="master")
    ours = cloudroute.Client(seeds, cfg)
    theirs = RedisCluster(host=host, port=int(port))

    keys = [f"bench:pipe:{i}" for i in range(16)]
    assert len({ours.router.route_write(k).shard for k in keys}) == 3, "keys must cover every shard"
    setup = ours.pipeline()
    for k in keys:
        setup.set(k, "v" * 32).hset(f"{k}:h", mapping={f"f{j}": j for j in range(8)})
        setup.zadd(f"{k}:z", {f"m{j}": j for j in range(10)}).sadd(f"{k}:s", *range(6))
    setup.execute()
    req = request(keys)

    ours_pipe = ours.pipeline()
    their_pipe = theirs.pipeline()
    fns = {"pipeline": queued(ours_pipe, req), "one_by_one": one_by_one(ours, req),
           "redis_py": queued(their_pipe, req)}
    a, b = fns["pipeline"](), fns["redis_py"]()
    assert [sorted(x) if isinstance(x, set) else x for x in a] == \
        [sorted(x) if isinstance(x, set) else x for x in b], "both pipelines must agree"
    per_call_us(fns, 20, 1)  # warm up connections
    t = per_call_us(fns, args.ops, args.repeat)

    print(f"cloudroute {cloudroute.__version__}, redis-py {__import__('redis').__version__}, "
          f"python {sys.version.split()[0]}; 80 commands over 3 shards; median of {args.repeat} rounds "
          f"of {args.ops} requests")
    rows = [("cloudroute.Client.pipeline().execute()", t["pipeline"]),
            ("the same 80 commands one by one (cloudroute.Client)", t["one_by_one"]),
            ("redis-py RedisCluster.pipeline().execute()", t["redis_py"])]
    for name, us in rows:
        print(f"  {name:<55} {us / 1000:8.3f} ms/request")
    print(f"ratio one-by-one / pipeline          = {t['one_by_one'] / t['pipeline']:.2f}")
    print(f"ratio redis-py ClusterPipeline / ours = {t['redis_py'] / t['pipeline']:.2f}")

    ours.delete(*keys, *[f"{k}:{s}" for k in keys for s in "hzsw"])
    ours.close()
    theirs.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ops", type=int, default=100, help="requests per round (default 100)")
    ap.add_argument("--repeat", type=int, default=7, help="rounds per measurement; the median is kept")
    ap.add_argument("--port", type=int, default=8021, help="harness base port (default 8021)")
    ap.add_argument("--env", help="cluster.env of a running harness cluster (else one is started)")
    on_cluster(run, ap.parse_args())
    return 0


if __name__ == "__main__":
    sys.exit(main())
