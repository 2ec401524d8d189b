"""cloudroute.asyncio against a two-cloud cluster of its own (ports 8871-8879,
scripts/redis-harness.sh cluster --noncontiguous): 1 000 concurrent GETs with
no thread per call, coroutines cancelled mid-flight without a reply reaching
the wrong caller afterwards, a local replica SIGKILLed under asynchronous read
load (no read fails), the redis-py call shapes (set/get/mget/execute_command/
pipeline), a call's own timeout, and close() with calls in flight.
"""

from __future__ import annotations

import asyncio
import os
import signal
from typing import Any, Awaitable, Dict, Iterator, List, Tuple, TypeVar

import pytest
from conftest import harness, live

import cloudroute
import cloudroute.asyncio as cra

pytestmark = live

T = TypeVar("T")


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Dict[str, str]]:
    with harness("cluster", tmp_path_factory, 8871, "--noncontiguous") as e:
        yield e


def client(env: Dict[str, str], **options: object) -> cra.Client:
    cfg = cloudroute.Config(local_cidrs=[env["CLOUD_A_CIDR"]], policy="local-replicas-first")
    return cra.Client(env["SEEDS"], cfg, **options)


def threads() -> int:
    """The process's threads (native ones too)."""
    return len(os.listdir("/proc/self/task"))


async def peak_threads(work: "Awaitable[T]") -> "Tuple[T, int]":
    """work's result, and how many threads beyond those before it the process
    had at its peak while work ran (sampled every millisecond)."""
    before = threads()
    peak = before

    async def watch() -> None:
        nonlocal peak
        while True:
            peak = max(peak, threads())
            await asyncio.sleep(0.001)

    w = asyncio.ensure_future(watch())
    try:
        return await work, peak - before
    finally:
        w.cancel()


def shard_keys(env: Dict[str, str], shard: int, n: int, prefix: str) -> List[str]:
    ranges = []
    for part in env[f"SHARD{shard}_SLOTS"].split(","):
        a, _, b = part.partition("-")
        ranges.append((int(a), int(b or a)))
    keys: List[str] = []
    i = 0
    while len(keys) < n:
        k = f"{prefix}:{i}"
        if any(a <= cloudroute.keyslot(k) <= b for a, b in ranges):
            keys.append(k)
        i += 1
    return keys


def test_a_thousand_concurrent_gets_each_get_their_own_value(env: Dict[str, str]) -> None:
    async def run() -> None:
        async with client(env) as c:
            keys = [f"aio:{i}" for i in range(1000)]
            assert all(await asyncio.gather(*(c.set(k, f"v-{k}") for k in keys)))
            values, extra = await peak_threads(asyncio.gather(*(c.get(k) for k in keys)))
            assert values == [f"v-{k}".encode() for k in keys]
            # No thread per call: at most the library's few workers appear.
            assert extra <= 8, extra

    asyncio.run(run())


def test_cancelled_coroutines_leave_the_connections_in_step(env: Dict[str, str]) -> None:
    async def run() -> None:
        async with client(env, shared_connections=1) as c:
            keys = [f"aio:cancel:{i}" for i in range(400)]
            await asyncio.gather(*(c.set(k, k) for k in keys))
            for _ in range(5):
                tasks = [asyncio.ensure_future(c.get(k)) for k in keys]
                await asyncio.sleep(0)  # every request submitted, replies on their way
                for t in tasks[::2]:
                    t.cancel()
                done = await asyncio.gather(*tasks, return_exceptions=True)
                for i, (k, v) in enumerate(zip(keys, done)):
                    if i % 2 == 0:
                        assert isinstance(v, asyncio.CancelledError) or v == k.encode(), (k, v)
                    else:
                        assert v == k.encode(), (k, v)
                # The replies of the cancelled ones were dropped: each next
                # call still gets its own.
                assert await asyncio.gather(*(c.get(k) for k in keys)) == [k.encode() for k in keys]
            assert c.sync.stats().poisoned == 0

    asyncio.run(run())


def test_a_local_replica_killed_under_async_load_costs_no_read(env: Dict[str, str]) -> None:
    keys = shard_keys(env, 1, 300, "aio:kill")

    async def run() -> None:
        async with client(env) as c:
            await asyncio.gather(*(c.set(k, k) for k in keys))
            # The local replica has them before the rounds count (bounded).
            for _ in range(100):
                if await asyncio.gather(*(c.get(k) for k in keys)) == [k.encode() for k in keys]:
                    break
                await asyncio.sleep(0.05)
            first = c.sync.router.route_read_slot(cloudroute.keyslot(keys[0]))
            assert f"{first.host}:{first.port}" == env["NODE2_ADDR"]  # the local replica
            failed = 0
            for rnd in range(12):
                batch = asyncio.gather(*(c.get(k) for k in keys), return_exceptions=True)
                if rnd == 3:
                    await asyncio.sleep(0)
                    os.kill(int(env["NODE2_PID"]), signal.SIGKILL)
                for k, v in zip(keys, await batch):
                    if v != k.encode():
                        failed += 1
            assert failed == 0
            assert c.sync.stats().fallbacks > 0

    asyncio.run(run())


def test_call_shapes(env: Dict[str, str]) -> None:
    async def run() -> None:
        async with client(env) as c:
            assert await c.set("aio:s", "1") is True
            assert await c.set("aio:s", "2", nx=True) is None
            assert await c.set("aio:s", "3", get=True) == b"1"
            assert await c.get("aio:s") == b"3"
            assert await c.get("aio:missing") is None
            assert await c.execute_command("INCRBY", "aio:n", 5) == 5
            assert await c.execute_command("GET", "aio:n", read=True) == b"5"
            assert await c.mget(["aio:s", "aio:n", "aio:missing"]) == [b"3", b"5", None]
            assert await c.mset({"aio:m1": "a", "aio:m2": "b"}) is True
            p = c.pipeline()
            p.set("aio:p", "x").get("aio:p").incr("aio:n")
            assert len(p) == 3
            assert await p.execute() == [True, b"x", 6]
            assert await c.delete("aio:m1", "aio:m2") == 2
            with pytest.raises(cloudroute.ResponseError):
                await c.execute_command("INCR", "aio:p")  # "x" is no integer
            with pytest.raises(cloudroute.InvalidArgumentError):
                await c.execute_command("SUBSCRIBE", "aio:s")
            # A call's own timeout: BLPOP on an empty list waits past it.
            with pytest.raises(cloudroute.TimeoutError):
                await c.execute_command("BLPOP", "aio:empty", 0, timeout=0.2)
            assert await c.get("aio:p") == b"x"

    asyncio.run(run())


def test_close_with_calls_in_flight_cancels_each_once(env: Dict[str, str]) -> None:
    async def run() -> None:
        c = await client(env).connect()
        futs = [asyncio.ensure_future(c.execute_command("BLPOP", f"aio:never:{i}", 0, timeout=30)) for i in range(20)]
        await asyncio.sleep(0.2)  # submitted and waiting on the servers
        c.close()
        results = await asyncio.gather(*futs, return_exceptions=True)
        for r in results:
            assert isinstance(r, cloudroute.ConnectionError), r
            assert "cancelled" in str(r)
        assert c.closed
        with pytest.raises(cloudroute.InvalidArgumentError):
            await c.get("aio:s")

    asyncio.run(run())


def test_concurrent_mgets_and_pipelines_each_get_their_own_replies_without_a_thread_per_call(
    env: Dict[str, str],
) -> None:
    async def run() -> None:
        async with client(env) as c:
            keys = [f"aio:fan:{i}" for i in range(600)]
            assert await c.mset({k: f"v-{k}" for k in keys}) is True
            # Call i asks 30 keys of every shard, a window of its own.
            asks = [[keys[(i * 7 + j * 19) % len(keys)] for j in range(30)] for i in range(400)]

            async def pipe(i: int) -> List[Any]:
                p = c.pipeline()
                for j in range(10):
                    p.set(f"aio:fan:p{i}:{j}", f"p{i}-{j}").get(f"aio:fan:p{i}:{j}")
                return await p.execute()

            # Every MGET and pipeline in flight at once.
            mgets = asyncio.gather(*(c.mget(a) for a in asks))
            pipes = asyncio.gather(*(pipe(i) for i in range(100)))
            (got, piped), extra = await peak_threads(asyncio.gather(mgets, pipes))
            for a, values in zip(asks, got):
                assert values == [f"v-{k}".encode() for k in a]
            for i, results in enumerate(piped):
                assert results == [r for j in range(10) for r in (True, f"p{i}-{j}".encode())]
            assert await c.exists(*keys[:50], keys[0], "aio:fan:missing") == 51
            assert await c.delete(*keys[:20]) == 20
            assert await c.mget(keys[:2]) == [None, None]
            # No thread per call: at most the library's few workers appear.
            assert extra <= 8, extra

    asyncio.run(run())


def test_cancelled_fan_outs_leave_the_connections_in_step(env: Dict[str, str]) -> None:
    async def run() -> None:
        async with client(env, shared_connections=1) as c:
            keys = [f"aio:fancancel:{i}" for i in range(300)]
            await c.mset({k: k for k in keys})
            asks = [keys[i : i + 40] for i in range(0, 260, 13)]

            async def pipe(a: List[str]) -> List[Any]:
                p = c.pipeline()
                for k in a:
                    p.get(k)
                return await p.execute()

            for _ in range(5):
                tasks = [asyncio.ensure_future(c.mget(a)) for a in asks]
                tasks += [asyncio.ensure_future(pipe(a)) for a in asks]
                await asyncio.sleep(0)  # every fan-out submitted, replies on their way
                for t in tasks[::2]:
                    t.cancel()
                done = await asyncio.gather(*tasks, return_exceptions=True)
                for i, v in enumerate(done):
                    want = [k.encode() for k in asks[i % len(asks)]]
                    if i % 2 == 0:
                        assert isinstance(v, asyncio.CancelledError) or v == want, v
                    else:
                        assert v == want, v
                # The cancelled ones' replies were dropped: each next call
                # still gets its own.
                assert await asyncio.gather(*(c.mget(a) for a in asks)) == [[k.encode() for k in a] for a in asks]
            assert c.sync.stats().poisoned == 0

    asyncio.run(run())


@pytest.fixture(scope="module")
def sentinel_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Dict[str, str]]:
    # A Sentinel setup of its own: data nodes 9020-9025, sentinels 9030-9032.
    with harness("sentinel", tmp_path_factory, 9020) as e:
        yield e


def sentinel_client(env: Dict[str, str]) -> cra.SentinelClient:
    """The asyncio Sentinel client of the module's setup (cloud A local)."""
    names = env["SENTINEL_MASTER_NAMES"].split(",")
    return cra.SentinelClient(
        env["SENTINELS"],
        names,
        cloudroute.Ring.jedis(names),
        cloudroute.Config(local_cidrs=[env["CLOUD_A_CIDR"]]),
        command_timeout_ms=3000,
    )


def test_sentinel_client_calls_each_get_their_own_reply_without_a_thread_per_call(
    sentinel_env: Dict[str, str],
) -> None:
    async def run() -> None:
        c = sentinel_client(sentinel_env)
        async with c:
            keys = [f"aio:sc:{i}" for i in range(300)]
            sets, extra = await peak_threads(asyncio.gather(*(c.set(k, f"v-{k}") for k in keys)))
            assert sets == [True] * len(keys)
            # The masters' answers (a replica may lag the writes just made).
            got = await asyncio.gather(*(c.execute_command("GET", k) for k in keys))
            assert got == [f"v-{k}".encode() for k in keys]
            assert extra <= 8, extra
            assert await c.incr("aio:sc:n", 3) == 3
            with pytest.raises(cloudroute.ResponseError):
                await c.execute_command("INCR", keys[0])  # no integer
            # Closed with calls in flight: each completes once, cancelled.
            waits = [
                asyncio.ensure_future(c.execute_command("BLPOP", f"aio:sc:never:{i}", 0, timeout=30)) for i in range(10)
            ]
            await asyncio.sleep(0.2)
        for r in await asyncio.gather(*waits, return_exceptions=True):
            assert isinstance(r, cloudroute.ConnectionError) and "cancelled" in str(r), r
        assert c.closed

    asyncio.run(run())


def test_sentinel_batches_are_submitted_and_answer_as_the_blocking_ones(sentinel_env: Dict[str, str]) -> None:
    async def run() -> None:
        c = sentinel_client(sentinel_env)
        async with c:
            batches = [{f"aio:sb:{b}:{i}": f"v{b}:{i}" for i in range(20)} for b in range(50)]
            oks, extra = await peak_threads(asyncio.gather(*(c.mset(m) for m in batches)))
            assert oks == [True] * len(batches)
            assert extra <= 8, extra
            want = [[v.encode() for v in m.values()] for m in batches]
            # Reads go to cloud A's instances, which may lag the writes: polled.
            loop = asyncio.get_running_loop()
            deadline = loop.time() + 10
            while await asyncio.gather(*(c.mget(list(m)) for m in batches)) != want:
                assert loop.time() < deadline, "the groups' instances never had the batches' writes"
                await asyncio.sleep(0.05)
            keys = list(batches[0])
            assert await c.mget(keys) == c.sync.mget(keys) == want[0]
            assert await c.mget(*keys[:2]) == want[0][:2]
            assert await c.exists(*keys, "aio:sb:missing") == len(keys)
            assert await c.delete(*keys) == len(keys)
            with pytest.raises(cloudroute.InvalidArgumentError):
                await c.mset(["not", "a mapping"])  # type: ignore[arg-type]
            with pytest.raises(cloudroute.InvalidArgumentError):
                await c.mget([])
            # Closed with batches in flight: each completes once, cancelled,
            # with every key's result in place.
            pending = [asyncio.ensure_future(c.mget(list(m))) for m in batches[1:]]
            await asyncio.sleep(0)
        for r in await asyncio.gather(*pending, return_exceptions=True):
            if isinstance(r, list):  # answered before the close
                continue
            assert isinstance(r, cloudroute.ConnectionError) and "cancelled" in str(r), r
            assert len(r.failed_keys) == 20
        assert c.closed

    asyncio.run(run())
