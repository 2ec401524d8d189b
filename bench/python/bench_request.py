#!/usr/bin/env python3
"""A 60-command read request (12 each of GET, HGETALL, ZRANGE, SMEMBERS,
EXISTS over keys in every shard) on a two-cloud cluster whose cloud B is a
real distance away, through:

  * cloudroute.redis_py.CloudRouteCluster (the adapter; cloud A local,
    policy 'local'): as one pipeline and command by command,
  * redis-py's RedisCluster with read_from_replicas=True (round robin over a
    shard's primary and replicas): pipeline and command by command,
  * RedisCluster with load_balancing_strategy=ROUND_ROBIN_REPLICAS and
    RANDOM_REPLICA (redis-py >= 5.1): pipeline,
  * RedisCluster with its defaults (primaries only): pipeline,

all in the same run on the same cluster, rounds interleaved; prints the median
milliseconds per request of each and the ratios (redis-py / adapter: > 1 means
the adapter is faster).

The distance: scripts/latency-proxy.py in front of every cloud-B node adds
--delay-ms (default 3) each way (this kernel has no tc netem; as
scripts/demo.sh), and every client dials cloud-B nodes through their proxies
(redis-py's address_remap), so a cloud-B round trip costs 2 x delay more.
The cluster is scripts/redis-harness.sh's (--noncontiguous) on --port (default
8141, proxies on 127.0.3.x with the same ports), started and stopped here.
Run it with the installed wheel, e.g. after tests/python/run.sh:

    flock /tmp/cr-servers.lock build/python/venv-test/bin/python bench/python/bench_request.py
"""

from __future__ import annotations

import argparse
import pathlib
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from typing import Any, Callable, Dict, List, Optional, Tuple

import redis
from redis.cluster import RedisCluster

import cloudroute
from bench_client import parse_env  # this directory
from cloudroute.redis_py import CloudRouteCluster

REPO = pathlib.Path(__file__).resolve().parents[2]
HARNESS = REPO / "scripts" / "redis-harness.sh"
PROXY = REPO / "scripts" / "latency-proxy.py"
KINDS = ("GET", "HGETALL", "ZRANGE", "SMEMBERS", "EXISTS")
PER_KIND = 12  # 5 x 12 = 60 commands


class Proxies:
    """One latency proxy per cloud-B node: 127.0.2.N:P -> listens on 127.0.3.N:P."""

    def __init__(self, env: Dict[str, str], delay_ms: float, logdir: pathlib.Path) -> None:
        self.remap: Dict[Tuple[str, int], Tuple[str, int]] = {}
        self.procs: List[subprocess.Popen[bytes]] = []
        for n in range(1, 10):
            addr = env[f"NODE{n}_ADDR"]
            host, port = addr.split(":")
            if not host.startswith("127.0.2."):
                continue
            listen = f"127.0.3.{host.rsplit('.', 1)[1]}:{port}"
            log = open(logdir / f"proxy-{port}.log", "wb")
            self.procs.append(subprocess.Popen(
                [sys.executable, str(PROXY), "--listen", listen, "--target", addr, "--delay-ms", str(delay_ms)],
                stdout=log, stderr=subprocess.STDOUT))
            self.remap[(host, int(port))] = (listen.split(":")[0], int(port))
            deadline = time.monotonic() + 10
            while b"ready" not in (logdir / f"proxy-{port}.log").read_bytes():
                if time.monotonic() > deadline:
                    raise RuntimeError(f"latency proxy for {addr} did not start")
                time.sleep(0.05)

    def address_remap(self, address: Tuple[str, int]) -> Tuple[str, int]:
        return self.remap.get((address[0], int(address[1])), address)

    def stop(self) -> None:
        for p in self.procs:
            p.send_signal(signal.SIGTERM)
        for p in self.procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()


def seed_request(rc: RedisCluster) -> List[Tuple[str, str]]:
    """The request's 60 (kind, key) pairs, their data written and replicated."""
    request = []
    for i in range(PER_KIND):
        request += [("GET", f"req:s:{i}"), ("HGETALL", f"req:h:{i}"), ("ZRANGE", f"req:z:{i}"),
                    ("SMEMBERS", f"req:m:{i}"), ("EXISTS", f"req:s:{i + PER_KIND}")]
        rc.set(f"req:s:{i}", "v" * 64)
        rc.set(f"req:s:{i + PER_KIND}", "e")
        rc.hset(f"req:h:{i}", mapping={"a": "1", "b": "2", "c": "3"})
        rc.zadd(f"req:z:{i}", {"x": 1, "y": 2, "z": 3})
        rc.sadd(f"req:m:{i}", "p", "q", "r")
    for node in rc.get_primaries():
        rc.execute_command("WAIT", 2, 5000, target_nodes=node)
    return request


def call(target: Any, kind: str, key: str) -> Any:
    if kind == "ZRANGE":
        return target.zrange(key, 0, -1)
    return getattr(target, kind.lower())(key)


def pipelined(rc: RedisCluster, request: List[Tuple[str, str]]) -> Callable[[], List[Any]]:
    def run() -> List[Any]:
        pipe = rc.pipeline()
        for kind, key in request:
            call(pipe, kind, key)
        return pipe.execute()

    return run


def one_by_one(rc: RedisCluster, request: List[Tuple[str, str]]) -> Callable[[], List[Any]]:
    return lambda: [call(rc, kind, key) for kind, key in request]


def medians_ms(fns: Dict[str, Callable[[], List[Any]]], requests: int, repeat: int) -> Dict[str, float]:
    """Median milliseconds per request of each fn; rounds interleaved so that drift
    on a shared machine hits every client alike."""
    times: Dict[str, List[float]] = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            for _ in range(requests):
                fn()
            times[name].append((time.perf_counter() - t0) / requests * 1e3)
    return {name: statistics.median(t) for name, t in times.items()}


def run(env: Dict[str, str], proxies: Proxies, args: argparse.Namespace) -> None:
    host, port = env["SEEDS"].split(",")[0].split(":")
    common: Dict[str, Any] = {"host": host, "port": int(port), "address_remap": proxies.address_remap}
    # Cloud A is local; proxied cloud-B nodes (127.0.3.x) are not.
    cfg = cloudroute.Config(local_cidrs=[env["CLOUD_A_CIDR"]], policy="local")
    # redis-py >= 5.3 deprecates read_from_replicas; it is measured all the same.
    warnings.filterwarnings("ignore", message=".*read_from_replicas", category=DeprecationWarning)
    clients: Dict[str, RedisCluster] = {
        "adapter": CloudRouteCluster(config=cfg, **common),
        "read_from_replicas": RedisCluster(read_from_replicas=True, **common),
        "primaries": RedisCluster(**common),
    }
    strategies: Dict[str, Optional[Any]] = {}
    try:
        from redis.cluster import LoadBalancingStrategy

        strategies = {"ROUND_ROBIN_REPLICAS": LoadBalancingStrategy.ROUND_ROBIN_REPLICAS,
                      "RANDOM_REPLICA": LoadBalancingStrategy.RANDOM_REPLICA}
    except ImportError:  # redis-py 5.0
        pass
    for name, strategy in strategies.items():
        clients[name] = RedisCluster(load_balancing_strategy=strategy, **common)
    try:
        request = seed_request(clients["primaries"])
        fns: Dict[str, Callable[[], List[Any]]] = {}
        for name, rc in clients.items():
            fns[f"pipeline: {name}"] = pipelined(rc, request)
        fns["one by one: adapter"] = one_by_one(clients["adapter"], request)
        fns["one by one: read_from_replicas"] = one_by_one(clients["read_from_replicas"], request)
        expected = fns["pipeline: primaries"]()
        for name, fn in fns.items():  # same answers everywhere (and warm connections)
            assert fn() == expected, name
        shards = len({cloudroute.keyslot(k) for _, k in request})
        ms = medians_ms(fns, args.requests, args.repeat)

        print(f"cloudroute {cloudroute.__version__}, redis-py {redis.__version__}, python {sys.version.split()[0]}")
        print(f"request: {len(request)} reads ({', '.join(KINDS)}) over {shards} slots; cloud B "
              f"{args.delay_ms} ms away each way; median of {args.repeat} rounds of {args.requests} requests")
        ours = {"pipeline": ms["pipeline: adapter"], "one by one": ms["one by one: adapter"]}
        for name, value in ms.items():
            mode, client = name.split(": ")
            ratio = "" if client == "adapter" else f"   x{value / ours[mode]:.2f} the adapter's"
            print(f"  {name:<42} {value:8.2f} ms/request{ratio}")
        for name, value in ms.items():
            mode, client = name.split(": ")
            if client != "adapter":
                print(f"ratio {client} / adapter ({mode}) = {value / ours[mode]:.2f}")
        st = clients["adapter"].cloudroute_stats()  # type: ignore[attr-defined]
        print(f"adapter: {st['routed']} reads placed by libcloudroute, {st['fallbacks']} left to redis-py")
    finally:
        for rc in clients.values():
            rc.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--requests", type=int, default=20, help="requests per round (default 20)")
    ap.add_argument("--repeat", type=int, default=5, help="rounds; the median is kept (default 5)")
    ap.add_argument("--delay-ms", type=float, default=3.0, help="cloud B's one-way delay (default 3)")
    ap.add_argument("--port", type=int, default=8141, help="harness base port (default 8141)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="cr-bench-request-") as d:
        work = pathlib.Path(d)
        subprocess.run([str(HARNESS), "cluster", "--noncontiguous", d, str(args.port)], check=True,
                       stdout=subprocess.DEVNULL, timeout=180)
        proxies: Optional[Proxies] = None
        try:
            proxies = Proxies(parse_env(work / "cluster.env"), args.delay_ms, work)
            run(parse_env(work / "cluster.env"), proxies, args)
        finally:
            if proxies is not None:
                proxies.stop()
            subprocess.run([str(HARNESS), "stop", d], check=False, stdout=subprocess.DEVNULL, timeout=60)
    return 0


if __name__ == "__main__":
    sys.exit(main())
