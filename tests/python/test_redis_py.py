"""cloudroute.redis_py.CloudRouteCluster (redis-py's RedisCluster with reads
placed by libcloudroute) against the two-cloud harness cluster: with the local
CIDR 127.0.1.0/24 every read lands in cloud A (INFO commandstats of each node),
while a vanilla RedisCluster reads from the masters in both clouds; results
are redis-py's own; writes still go to the masters.
"""

from __future__ import annotations

import random
from typing import Dict, Iterator, List

import pytest
from conftest import live, replicated

import cloudroute

pytestmark = live

redis = pytest.importorskip("redis")
from redis.cluster import ClusterNode, RedisCluster  # noqa: E402

from cloudroute.redis_py import CloudRouteCluster, topology_from_slots_cache  # noqa: E402

KEYS = [f"rp:{i}" for i in range(300)]


def nodes(cluster: Dict[str, str]) -> List[str]:
    return cluster["SEEDS"].split(",")


def reset_stats(cluster: Dict[str, str]) -> None:
    for addr in nodes(cluster):
        host, port = addr.split(":")
        with redis.Redis(host=host, port=int(port)) as r:
            r.config_resetstat()


def calls(cluster: Dict[str, str], cmd: str) -> Dict[str, int]:
    """cmdstat_<cmd> calls per node."""
    out = {}
    for addr in nodes(cluster):
        host, port = addr.split(":")
        with redis.Redis(host=host, port=int(port)) as r:
            stats = r.info("commandstats")
        out[addr] = int(stats.get(f"cmdstat_{cmd}", {}).get("calls", 0))
    return out


@pytest.fixture(scope="module")
def seeded(cluster: Dict[str, str]) -> Iterator[None]:
    host, port = nodes(cluster)[0].split(":")
    rc = RedisCluster(host=host, port=int(port))
    try:
        for k in KEYS:
            rc.set(k, k)
        for n in (1, 2, 3):  # replicas hold every key before they serve reads
            assert replicated(cluster[f"SHARD{n}_MASTER"]) == 2
        yield
        for k in KEYS:
            rc.delete(k)
    finally:
        rc.close()


def make(cluster: Dict[str, str], **kw: object) -> CloudRouteCluster:
    host, port = nodes(cluster)[0].split(":")
    cfg = cloudroute.Config(local_cidrs=[cluster["CLOUD_A_CIDR"]])
    return CloudRouteCluster(host=host, port=int(port), config=cfg, **kw)  # type: ignore[arg-type]


def test_reads_land_in_cloud_a_vanilla_reads_hit_masters(cluster: Dict[str, str], seeded: None) -> None:
    rc = make(cluster)
    try:
        reset_stats(cluster)
        for k in KEYS:
            assert rc.get(k) == k.encode()
        ours = calls(cluster, "get")
        assert sum(ours.values()) == len(KEYS)
        assert all(n == 0 for a, n in ours.items() if a.startswith("127.0.2.")), ours
        assert ours[cluster["NODE6_ADDR"]] > 0  # shard 2 (master in B): its replica in A
        st = rc.cloudroute_stats()
        assert (st["routed"], st["fallbacks"], st["failures"], st["retried"]) == (len(KEYS), 0, 0, 0)
        # Writes are untouched: the master, even in cloud B.
        reset_stats(cluster)
        rc.set(cluster["SHARD2_KEY"], cluster["SHARD2_VALUE"])
        assert calls(cluster, "set")[cluster["SHARD2_MASTER"]] == 1
    finally:
        rc.close()

    vanilla = RedisCluster(host=nodes(cluster)[0].split(":")[0], port=int(nodes(cluster)[0].split(":")[1]))
    try:
        reset_stats(cluster)
        for k in KEYS:
            assert vanilla.get(k) == k.encode()
        theirs = calls(cluster, "get")
        masters = {cluster[f"SHARD{n}_MASTER"] for n in (1, 2, 3)}
        assert {a for a, n in theirs.items() if n > 0} == masters  # both clouds
        assert theirs[cluster["SHARD2_MASTER"]] > 0
    finally:
        vanilla.close()


def test_same_results_as_redis_py(cluster: Dict[str, str], seeded: None) -> None:
    rc = make(cluster)
    try:
        reset_stats(cluster)
        rc.hset("rp:{h}", mapping={"a": "1", "b": "2"})
        rc.rpush("rp:{h}l", "x", "y")
        redis_wait(cluster)
        assert rc.hgetall("rp:{h}") == {b"a": b"1", b"b": b"2"}
        assert rc.hget("rp:{h}", "a") == b"1"
        assert rc.lrange("rp:{h}l", 0, -1) == [b"x", b"y"]
        assert rc.exists("rp:1") == 1 and rc.ttl("rp:1") == -1 and rc.type("rp:1") == b"string"
        assert rc.mget("rp:{h}a", "rp:{h}b") == [None, None]
        assert rc.mget_nonatomic(KEYS[:50]) == [k.encode() for k in KEYS[:50]]
        pipe = rc.pipeline()
        for k in KEYS[:10]:
            pipe.get(k)
        assert pipe.execute() == [k.encode() for k in KEYS[:10]]
        st = rc.cloudroute_stats()
        assert st["routed"] >= 10 and st["fallbacks"] == 0
        got = calls(cluster, "get")
        assert all(n == 0 for a, n in got.items() if a.startswith("127.0.2.")), got
        rc.delete("rp:{h}", "rp:{h}l")
    finally:
        rc.close()


def redis_wait(cluster: Dict[str, str]) -> None:
    for n in (1, 2, 3):
        assert replicated(cluster[f"SHARD{n}_MASTER"]) == 2


def test_router_matches_redis_py_topology(cluster: Dict[str, str]) -> None:
    rc = make(cluster)
    try:
        router = rc.cloudroute_router
        rng = random.Random(3)
        for _ in range(300):
            k = rng.randbytes(rng.randrange(1, 20))
            primary = rc.get_node_from_key(k)
            w = router.route_write(k)
            assert (w.host, w.port) == (primary.host, primary.port)
            r = router.route_read_slot(cloudroute.keyslot(k))
            assert r.host.startswith("127.0.1.") and r.tier == cloudroute.Tier.LOCAL
        topo = topology_from_slots_cache(rc.nodes_manager.slots_cache)
        assert topo.shard_count == 3 and topo.node_count == 9
        assert sorted(topo.shard_ranges(topo.slot_shard(0))) == [(0, 3096), (4078, 5460)]
    finally:
        rc.close()


@pytest.mark.filterwarnings("ignore:Call to '__init__' function with deprecated usage:DeprecationWarning")
def test_startup_nodes_and_explicit_read_from_replicas(cluster: Dict[str, str], seeded: None) -> None:
    host, port = nodes(cluster)[3].split(":")
    rc = CloudRouteCluster(startup_nodes=[ClusterNode(host, int(port))], read_from_replicas=True,
                           config=cloudroute.Config(local_cidrs=[cluster["CLOUD_B_CIDR"]]))
    try:
        reset_stats(cluster)
        for k in KEYS[:100]:
            assert rc.get(k) == k.encode()
        got = calls(cluster, "get")
        assert all(n == 0 for a, n in got.items() if a.startswith("127.0.1.")), got  # cloud B now
    finally:
        rc.close()
