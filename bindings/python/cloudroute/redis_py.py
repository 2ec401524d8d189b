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

Failures: when a read's node chosen by libcloudroute fails to answer
(redis-py raises ConnectionError or TimeoutError), the failure is reported
to the Router (``Router.report_failure``: after ``failure_threshold``
consecutive failures its breaker skips the node for ``down_cooldown_ms``)
and the read is tried on the slot's next candidate at once; an answer is
reported as a success (closing the breaker). So a dead local replica costs
no failed read and stops being chosen long before redis-py's slot table
drops it. Writes are never re-sent. Pipelines (``pipeline()``) report the
same way: a read node whose dial fails is reported and the batch re-sent by
redis-py goes to the slot's next candidate; commands redis-py re-sends one by
one after a node failed mid-batch take the single-command path above; the
nodes of a pipeline that answered are reported as successes.
``cloudroute_stats()`` counts the reported failures and the reads a next
candidate answered.

Read your writes: in a pipeline, a read of a slot that an earlier command
of the same pipeline writes goes to redis-py's primary for the slot (redis-py
asks for each command's node in queue order; the write's slot is noted), so
``pipe.set(k, v).get(k)`` reads ``v``. Across calls, ``read_your_writes_ms``
(off by default) sends this client's reads of a slot to its primary for that
long after a write to it is routed: the window starts when the write is sent,
so size it above the write's round trip plus the replicas' usual lag. Cost:
those reads take the primary's path (a cross-cloud hop when it is remote); a
list of 16384 floats per client.

Reads and redis-py's own read arguments: ``load_balancing_strategy`` is
honoured as the libcloudroute policy and selection that read the same nodes
the same way (ROUND_ROBIN: 'local-spread' in turn; ROUND_ROBIN_REPLICAS:
'replica-only' in turn; RANDOM_REPLICA / RANDOM: the same at random) and
refused with ``config`` too (ValueError: both choose the node);
``read_from_replicas=False`` keeps reads on the primaries, as redis-py does
(refused with ``config`` too); ``read_from_replicas=True`` without a config
is redis-py's ROUND_ROBIN. Otherwise ``config`` places the reads, and the
adapter turns on redis-py's ROUND_ROBIN only so that redis-py sends READONLY
on every new connection (libcloudroute's choice replaces its order).

A node that refuses READONLY (an ACL user without ``+readonly``) keeps its
connections, usable for writes and master reads, and is read last as a
replica (``Router.set_replica_lagging``), since a replica answers reads
without READONLY with MOVED to its primary. Such a MOVED from a replica that
redis-py lists for the slot (READONLY not in effect, whatever the reason)
moves the read to the slot's next candidate at once and marks the replica
the same way until redis-py next re-reads the topology; a MOVED for a slot
that moved is redis-py's as before. ``cloudroute_stats()`` counts both
(``redirected``, ``readonly_refused``).

Tested against the newest redis-py of each major that has the extension
point — 5.x, 6.x, 7.x, 8.x (tests/python/run_redis_py.sh): redis-py's
``NodesManager.get_node_from_slot(slot, read_from_replicas=False,
[load_balancing_strategy=None,] server_type=None)`` and
``RedisCluster._execute_command(target_node, *args, **kwargs)``.
The asyncio twin is :mod:`cloudroute.redis_asyncio`.
"""

from __future__ import annotations

from typing import Any, Dict, Optional

import redis
from redis.cluster import ClusterPipeline, RedisCluster

from . import _native
from ._cluster_pipeline import CloudRoutePipeline, execute_read
from ._cluster_reads import PICK, Placement, install, read_placement, readonly_refusal, topology_from_slots_cache
from ._native import Router

try:
    from redis.cluster import LoadBalancingStrategy as _LoadBalancing  # redis-py >= 5.1
except ImportError:  # pragma: no cover - redis-py 5.0
    _LoadBalancing = None  # type: ignore[assignment,misc]

__all__ = ["CloudRouteCluster", "topology_from_slots_cache"]


class CloudRouteCluster(RedisCluster):
    """redis-py's RedisCluster with libcloudroute choosing the node of every read.

    Takes RedisCluster's arguments plus ``config``: a :class:`cloudroute.Config`
    (local CIDRs, location rules, zones, weights, policy; default policy
    'local': per locality tier nearest first, the master then replicas), and
    ``read_your_writes_ms`` (default 0, off): after this client routes a write
    to a slot, its reads of that slot go to the slot's primary for that many
    ms (see the module's "Read your writes").
    """

    def __init__(self, *args: Any, config: Optional[_native.Config] = None,
                 read_your_writes_ms: int = 0, **kwargs: Any) -> None:
        explicit = "read_from_replicas" in kwargs
        config, place = read_placement(kwargs, config, _LoadBalancing)
        # Before any connection: on_connect reports to it.
        self._cloudroute = Placement(config, read_your_writes_ms)
        super().__init__(*args, **kwargs)
        if place and not explicit:  # the caller's own value is kept, as redis-py keeps it
            # Read paths that test only this flag (mget_nonatomic's per-slot MGETs,
            # pipelines) ask get_node_from_slot for a read too.
            self.read_from_replicas = True
        install(self.nodes_manager, self._cloudroute)

    def on_connect(self, connection: Any) -> None:
        """redis-py's, but a READONLY refused (an ACL user without +readonly) leaves
        the connection usable and the node read last as a replica."""
        with readonly_refusal(connection, self._cloudroute.readonly_refused, awaited=False):
            super().on_connect(connection)  # type: ignore[no-untyped-call]

    def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        PICK.set(None)  # a pick left by a pipeline is not this command's
        return super().execute_command(*args, **kwargs)  # type: ignore[no-untyped-call]

    def _execute_command(self, target_node: Any, *args: Any, **kwargs: Any) -> Any:
        return execute_read(self, target_node, args, kwargs)

    def pipeline(self, *args: Any, **kwargs: Any) -> Any:
        """redis-py's ClusterPipeline, whose read nodes' failures reach the Router
        as single commands' do (:class:`cloudroute._cluster_pipeline.CloudRoutePipeline`)."""
        pipe = super().pipeline(*args, **kwargs)  # type: ignore[no-untyped-call]
        if type(pipe) is ClusterPipeline:
            pipe.__class__ = CloudRoutePipeline
            pipe._cloudroute = self._cloudroute  # type: ignore[attr-defined]
        return pipe

    @property
    def cloudroute_router(self) -> Router:
        """The Router reads are placed by (built from redis-py's slot table)."""
        self._cloudroute.ensure(self.nodes_manager.slots_cache)
        return self._cloudroute.router

    def cloudroute_stats(self) -> Dict[str, int]:
        """{'routed': reads placed by libcloudroute, 'fallbacks': reads left to redis-py,
        'failures': failed attempts reported to the Router, 'retried': reads a next
        candidate answered after a failure or a MOVED, 'redirected': reads moved on
        after a replica's MOVED to its own primary, 'readonly_refused': nodes that
        refused READONLY}."""
        return self._cloudroute.stats()


#: The redis-py version this module was imported with.
REDIS_PY_VERSION: str = redis.__version__
