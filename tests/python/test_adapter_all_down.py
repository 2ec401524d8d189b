"""An asyncio pipeline whose nodes are all down fails no slower through the
adapter (cloudroute.redis_asyncio) than through redis.asyncio's own
RedisCluster, timed one after the other on the same cluster; both must fail
(a redis-py error, no hang), the adapter within redis.asyncio's time plus a
margin. Two ways down:

- every read fails with ConnectionError while the topology still answers
  (the nodes' replies to GET replaced, as redis-py's own suite does in
  test_connection_error_raised), on the session cluster: redis.asyncio's
  pipeline retries, re-reading the topology and backing off; the adapter
  used to re-send each lost read through that same retry loop as well
  (36.9 s against 7.8 s);
- every node SIGKILLed, on a cluster of its own (ports 8691-8699,
  scripts/redis-harness.sh cluster), both clients connected and warmed up.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from typing import Any, AsyncIterator, Dict, Iterator, List, Tuple
from unittest import mock

import pytest
from conftest import harness, live
from test_adapter_faults import shard_keys

pytestmark = live

redis = pytest.importorskip("redis")
from redis.asyncio.cluster import ClusterNode, RedisCluster  # noqa: E402
from redis.exceptions import ConnectionError, RedisClusterException, RedisError  # noqa: E402

from cloudroute import redis_asyncio  # noqa: E402

MARGIN_S = 2.0  # scheduling noise on a busy 2-core machine; the old gap was ~29 s
BOUND_S = 120.0  # neither client may take longer than this to give up


@pytest.fixture(scope="module")
def doomed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Dict[str, str]]:
    with harness("cluster", tmp_path_factory, 8691) as env:
        yield env


def shard_reads(env: Dict[str, str]) -> List[str]:
    return [k for n in (1, 2, 3) for k in shard_keys(env, n, 3)]


async def pipeline(rc: Any, keys: List[str]) -> List[Any]:
    pipe = rc.pipeline()
    for k in keys:
        pipe.get(k)
    result: List[Any] = await pipe.execute()
    return result


async def failing(rc: Any, keys: List[str]) -> float:
    """Seconds until a pipeline of keys' reads fails (bounded)."""
    start = time.monotonic()
    with pytest.raises((RedisError, RedisClusterException)):
        await asyncio.wait_for(pipeline(rc, keys), BOUND_S)
    return time.monotonic() - start


@contextlib.asynccontextmanager
async def clients(env: Dict[str, str], keys: List[str]) -> AsyncIterator[Tuple[Any, Any]]:
    """redis.asyncio's RedisCluster and the adapter on env's cluster, both
    initialized, keys written; closed on exit."""
    host, port = env["SEEDS"].split(",")[0].split(":")
    theirs = RedisCluster(host=host, port=int(port), socket_timeout=2)
    ours = redis_asyncio.CloudRouteCluster(host=host, port=int(port), socket_timeout=2)
    try:
        await theirs.initialize()
        await ours.initialize()
        for k in keys:
            await theirs.set(k, k)
        yield theirs, ours
    finally:
        await theirs.aclose()
        await ours.aclose()


def test_asyncio_pipeline_every_read_failing_fails_no_slower_than_redis_py(cluster: Dict[str, str]) -> None:
    env = cluster
    keys = shard_reads(env)
    original = ClusterNode.parse_response

    async def parse_response(self: Any, connection: Any, command: str, **kwargs: Any) -> Any:
        if command == "GET":
            raise ConnectionError("every read fails (test)")
        return await original(self, connection, command, **kwargs)

    async def run() -> None:
        async with clients(env, keys) as (theirs, ours):
            with mock.patch.object(ClusterNode, "parse_response", autospec=True, side_effect=parse_response):
                redis_py_s = await failing(theirs, keys)
                adapter_s = await failing(ours, keys)
            print(f"every read failing: redis.asyncio {redis_py_s:.2f} s, adapter {adapter_s:.2f} s")
            assert adapter_s <= redis_py_s + MARGIN_S, (adapter_s, redis_py_s)
            assert ours.cloudroute_stats()["failures"] >= 1

    asyncio.run(run())


def test_asyncio_pipeline_all_nodes_killed_fails_no_slower_than_redis_py(doomed: Dict[str, str]) -> None:
    env = doomed
    keys = shard_reads(env)

    async def run() -> None:
        async with clients(env, keys) as (theirs, ours):
            # Both have a connection to every node a read goes to.
            assert await pipeline(theirs, keys) == [k.encode() for k in keys]
            assert await pipeline(ours, keys) == [k.encode() for k in keys]
            for n in range(1, 10):
                os.kill(int(env[f"NODE{n}_PID"]), signal.SIGKILL)
            redis_py_s = await failing(theirs, keys)
            adapter_s = await failing(ours, keys)
            print(f"all nodes killed: redis.asyncio {redis_py_s:.2f} s, adapter {adapter_s:.2f} s")
            assert adapter_s <= redis_py_s + MARGIN_S, (adapter_s, redis_py_s)

    asyncio.run(run())
