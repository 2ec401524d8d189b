"""Everyday commands of cloudroute.Client against the real two-cloud harness
cluster (conftest.py's session fixture; cloud A = 127.0.1.x): per-call
timeouts, commands sent to chosen nodes, SCAN over the cluster, scripts and
functions with NOSCRIPT recovery, and transactions on a pinned connection.
The cluster is shared with other modules: nothing here flushes data.
"""

from __future__ import annotations

import time
from typing import Dict, Iterator, Set

import pytest
from conftest import live

import cloudroute
from cloudroute import Client, Config

pytestmark = live


@pytest.fixture(scope="module")
def client(cluster: Dict[str, str]) -> Iterator[Client]:
    cfg = Config(local_cidrs=[cluster["CLOUD_A_CIDR"]], policy="local-replicas-first")
    with Client(cluster["SEEDS"], cfg, command_timeout_ms=250) as c:
        yield c


def _down(client: Client, key: str) -> Set[str]:
    return {f"{c.host}:{c.port}" for c in client.router.candidates(key) if c.down}


def test_call_timeout_longer_than_the_tier_timeout(client: Client) -> None:
    t0 = time.monotonic()
    assert client.execute_command("BLPOP", "pycmd:list", 1, timeout=3) is None
    assert time.monotonic() - t0 >= 0.9
    with pytest.raises(cloudroute.TimeoutError, match="not marked"):
        client.execute_command("BLPOP", "pycmd:list", 5, timeout=0.3)
    assert _down(client, "pycmd:list") == set()
    assert client.stats().conn_errors == 0
    with pytest.raises(cloudroute.InvalidArgumentError):
        client.execute_command("GET", "k", timeout=0)
    with pytest.raises(TypeError):
        client.execute_command("GET", "k", timeout="1")  # type: ignore[arg-type]


def test_commands_on_chosen_nodes(client: Client, cluster: Dict[str, str]) -> None:
    masters = client.execute_on_nodes("PING")
    assert masters == {cluster[f"NODE{n}_ADDR"]: "PONG" for n in (1, 4, 7)}
    info = client.execute_on_nodes("INFO", "replication", target="all")
    assert len(info) == 9 and sum(b"role:slave" in v for v in info.values()) == 6
    replica = cluster["NODE2_ADDR"]
    with pytest.raises(cloudroute.ResponseError, match="READONLY"):
        client.execute_on_nodes("FLUSHALL", node=replica)
    out = client.execute_on_nodes("FLUSHALL", node=replica, raise_on_error=False)
    assert list(out) == [replica] and isinstance(out[replica], cloudroute.ResponseError)
    assert client.dbsize() >= 3  # the harness's SHARDn_KEY at least
    with pytest.raises(cloudroute.NotFoundError):
        client.execute_on_nodes("PING", node="127.0.0.1:1")
    with pytest.raises(cloudroute.InvalidArgumentError):
        client.execute_on_nodes("PING", target="some")


def test_scan_iter_visits_each_key_once(client: Client) -> None:
    want = {f"pyscan:{i}".encode() for i in range(250)}
    for k in want:
        client.set(k, "v")
    client.hset("pyscan:hash", "f", "v")
    deadline = time.monotonic() + 10  # replicas (which the scan prefers) catch up
    keys = list(client.scan_iter(match="pyscan:*", count=40, _type="string"))
    while set(keys) != want and time.monotonic() < deadline:
        time.sleep(0.05)
        keys = list(client.scan_iter(match="pyscan:*", count=40, _type="string"))
    assert set(keys) == want
    assert len(keys) == len(want), "a key was returned twice"
    assert [k for k in client.scan_iter(match="pyscan:*", _type="hash")] == [b"pyscan:hash"]


def test_scripts_recover_from_script_flush(client: Client) -> None:
    client.set("{pyscript}k", "v")
    script = client.register_script("return redis.call('GET', KEYS[1]) .. ARGV[1]")
    assert len(script.sha) == 40
    assert client.script_load("return redis.call('GET', KEYS[1]) .. ARGV[1]") == script.sha
    deadline = time.monotonic() + 10
    for read_only in (False, True):
        client.execute_on_nodes("SCRIPT", "FLUSH", target="all")
        result = script(keys=["{pyscript}k"], args=["!"], read_only=read_only)
        while result == b"!" and time.monotonic() < deadline:  # a replica catching up
            result = script(keys=["{pyscript}k"], args=["!"], read_only=read_only)
        assert result == b"v!"
    with pytest.raises(cloudroute.InvalidArgumentError, match="CROSSSLOT"):
        script(keys=["a", "b"])
    client.execute_on_nodes(
        "FUNCTION", "LOAD", "REPLACE",
        "#!lua name=pytest\nredis.register_function{function_name='pyget', callback=function(keys, "
        "args) return redis.call('GET', keys[1]) end, flags={'no-writes'}}")
    assert client.fcall("pyget", 1, "{pyscript}k") == b"v"
    with pytest.raises(cloudroute.InvalidArgumentError):
        client.fcall("pyget", 2, "{pyscript}k")


def test_transactions_on_a_pinned_connection(client: Client) -> None:
    with client.pinned("{pytx}a") as p:
        assert p.slot == cloudroute.keyslot("{pytx}a")
        p.execute_command("DEL", "{pytx}a", "{pytx}b", keys=(1, 2))
        assert p.multi()
        assert p.execute_command("SET", "{pytx}a", "1") == "QUEUED"
        p.execute_command("INCRBY", "{pytx}b", 5)
        with pytest.raises(cloudroute.InvalidArgumentError, match="CROSSSLOT"):
            p.execute_command("SET", "elsewhere", "1")
        assert p.execute() == ["OK", 5]
        assert p.watch("{pytx}a")
        client.set("{pytx}a", "changed")
        p.multi()
        p.execute_command("SET", "{pytx}a", "mine")
        assert p.execute() is None  # the WATCHed key changed: nothing applied
    assert client.get("{pytx}a") == b"changed"
    with pytest.raises(cloudroute.InvalidArgumentError, match="closed"):
        p.execute_command("GET", "{pytx}a")
