"""An asyncio pipeline whose nodes are all down fails no slower through the
adapter (cloudroute.redis_asyncio) than through redis.asyncio's own
RedisCluster, run one after the other on the same cluster; both must fail (a
redis-py error, no hang). Two ways down:

- every read fails with ConnectionError while the topology still answers
  (the nodes' replies to GET replaced, as redis-py's own suite does in
  test_connection_error_raised, and the connection closed, as a real failed
  read leaves it: without that, a pipeline's other GET replies stayed unread
  on the socket, and once plain redis.asyncio's topology refresh got a reply
  that was not its own, a list holding an integer, and failed with
  TypeError), on the session cluster: redis.asyncio's
  pipeline retries, re-reading the topology and backing off; the adapter
  used to re-send each lost read through that same retry loop as well
  (36.9 s against 7.8 s). The GET replies each asked for are printed (the
  adapter's reads may try a replica before the master, so the counts are
  not one to one: 108 against 99 with redis-py 8.1, 45 against 36 with 7.4);
- every node SIGKILLed, on a cluster of its own (ports 8691-8699,
  scripts/redis-harness.sh cluster), both clients connected and warmed up.

Both bound the adapter's time by 1.5 times redis.asyncio's plus a margin:
a loaded machine stretches both runs, the old gap was five times.

And one shard's every node failing its reads costs the pipeline's other
shards nothing: their reads, still in flight while the lost reads are asked
again, keep their connections, answer from the node chosen for them, and no
healthy node is reported failed (a failed re-ask used to close every
connection of every node under them: redis-py 6.4 then raised AttributeError
from a connection cut mid-handshake, and the cut nodes were reported down).
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
from test_adapter_faults import seed, shard_keys

pytestmark = live

redis = pytest.importorskip("redis")
from redis.asyncio.cluster import ClusterNode, RedisCluster  # noqa: E402
from redis.exceptions import ConnectionError, RedisClusterException, RedisError  # noqa: E402

from cloudroute import redis_asyncio  # noqa: E402

MARGIN_S = 2.0  # scheduling noise on a busy 2-core machine; the old gap was ~29 s
FACTOR = 1.5  # the same: a loaded machine stretches both runs (7.2 s against 4.9 s seen)
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
    gets = [0]  # GET replies asked for, by the client that runs now

    async def parse_response(self: Any, connection: Any, command: str, **kwargs: Any) -> Any:
        if command == "GET":
            gets[0] += 1
            # A read that fails closes its connection, as a real one would: the
            # replies still on its socket are never read by a later command.
            await connection.disconnect()
            raise ConnectionError("every read fails (test)")
        return await original(self, connection, command, **kwargs)

    async def run() -> None:
        async with clients(env, keys) as (theirs, ours):
            with mock.patch.object(ClusterNode, "parse_response", autospec=True, side_effect=parse_response):
                redis_py_s = await failing(theirs, keys)
                redis_py_gets, gets[0] = gets[0], 0
                adapter_s = await failing(ours, keys)
                adapter_gets = gets[0]
            print(
                f"every read failing: redis.asyncio {redis_py_gets} GETs in {redis_py_s:.2f} s, "
                f"adapter {adapter_gets} GETs in {adapter_s:.2f} s"
            )
            assert adapter_gets > 0
            assert adapter_s <= redis_py_s * FACTOR + MARGIN_S, (adapter_s, redis_py_s)
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
            assert adapter_s <= redis_py_s * FACTOR + MARGIN_S, (adapter_s, redis_py_s)

    asyncio.run(run())


def test_asyncio_pipeline_one_shard_down_leaves_the_others_answering(cluster: Dict[str, str]) -> None:
    env = cluster
    down = {env["SHARD1_MASTER"], *env["SHARD1_REPLICAS"].split(",")}
    lost = shard_keys(env, 1, 3)
    kept = [k for n in (2, 3) for k in shard_keys(env, n, 3)]
    for n, ks in ((2, kept[:3]), (3, kept[3:])):
        seed(env, n, ks)
    original = ClusterNode.parse_response

    async def parse_response(self: Any, connection: Any, command: str, **kwargs: Any) -> Any:
        if command == "GET":
            if self.name in down:
                await connection.disconnect()  # as a real failed read leaves it
                raise ConnectionError("shard 1 fails every read (test)")
            # The other shards answer while shard 1's lost reads are asked again.
            await asyncio.sleep(0.3)
        return await original(self, connection, command, **kwargs)

    async def run() -> None:
        host, port = env["SEEDS"].split(",")[0].split(":")
        async with redis_asyncio.CloudRouteCluster(host=host, port=int(port), socket_timeout=2) as ours:
            with mock.patch.object(ClusterNode, "parse_response", autospec=True, side_effect=parse_response):
                pipe = ours.pipeline()
                for k in lost + kept:
                    pipe.get(k)
                result = await asyncio.wait_for(pipe.execute(raise_on_error=False), BOUND_S)
            assert all(isinstance(r, ConnectionError) for r in result[: len(lost)]), result
            assert result[len(lost) :] == [k.encode() for k in kept], result
            # Each of shard 1's nodes failed once; no healthy node was cut off and
            # reported down with it.
            assert ours.cloudroute_stats()["failures"] == len(down), ours.cloudroute_stats()

    asyncio.run(run())
