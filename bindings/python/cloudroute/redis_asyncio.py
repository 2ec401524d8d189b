"""cloudroute for redis-py's asyncio cluster client: reads placed by libcloudroute.

One-line change, as :mod:`cloudroute.redis_py` for the synchronous client::

    from redis.asyncio.cluster import RedisCluster
    rc = RedisCluster(host="10.0.0.1", port=6379)
    # becomes
    from cloudroute.redis_asyncio import CloudRouteCluster
    rc = CloudRouteCluster(host="10.0.0.1", port=6379,
                           config=cloudroute.Config(local_cidrs=["10.0.0.0/16"]))

Everything else is redis.asyncio's (connections, MOVED/ASK, retries,
pipelines, pub/sub). Reads that target the slot of their keys go to the node
``Router.route_read_slot`` picks on a Router built from redis-py's slot table;
a chosen node that fails to answer (ConnectionError, TimeoutError) is
reported to the Router's breaker and the read tried on the slot's next
candidate at once; answers are reported as successes. Pipelines report the
same way (a failed node's reads are asked again on the next candidates, one
attempt per node: an all-down pipeline fails as fast as redis.asyncio's).
In a pipeline a read of a slot an earlier command of it writes goes to the
primary, and ``read_your_writes_ms`` works as in :mod:`cloudroute.redis_py`
(read your writes). redis-py's read arguments (``read_from_replicas``,
``load_balancing_strategy``), a refused READONLY and a replica's MOVED to its
own primary are handled as in :mod:`cloudroute.redis_py`.
Writes are untouched and never re-sent. The choice is pure computation (no await), so the event
loop is never blocked on I/O by libcloudroute.

Tested against the newest redis-py of each major 5.x, 6.x, 7.x and 8.x
(tests/python/run_redis_py.sh): ``NodesManager.get_node_from_slot`` and
``RedisCluster._execute_command(target_node, *args, **kwargs)`` of
``redis.asyncio.cluster``.
"""

from __future__ import annotations

from typing import Any, Dict, Optional

import redis
from redis.asyncio.cluster import ClusterPipeline, RedisCluster
from redis.commands import READ_COMMANDS
from redis.exceptions import ConnectionError, TimeoutError

from . import _native
from ._cluster_pipeline_async import CloudRoutePipeline
from ._cluster_reads import INFLIGHT, PICK, Attempts, Placement, consume_pick, install, read_placement, readonly_refusal
from ._native import Router

try:
    from redis.cluster import LoadBalancingStrategy as _LoadBalancing  # redis-py >= 5.1
except ImportError:  # pragma: no cover - redis-py 5.0
    _LoadBalancing = None  # type: ignore[assignment,misc]

__all__ = ["CloudRouteCluster"]


class CloudRouteCluster(RedisCluster):
    """redis.asyncio's RedisCluster with libcloudroute choosing the node of every read.

    Takes RedisCluster's arguments plus ``config`` (a :class:`cloudroute.Config`)
    and ``read_your_writes_ms`` (as :class:`cloudroute.redis_py.CloudRouteCluster`;
    a pipeline's read of a slot it wrote earlier always goes to the primary).
    Use it as redis.asyncio's: ``async with CloudRouteCluster(...) as rc`` or
    ``await rc.initialize()`` … ``await rc.aclose()``.
    """

    def __init__(self, *args: Any, config: Optional[_native.Config] = None,
                 read_your_writes_ms: int = 0, **kwargs: Any) -> None:
        explicit = "read_from_replicas" in kwargs
        config, place = read_placement(kwargs, config, _LoadBalancing)
        # Before any connection: on_connect reports to it.
        self._cloudroute = Placement(config, read_your_writes_ms)
        super().__init__(*args, **kwargs)
        if place and not explicit:  # the caller's own value is kept, as redis-py keeps it
            # Read paths that test only this flag (pipelines) ask for a read node too.
            self.read_from_replicas = True
        install(self.nodes_manager, self._cloudroute)

    async def on_connect(self, connection: Any) -> None:
        """redis.asyncio's, but a READONLY refused (an ACL user without +readonly)
        leaves the connection usable and the node read last as a replica."""
        with readonly_refusal(connection, self._cloudroute.readonly_refused, awaited=True):
            await super().on_connect(connection)

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        PICK.set(None)  # a pick left by a pipeline is not this command's
        return await super().execute_command(*args, **kwargs)

    async def _execute_command(self, target_node: Any, *args: Any, **kwargs: Any) -> Any:
        pick = consume_pick(target_node, args[0] if args else None, READ_COMMANDS)
        if pick is None:
            return await super()._execute_command(target_node, *args, **kwargs)
        return await self._send_read(Attempts(self._cloudroute, pick), args, kwargs)

    async def _send_read(self, attempts: Attempts, args: Any, kwargs: Any, *, in_pipeline: bool = False) -> Any:
        """A read libcloudroute placed, sent to attempts' node, then to the slot's next
        candidates while nodes fail to answer, each outcome reported to the Router;
        one attempt per node, without redis-py's retry loop (execute_command's).

        in_pipeline: a pipeline's lost read, asked again while the pipeline's other
        nodes are still in flight. It goes to the node itself, not through
        ``RedisCluster._execute_command``, whose answer to a ConnectionError is to
        close every connection of every node (aclose) — under the pipeline's other
        reads, one of which then found its connection gone mid-handshake
        (``AttributeError: 'NoneType' object has no attribute 'writelines'``,
        redis-py 6.4). A MOVED or ASK is left as the command's result, and
        redis.asyncio's pipeline sends it again once its nodes have answered, as
        for its own; a connection that failed is closed by redis-py itself
        (Connection.read_response disconnects on a timeout or socket error)."""
        token = INFLIGHT.set(attempts)  # redis-py's MOVED re-placement sees it (Placement.choose)
        try:
            while True:
                try:
                    if in_pipeline:
                        response = await attempts.node.execute_command(*args, **kwargs)
                    else:
                        response = await RedisCluster._execute_command(self, attempts.node, *args, **kwargs)
                except (ConnectionError, TimeoutError) as e:
                    attempts.failed(e, self.nodes_manager.slots_cache)
                    continue
                return attempts.answered(response)
        finally:
            INFLIGHT.reset(token)

    def pipeline(self, *args: Any, **kwargs: Any) -> Any:
        """redis.asyncio's ClusterPipeline, whose read nodes' failures reach the Router
        (:class:`cloudroute._cluster_pipeline_async.CloudRoutePipeline`)."""
        pipe = super().pipeline(*args, **kwargs)
        if type(pipe) is ClusterPipeline:
            pipe.__class__ = CloudRoutePipeline  # type: ignore[type-abstract]
        return pipe

    @property
    def cloudroute_router(self) -> Router:
        """The Router reads are placed by (built from redis-py's slot table)."""
        self._cloudroute.ensure(self.nodes_manager.slots_cache)
        return self._cloudroute.router

    def cloudroute_stats(self) -> Dict[str, int]:
        """As :meth:`cloudroute.redis_py.CloudRouteCluster.cloudroute_stats`."""
        return self._cloudroute.stats()


#: The redis-py version this module was imported with.
REDIS_PY_VERSION: str = redis.__version__
