"""cloudroute for redis-py users: a RedisCluster whose reads are cloud-aware.

One-line change::

    from redis.cluster import RedisCluster
    rc = RedisCluster(host="10.0.0.1", port=6379)
    # becomes
    from cloudroute.redis_py import CloudRouteCluster
    rc = CloudRouteCluster(host="10.0.0.1", port=6379,
                           config=cloudroute.Config(local_cidrs=["10.0.0.0/16"]))

Everything else is redis-py's: connections, pools, MOVED/ASK handling,
retries, pipelines, pub/sub, response callbacks. Only the choice of the node
for a *read* changes: redis-py asks its NodesManager for "a node of slot S"
(``get_node_from_slot``) and passes whether the command is a read; for reads
the node becomes ``Router.route_read_slot(S)`` — libcloudroute's ordered,
locality-aware candidate choice (policy, CIDR/zone rules, weights) —
computed on a Router built from redis-py's own slot table (``slots_cache``)
and rebuilt whenever redis-py re-reads the topology. The chosen node is
always one redis-py itself lists for the slot; otherwise (a slot patched
by MOVED, a routing error) redis-py's own choice is used. Writes are
untouched: redis-py sends them to the slot's primary.

Commands covered: every command redis-py classifies as a read
(``redis.commands.READ_COMMANDS``: GET, MGET (same-slot), EXISTS, TTL/PTTL, TYPE, STRLEN, GETRANGE,
HGET/HGETALL/HMGET/HKEYS/HVALS/HLEN/HEXISTS, LRANGE/LINDEX/LLEN,
SMEMBERS/SISMEMBER/SCARD, ZRANGE/ZSCORE/ZCARD/ZRANK..., XRANGE/XLEN...) that
targets the slot of its keys, also inside pipelines and the per-slot MGETs
of ``mget_nonatomic``. Commands sent to all nodes or a random node
(KEYS, SCAN, DBSIZE, RANDOMKEY...) keep redis-py's behaviour.

Replica connections need READONLY: unless the caller configured
``read_from_replicas`` or ``load_balancing_strategy`` (redis-py >= 5.1),
CloudRouteCluster enables the latter (ROUND_ROBIN; its order is then
replaced by libcloudroute's choice) so that redis-py sends READONLY on
every new connection.

Tested with the installed redis-py (see README: 8.1.0); written against
the extension point shared by redis-py 5.x, 6.x and 8.x:
``NodesManager.get_node_from_slot(slot, read_from_replicas=False,
[load_balancing_strategy=None,] server_type=None)``.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Dict, List, Optional, Tuple

import redis
from redis.cluster import ClusterNode, NodesManager, RedisCluster

from . import _native
from ._native import Router
from .errors import Error

__all__ = ["CloudRouteCluster", "topology_from_slots_cache"]

_SLOTS = 16384
_RESYNC_GAP_S = 0.5  # at most one rebuild per gap after a miss (MOVED patches)


def _addr(node: ClusterNode) -> str:
    host = str(node.host)
    return f"[{host}]:{node.port}" if ":" in host else f"{host}:{node.port}"


def topology_from_slots_cache(slots_cache: Dict[int, List[ClusterNode]]) -> _native.Topology:
    """A cloudroute Topology of redis-py's slot table (slot -> [primary, replicas...])."""
    shards: Dict[Tuple[str, ...], List[Tuple[int, int]]] = {}
    run_key: Optional[Tuple[str, ...]] = None
    run_start = 0
    for slot in range(_SLOTS + 1):
        nodes = slots_cache.get(slot) if slot < _SLOTS else None
        key = tuple(_addr(n) for n in nodes) if nodes else None
        if key != run_key:
            if run_key is not None:
                shards.setdefault(run_key, []).append((run_start, slot - 1))
            run_key, run_start = key, slot
    lines = []
    for key, ranges in shards.items():
        slots = ",".join(f"{a}-{b}" if a != b else str(a) for a, b in ranges)
        line = f"shard slots={slots} master={key[0]}"
        if len(key) > 1:
            line += " replicas=" + ",".join(key[1:])
        lines.append(line)
    return _native.parse_static("\n".join(lines))


class _Sync:
    """The Router of one CloudRouteCluster, kept in step with redis-py's slot table."""

    def __init__(self, config: Optional[_native.Config]) -> None:
        self.router = Router(config)
        self.synced: Optional[Dict[int, List[ClusterNode]]] = None
        self.last_build = 0.0
        self.lock = threading.Lock()
        self.routed = 0  # reads whose node libcloudroute chose
        self.fallbacks = 0  # reads left to redis-py's choice

    def ensure(self, cache: Dict[int, List[ClusterNode]], force: bool = False) -> bool:
        if cache is self.synced and not force:
            return True
        with self.lock:
            if cache is self.synced and not force:
                return True
            now = time.monotonic()
            if force and now - self.last_build < _RESYNC_GAP_S:
                return False
            try:
                self.router.update(topology_from_slots_cache(cache))
            except Error:
                return False
            self.synced, self.last_build = cache, now
            return True


def _pick(cache: Dict[int, List[ClusterNode]], slot: int, router: Router) -> Optional[ClusterNode]:
    try:
        route = router.route_read_slot(slot)
    except Error:
        return None
    for node in cache.get(slot) or ():
        if node.port == route.port and node.host == route.host:
            return node
    return None


class _CloudRouteNodesManager(NodesManager):
    """redis-py's NodesManager, with reads placed by libcloudroute (see the module doc)."""

    _cloudroute: _Sync

    def get_node_from_slot(self, slot: int, *args: Any, **kwargs: Any) -> ClusterNode:
        # 5.0: (slot, read_from_replicas, server_type); 5.1+: (slot,
        # read_from_replicas, load_balancing_strategy, server_type).
        read = bool(args[0]) if args else bool(kwargs.get("read_from_replicas"))
        server_type = kwargs.get("server_type")
        for a in args[1:]:
            if isinstance(a, str):
                server_type = a
            elif a is not None:
                read = True  # a load-balancing strategy: redis-py passes one for reads only
        if kwargs.get("load_balancing_strategy") is not None:
            read = True
        if read and server_type != "primary":
            sync = self._cloudroute
            cache = self.slots_cache
            if sync.ensure(cache):
                node = _pick(cache, slot, sync.router)
                if node is None and sync.ensure(cache, force=True):
                    node = _pick(cache, slot, sync.router)
                if node is not None:
                    sync.routed += 1
                    return node
            sync.fallbacks += 1
        return super().get_node_from_slot(slot, *args, **kwargs)


_MANAGERS: Dict[type, type] = {}


def _manager_class(base: type) -> type:
    cls = _MANAGERS.get(base)
    if cls is None:
        cls = _CloudRouteNodesManager if base is NodesManager else type(
            "CloudRoute" + base.__name__, (_CloudRouteNodesManager, base), {}
        )
        _MANAGERS[base] = cls
    return cls


class CloudRouteCluster(RedisCluster):
    """redis-py's RedisCluster with libcloudroute choosing the node of every read.

    Takes RedisCluster's arguments plus ``config``: a :class:`cloudroute.Config`
    (local CIDRs, location rules, zones, weights, policy; default policy
    'local': per locality tier nearest first, the master then replicas).
    """

    def __init__(self, *args: Any, config: Optional[_native.Config] = None, **kwargs: Any) -> None:
        if not kwargs.get("read_from_replicas") and kwargs.get("load_balancing_strategy") is None:
            try:
                from redis.cluster import LoadBalancingStrategy  # redis-py >= 5.1
            except ImportError:  # pragma: no cover - redis-py 5.0
                kwargs["read_from_replicas"] = True
            else:
                kwargs["load_balancing_strategy"] = LoadBalancingStrategy.ROUND_ROBIN
        super().__init__(*args, **kwargs)
        # Read paths that test only this flag (mget_nonatomic's per-slot MGETs,
        # pipelines) ask get_node_from_slot for a read too.
        self.read_from_replicas = True
        sync = _Sync(config)
        manager = self.nodes_manager
        manager.__class__ = _manager_class(type(manager))
        manager._cloudroute = sync  # type: ignore[attr-defined]
        self._cloudroute = sync

    @property
    def cloudroute_router(self) -> Router:
        """The Router reads are placed by (built from redis-py's slot table)."""
        self._cloudroute.ensure(self.nodes_manager.slots_cache)
        return self._cloudroute.router

    def cloudroute_stats(self) -> Dict[str, int]:
        """{'routed': reads placed by libcloudroute, 'fallbacks': reads left to redis-py}."""
        return {"routed": self._cloudroute.routed, "fallbacks": self._cloudroute.fallbacks}


#: The redis-py version this module was imported with.
REDIS_PY_VERSION: str = redis.__version__
