"""cloudroute.SentinelClient's batches — mget, mset, delete, exists over many
keys, one command per group per call — against a real Sentinel setup of its
own (scripts/redis-harness.sh sentinel, data nodes 8844-8849, sentinels
8854-8856): 100 keys over both groups, binary-safe get/set and expire, bad
input; a group whose master is stopped fails its keys only (named); then the
tests that damage the setup: a SENTINEL FAILOVER during a stream of batches
(no acknowledged write lost, failed keys named, batches whole again after),
a local replica killed during mget batches (no key fails).
"""

from __future__ import annotations

import datetime
import os
import signal
import threading
import time
from typing import Any, Callable, Dict, Iterator, List

import pytest
from conftest import harness, live, replicated

import cloudroute
from cloudroute import Config, Ring, SentinelClient

pytestmark = live

redis = pytest.importorskip("redis")


@pytest.fixture(scope="module")
def sentinel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Dict[str, str]]:
    with harness("sentinel", tmp_path_factory, 8844) as env:
        yield env


def names(env: Dict[str, str]) -> List[str]:
    return env["SENTINEL_MASTER_NAMES"].split(",")


def make(env: Dict[str, str], **options: Any) -> SentinelClient:
    return SentinelClient(env["SENTINELS"], names(env), Ring.jedis(names(env)),
                          Config(local_cidrs=[env["CLOUD_A_CIDR"]]), **options)


@pytest.fixture(scope="module")
def client(sentinel: Dict[str, str]) -> Iterator[SentinelClient]:
    with make(sentinel, command_timeout_ms=500) as c:
        yield c


def node(addr: str) -> "redis.Redis[bytes]":
    host, port = addr.split(":")
    return redis.Redis(host=host, port=int(port), socket_timeout=10)


def calls(addr: str, cmd: str) -> int:
    with node(addr) as r:
        return int(r.info("commandstats").get(f"cmdstat_{cmd}", {}).get("calls", 0))


def hundred(c: SentinelClient) -> List[str]:
    """100 keys, 50 of each group, interleaved (group0, group1, ...)."""
    by_group: Dict[int, List[str]] = {0: [], 1: []}
    i = 0
    while min(len(v) for v in by_group.values()) < 50:
        k = f"sb:{i}"
        i += 1
        if len(by_group[c.locate(k)]) < 50:
            by_group[c.locate(k)].append(k)
    return [k for pair in zip(by_group[0], by_group[1]) for k in pair]


def wait_for(cond: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.02)
    return False


def synced(c: SentinelClient) -> None:
    """Waits until both replicas of each group's master (as the client knows it now:
    a failover moves it) hold its writes."""
    for key in hundred(c)[:2]:  # one key of each group
        w = c.route_write(key)
        master = f"{w.host}:{w.port}"
        # A demoted master rejoins as a replica with a full sync: polled, bounded.
        assert wait_for(lambda m=master: replicated(m, 2, 1000) == 2, 30), f"replicas of {master} behind"


def test_hundred_keys_one_command_per_group(client: SentinelClient, sentinel: Dict[str, str]) -> None:
    keys = hundred(client)
    masters = [sentinel["GROUP0_MASTER"], sentinel["GROUP1_MASTER"]]
    before = {m: (calls(m, "mset"), calls(m, "set")) for m in masters}
    mapping = {k: f"v:{k}" for k in keys}
    assert client.mset(mapping) is True
    for m in masters:
        assert calls(m, "mset") == before[m][0] + 1, "not one MSET per group"
        assert calls(m, "set") == before[m][1], "a key was SET on its own"
    synced(client)
    assert client.mget(keys + ["sb:absent"]) == [f"v:{k}".encode() for k in keys] + [None]
    assert client.mget(keys[0], keys[1]) == [f"v:{keys[0]}".encode(), f"v:{keys[1]}".encode()]
    assert client.exists(*keys, "sb:absent") == 100
    assert client.delete(*keys, "sb:absent") == 100
    synced(client)  # exists and mget are reads: the local replica answers
    assert client.exists(*keys) == 0
    assert client.mget(keys[:3]) == [None, None, None]


def test_binary_get_set_and_expire(client: SentinelClient) -> None:
    key, value = b"sb:\x00bin\xff", b"\x00\xfe\xff v"
    assert client.set(key, value) is True
    synced(client)  # get is a read: the local replica answers
    assert client.get(key) == value
    assert client.mset({key: value + b"2", b"sb:\x01": b"\x00"}) is True
    assert client.execute_command("GET", key) == value + b"2"
    assert client.expire(key, 100) is True
    assert 99_000 <= client.execute_command("PTTL", key) <= 100_000
    assert client.expire(key, datetime.timedelta(milliseconds=50_500)) is True
    assert 49_000 <= client.execute_command("PTTL", key) <= 50_500
    assert client.expire("sb:never-set", 10) is False


def test_bad_batches_raise_clearly(client: SentinelClient) -> None:
    with pytest.raises(cloudroute.InvalidArgumentError, match="no keys"):
        client.mget([])
    with pytest.raises(cloudroute.InvalidArgumentError, match="no keys"):
        client.delete()
    with pytest.raises(cloudroute.InvalidArgumentError, match="no keys"):
        client.exists()
    with pytest.raises(cloudroute.InvalidArgumentError, match="no keys"):
        client.mset({})
    with pytest.raises(cloudroute.InvalidArgumentError, match="mapping"):
        client.mset([("k", "v")])  # type: ignore[arg-type]
    with pytest.raises(cloudroute.InvalidArgumentError, match="as many values as keys"):
        client.batch("MSET", ["a", "b"], ["1"])
    with pytest.raises(cloudroute.InvalidArgumentError, match="unknown batch"):
        client.batch("FLUSHALL", ["a"])
    with pytest.raises(TypeError):
        client.mget([None])  # type: ignore[list-item]
    with pytest.raises(cloudroute.InvalidArgumentError, match="time must be positive"):
        client.expire("k", 0)
    with pytest.raises(cloudroute.InvalidArgumentError, match="ttl_ms"):
        client.expire_ms("k", 0)


def test_group_without_reachable_master_fails_only_its_keys(client: SentinelClient,
                                                            sentinel: Dict[str, str]) -> None:
    env = sentinel
    keys = hundred(client)
    client.mset({k: "old" for k in keys})
    synced(client)
    pid = next(env[f"NODE{n}_PID"] for n in range(1, 7)
               if env[f"NODE{n}_ADDR"] == env["GROUP1_MASTER"])
    sentinels = [env[f"SENTINEL{n}_ADDR"] for n in range(1, 4)]

    def down_after(ms: int) -> None:
        for s in sentinels:
            with node(s) as r:
                r.execute_command("SENTINEL", "SET", "group1", "down-after-milliseconds", ms)

    down_after(60000)  # Sentinel keeps the stopped master: no failover
    os.kill(int(pid), signal.SIGSTOP)
    try:
        with pytest.raises(cloudroute.Error) as failed:
            client.mset({k: "new" for k in keys})
        values = client.mget(keys)  # group1's replicas serve its reads
    finally:
        os.kill(int(pid), signal.SIGCONT)
        down_after(1000)
    e = failed.value
    assert "50 of 100 keys" in str(e) and "group 'group1'" in str(e) and "group 'group0'" not in str(e)
    assert e.failed_keys == keys[1::2]  # type: ignore[attr-defined]
    assert [isinstance(r, cloudroute.Error) for r in e.results] == [False, True] * 50  # type: ignore[attr-defined]
    # Read while the master was stopped: group1's replicas still hold the old values (its
    # MSET waits in the stopped master's socket: it "may have reached the server", and runs
    # once the master resumes).
    assert values[1::2] == [b"old"] * 50
    assert "may have reached the server" in str(e)
    assert wait_for(lambda: _mset_ok(client, keys), 15), "batches did not succeed again"


def _mset_ok(c: SentinelClient, keys: List[str]) -> bool:
    try:
        return c.mset({k: "again" for k in keys})
    except cloudroute.Error:
        return False


def test_failover_during_batches(sentinel: Dict[str, str]) -> None:
    env = sentinel
    with make(env, command_timeout_ms=500) as c:
        keys = hundred(c)
        c.mset({k: "v0" for k in keys})
        synced(c)
        acked: Dict[str, str] = {}
        counts = {"batches": 0, "full": 0, "failed_keys": 0, "group1_failed": 0, "reads": 0,
                  "read_failures": 0}
        examples: List[str] = []
        stop = threading.Event()

        def write() -> None:
            i = 0
            deadline = time.monotonic() + 60
            while not stop.is_set() and time.monotonic() < deadline:
                i += 1
                v = f"b{i}"
                counts["batches"] += 1
                try:
                    c.mset({k: v for k in keys})
                    counts["full"] += 1
                    acked.update({k: v for k in keys})
                except cloudroute.Error as e:
                    failed = set(e.failed_keys)  # type: ignore[attr-defined]
                    counts["failed_keys"] += len(failed)
                    counts["group1_failed"] += sum(1 for k in failed if c.locate(k) == 1)
                    acked.update({k: v for k in keys if k not in failed})
                    if len(examples) < 3:
                        examples.append(str(e)[:200])

        def read() -> None:
            deadline = time.monotonic() + 60
            while not stop.is_set() and time.monotonic() < deadline:
                counts["reads"] += 1
                try:
                    c.mget(keys)
                except cloudroute.Error as e:
                    counts["read_failures"] += len(e.failed_keys)  # type: ignore[attr-defined]

        threads = [threading.Thread(target=write), threading.Thread(target=read)]
        for t in threads:
            t.start()
        try:
            assert wait_for(lambda: counts["full"] > 20, 10)
            old = env["GROUP0_MASTER"]
            host, port = env["SENTINEL1_ADDR"].split(":")
            with redis.Redis(host=host, port=int(port), socket_timeout=5) as s:
                s.execute_command("SENTINEL", "FAILOVER", "group0")
            assert wait_for(lambda: (lambda w: f"{w.host}:{w.port}" != old)(c.route_write(keys[0])), 30)
            at_switch = counts["full"]
            assert wait_for(lambda: counts["full"] > at_switch + 20, 15), "batches did not resume whole"
        finally:
            stop.set()
            for t in threads:
                t.join()
        print(f"BATCH scenario=py_sentinel_failover_batches {counts} examples={examples}")
        assert counts["read_failures"] == 0
        assert counts["group1_failed"] == 0
        for e in examples:
            assert "group 'group0'" in e
        got = {k: c.execute_command("GET", k) for k in keys}  # a write: the master answers
        lost = {k: (acked[k], got[k]) for k in keys if got[k] != acked[k].encode()}
        assert not lost, f"acknowledged writes lost: {list(lost.items())[:3]}"


def test_killed_replica_costs_no_mget_read(sentinel: Dict[str, str]) -> None:
    env = sentinel
    rep = next({"addr": env[f"NODE{n}_ADDR"], "pid": env[f"NODE{n}_PID"]} for n in range(1, 7)
               if env[f"NODE{n}_GROUP"] == "group1" and env[f"NODE{n}_ROLE"] == "replica"
               and env[f"NODE{n}_CLOUD"] == "A")
    with make(env, command_timeout_ms=500) as c:
        keys = hundred(c)
        c.mset({k: f"v:{k}" for k in keys})
        synced(c)
        want = [f"v:{k}".encode() for k in keys]
        counts = {"batches": 0, "failed": 0, "wrong": 0}
        errors: List[str] = []
        stop = threading.Event()

        def read() -> None:
            deadline = time.monotonic() + 30
            while not stop.is_set() and time.monotonic() < deadline:
                counts["batches"] += 1
                try:
                    if c.mget(keys) != want:
                        counts["wrong"] += 1
                except cloudroute.Error as e:
                    counts["failed"] += len(e.failed_keys)  # type: ignore[attr-defined]
                    errors.append(str(e)[:200])

        t = threading.Thread(target=read)
        t.start()
        try:
            assert wait_for(lambda: counts["batches"] > 50, 10)
            os.kill(int(rep["pid"]), signal.SIGKILL)
            at_kill = counts["batches"]
            assert wait_for(lambda: counts["batches"] > at_kill + 300, 20), "mget batches stopped"
        finally:
            stop.set()
            t.join()
        assert counts["failed"] == 0, errors[:3]
        assert counts["wrong"] == 0
