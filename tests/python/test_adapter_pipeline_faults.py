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
from typing import Any, Awaitable, Callable, Dict, Iterator, List, Tuple

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


def prepare(env: Dict[str, str], shard: int, victim: int) -> Tuple[List[str], str, int, List[str]]:
    """The shard's keys (written and replicated), the seed host and port, and the
    shard's nodes but the victim."""
    keys = shard_keys(env, shard, PIPELINES * PER_PIPELINE)
    seed(env, shard, keys)
    host, port = env["SEEDS"].split(",")[0].split(":")
    addr = env[f"NODE{victim}_ADDR"]
    others = [env[f"SHARD{shard}_MASTER"]] + [a for a in env[f"SHARD{shard}_REPLICAS"].split(",") if a != addr]
    return keys, host, int(port), others


def start(env: Dict[str, str], router: cloudroute.Router, key: str, victim: int, others: List[str]) -> int:
    """Checks that the victim serves the key's reads first, resets the counters;
    returns the key's slot."""
    slot = cloudroute.keyslot(key)
    first = router.route_read_slot(slot)
    assert f"{first.host}:{first.port}" == env[f"NODE{victim}_ADDR"]  # the local replica
    reset(others + [env[f"NODE{victim}_ADDR"]])
    return slot


async def drive(env: Dict[str, str], keys: List[str], victim: int, others: List[str],
                execute: Callable[[List[str], int], Awaitable[List[Any]]]) -> None:
    """PIPELINES pipelines (execute(batch, p) runs one), the victim killed before
    pipeline KILL_AT; every result must be the keys' values and the write's True."""
    for p in range(PIPELINES):
        if p == KILL_AT:
            kill(env, victim, others)
        batch = batch_of(keys, p)
        assert await execute(batch, p) == [k.encode() for k in batch] + [True], p


def test_sync_pipeline_killed_local_replica_costs_no_failed_read(faulty: Dict[str, str]) -> None:
    env = faulty
    keys, host, port, others = prepare(env, 2, 6)
    rc = redis_py.CloudRouteCluster(host=host, port=port, socket_timeout=2,
                                    config=cloudroute.Config(local_cidrs=[env["CLOUD_A_CIDR"]]))

    async def execute(batch: List[str], p: int) -> List[Any]:
        pipe = rc.pipeline()
        queue(pipe, batch, p)
        return pipe.execute()

    try:
        slot = start(env, rc.cloudroute_router, keys[0], 6, others)
        asyncio.run(drive(env, keys, 6, others, execute))
        check(env, 6, others, rc.cloudroute_stats(), rc.cloudroute_router, slot)
    finally:
        rc.close()


def test_asyncio_pipeline_killed_local_replica_costs_no_failed_read(faulty: Dict[str, str]) -> None:
    env = faulty
    keys, host, port, others = prepare(env, 1, 2)

    async def run() -> None:
        cfg = cloudroute.Config(local_cidrs=[env["CLOUD_A_CIDR"]], policy="local-replicas-first")
        rc = redis_asyncio.CloudRouteCluster(host=host, port=port, socket_timeout=2, config=cfg)

        async def execute(batch: List[str], p: int) -> List[Any]:
            pipe = rc.pipeline()
            queue(pipe, batch, p)
            return await pipe.execute()

        try:
            await rc.initialize()
            slot = start(env, rc.cloudroute_router, keys[0], 2, others)
            await drive(env, keys, 2, others, execute)
            check(env, 2, others, rc.cloudroute_stats(), rc.cloudroute_router, slot)
        finally:
            await rc.aclose()

    asyncio.run(run())
