"""Read your own writes against the two-cloud harness cluster
(conftest.py's session fixture), in every Python surface: Client.pipeline(),
Client(read_your_writes_ms=...), and both redis-py adapters (their pipelines
and their read_your_writes_ms keyword).

The clients are in cloud A with 'local-replicas-first'; the keys are shard
2's, whose master n4 is in cloud B and whose replica n6 is local and read
first. n6 is made to lag on purpose: CLIENT PAUSE WRITE stops it applying its
master's stream while it still answers reads. So every read that reaches n6
is stale, and each test first shows that (a read-only pipeline, a client
without the option) before it shows the rule reading the new value.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Dict, Iterator, List

import pytest
from conftest import live

import cloudroute
from cloudroute import Client, Config

pytestmark = live

redis = pytest.importorskip("redis")

N = 50  # keys per test


def _node(addr: str) -> "redis.Redis":
    host, port = addr.split(":")
    return redis.Redis(host=host, port=int(port))


def config(cluster: Dict[str, str]) -> Config:
    return Config(local_cidrs=[cluster["CLOUD_A_CIDR"]], policy="local-replicas-first")


def shard2_keys(cluster: Dict[str, str], prefix: str) -> List[str]:
    with Client(cluster["SEEDS"], config(cluster)) as c:
        router = c.router
        keys = []
        i = 0
        while len(keys) < N:
            k = f"{prefix}{i}"
            i += 1
            w = router.route_write(k)
            if f"{w.host}:{w.port}" == cluster["SHARD2_MASTER"]:
                keys.append(k)
    return keys


@contextlib.contextmanager
def lagging_replica(cluster: Dict[str, str], keys: List[str]) -> Iterator[None]:
    """Every key holds 'old' on every node, then n6 (shard 2's replica in cloud A)
    stops applying its master's stream until the block ends; it then catches up."""
    master = _node(cluster["SHARD2_MASTER"])
    replica = _node(cluster["NODE6_ADDR"])
    try:
        for k in keys:
            master.set(k, "old")
        assert master.wait(2, 5000) == 2
        assert replica.client_pause(30000, all=False)
        try:
            yield
        finally:
            replica.client_unpause()
        master.set(keys[0], "settled")
        assert master.wait(2, 5000) == 2
    finally:
        master.close()
        replica.close()


def n6_gets(cluster: Dict[str, str]) -> int:
    with _node(cluster["NODE6_ADDR"]) as r:
        return int(r.info("commandstats").get("cmdstat_get", {}).get("calls", 0))


# ---- cloudroute.Client ------------------------------------------------------------


def test_client_pipeline_reads_its_own_writes(cluster: Dict[str, str]) -> None:
    keys = shard2_keys(cluster, "py:ryw:pipe:")
    with Client(cluster["SEEDS"], config(cluster)) as c, lagging_replica(cluster, keys):
        with c.pipeline() as p:
            for k in keys:
                p.set(k, "new")
            assert p.execute() == [True] * N
        # What the rule prevents: reads alone go to n6, which has not applied the SETs.
        with c.pipeline() as p:
            for k in keys:
                p.get(k)
            assert p.execute() == [b"old"] * N
        # A GET after its SET in the same pipeline reads the master.
        before = n6_gets(cluster)
        with c.pipeline() as p:
            for k in keys:
                p.set(k, f"v-{k}").get(k)
            got = p.execute()
        assert got[1::2] == [f"v-{k}".encode() for k in keys]
        assert n6_gets(cluster) == before


def test_client_read_your_writes_ms(cluster: Dict[str, str]) -> None:
    keys = shard2_keys(cluster, "py:ryw:window:")
    window_ms = 3000
    with Client(cluster["SEEDS"], config(cluster)) as off, \
            Client(cluster["SEEDS"], config(cluster), read_your_writes_ms=window_ms) as on, \
            lagging_replica(cluster, keys):
        stale = 0
        for k in keys:
            off.set(k, "off")
            stale += off.get(k) != b"off"
        assert stale > 0, "n6 did not lag: the assertions below would prove nothing"
        before = n6_gets(cluster)
        for k in keys:
            on.set(k, f"on-{k}")
            assert on.get(k) == f"on-{k}".encode()
        t_written = time.monotonic()
        assert on.mget(keys) == [f"on-{k}".encode() for k in keys]
        assert n6_gets(cluster) == before
        # After the window the replica serves again (still paused: stale, as policy allows).
        deadline = t_written + window_ms / 1000 + 5
        while on.get(keys[-1]) != b"old":
            assert time.monotonic() < deadline, "reads never returned to the replica"
            time.sleep(0.02)
        assert time.monotonic() - t_written >= window_ms / 1000 - 0.05


def test_client_rejects_a_bad_window(cluster: Dict[str, str]) -> None:
    with pytest.raises((OverflowError, TypeError, ValueError)):
        Client(cluster["SEEDS"], config(cluster), read_your_writes_ms=-1)


# ---- redis-py adapters -------------------------------------------------------------


def _adapter_kwargs(cluster: Dict[str, str]) -> Dict[str, object]:
    host, port = cluster["SEEDS"].split(",")[0].split(":")
    return {"host": host, "port": int(port), "config": config(cluster)}


def test_redis_py_pipeline_and_window(cluster: Dict[str, str]) -> None:
    from cloudroute.redis_py import CloudRouteCluster

    keys = shard2_keys(cluster, "py:ryw:rp:")
    rc = CloudRouteCluster(**_adapter_kwargs(cluster))  # type: ignore[arg-type]
    rw = CloudRouteCluster(read_your_writes_ms=3000, **_adapter_kwargs(cluster))  # type: ignore[arg-type]
    try:
        with lagging_replica(cluster, keys):
            rc.mset_nonatomic({k: "new" for k in keys})
            p = rc.pipeline()
            for k in keys:
                p.get(k)
            assert p.execute() == [b"old"] * N  # reads alone: the lagging local replica
            before = n6_gets(cluster)
            p = rc.pipeline()
            for k in keys:
                p.set(k, f"v-{k}")
                p.get(k)
            got = p.execute()
            assert got[1::2] == [f"v-{k}".encode() for k in keys]
            assert n6_gets(cluster) == before
            # Across calls: without the keyword a read after a write is stale ...
            stale = 0
            for k in keys:
                rc.set(k, "x")
                stale += rc.get(k) != b"x"
            assert stale > 0
            # ... with it, it reads the primary.
            for k in keys:
                rw.set(k, f"w-{k}")
                assert rw.get(k) == f"w-{k}".encode()
            assert n6_gets(cluster) == before + N
    finally:
        rc.close()
        rw.close()


def test_redis_py_rejects_a_bad_window(cluster: Dict[str, str]) -> None:
    from cloudroute.redis_py import CloudRouteCluster

    with pytest.raises(cloudroute.InvalidArgumentError):
        CloudRouteCluster(read_your_writes_ms="1s", **_adapter_kwargs(cluster))  # type: ignore[arg-type]


def test_redis_asyncio_pipeline_and_window(cluster: Dict[str, str]) -> None:
    from cloudroute.redis_asyncio import CloudRouteCluster

    keys = shard2_keys(cluster, "py:ryw:ra:")

    async def main() -> None:
        async with CloudRouteCluster(**_adapter_kwargs(cluster)) as rc, \
                CloudRouteCluster(read_your_writes_ms=3000, **_adapter_kwargs(cluster)) as rw:
            for k in keys:
                await rc.set(k, "new")
            p = rc.pipeline()
            for k in keys:
                p.get(k)
            assert await p.execute() == [b"old"] * N  # reads alone: the lagging local replica
            before = n6_gets(cluster)
            p = rc.pipeline()
            for k in keys:
                p.set(k, f"v-{k}")
                p.get(k)
            got = await p.execute()
            assert got[1::2] == [f"v-{k}".encode() for k in keys]
            assert n6_gets(cluster) == before
            stale = 0
            for k in keys:
                await rc.set(k, "x")
                stale += await rc.get(k) != b"x"
            assert stale > 0
            for k in keys:
                await rw.set(k, f"w-{k}")
                assert await rw.get(k) == f"w-{k}".encode()
            assert n6_gets(cluster) == before + N

    with lagging_replica(cluster, keys):
        asyncio.run(main())
