"""cloudroute.Pipeline (client.pipeline()) against the real two-cloud harness
cluster (conftest.py's session fixture): commands of every kind over all
shards come back in order with redis-py's result types, errors stay in place
or raise the first one, keyless commands go to a named node, and the queue
behaves as redis-py's (chaining, len, reset, context manager).
"""

from __future__ import annotations

from typing import Dict, Iterator, List

import pytest
from conftest import live

import cloudroute
from cloudroute import Client, Config

pytestmark = live


@pytest.fixture(scope="module")
def client(cluster: Dict[str, str]) -> Iterator[Client]:
    cfg = Config(local_cidrs=[cluster["CLOUD_A_CIDR"]], policy="master")
    with Client(cluster["SEEDS"].split(",")[:2], cfg, command_timeout_ms=3000) as c:
        yield c


def keys_on_every_shard(client: Client, prefix: str, n: int) -> List[str]:
    """n keys, as evenly as may be over the cluster's three shards."""
    per = -(-n // 3)
    by_shard: Dict[int, List[str]] = {}
    i = 0
    while len(by_shard) < 3 or any(len(b) < per for b in by_shard.values()):
        key = f"{prefix}{i}"
        i += 1
        bucket = by_shard.setdefault(client.router.route_write(key).shard, [])
        if len(bucket) < per:
            bucket.append(key)
    keys = [k for b in by_shard.values() for k in b][:n]
    assert len({client.router.route_write(k).shard for k in keys}) == 3
    return keys


def test_mixed_commands_in_order(client: Client) -> None:
    keys = keys_on_every_shard(client, "py:pipe:", 16)
    with client.pipeline() as pipe:
        for k in keys:
            pipe.delete(k, f"{k}:h", f"{k}:z", f"{k}:s", f"{k}:n")
        pipe.execute()
        for i, k in enumerate(keys):
            pipe.set(k, f"v{i}").hset(f"{k}:h", mapping={"f": i, "g": "x"})
            pipe.zadd(f"{k}:z", {"a": 1.5, "b": 2}).sadd(f"{k}:s", "m", "n").incr(f"{k}:n", 2)
        assert len(pipe) == 80
        results = pipe.execute()
        assert len(pipe) == 0
        assert results == [True, 2, 2, 2, 2] * 16
        for k in keys:
            pipe.get(k).hgetall(f"{k}:h").zrange(f"{k}:z", 0, -1, withscores=True)
            pipe.smembers(f"{k}:s").exists(k, f"{k}:h", f"{k}:missing").hget(f"{k}:h", "g")
        got = pipe.execute()
    for i in range(16):
        value, h, z, s, exists, g = got[6 * i : 6 * i + 6]
        assert value == f"v{i}".encode()
        assert h == {b"f": str(i).encode(), b"g": b"x"}
        assert z == [(b"a", 1.5), (b"b", 2.0)]
        assert s == {b"m", b"n"}
        assert exists == 2
        assert g == b"x"


def test_errors_in_place_or_raised(client: Client, cluster: Dict[str, str]) -> None:
    pipe = client.pipeline()
    pipe.set("py:pipe:e", "1").hset("py:pipe:eh", "f", "v")
    pipe.execute_command("GET", "py:pipe:eh")  # WRONGTYPE (a write: on the master, in order)
    pipe.incr("py:pipe:e").mget("py:pipe:e", "py:pipe:none")
    results = pipe.execute(raise_on_error=False)
    assert results[:2] == [True, 1]
    assert isinstance(results[2], cloudroute.ResponseError)
    assert str(results[2]).startswith("WRONGTYPE")
    assert results[3] == 2
    assert results[4] == [b"2", None]

    pipe.get("py:pipe:e").execute_command("NOSUCH", "py:pipe:e").get("py:pipe:e")
    with pytest.raises(cloudroute.ResponseError, match=r"Command # 2 \(NOSUCH py:pipe:e\) of pipeline"):
        pipe.execute()
    assert len(pipe) == 0, "a raising execute still empties the queue"

    host, port = cluster["NODE1_ADDR"].rsplit(":", 1)
    pipe.execute_command("PING", node=(host, int(port))).execute_command("ECHO", "hi", node=(host, int(port)))
    assert pipe.execute() == ["PONG", b"hi"]


def test_queue_shape_and_bad_input(client: Client) -> None:
    pipe = client.pipeline()
    assert bool(pipe) and repr(pipe) == "<cloudroute.Pipeline commands=0>"
    assert pipe.execute() == []
    with pytest.raises(cloudroute.InvalidArgumentError, match="keyless command needs node"):
        pipe.execute_command("PING")
    with pytest.raises(cloudroute.InvalidArgumentError):
        pipe.execute_command()
    with pytest.raises(cloudroute.InvalidArgumentError):
        client.pipeline(transaction=True)
    pipe.get("a").get("b")
    pipe.reset()
    assert len(pipe) == 0
    pipe.execute_command("PING", node=("127.0.0.1", 1))
    with pytest.raises(cloudroute.NotFoundError):
        pipe.execute()
    with client.pipeline() as p2:
        p2.get("a")
    assert len(p2) == 0, "leaving the context manager resets the queue"


def test_mget_over_all_shards_after_the_sets(client: Client) -> None:
    # Policy "master": reads go where the writes went, so the values are there.
    keys = keys_on_every_shard(client, "py:pipe:rw:", 12)
    pipe = client.pipeline()
    for k in keys:
        pipe.set(k, k)
    assert pipe.execute() == [True] * 12
    assert pipe.mget(keys).execute() == [[k.encode() for k in keys]]
    assert pipe.mset({k: "z" for k in keys}).delete(*keys).exists(*keys).execute() == [True, 12, 0]
