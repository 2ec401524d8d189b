"""cloudroute.SentinelClient against a real Sentinel setup of its own
(scripts/redis-harness.sh sentinel, ports 8121-8126 and 8131-8133: group0's
master in cloud A 127.0.1.x, group1's in cloud B 127.0.2.x, each with a
replica in both clouds): writes on each key's group's master, reads kept in
cloud A, statistics, the borrowed ShardGroups, lifecycle and bad input.
"""

from __future__ import annotations

from typing import Dict, Iterator, List

import pytest
from conftest import harness, live

import cloudroute
from cloudroute import Config, Ring, SentinelClient, Tier

pytestmark = live

redis = pytest.importorskip("redis")

KEYS = [f"sc:{i}" for i in range(200)]


@pytest.fixture(scope="module")
def sentinel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Dict[str, str]]:
    with harness("sentinel", tmp_path_factory, 8121) as env:
        yield env


def names(env: Dict[str, str]) -> List[str]:
    return env["SENTINEL_MASTER_NAMES"].split(",")


def make(env: Dict[str, str]) -> SentinelClient:
    return SentinelClient(env["SENTINELS"], names(env), Ring.jedis(names(env)),
                          Config(local_cidrs=[env["CLOUD_A_CIDR"]]), command_timeout_ms=3000)


@pytest.fixture(scope="module")
def client(sentinel: Dict[str, str]) -> Iterator[SentinelClient]:
    with make(sentinel) as c:
        yield c


def data_nodes(env: Dict[str, str]) -> List[str]:
    return [env[f"NODE{n}_ADDR"] for n in range(1, int(env["NODE_COUNT"]) + 1)]


def node(addr: str) -> "redis.Redis[bytes]":
    host, port = addr.split(":")
    return redis.Redis(host=host, port=int(port), socket_timeout=10)


def test_writes_go_to_each_groups_master(client: SentinelClient, sentinel: Dict[str, str]) -> None:
    for k in KEYS:
        assert client.set(k, k) is True
    for g in (0, 1):
        with node(sentinel[f"GROUP{g}_MASTER"]) as r:
            assert r.wait(2, 5000) == 2
    seen = set()
    for k in KEYS:
        group = client.locate(k)
        seen.add(group)
        w = client.route_write(k)
        assert f"{w.host}:{w.port}" == sentinel[f"GROUP{group}_MASTER"] and w.shard == group
        with node(sentinel[f"GROUP{group}_MASTER"]) as r:
            assert r.get(k) == k.encode()
    assert seen == {0, 1}
    assert client.get(KEYS[0]) == KEYS[0].encode()
    assert client.exists(KEYS[0], KEYS[1], "sc:missing") == 2
    assert client.execute_command("HSET", "sc:h", "f", 7) == 1
    assert client.execute_command("HGET", "sc:h", "f", read=False) == b"7"
    assert client.set("sc:ttl", "v", ex=100) and 98 <= client.execute_command("TTL", "sc:ttl") <= 100
    assert client.delete("sc:h", "sc:ttl", "sc:missing") == 2
    with pytest.raises(cloudroute.ResponseError, match="WRONGTYPE"):
        client.execute_command("LPUSH", KEYS[0], "x")


def test_reads_stay_in_cloud_a(client: SentinelClient, sentinel: Dict[str, str]) -> None:
    for k in KEYS:
        client.set(k, k)
    for g in (0, 1):
        with node(sentinel[f"GROUP{g}_MASTER"]) as r:
            assert r.wait(2, 5000) == 2
    for a in data_nodes(sentinel):
        with node(a) as r:
            r.config_resetstat()
    for k in KEYS:
        assert client.get(k) == k.encode()
    calls = {}
    for a in data_nodes(sentinel):
        with node(a) as r:
            calls[a] = int(r.info("commandstats").get("cmdstat_get", {}).get("calls", 0))
    assert sum(calls.values()) == len(KEYS)
    assert all(n == 0 for a, n in calls.items() if a.startswith("127.0.2.")), calls
    group1_local = [a for a in sentinel["GROUP1_REPLICAS"].split(",") if a.startswith("127.0.1.")]
    assert calls[group1_local[0]] > 0  # group1's master is in cloud B: its replica in A serves
    for k in KEYS[:20]:
        first = client.read_order(k)[0]
        assert first.tier == Tier.LOCAL and first.host.startswith("127.0.1.")
        assert client.route_read(k).tier == Tier.LOCAL


def test_stats_and_refresh(client: SentinelClient) -> None:
    client.refresh()
    st = client.stats()
    assert st.reads >= len(KEYS) and st.writes >= len(KEYS)
    assert st.asks >= 2 and st.ask_failures == 0 and st.server_errors >= 1
    assert isinstance(st.subscribed, bool)
    assert st == tuple(st) and len(st) == 13
    assert repr(client) == "<cloudroute.SentinelClient groups=2>"


def test_borrowed_groups_outlive_close(sentinel: Dict[str, str]) -> None:
    c = make(sentinel)
    groups = c.groups
    assert len(groups) == 2 and groups.find("group1") == 1
    c.close()
    c.close()  # idempotent
    assert c.closed and repr(c) == "<cloudroute.SentinelClient closed>"
    w = groups.route_write(KEYS[0])  # the handle lives while the borrowed table does
    assert f"{w.host}:{w.port}" in (sentinel["GROUP0_MASTER"], sentinel["GROUP1_MASTER"])
    with pytest.raises(cloudroute.InvalidArgumentError, match="closed"):
        c.get(KEYS[0])
    with pytest.raises(cloudroute.InvalidArgumentError, match="closed"):
        c.groups


def test_bad_input(client: SentinelClient, sentinel: Dict[str, str]) -> None:
    env = sentinel
    with pytest.raises(cloudroute.InvalidArgumentError):
        SentinelClient(env["SENTINELS"], names(env), Ring.jedis(["a", "b", "c"]))
    with pytest.raises(cloudroute.NotFoundError):
        SentinelClient(env["SENTINELS"], ["group0", "nosuchgroup"], Ring.jedis(["a", "b"]),
                       sentinel_timeout_ms=2000)
    with pytest.raises(TypeError, match="single"):
        SentinelClient(env["SENTINELS"], "group0", Ring.jedis(["a"]))
    with pytest.raises(TypeError, match="Ring"):
        SentinelClient(env["SENTINELS"], names(env), "ring")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="unexpected keyword"):
        cloudroute._native.SentinelClient(env["SENTINELS"], names(env), Ring.jedis(names(env)), bogus=1)
    with pytest.raises(TypeError):
        SentinelClient(env["SENTINELS"], names(env), Ring.jedis(names(env)), command_timeout_ms=(1, 2))
    with pytest.raises(cloudroute.InvalidArgumentError):
        SentinelClient("not-an-address", names(env), Ring.jedis(names(env)))
    with pytest.raises(cloudroute.InvalidArgumentError, match="key_index"):
        client.command(cloudroute.READ, 3, ("GET", "k"))
    with pytest.raises(cloudroute.InvalidArgumentError):
        client.command(2, 1, ("GET", "k"))
    with pytest.raises(cloudroute.InvalidArgumentError):
        client.set("k", "v", ex=1, px=1)


def test_db_serves_the_groups_database(client: SentinelClient, sentinel: Dict[str, str]) -> None:
    """db=2: every data connection selects database 2 (SELECT in its handshake)."""
    with SentinelClient(sentinel["SENTINELS"], names(sentinel), Ring.jedis(names(sentinel)),
                        Config(local_cidrs=[sentinel["CLOUD_A_CIDR"]]), command_timeout_ms=3000,
                        db=2) as c2:
        keys = [f"scdb2:{i}" for i in range(40)]
        for k in keys:
            assert c2.set(k, k + "!")
        for k in keys:
            assert c2.execute_command("GET", k) == (k + "!").encode()  # on the master
            assert client.execute_command("GET", k) is None  # database 0
        masters = {sentinel[f"GROUP{g}_MASTER"] for g in range(len(names(sentinel)))}
        in_db2 = sum(redis.Redis(host=m.split(":")[0], port=int(m.split(":")[1]), db=2).exists(*keys)
                     for m in masters)
        assert in_db2 == len(keys)
