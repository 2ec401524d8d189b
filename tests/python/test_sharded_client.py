"""cloudroute.ShardedClient against standalone redis servers of its own
(127.0.0.1:8815-8822, tests/PORTS.md): redis-py's call shapes on a Jedis ring,
data placed where real Jedis put it (tests/vectors/rings.json), a pipeline, a
scan of every shard, a shard's master killed (reads from its replica, writes
fail), the live move with set_servers, bad input, and the asyncio face.
"""

from __future__ import annotations

import os
import pathlib
import signal
import subprocess
import time
from typing import Dict, Iterator, List

import pytest
from conftest import live, load_vectors, unhex

import cloudroute
from cloudroute import Ring, ShardedClient

pytestmark = live

redis = pytest.importorskip("redis")

HOST = "127.0.0.1"
PORTS = list(range(8815, 8823))


def wait_until(pred, timeout: float = 10.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            return bool(pred())
        time.sleep(0.02)
    return True


def node(port: int) -> "redis.Redis[bytes]":
    return redis.Redis(host=HOST, port=port, socket_timeout=10)


def pings(port: int) -> bool:
    try:
        with node(port) as r:
            return bool(r.ping())
    except redis.exceptions.ConnectionError:
        return False


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Dict[int, int]]:
    d: pathlib.Path = tmp_path_factory.mktemp("sharded")
    pids: Dict[int, int] = {}
    try:
        for port in PORTS:
            subprocess.run(["redis-server", "--port", str(port), "--bind", HOST, "--daemonize", "yes",
                            "--save", "", "--appendonly", "no", "--dir", str(d),
                            "--dbfilename", f"{port}.rdb", "--pidfile", str(d / f"{port}.pid"),
                            "--logfile", str(d / f"{port}.log")], check=True, timeout=30)
            assert wait_until(lambda p=port: pings(p)), f"redis-server on {port} did not start"
            pids[port] = int((d / f"{port}.pid").read_text())
        yield pids
    finally:
        for pid in pids.values():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def addr(port: int) -> str:
    return f"{HOST}:{port}"


def test_redis_py_shapes(servers: Dict[int, int]) -> None:
    ring = Ring.jedis([("cache-a", 1), ("cache-b", 1)], hash="murmur", naming="jedis3")
    with ShardedClient([addr(8815), addr(8816)], ring) as c:
        keys = [f"u:{i}" for i in range(50)]
        assert c.mset({k: k.upper() for k in keys}) is True
        on = [node(p).dbsize() for p in (8815, 8816)]
        assert sum(on) == 50 and min(on) > 0
        assert c.mget(keys) == [k.upper().encode() for k in keys]
        assert c.get(keys[0]) == keys[0].upper().encode()
        assert c.set("u:x", "1", ex=100) is True
        assert 0 < c.ttl("u:x") <= 100
        assert c.expire("u:x", 50) is True
        assert c.exists(*keys[:5], "missing") == 5
        assert c.execute_command("INCRBY", "counter", 3) == 3
        assert c.execute_command("GET", "counter", read=True) == b"3"
        assert sorted(c.scan_iter(match="u:*")) == sorted([k.encode() for k in keys] + [b"u:x"])
        p = c.pipeline()
        p.set("p:1", "a").get("p:1").get(keys[1])
        assert p.execute() == [True, b"a", keys[1].upper().encode()]
        assert c.eval("return redis.call('GET', KEYS[1])", 1, keys[2]) == keys[2].upper().encode()
        with pytest.raises(cloudroute.InvalidArgumentError, match="mapping of keys to values, not list"):
            c.mset([("k", "v")])  # type: ignore[arg-type]
        with pytest.raises(cloudroute.InvalidArgumentError, match="different shards"):
            c.eval("return 1", len(keys), *keys)
        assert c.execute_on_nodes("DBSIZE") == {addr(8815): node(8815).dbsize(), addr(8816): node(8816).dbsize()}
        assert c.delete(*keys) == 50
        assert c.stats().writes > 0 and "cloudroute" in c.metrics_text()
        assert {f"{n.host}:{n.port}" for n in c.node_stats()} == {addr(8815), addr(8816)}
        assert sum(n.writes for n in c.node_stats()) == c.stats().writes
        c.execute_on_nodes("FLUSHALL")


def test_data_placed_by_real_jedis_is_found(servers: Dict[int, int]) -> None:
    cases = 0
    for case in load_vectors("rings.json")["rings"]:
        if case["algo"] != "jedis" or len(case["shards"]) > 5:
            continue
        ports = PORTS[: len(case["shards"])]
        for p in ports:
            node(p).flushall()
        shards = [(s["name"], s["weight"]) for s in case["shards"]]
        ring = Ring.jedis(shards, hash=case["hash"], naming=case.get("naming", "jedis3"),
                          key_tags=case["key_tags"])
        written: Dict[bytes, bytes] = {}
        for k in case["keys"]:
            key = unhex(k["key_hex"])
            written[key] = b"v" + key
            node(ports[k["shard"]]).set(key, b"v" + key)
        with ShardedClient([addr(p) for p in ports], ring) as c:
            keys: List[bytes] = list(written)
            assert c.mget(keys) == [written[k] for k in keys], case["name"]
        cases += 1
    assert cases >= 6


def test_master_killed_reads_from_replica(servers: Dict[int, int]) -> None:
    m, r, other = 8820, 8821, 8822
    with node(r) as rr:
        rr.replicaof(HOST, m)
        assert wait_until(lambda: rr.info("replication")["master_link_status"] == "up", 20)
    ring = Ring.jedis(["s0", "s1"])
    with ShardedClient([[addr(m), addr(r)], addr(other)], ring, command_timeout_ms=1000,
                       connect_timeout_ms=300) as c:
        keys0 = [k for k in (f"k{i}" for i in range(200)) if c.locate(k) == 0][:20]
        for k in keys0:
            c.set(k, k)
        with node(m) as mm:
            offset = mm.info("replication")["master_repl_offset"]
        assert wait_until(lambda: node(r).info("replication")["slave_repl_offset"] >= offset)
        os.kill(servers.pop(m), signal.SIGKILL)
        assert wait_until(lambda: not pings(m))
        assert c.mget(keys0) == [k.encode() for k in keys0]
        with pytest.raises(cloudroute.ConnectionError, match=addr(m)):
            c.set(keys0[0], "new")
    with node(r) as rr:
        rr.replicaof("NO", "ONE")


def test_set_servers_moves_a_shard_without_moving_keys(servers: Dict[int, int]) -> None:
    old, fresh, other = 8817, 8818, 8819
    ring = Ring.jedis(["s0", "s1"])
    with ShardedClient([addr(old), addr(other)], ring) as c:
        keys = [f"m:{i}" for i in range(100)]
        c.mset({k: k for k in keys})
        with node(fresh) as f:
            f.replicaof(HOST, old)
            assert wait_until(lambda: f.info("replication")["master_link_status"] == "up", 20)
            node(old).execute_command("CLIENT", "PAUSE", "10000", "WRITE")
            target = node(old).info("replication")["master_repl_offset"]
            assert wait_until(lambda: f.info("replication")["slave_repl_offset"] >= target)
            f.replicaof("NO", "ONE")
        c.set_servers([addr(fresh), addr(other)])
        c.set_servers([addr(fresh), addr(other)])  # idempotent
        os.kill(servers.pop(old), signal.SIGKILL)
        assert c.mget(keys) == [k.encode() for k in keys]
        moved = next(k for k in keys if c.locate(k) == 0)  # a key of the moved shard
        c.set(moved, "after")
        assert node(fresh).get(moved) == b"after"


def test_bad_input() -> None:
    ring = Ring.jedis(["a", "b"])
    with pytest.raises(cloudroute.InvalidArgumentError, match="3 server entries for a ring of 2"):
        ShardedClient([addr(1), addr(2), addr(3)], ring)
    with pytest.raises(cloudroute.InvalidArgumentError, match=r"servers\[0\]"):
        ShardedClient(["nonsense", addr(2)], ring)
    with pytest.raises(cloudroute.InvalidArgumentError, match=r"servers\[1\]"):
        ShardedClient([addr(1), []], ring)
    with pytest.raises(TypeError):
        ShardedClient(addr(1), ring)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="unexpected keyword"):
        ShardedClient([addr(1), addr(2)], ring, no_such_option=1)
    with ShardedClient([addr(1), addr(2)], ring) as c:
        with pytest.raises(cloudroute.InvalidArgumentError):
            c.set_servers([addr(1)])
    assert c.closed


def test_asyncio_face_submits_and_answers_as_the_blocking_calls(servers: Dict[int, int]) -> None:
    import asyncio

    import cloudroute.asyncio as cra

    ring = Ring.jedis([("cache-a", 1), ("cache-b", 1)], hash="murmur", naming="jedis3")

    async def run() -> None:
        async with cra.ShardedClient([addr(8815), addr(8816)], ring) as c:
            keys = [f"a:{i}" for i in range(200)]
            assert await asyncio.gather(*(c.set(k, k.upper()) for k in keys)) == [True] * len(keys)
            got = await asyncio.gather(*(c.get(k) for k in keys))
            assert got == [k.upper().encode() for k in keys]
            # One command per shard, every shard at once, results in key order.
            batches = [keys[i : i + 20] for i in range(0, len(keys), 20)]
            values = await asyncio.gather(*(c.mget(b) for b in batches))
            assert values == [[k.upper().encode() for k in b] for b in batches]
            assert await c.mget(keys[:3]) == c.sync.mget(keys[:3])
            assert await c.mset({"a:x": "1", "a:y": "2"}) is True
            assert await c.exists("a:x", "a:y", "a:missing") == 2
            assert await c.execute_command("INCRBY", "a:n", 5) == 5
            assert await c.execute_command("GET", "a:n", read=True) == b"5"
            with pytest.raises(cloudroute.ResponseError):
                await c.execute_command("INCR", keys[0])  # not an integer
            with pytest.raises(cloudroute.InvalidArgumentError):
                await c.execute_command("GET", "a:n", read=True, key_index=5)  # no argument 5
            assert await c.delete(*keys, "a:x", "a:y", "a:n") == len(keys) + 3
            # Closed with calls in flight: each completes once, cancelled.
            waits = [
                asyncio.ensure_future(c.execute_command("BLPOP", f"a:never:{i}", 0, timeout=30)) for i in range(4)
            ]
            await asyncio.sleep(0.2)
        for r in await asyncio.gather(*waits, return_exceptions=True):
            assert isinstance(r, cloudroute.ConnectionError) and "cancelled" in str(r), r
        assert c.closed

    asyncio.run(run())
