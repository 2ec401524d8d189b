"""The redis-py adapters' pipelines when a local replica dies: a two-cloud
cluster of its own (ports 8581-8589, scripts/redis-harness.sh cluster
--noncontiguous), a loop of pipelines mixing reads of one shard with a write,
and SIGKILL of the replica serving the reads between two pipelines. No read
may fail: the pipeline reports the failed node to the Router and its reads
go to the slot's next candidate; every read after the kill is served by the
shard's other nodes, and the Router marks the dead node down long before
redis-py's slot table drops it.

Sync (cloudroute.redis_py) kills NODE6 (shard 2's replica in cloud A, read
first under policy 'local' since shard 2's master is in cloud B); asyncio
(cloudroute.redis_asyncio) kills NODE2 (shard 1's replica in cloud A, read
first under 'local-replicas-first'), so the two share one cluster.
"""

from __future__ import annotations

import asyncio
import os
import signal
from typing import Any, Dict, Iterator, List

import pytest
from conftest import harness, live
from test_adapter_faults import get_calls, reset, seed, shard_keys

import cloudroute

pytestmark = live

pytest.importorskip("redis")

from cloudroute import redis_asyncio, redis_py  # noqa: E402

PIPELINES = 60
PER_PIPELINE = 8
KILL_AT = 15  # pipelines before the kill


@pytest.fixture(scope="module")
def faulty(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Dict[str, str]]:
    with harness("cluster", tmp_path_factory, 8581, "--noncontiguous") as env:
        yield env


def batch_of(keys: List[str], p: int) -> List[str]:
    return keys[p * PER_PIPELINE:(p + 1) * PER_PIPELINE]


def queue(pipe: Any, batch: List[str], p: int) -> None:
    """PER_PIPELINE reads and a write to the same shard's master."""
    for k in batch:
        pipe.get(k)
    pipe.set(f"pipe-fault:{{{batch[0]}}}", p)


def check(env: Dict[str, str], victim: int, others: List[str], stats: Dict[str, int],
          router: cloudroute.Router, slot: int) -> None:
    # Every read after the kill was answered by the shard's other nodes, once.
    calls = get_calls(others)
    assert sum(calls.values()) == (PIPELINES - KILL_AT) * PER_PIPELINE, calls
    assert stats["failures"] >= 1, stats
    # The dead node is marked down (or already gone from redis-py's table).
    addr = env[f"NODE{victim}_ADDR"]
    assert addr not in [f"{c.host}:{c.port}" for c in router.slot_candidates(slot) if not c.down]
    routed = router.route_read_slot(slot)
    assert f"{routed.host}:{routed.port}" != addr


def kill(env: Dict[str, str], victim: int, others: List[str]) -> None:
    """Checks that every read so far went to the victim, then SIGKILLs it."""
    addr = env[f"NODE{victim}_ADDR"]
    assert get_calls([addr])[addr] == KILL_AT * PER_PIPELINE
    reset(others)
    os.kill(int(env[f"NODE{victim}_PID"]), signal.SIGKILL)


def shard_others(env: Dict[str, str], shard: int, victim: int) -> List[str]:
    addr = env[f"NODE{victim}_ADDR"]
    return [env[f"SHARD{shard}_MASTER"]] + [a for a in env[f"SHARD{shard}_REPLICAS"].split(",") if a != addr]


def test_sync_pipeline_killed_local_replica_costs_no_failed_read(faulty: Dict[str, str]) -> None:
    env = faulty
    keys = shard_keys(env, 2, PIPELINES * PER_PIPELINE)
    seed(env, 2, keys)
    host, port = env["SEEDS"].split(",")[0].split(":")
    rc = redis_py.CloudRouteCluster(host=host, port=int(port), socket_timeout=2,
                                    config=cloudroute.Config(local_cidrs=[env["CLOUD_A_CIDR"]]))
    try:
        slot = cloudroute.keyslot(keys[0])
        first = rc.cloudroute_router.route_read_slot(slot)
        assert f"{first.host}:{first.port}" == env["NODE6_ADDR"]  # the local replica
        others = shard_others(env, 2, 6)
        reset(others + [env["NODE6_ADDR"]])
        for p in range(PIPELINES):
            if p == KILL_AT:
                kill(env, 6, others)
            batch = batch_of(keys, p)
            pipe = rc.pipeline()
            queue(pipe, batch, p)
            assert pipe.execute() == [k.encode() for k in batch] + [True], p
        check(env, 6, others, rc.cloudroute_stats(), rc.cloudroute_router, slot)
    finally:
        rc.close()


def test_asyncio_pipeline_killed_local_replica_costs_no_failed_read(faulty: Dict[str, str]) -> None:
    env = faulty
    keys = shard_keys(env, 1, PIPELINES * PER_PIPELINE)
    seed(env, 1, keys)
    host, port = env["SEEDS"].split(",")[0].split(":")
    others = shard_others(env, 1, 2)

    async def run() -> None:
        cfg = cloudroute.Config(local_cidrs=[env["CLOUD_A_CIDR"]], policy="local-replicas-first")
        rc = redis_asyncio.CloudRouteCluster(host=host, port=int(port), socket_timeout=2, config=cfg)
        try:
            await rc.initialize()
            slot = cloudroute.keyslot(keys[0])
            first = rc.cloudroute_router.route_read_slot(slot)
            assert f"{first.host}:{first.port}" == env["NODE2_ADDR"]  # the local replica
            reset(others + [env["NODE2_ADDR"]])
            for p in range(PIPELINES):
                if p == KILL_AT:
                    kill(env, 2, others)
                batch = batch_of(keys, p)
                pipe = rc.pipeline()
                queue(pipe, batch, p)
                assert await pipe.execute() == [k.encode() for k in batch] + [True], p
            check(env, 2, others, rc.cloudroute_stats(), rc.cloudroute_router, slot)
        finally:
            await rc.aclose()

    asyncio.run(run())
