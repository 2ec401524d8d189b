"""cloudroute.redis_asyncio.CloudRouteCluster (redis.asyncio's RedisCluster with
reads placed by libcloudroute) against the two-cloud harness cluster — the
tests of test_redis_py.py, on the asyncio client: with the local CIDR
127.0.1.0/24 every read lands in cloud A, results are redis-py's own, writes
still go to the masters. (The killed-replica test is in test_adapter_faults.py.)
"""

from __future__ import annotations

import asyncio
from typing import Any, Awaitable, Callable, Dict

import pytest
from conftest import live

import cloudroute

pytestmark = live

redis = pytest.importorskip("redis")

from cloudroute.redis_asyncio import CloudRouteCluster  # noqa: E402
from test_redis_py import KEYS, calls, nodes, redis_wait, reset_stats, seeded  # noqa: E402,F401


def run(cluster: Dict[str, str], body: Callable[[CloudRouteCluster], Awaitable[None]], **kw: Any) -> None:
    async def main() -> None:
        host, port = nodes(cluster)[0].split(":")
        cfg = cloudroute.Config(local_cidrs=[cluster[kw.pop("cidr", "CLOUD_A_CIDR")]])
        async with CloudRouteCluster(host=host, port=int(port), config=cfg, **kw) as rc:
            await body(rc)

    asyncio.run(main())


@pytest.mark.usefixtures("seeded")
def test_reads_land_in_cloud_a(cluster: Dict[str, str]) -> None:
    async def body(rc: CloudRouteCluster) -> None:
        reset_stats(cluster)
        for k in KEYS:
            assert await rc.get(k) == k.encode()
        ours = calls(cluster, "get")
        assert sum(ours.values()) == len(KEYS)
        assert all(n == 0 for a, n in ours.items() if a.startswith("127.0.2.")), ours
        assert ours[cluster["NODE6_ADDR"]] > 0  # shard 2 (master in B): its replica in A
        st = rc.cloudroute_stats()
        assert (st["routed"], st["fallbacks"], st["failures"]) == (len(KEYS), 0, 0)
        reset_stats(cluster)
        await rc.set(cluster["SHARD2_KEY"], cluster["SHARD2_VALUE"])
        assert calls(cluster, "set")[cluster["SHARD2_MASTER"]] == 1  # writes: the master

    run(cluster, body)


@pytest.mark.usefixtures("seeded")
def test_concurrent_tasks_read_locally(cluster: Dict[str, str]) -> None:
    async def body(rc: CloudRouteCluster) -> None:
        reset_stats(cluster)
        for i in range(0, len(KEYS), 50):  # 50 tasks at once: under redis-py 8's 100 connections a node
            chunk = KEYS[i:i + 50]
            assert await asyncio.gather(*(rc.get(k) for k in chunk)) == [k.encode() for k in chunk]
        ours = calls(cluster, "get")
        assert all(n == 0 for a, n in ours.items() if a.startswith("127.0.2.")), ours

    run(cluster, body)


@pytest.mark.usefixtures("seeded")
def test_same_results_as_redis_py(cluster: Dict[str, str]) -> None:
    async def body(rc: CloudRouteCluster) -> None:
        reset_stats(cluster)
        await rc.hset("rpa:{h}", mapping={"a": "1", "b": "2"})
        await rc.rpush("rpa:{h}l", "x", "y")
        redis_wait(cluster)
        assert await rc.hgetall("rpa:{h}") == {b"a": b"1", b"b": b"2"}
        assert await rc.hget("rpa:{h}", "a") == b"1"
        assert await rc.lrange("rpa:{h}l", 0, -1) == [b"x", b"y"]
        assert await rc.exists("rp:1") == 1 and await rc.ttl("rp:1") == -1
        assert await rc.mget_nonatomic(KEYS[:50]) == [k.encode() for k in KEYS[:50]]
        pipe = rc.pipeline()
        for k in KEYS[:10]:
            pipe.get(k)
        assert await pipe.execute() == [k.encode() for k in KEYS[:10]]
        got = calls(cluster, "get")
        assert all(n == 0 for a, n in got.items() if a.startswith("127.0.2.")), got
        await rc.delete("rpa:{h}", "rpa:{h}l")

    run(cluster, body)


@pytest.mark.usefixtures("seeded")
def test_router_matches_redis_py_topology_and_cloud_b(cluster: Dict[str, str]) -> None:
    async def body(rc: CloudRouteCluster) -> None:
        router = rc.cloudroute_router
        for k in KEYS[:100]:
            primary = rc.get_node_from_key(k)
            w = router.route_write(k)
            assert (w.host, w.port) == (primary.host, primary.port)
        reset_stats(cluster)
        for k in KEYS[:100]:
            assert await rc.get(k) == k.encode()
        got = calls(cluster, "get")
        assert all(n == 0 for a, n in got.items() if a.startswith("127.0.1.")), got  # cloud B now

    run(cluster, body, cidr="CLOUD_B_CIDR")
