"""The redis-py adapters behave like the clients they replace,
on the session's two-cloud harness cluster (tests/python/conftest.py):

- the caller's ``read_from_replicas=False`` keeps every read on the masters
  (no READONLY sent), and ``load_balancing_strategy`` reads the nodes redis-py
  would (every node, or replicas only, in turn or at random); combined with a
  ``config`` both are refused with a ValueError that says why;
- an ACL user without ``+readonly``: READONLY is refused, nothing fails, the
  replicas are read last (reads land on the masters) and writes work;
- a replica whose connection lost READONLY (``READWRITE`` sent on it) answers
  a read with MOVED to its own primary: the read moves to the slot's next
  candidate at once, the replica is read last until redis-py re-reads the
  topology.

Each in the synchronous (cloudroute.redis_py) and asyncio
(cloudroute.redis_asyncio) adapter.
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable, Dict, Iterator, List

import pytest
from conftest import live, replicated
from test_adapter_faults import get_calls, reset, shard_keys

import cloudroute

pytestmark = live

redis = pytest.importorskip("redis")
from redis.cluster import RedisCluster  # noqa: E402

from cloudroute import redis_asyncio, redis_py  # noqa: E402

try:
    from redis.cluster import LoadBalancingStrategy  # redis-py >= 5.1
except ImportError:  # pragma: no cover - redis-py 5.0
    LoadBalancingStrategy = None  # type: ignore[assignment,misc]

needs_strategies = pytest.mark.skipif(
    LoadBalancingStrategy is None, reason="redis-py < 5.1: no load_balancing_strategy"
)

USER, PASSWORD = "cr-no-readonly", "cr-no-readonly-pw"
PER_SHARD = 60


def addrs(env: Dict[str, str]) -> List[str]:
    return env["SEEDS"].split(",")


def masters(env: Dict[str, str]) -> List[str]:
    return [env[f"SHARD{n}_MASTER"] for n in (1, 2, 3)]


def replicas(env: Dict[str, str]) -> List[str]:
    return [a for n in (1, 2, 3) for a in env[f"SHARD{n}_REPLICAS"].split(",")]


def seed_host(env: Dict[str, str]) -> Dict[str, Any]:
    host, port = addrs(env)[0].split(":")
    return {"host": host, "port": int(port), "socket_timeout": 5}


def readonly_calls(env: Dict[str, str]) -> int:
    total = 0
    for a in addrs(env):
        host, port = a.split(":")
        with redis.Redis(host=host, port=int(port), socket_timeout=10) as r:
            total += int(r.info("commandstats").get("cmdstat_readonly", {}).get("calls", 0))
    return total


@pytest.fixture(scope="module")
def keys(cluster: Dict[str, str]) -> Iterator[List[str]]:
    """PER_SHARD keys of each shard, written and on every replica."""
    env = cluster
    ks = [k for n in (1, 2, 3) for k in shard_keys(env, n, PER_SHARD)]
    rc = RedisCluster(**seed_host(env))
    try:
        for k in ks:
            rc.set(k, k)
        for m in masters(env):
            assert replicated(m) == 2
        yield ks
        for k in ks:
            rc.delete(k)
    finally:
        rc.close()


def read_all(make: Callable[[], Any], asyncio_client: bool, ks: List[str]) -> Dict[str, int]:
    """Makes a client, reads ks through it (each answer checked), closes it;
    returns its cloudroute_stats()."""
    if not asyncio_client:
        rc = make()
        try:
            for k in ks:
                assert rc.get(k) == k.encode(), k
            return dict(rc.cloudroute_stats())
        finally:
            rc.close()

    async def run() -> Dict[str, int]:
        rc = make()
        try:
            await rc.initialize()
            for k in ks:
                assert await rc.get(k) == k.encode(), k
            return dict(rc.cloudroute_stats())
        finally:
            await rc.aclose()

    return asyncio.run(run())


ADAPTERS = [pytest.param(False, id="sync"), pytest.param(True, id="asyncio")]


def adapter(asyncio_client: bool) -> Any:
    return redis_asyncio.CloudRouteCluster if asyncio_client else redis_py.CloudRouteCluster


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.parametrize("asyncio_client", ADAPTERS)
def test_read_from_replicas_false_keeps_reads_on_masters(cluster: Dict[str, str], keys: List[str],
                                                         asyncio_client: bool) -> None:
    env = cluster
    reset(addrs(env))
    stats = read_all(lambda: adapter(asyncio_client)(read_from_replicas=False, **seed_host(env)),
                     asyncio_client, keys)
    calls = get_calls(addrs(env))
    assert sum(calls[m] for m in masters(env)) == len(keys), calls
    assert readonly_calls(env) == 0  # as redis-py: no READONLY without replica reads
    assert stats["routed"] == 0, stats
    with pytest.raises(ValueError, match="read_from_replicas=False"):
        adapter(asyncio_client)(read_from_replicas=False, config=cloudroute.Config(), **seed_host(env))


@needs_strategies
@pytest.mark.parametrize("asyncio_client", ADAPTERS)
@pytest.mark.parametrize("strategy,on_masters", [("ROUND_ROBIN", True), ("ROUND_ROBIN_REPLICAS", False),
                                                 ("RANDOM_REPLICA", False)])
def test_load_balancing_strategy_is_honoured(cluster: Dict[str, str], keys: List[str], asyncio_client: bool,
                                             strategy: str, on_masters: bool) -> None:
    env = cluster
    chosen = LoadBalancingStrategy[strategy]
    reset(addrs(env))
    stats = read_all(lambda: adapter(asyncio_client)(load_balancing_strategy=chosen, **seed_host(env)),
                     asyncio_client, keys)
    calls = get_calls(addrs(env))
    assert stats["routed"] == len(keys) and stats["fallbacks"] == 0, stats
    # Every replica serves reads (60 per shard: a node left out would be a
    # one-in-2^60 draw for the random one); masters only where redis-py reads them.
    assert all(calls[r] > 0 for r in replicas(env)), calls
    assert all((calls[m] > 0) == on_masters for m in masters(env)), calls
    if strategy.startswith("ROUND_ROBIN"):  # in turn: equal shares within a shard
        for n in (1, 2, 3):
            shard = ([env[f"SHARD{n}_MASTER"]] if on_masters else []) + env[f"SHARD{n}_REPLICAS"].split(",")
            assert max(calls[a] for a in shard) - min(calls[a] for a in shard) <= 1, (n, calls)
    with pytest.raises(ValueError, match=f"not both.*{strategy}"):
        adapter(asyncio_client)(load_balancing_strategy=chosen, config=cloudroute.Config(), **seed_host(env))


@pytest.fixture
def no_readonly_user(cluster: Dict[str, str]) -> Iterator[Dict[str, str]]:
    """An ACL user that may run every command but READONLY, on every node."""
    nodes = []
    for a in addrs(cluster):
        host, port = a.split(":")
        nodes.append(redis.Redis(host=host, port=int(port), socket_timeout=10))
    try:
        for r in nodes:
            r.execute_command("ACL", "SETUSER", USER, "reset", "on", f">{PASSWORD}", "~*", "&*", "+@all",
                              "-readonly")
        yield cluster
    finally:
        for r in nodes:
            r.execute_command("ACL", "DELUSER", USER)
            r.close()


@pytest.mark.parametrize("asyncio_client", ADAPTERS)
def test_readonly_refused_by_acl_reads_masters_and_nothing_fails(no_readonly_user: Dict[str, str],
                                                                 keys: List[str], asyncio_client: bool) -> None:
    env = no_readonly_user
    # Cloud A's replicas come first under 'local-replicas-first': every shard has one.
    cfg = cloudroute.Config(local_cidrs=[env["CLOUD_A_CIDR"]], policy="local-replicas-first")
    reset(addrs(env))
    make = lambda: adapter(asyncio_client)(username=USER, password=PASSWORD, config=cfg,  # noqa: E731
                                           **seed_host(env))
    stats = read_all(make, asyncio_client, keys)
    calls = get_calls(addrs(env))
    # No replica served a read (without READONLY it answers MOVED, which moved
    # the read on at once); every read was answered, by the masters.
    assert sum(calls[m] for m in masters(env)) == len(keys), calls
    assert stats["readonly_refused"] >= 3 and stats["redirected"] >= 1, stats
    # After the first refusals the replicas are read last: at most one MOVED
    # per replica read first (one in cloud A per shard) and client.
    assert stats["redirected"] <= 3, stats

    if not asyncio_client:  # writes work; once refused, a replica is read last
        rc = make()
        try:
            assert rc.set(keys[0], keys[0]) and rc.get(keys[0]) == keys[0].encode()
            first = rc.cloudroute_router.route_read_slot(cloudroute.keyslot(keys[0]))
            assert f"{first.host}:{first.port}" == env["SHARD1_MASTER"]
        finally:
            rc.close()


def replica_first(env: Dict[str, str]) -> Dict[str, Any]:
    """Shard 2's key and its read order under cloud A's 'local' policy: its
    cloud-A replica NODE6, then the master NODE4 (cloud B)."""
    return {"config": cloudroute.Config(local_cidrs=[env["CLOUD_A_CIDR"]]), **seed_host(env)}


def check_moved_on(env: Dict[str, str], calls: Dict[str, int], stats: Dict[str, int], router: cloudroute.Router,
                   slot: int, reads: int) -> None:
    # The first read went to NODE6 (which answered MOVED: not a call), then at
    # once to the next candidate, the master; so did every later read.
    assert calls[env["NODE6_ADDR"]] == 0 and calls[env["SHARD2_MASTER"]] == reads, calls
    assert stats["redirected"] == 1 and stats["retried"] == 1, stats
    assert f"{router.route_read_slot(slot).host}:{router.route_read_slot(slot).port}" == env["SHARD2_MASTER"]


def test_sync_replica_moved_to_its_primary_moves_the_read_on(cluster: Dict[str, str], keys: List[str]) -> None:
    env = cluster
    ks = shard_keys(env, 2, PER_SHARD)
    slot = cloudroute.keyslot(ks[0])
    rc = redis_py.CloudRouteCluster(**replica_first(env))
    try:
        assert rc.get(ks[0]) == ks[0].encode()  # served by NODE6 (a READONLY connection)
        node6 = rc.get_node(node_name=env["NODE6_ADDR"])
        # The replica's only connection loses READONLY: it now answers MOVED to NODE4.
        rc.get_redis_connection(node6).execute_command("READWRITE")
        reset(addrs(env))
        for k in ks:
            assert rc.get(k) == k.encode(), k
        check_moved_on(env, get_calls(addrs(env)), rc.cloudroute_stats(), rc.cloudroute_router, slot, len(ks))
        # Until redis-py re-reads the topology: then NODE6 is read first again.
        rc.nodes_manager.initialize()
        again = rc.cloudroute_router.route_read_slot(slot)
        assert f"{again.host}:{again.port}" == env["NODE6_ADDR"]
    finally:
        rc.close()


def test_asyncio_replica_moved_to_its_primary_moves_the_read_on(cluster: Dict[str, str], keys: List[str]) -> None:
    env = cluster
    ks = shard_keys(env, 2, PER_SHARD)
    slot = cloudroute.keyslot(ks[0])

    async def run() -> None:
        rc = redis_asyncio.CloudRouteCluster(**replica_first(env))
        try:
            await rc.initialize()
            assert await rc.get(ks[0]) == ks[0].encode()
            host, port = env["NODE6_ADDR"].split(":")
            await rc.get_node(host=host, port=int(port)).execute_command("READWRITE")
            reset(addrs(env))
            for k in ks:
                assert await rc.get(k) == k.encode(), k
            check_moved_on(env, get_calls(addrs(env)), rc.cloudroute_stats(), rc.cloudroute_router, slot, len(ks))
        finally:
            await rc.aclose()

    asyncio.run(run())
