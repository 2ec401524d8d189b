"""The redis-py adapters when a local replica dies: a two-cloud cluster of its
own (ports 8101-8109, scripts/redis-harness.sh cluster --noncontiguous), a
read loop, and SIGKILL of the replica serving it, mid-loop. No read may fail
(the adapter reports the failure to the Router and tries the slot's next
candidate at once), and every read after the kill is served by the shard's
other nodes, long before redis-py's slot table drops the dead node.

Sync (cloudroute.redis_py) kills shard 2's replica in cloud A (NODE6, read
first under policy 'local' since shard 2's master is in cloud B); asyncio
(cloudroute.redis_asyncio) kills shard 1's replica in cloud A (NODE2, read
first under 'local-replicas-first'), so the two share one cluster.
"""

from __future__ import annotations

import asyncio
import os
import signal
from typing import Dict, Iterator, List

import pytest
from conftest import harness, live, replicated

import cloudroute

pytestmark = live

redis = pytest.importorskip("redis")
from redis.cluster import RedisCluster  # noqa: E402

from cloudroute import redis_asyncio, redis_py  # noqa: E402

READS = 400
KILL_AT = 100


@pytest.fixture(scope="module")
def faulty(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Dict[str, str]]:
    with harness("cluster", tmp_path_factory, 8101, "--noncontiguous") as env:
        yield env


def shard_keys(env: Dict[str, str], shard: int, n: int) -> List[str]:
    """n keys whose slots the shard serves."""
    ranges = []
    for part in env[f"SHARD{shard}_SLOTS"].split(","):
        a, _, b = part.partition("-")
        ranges.append((int(a), int(b or a)))
    keys: List[str] = []
    i = 0
    while len(keys) < n:
        k = f"fault:{shard}:{i}"
        if any(a <= cloudroute.keyslot(k) <= b for a, b in ranges):
            keys.append(k)
        i += 1
    return keys


def seed(env: Dict[str, str], shard: int, keys: List[str]) -> None:
    """Writes keys (all in shard) and waits until both its replicas have them."""
    host, port = env["SEEDS"].split(",")[0].split(":")
    rc = RedisCluster(host=host, port=int(port), socket_timeout=10)
    try:
        for k in keys:
            rc.set(k, k)
        assert replicated(env[f"SHARD{shard}_MASTER"]) == 2
    finally:
        rc.close()


def get_calls(addrs: List[str]) -> Dict[str, int]:
    out = {}
    for a in addrs:
        host, port = a.split(":")
        with redis.Redis(host=host, port=int(port), socket_timeout=10) as r:
            out[a] = int(r.info("commandstats").get("cmdstat_get", {}).get("calls", 0))
    return out


def reset(addrs: List[str]) -> None:
    for a in addrs:
        host, port = a.split(":")
        with redis.Redis(host=host, port=int(port), socket_timeout=10) as r:
            r.config_resetstat()


def check_moved(env: Dict[str, str], victim: int, others: List[str], stats: Dict[str, int],
                router: cloudroute.Router, slot: int) -> None:
    calls = get_calls(others)
    # Every read after the kill was answered by the shard's other nodes.
    assert sum(calls.values()) == READS - KILL_AT, calls
    assert stats["failures"] >= 1 and stats["retried"] >= 1, stats
    assert stats["retried"] <= stats["failures"]
    # The dead node is marked down (or already gone from redis-py's table).
    live_cands = [f"{c.host}:{c.port}" for c in router.slot_candidates(slot) if not c.down]
    assert env[f"NODE{victim}_ADDR"] not in live_cands


def test_sync_adapter_killed_local_replica_costs_no_failed_read(faulty: Dict[str, str]) -> None:
    env = faulty
    keys = shard_keys(env, 2, READS)
    seed(env, 2, keys)
    host, port = env["SEEDS"].split(",")[0].split(":")
    rc = redis_py.CloudRouteCluster(host=host, port=int(port), socket_timeout=2,
                                    config=cloudroute.Config(local_cidrs=[env["CLOUD_A_CIDR"]]))
    try:
        slot = cloudroute.keyslot(keys[0])
        first = rc.cloudroute_router.route_read_slot(slot)
        assert f"{first.host}:{first.port}" == env["NODE6_ADDR"]  # the local replica
        others = [env["SHARD2_MASTER"]] + [a for a in env["SHARD2_REPLICAS"].split(",") if a != env["NODE6_ADDR"]]
        reset(others)
        for i, k in enumerate(keys):
            if i == KILL_AT:
                os.kill(int(env["NODE6_PID"]), signal.SIGKILL)
            assert rc.get(k) == k.encode(), (i, k)
        check_moved(env, 6, others, rc.cloudroute_stats(), rc.cloudroute_router, slot)
    finally:
        rc.close()


def test_asyncio_adapter_killed_local_replica_costs_no_failed_read(faulty: Dict[str, str]) -> None:
    env = faulty
    keys = shard_keys(env, 1, READS)
    seed(env, 1, keys)
    host, port = env["SEEDS"].split(",")[0].split(":")
    others = [env["SHARD1_MASTER"]] + [a for a in env["SHARD1_REPLICAS"].split(",") if a != env["NODE2_ADDR"]]

    async def run() -> None:
        cfg = cloudroute.Config(local_cidrs=[env["CLOUD_A_CIDR"]], policy="local-replicas-first")
        rc = redis_asyncio.CloudRouteCluster(host=host, port=int(port), socket_timeout=2, config=cfg)
        try:
            await rc.initialize()
            slot = cloudroute.keyslot(keys[0])
            first = rc.cloudroute_router.route_read_slot(slot)
            assert f"{first.host}:{first.port}" == env["NODE2_ADDR"]  # the local replica
            reset(others)
            for i, k in enumerate(keys):
                if i == KILL_AT:
                    os.kill(int(env["NODE2_PID"]), signal.SIGKILL)
                assert await rc.get(k) == k.encode(), (i, k)
            check_moved(env, 2, others, rc.cloudroute_stats(), rc.cloudroute_router, slot)
        finally:
            await rc.aclose()

    asyncio.run(run())
