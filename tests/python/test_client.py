"""cloudroute.Client against the real two-cloud harness cluster (conftest.py's
session fixture: 127.0.1.x = cloud A, 127.0.2.x = cloud B; masters of shards
1 and 3 in A, of shard 2 in B). Commands, MGET/MSET/DEL fan-out, statistics,
locality of reads, threads hammering one client while the topology refreshes,
the GIL released while a call blocks, lifecycle, and bad input.
"""

from __future__ import annotations

import builtins
import threading
import time
from typing import Dict, Iterator, List

import pytest
from conftest import live, replicated, wait_until

import cloudroute
from cloudroute import Client, Config, Tier

pytestmark = live


@pytest.fixture(scope="module")
def client(cluster: Dict[str, str]) -> Iterator[Client]:
    cfg = Config(local_cidrs=[cluster["CLOUD_A_CIDR"]], policy="local")
    with Client(cluster["SEEDS"].split(",")[:2], cfg, command_timeout_ms=3000) as c:
        yield c


def test_basic_commands(client: Client, cluster: Dict[str, str]) -> None:
    for n in range(1, 4):
        assert client.get(cluster[f"SHARD{n}_KEY"]) == cluster[f"SHARD{n}_VALUE"].encode()
    assert client.get("client:missing") is None
    assert client.set("client:a", "1") is True
    assert client.get(b"client:a") == b"1"
    assert client.set("client:bin\x00key", b"\x00\xff") is True
    assert client.get(bytearray(b"client:bin\x00key")) == b"\x00\xff"
    assert client.set("client:ex", 3.5, ex=100) is True
    assert client.get("client:ex") == b"3.5"
    assert 98 <= client.ttl("client:ex") <= 100
    assert client.set("client:px", 7, px=50_000) and 0 < client.pttl("client:px") <= 50_000
    assert client.set("client:a", "x", nx=True) is None  # exists: not set
    assert client.set("client:a", "2", xx=True, get=True) == b"1"
    assert client.get("client:a") == b"2"
    assert client.expire("client:a", 50) is True and client.ttl("client:a") > 0
    assert client.expire("client:nope", 50) is False
    assert client.ttl("client:nope") == -2
    assert client.exists("client:a", "client:ex", "client:nope") == 2
    assert client.delete("client:a", "client:ex", "client:nope") == 2
    assert client.incr("client:n") == 1 and client.incr("client:n", 5) == 6 and client.decr("client:n") == 5
    assert client.hset("client:h", "f", 1) == 1
    assert client.hset("client:h", mapping={"g": "2", b"h": b"3"}) == 2
    assert client.hget("client:h", "g") == b"2"
    assert client.hgetall("client:h") == {b"f": b"1", b"g": b"2", b"h": b"3"}
    assert client.hdel("client:h", "f", "zz") == 1
    assert client.hgetall("client:missing") == {}
    # Any command: status replies are str, integers int, arrays lists.
    assert client.execute_command("SET", "client:s", "v") == "OK"
    assert client.execute_command("TYPE", "client:h", read=True) == "hash"
    assert client.execute_command("RPUSH", "client:l", 1, 2.5, b"x") == 3
    assert client.execute_command("LRANGE", "client:l", 0, -1, read=True) == [b"1", b"2.5", b"x"]
    encoding = client.execute_command("OBJECT", "ENCODING", "client:l", read=True, key_index=2)
    assert encoding in (b"listpack", b"quicklist")
    client.delete("client:l", "client:h", "client:n", "client:s", "client:px", "client:bin\x00key")


def test_response_error(client: Client) -> None:
    client.hset("client:wrongtype", "f", "v")
    with pytest.raises(cloudroute.ResponseError, match="^WRONGTYPE") as e:
        client.execute_command("INCR", "client:wrongtype")
    assert e.value.status == -14 and isinstance(e.value, cloudroute.Error)
    with pytest.raises(cloudroute.ResponseError, match="unknown command"):
        client.execute_command("NOSUCHCOMMAND", "k")
    before = client.stats().server_errors
    with pytest.raises(cloudroute.ResponseError):
        client.get("client:wrongtype")
    assert client.stats().server_errors == before + 1
    client.delete("client:wrongtype")


def test_mget_mset_fanout(client: Client) -> None:
    keys = [f"fan:{i}" for i in range(100)]
    assert len({cloudroute.keyslot(k) for k in keys}) > 50
    assert client.mset({k: f"v{i}" for i, k in enumerate(keys)}) is True
    before = client.stats()
    got = client.mget(keys + ["fan:missing"])
    assert got == [f"v{i}".encode() for i in range(100)] + [None]
    assert client.mget(keys[0], keys[1]) == [b"v0", b"v1"]
    assert client.mget([]) == []
    after = client.stats()
    assert after.reads > before.reads
    assert client.delete(*keys) == 100
    assert client.mget(keys[:3]) == [None, None, None]


def test_reads_stay_local_and_stats(client: Client, cluster: Dict[str, str]) -> None:
    keys = [f"local:{i}" for i in range(200)]
    client.mset({k: "x" for k in keys})
    for n in (1, 2, 3):  # replicas must hold the keys before they serve them
        assert replicated(cluster[f"SHARD{n}_MASTER"]) == 2
    before = client.stats()
    for k in keys:
        assert client.get(k) == b"x"
    after = client.stats()
    local = after.reads_by_tier[Tier.LOCAL] - before.reads_by_tier[Tier.LOCAL]
    assert after.reads - before.reads == local == 200
    assert after.reads_by_tier["other-cloud"] == before.reads_by_tier["other-cloud"]
    assert set(after.reads_by_tier) == set(Tier)
    nodes = client.node_stats()
    assert all(isinstance(n, cloudroute.NodeStats) for n in nodes)
    readers = {f"{n.host}:{n.port}" for n in nodes if n.reads > 0}
    assert readers and all(a.startswith("127.0.1.") for a in readers)
    assert "127.0.1.6:" + cluster["NODE6_PORT"] in readers  # shard 2's replica in cloud A
    assert any(n.latency_us > 0 for n in nodes)
    # The client's router is a cloudroute.Router (borrowed).
    router = client.router
    r = router.route_read(cluster["SHARD2_KEY"])
    assert r.tier == Tier.LOCAL and r.host == "127.0.1.6"
    assert router.route_write(cluster["SHARD2_KEY"]).host == "127.0.2.4"
    client.delete(*keys)


def test_threads_hammer_one_client_while_refreshing(client: Client) -> None:
    errors: List[BaseException] = []
    stop = threading.Event()
    ops = [0] * 4

    def worker(i: int) -> None:
        try:
            n = 0
            while not stop.is_set():
                k = f"hammer:{i}:{n % 50}"
                client.set(k, str(n))
                v = client.get(k)  # a local replica may lag behind the write
                assert v is None or int(v) <= n
                if n % 10 == 0:
                    assert len(client.mget([f"hammer:{i}:{j}" for j in range(20)])) == 20
                n += 1
                ops[i] = n
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    def refresher() -> None:
        try:
            while not stop.is_set():
                client.refresh()
                client.stats()
                client.node_stats()
                time.sleep(0.01)
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    before = client.stats().refreshes
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    threads.append(threading.Thread(target=refresher))
    for t in threads:
        t.start()
    # Until every thread has done some of everything (not a fixed time).
    busy_enough = wait_until(
        lambda: all(n > 10 for n in ops) and client.stats().refreshes > before + 5, 30)
    stop.set()
    for t in threads:
        t.join(timeout=30)
    assert not any(t.is_alive() for t in threads)
    assert not errors, errors
    assert busy_enough, (ops, client.stats().refreshes - before)
    assert client.stats().refreshes > before + 5
    client.delete(*[f"hammer:{i}:{j}" for i in range(4) for j in range(50)])


def test_gil_released_while_a_call_blocks(client: Client) -> None:
    # BLPOP blocks on the server for 0.5 s; meanwhile Python code keeps running.
    done = threading.Event()
    result: List[object] = []

    def blocked() -> None:
        result.append(client.execute_command("BLPOP", "gil:empty", "0.5"))
        done.set()

    t = threading.Thread(target=blocked)
    t0 = time.perf_counter()
    t.start()
    spins = 0
    while not done.is_set() and time.perf_counter() - t0 < 5:
        spins += 1
    t.join()
    assert result == [None]
    assert spins > 10_000


def test_lifecycle(cluster: Dict[str, str]) -> None:
    c = Client(cluster["SEEDS"], refresh_interval_ms=0)
    router = c.router
    assert c.get(cluster["SHARD1_KEY"]) == cluster["SHARD1_VALUE"].encode()
    assert not c.closed
    c.close()
    c.close()  # idempotent
    assert c.closed and repr(c) == "<cloudroute.Client closed>"
    with pytest.raises(cloudroute.InvalidArgumentError, match="closed"):
        c.get("k")
    with pytest.raises(ValueError):
        c.stats()
    # The borrowed router outlives close() (it keeps the C handle alive).
    assert router.route_write(cluster["SHARD1_KEY"]).port == int(cluster["NODE1_PORT"])
    with Client([(cluster["NODE1_IP"], int(cluster["NODE1_PORT"]))]) as c2:
        assert c2.stats().refreshes >= 1
    assert c2.closed


def test_bad_input(client: Client, cluster: Dict[str, str]) -> None:
    with pytest.raises(TypeError):
        client.get(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="bool"):
        client.set("k", True)
    with pytest.raises(TypeError):
        client.execute_command("SET", "k", None)  # type: ignore[arg-type]
    with pytest.raises(cloudroute.InvalidArgumentError, match="key_index"):
        client.execute_command("GET", "k", key_index=2)
    with pytest.raises(cloudroute.InvalidArgumentError):
        client.execute_command()
    with pytest.raises(cloudroute.InvalidArgumentError):
        client.set("k", "v", ex=0)
    with pytest.raises(cloudroute.InvalidArgumentError):
        client.set("k", "v", ex=1, px=1)
    with pytest.raises(TypeError):
        client.mget(["k", None])  # type: ignore[list-item]
    with pytest.raises(cloudroute.InvalidArgumentError, match="mapping of keys to values, not list"):
        client.mset([("k", "v")])  # type: ignore[arg-type]
    with pytest.raises(cloudroute.InvalidArgumentError, match="mapping of keys to values"):
        client.pipeline().mset([("k", "v")])  # type: ignore[arg-type]
    with pytest.raises(cloudroute.InvalidArgumentError):
        client.command(0, 1, ["GET"])
    with pytest.raises(cloudroute.InvalidArgumentError):
        client.command(3, 1, ["GET", "k"])  # 0 read, 1 write, 2 AUTO
    with pytest.raises(cloudroute.InvalidArgumentError):
        _native_mset_mismatch(client)
    with pytest.raises(TypeError, match="unexpected keyword"):
        Client(cluster["SEEDS"], nosuch=1)  # type: ignore[call-arg]
    with pytest.raises(cloudroute.InvalidArgumentError):
        Client(cluster["SEEDS"], pool_size=-1)
    with pytest.raises(cloudroute.InvalidArgumentError):
        Client(cluster["SEEDS"], pool_size=0)
    with pytest.raises(TypeError):
        Client(cluster["SEEDS"], command_timeout_ms=[1, 2])
    with pytest.raises((cloudroute.ParseError, cloudroute.InvalidArgumentError)):
        Client("not an address")
    with pytest.raises(TypeError):
        Client(cluster["SEEDS"], config="local")  # type: ignore[arg-type]
    # Nothing listens there: a ConnectionError (also the built-in one), quickly.
    t0 = time.perf_counter()
    with pytest.raises(builtins.ConnectionError) as e:
        Client("127.0.1.1:1", connect_timeout_ms=200)
    assert isinstance(e.value, cloudroute.ConnectionError) and "127.0.1.1:1" in str(e.value)
    assert time.perf_counter() - t0 < 5
    # TLS options are passed through: a CA file that does not load is refused
    # before any connection is made.
    with pytest.raises(cloudroute.InvalidArgumentError, match="nonexistent"):
        Client(cluster["SEEDS"], tls=True, tls_ca_file="/nonexistent/ca.pem")
    with pytest.raises(cloudroute.ParseError):
        Config(address_remap={"nonsense": "127.0.0.1:1"})


def _native_mset_mismatch(client: Client) -> None:
    cloudroute._native.Client.mset(client, ["a", "b"], ["1"])


def test_address_remap(cluster: Dict[str, str]) -> None:
    # Every node announced on its own address dials itself: a remap table that
    # only names real nodes changes nothing but must be accepted end to end.
    cfg = Config(address_remap={a: a for a in cluster["SEEDS"].split(",")})
    cfg.add_address_remap("[::1]:7000", "127.0.0.1:7000")
    with Client(cluster["SEEDS"], cfg) as c:
        assert c.get(cluster["SHARD2_KEY"]) == cluster["SHARD2_VALUE"].encode()
