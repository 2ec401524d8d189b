"""Against a real Redis Cluster started by scripts/redis-harness.sh (loopback
only: 127.0.1.x = cloud A, 127.0.2.x = cloud B): live CLUSTER SHARDS / SLOTS
bytes in RESP2 and RESP3 parse into the expected topology, routes agree with
the cluster and with redis-py's RedisCluster, keyslot agrees with CLUSTER KEYSLOT.

Skipped when redis-server is not installed, or with CR_PY_LIVE=0.
The cluster is conftest.py's session fixture (CR_PY_LIVE_PORT, default 7561;
CR_PY_LIVE_DIR).
"""

from __future__ import annotations

import random
import socket
from typing import Callable, Dict, List

import pytest
from conftest import live

import cloudroute

pytestmark = live


def command(*args: bytes) -> bytes:
    return b"*%d\r\n" % len(args) + b"".join(b"$%d\r\n%s\r\n" % (len(a), a) for a in args)


def read_reply(sock: socket.socket, complete: Callable[[bytes], None]) -> bytes:
    """Reads until the library's parser stops saying IncompleteError."""
    buf = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            raise EOFError("connection closed")
        buf += chunk
        try:
            complete(buf)
            return buf
        except cloudroute.IncompleteError:
            continue
        except cloudroute.ParseError:
            return buf  # complete, but not a topology reply (HELLO)


def fetch(seed: str, what: bytes, resp3: bool) -> bytes:
    host, port = seed.rsplit(":", 1)
    parse = cloudroute.parse_cluster_shards if what == b"SHARDS" else cloudroute.parse_cluster_slots
    with socket.create_connection((host, int(port)), timeout=10) as s:
        if resp3:
            s.sendall(command(b"HELLO", b"3"))
            assert read_reply(s, parse).startswith(b"%")
        s.sendall(command(b"CLUSTER", what))
        return read_reply(s, parse)


def ranges(text: str) -> List[tuple[int, int]]:
    out = []
    for part in text.split(","):
        a, _, b = part.partition("-")
        out.append((int(a), int(b or a)))
    return out


@pytest.mark.parametrize("what", [b"SHARDS", b"SLOTS"])
@pytest.mark.parametrize("resp3", [False, True])
def test_live_topology(cluster: Dict[str, str], what: bytes, resp3: bool) -> None:
    seed = cluster["SEEDS"].split(",")[0]
    raw = fetch(seed, what, resp3)
    if resp3 and what == b"SHARDS":
        assert b"%" in raw  # RESP3 maps
    topo = (cloudroute.parse_cluster_shards if what == b"SHARDS" else cloudroute.parse_cluster_slots)(raw)
    assert topo.shard_count == 3 and topo.node_count == 9
    for n in range(1, 4):
        master = cluster[f"SHARD{n}_MASTER"]
        shard = topo.slot_shard(int(cluster[f"SHARD{n}_KEY_SLOT"]))
        assert topo.shard_ranges(shard) == ranges(cluster[f"SHARD{n}_SLOTS"])
        nodes = {f"{x.host}:{x.port}": x for x in topo.shards[shard].nodes}
        assert nodes[master].role == cloudroute.Role.MASTER
        assert set(nodes) == {master, *cluster[f"SHARD{n}_REPLICAS"].split(",")}
        if what == b"SHARDS":
            assert topo.shard_id(shard) == cluster[f"SHARD{n}_MASTER_ID"]

    # Routes: writes to each key's master; reads stay in cloud A.
    cfg = cloudroute.Config(local_cidrs=[cluster["CLOUD_A_CIDR"]], policy="local-replicas-first")
    router = cloudroute.Router(cfg, topo)
    for n in range(1, 4):
        w = router.route_write(cluster[f"SHARD{n}_KEY"])
        assert f"{w.host}:{w.port}" == cluster[f"SHARD{n}_MASTER"]
    for route in router.route_reads([f"key:{i}" for i in range(300)]):
        assert route.host.startswith("127.0.1.") and route.tier == cloudroute.Tier.LOCAL


def test_live_agrees_with_redis_py(cluster: Dict[str, str]) -> None:
    import redis
    from redis.cluster import ClusterNode, RedisCluster

    seed_host, seed_port = cluster["SEEDS"].split(",")[0].rsplit(":", 1)
    topo = cloudroute.parse_cluster_shards(fetch(f"{seed_host}:{seed_port}", b"SHARDS", False))
    router = cloudroute.Router(topology=topo)
    rng = random.Random(5)
    keys = [rng.randbytes(rng.randrange(0, 24)) for _ in range(300)] + [b"{tag}x", b"a{b}c", b"{}"]

    single = redis.Redis(host=seed_host, port=int(seed_port), socket_timeout=10)
    try:
        for k in keys:
            assert cloudroute.keyslot(k) == single.execute_command("CLUSTER KEYSLOT", k)
    finally:
        single.close()

    rc = RedisCluster(startup_nodes=[ClusterNode(seed_host, int(seed_port))], socket_timeout=10)
    try:
        for k in keys:
            node = rc.get_node_from_key(k)
            w = router.route_write(k)
            assert (w.host, w.port) == (node.host, node.port)
        for n in range(1, 4):  # the harness wrote one key per shard
            assert rc.get(cluster[f"SHARD{n}_KEY"]) == cluster[f"SHARD{n}_VALUE"].encode()
    finally:
        rc.close()
