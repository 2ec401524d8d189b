"""cloudroute.SentinelClient against a real Sentinel setup of its own
(scripts/redis-harness.sh sentinel, ports 8121-8126 and 8131-8133: group0's
master in cloud A 127.0.1.x, group1's in cloud B 127.0.2.x, each with a
replica in both clouds): writes on each key's group's master, reads kept in
cloud A, statistics, the borrowed ShardGroups, lifecycle and bad input, ACL
users for the sentinels and the data nodes; then
the cluster client's failure tests on the engine they share (these damage the
setup, so they run last): a local replica stalled (SIGSTOP) under hedged
reads, then killed, and a SENTINEL FAILOVER under reads and writes.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from typing import Dict, Iterator, List

import pytest
from conftest import harness, live, replicated, wait_until

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
        assert replicated(sentinel[f"GROUP{g}_MASTER"]) == 2
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
        assert replicated(sentinel[f"GROUP{g}_MASTER"]) == 2
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


def test_stats_and_refresh(client: SentinelClient, sentinel: Dict[str, str]) -> None:
    client.refresh()
    st = client.stats()
    assert st.reads >= len(KEYS) and st.writes >= len(KEYS)
    assert st.asks >= 2 and st.ask_failures == 0 and st.server_errors >= 1
    assert isinstance(st.subscribed, bool)
    assert st == tuple(st) and len(st) == 18
    assert st.connections >= 1 and st.hedges == 0 and st.poisoned == 0
    assert 'cloudroute_reads_total' in client.metrics_text()
    assert repr(client) == "<cloudroute.SentinelClient groups=2>"
    # Per instance: only data nodes of the groups, every command counted once.
    ns = client.node_stats()
    members = set(data_nodes(sentinel))
    assert ns and all(f"{n.host}:{n.port}" in members for n in ns), ns
    assert sum(n.reads + n.writes for n in ns) == st.reads + st.writes


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
        _ = c.groups


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
    with pytest.raises(cloudroute.InvalidArgumentError, match="hedge_mode"):
        SentinelClient(env["SENTINELS"], names(env), Ring.jedis(names(env)), hedge_mode="sometimes")
    with pytest.raises(cloudroute.InvalidArgumentError, match="hedge_delay_ms"):
        SentinelClient(env["SENTINELS"], names(env), Ring.jedis(names(env)), hedge_mode="fixed",
                       hedge_delay_ms=0)
    with pytest.raises(cloudroute.InvalidArgumentError, match="ca.pem"):
        SentinelClient(env["SENTINELS"], names(env), Ring.jedis(names(env)), tls=True,
                       tls_ca_file="/nonexistent/ca.pem")


def test_acl_users_for_the_sentinels_and_the_data_nodes(sentinel: Dict[str, str]) -> None:
    """An ACL user on the sentinels and another on the data nodes: the client asks and
    subscribes as the first and serves commands as the second (whose key pattern holds);
    a wrong password of either is refused without appearing in the error."""
    env = sentinel
    sentinels = [env[f"SENTINEL{n}_ADDR"] for n in range(1, int(env["SENTINEL_COUNT"]) + 1)]
    for a in sentinels:
        node(a).execute_command("ACL", "SETUSER", "cr-sentinel", "on", ">sentinel-secret", "allchannels",
                                "+@all")
    for a in data_nodes(env):
        node(a).execute_command("ACL", "SETUSER", "cr-app", "on", ">app-secret", "~acl:*", "+@all")

    def make_as(sentinel_password: str, password: str) -> SentinelClient:
        return SentinelClient(env["SENTINELS"], names(env), Ring.jedis(names(env)),
                              Config(local_cidrs=[env["CLOUD_A_CIDR"]]), command_timeout_ms=3000,
                              sentinel_username="cr-sentinel", sentinel_password=sentinel_password,
                              username="cr-app", password=password)

    try:
        with make_as("sentinel-secret", "app-secret") as c:
            keys = ["acl:1", "acl:2", "acl:3"]
            for k in keys:
                assert c.set(k, "acl") is True
            assert wait_until(lambda: all(c.get(k) == b"acl" for k in keys), 5)  # read on replicas
            with pytest.raises(cloudroute.ResponseError, match="NOPERM"):
                c.set("other:key", "x")
            assert wait_until(lambda: c.stats().subscribed, 5), "the subscription did not authenticate"
        with pytest.raises(cloudroute.Error) as refused:
            make_as("wrong-sentinel-secret", "app-secret")
        assert "wrong-sentinel-secret" not in str(refused.value)
        with make_as("sentinel-secret", "wrong-app-secret") as c:  # the sentinels' user is right
            with pytest.raises(cloudroute.Error) as refused:
                c.set("acl:1", "x")
            assert "wrong-app-secret" not in str(refused.value)
            with pytest.raises(cloudroute.Error):
                c.get("acl:1")
    finally:
        for a in sentinels:
            node(a).execute_command("ACL", "DELUSER", "cr-sentinel")
        for a in data_nodes(env):
            node(a).execute_command("ACL", "DELUSER", "cr-app")


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


def local_replica(env: Dict[str, str], group: int) -> Dict[str, str]:
    for n in range(1, int(env["NODE_COUNT"]) + 1):
        if (env[f"NODE{n}_GROUP"] == f"group{group}" and env[f"NODE{n}_ROLE"] == "replica"
                and env[f"NODE{n}_CLOUD"] == "A"):
            return {"addr": env[f"NODE{n}_ADDR"], "pid": env[f"NODE{n}_PID"]}
    raise AssertionError(f"no local replica of group{group}")


class Reader:
    """Reads KEYS of one group in a loop on a thread: counts, failures, the slowest."""

    def __init__(self, client: SentinelClient, keys: List[str]) -> None:
        self.client, self.keys = client, keys
        self.ok = self.failed = 0
        self.max_s = 0.0
        self.errors: List[str] = []
        self.stop = threading.Event()
        self.t = threading.Thread(target=self.run)
        self.t.start()

    def run(self) -> None:
        i = 0
        while not self.stop.is_set():
            k = self.keys[i % len(self.keys)]
            i += 1
            t0 = time.monotonic()
            try:
                assert self.client.get(k) == k.encode()
                self.ok += 1
            except Exception as e:  # noqa: BLE001 - counted and shown
                self.failed += 1
                self.errors.append(f"{k}: {e!r}")
            self.max_s = max(self.max_s, time.monotonic() - t0)

    def close(self) -> None:
        self.stop.set()
        self.t.join()


def test_stalled_then_killed_local_replica_costs_no_read(sentinel: Dict[str, str]) -> None:
    env = sentinel
    rep = local_replica(env, 1)
    with SentinelClient(env["SENTINELS"], names(env), Ring.jedis(names(env)),
                        Config(local_cidrs=[env["CLOUD_A_CIDR"]]), command_timeout_ms=500,
                        hedge_mode="fixed", hedge_delay_ms=20, hedge_budget_percent=100) as c:
        keys = [k for k in KEYS if c.locate(k) == 1]
        for k in keys:
            c.set(k, k)
        assert replicated(env["GROUP1_MASTER"]) == 2
        reader = Reader(c, keys)
        try:
            assert wait_until(lambda: reader.ok > 50, 10)
            os.kill(int(rep["pid"]), signal.SIGSTOP)
            try:
                before = reader.ok
                assert wait_until(lambda: reader.ok > before + 300, 10), "reads stalled"
                stalled_max = reader.max_s
                st = c.stats()
            finally:
                os.kill(int(rep["pid"]), signal.SIGCONT)
            assert reader.failed == 0, reader.errors[:3]
            assert stalled_max < 0.25, f"a read took {stalled_max * 1000:.0f} ms"
            assert st.hedges_won >= 1
            os.kill(int(rep["pid"]), signal.SIGKILL)
            before = reader.ok
            assert wait_until(lambda: reader.ok > before + 300, 10), "reads stopped"
        finally:
            reader.close()
        assert reader.failed == 0, reader.errors[:3]
        assert f'node="{rep["addr"]}"' in c.metrics_text()


def test_failover_under_reads_and_writes(sentinel: Dict[str, str]) -> None:
    env = sentinel
    with SentinelClient(env["SENTINELS"], names(env), Ring.jedis(names(env)),
                        Config(local_cidrs=[env["CLOUD_A_CIDR"]]), command_timeout_ms=500) as c:
        keys = [k for k in KEYS if c.locate(k) == 0]
        wkeys = [f"scw:{i}" for i in range(400) if c.locate(f"scw:{i}") == 0][:20]
        for k in keys:
            c.set(k, k)
        assert replicated(env["GROUP0_MASTER"]) == 2
        reader = Reader(c, keys)
        acked: Dict[str, str] = {}
        counts = {"acked": 0, "refused": 0}
        stop = threading.Event()

        def write() -> None:
            i = 0
            while not stop.is_set():
                k, v = wkeys[i % len(wkeys)], f"w:{i}"
                i += 1
                try:
                    c.set(k, v)
                    acked[k] = v
                    counts["acked"] += 1
                except cloudroute.Error:
                    counts["refused"] += 1

        writer = threading.Thread(target=write)
        writer.start()
        try:
            assert wait_until(lambda: counts["acked"] > 50, 10)
            old = env["GROUP0_MASTER"]
            host, port = env["SENTINEL1_ADDR"].split(":")
            with redis.Redis(host=host, port=int(port), socket_timeout=5) as s:
                s.execute_command("SENTINEL", "FAILOVER", "group0")
            assert wait_until(lambda: (lambda w: f"{w.host}:{w.port}" != old)(c.route_write(wkeys[0])), 30)
            at_switch = counts["acked"]
            assert wait_until(lambda: counts["acked"] > at_switch + 5 * len(wkeys), 15), \
                "writes did not resume on the new master"
        finally:
            stop.set()
            writer.join()
            reader.close()
        assert reader.failed == 0, reader.errors[:3]
        for k, v in acked.items():
            assert c.execute_command("GET", k) == v.encode(), f"acknowledged write to {k} lost"
