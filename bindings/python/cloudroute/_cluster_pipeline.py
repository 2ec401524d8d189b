"""Failure feedback for redis-py's synchronous ClusterPipeline (redis_py's
CloudRouteCluster.pipeline()).

A pipeline asks the NodesManager for each read's node as single commands do
(so libcloudroute places them), groups the commands by node, dials every
node (``get_redis_connection(node)`` then its pool's ``get_connection()``,
in redis-py 5.x to 8.x) and sends each node its share. When a node does not
answer redis-py either fails the dial — it then re-reads the topology and
sends the whole batch again — or records the error in place of the node's
replies and re-sends those commands one by one through
``RedisCluster.execute_command``. Neither path told the Router, so a dead
local replica kept being chosen, and failed, until redis-py's slot table
dropped it.

:class:`CloudRoutePipeline` closes both paths. Its execution is a
:class:`Batch`: the pool of a node chosen for a read reports a failed dial
to the Router, and the execution's later choices skip that node (the re-sent
batch goes to the slot's next candidate at once); the one-by-one re-sends run
through the same report-and-try-the-next loop as single commands; and once
the pipeline has answered, every chosen node that did not fail is reported
as a success.

Read your writes: the execution's Batch also collects the slots its writes
go to, in queue order; a later read of such a slot is given the slot's
primary, not a replica (_cluster_reads.install), on the first send and on
redis-py's re-sends alike.
"""

from __future__ import annotations

from typing import Any, List

from redis.cluster import ClusterPipeline, RedisCluster
from redis.commands import READ_COMMANDS
from redis.exceptions import ConnectionError, TimeoutError

from ._cluster_reads import BATCH, CLIENT_SIDE_ERRORS, INFLIGHT, PICK, Attempts, Batch, Placement, consume_pick


def execute_read(client: Any, target_node: Any, args: Any, kwargs: Any) -> Any:
    """RedisCluster._execute_command for client (a CloudRouteCluster or its
    pipeline): a read libcloudroute placed goes to its node, then to the slot's
    next candidates while nodes fail to answer, each outcome reported to the
    Router; any other command is sent as redis-py sends it (writes never twice)."""
    base = RedisCluster._execute_command
    pick = consume_pick(target_node, args[0] if args else None, READ_COMMANDS)
    if pick is None:
        return base(client, target_node, *args, **kwargs)  # type: ignore[no-untyped-call]
    attempts = Attempts(client._cloudroute, pick)
    token = INFLIGHT.set(attempts)  # redis-py's MOVED re-placement sees it (Placement.choose)
    try:
        while True:
            try:
                response = base(client, attempts.node, *args, **kwargs)  # type: ignore[no-untyped-call]
            except (ConnectionError, TimeoutError) as e:
                attempts.failed(e, client.nodes_manager.slots_cache)
                continue
            return attempts.answered(response)
    finally:
        INFLIGHT.reset(token)


class _ReportingPool:
    """A node's connection pool whose failed dials are reported to the Router."""

    def __init__(self, pool: Any, placement: Placement, handle: int) -> None:
        self._pool = pool
        self._placement = placement
        self._handle = handle

    def get_connection(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return self._pool.get_connection(*args, **kwargs)
        except (ConnectionError, TimeoutError) as e:
            if not isinstance(e, CLIENT_SIDE_ERRORS):
                self._placement.report(self._handle, ok=False)
            raise

    def __getattr__(self, name: str) -> Any:
        return getattr(self._pool, name)


class _ReportingNode:
    """A node's redis.Redis as the pipeline sees it: the same, but its pool reports."""

    def __init__(self, node: Any, placement: Placement, handle: int) -> None:
        self._node = node
        self.connection_pool = _ReportingPool(node.connection_pool, placement, handle)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._node, name)


class CloudRoutePipeline(ClusterPipeline):
    """redis-py's ClusterPipeline whose read nodes' failures reach the Router.
    Made by CloudRouteCluster.pipeline(); use it as redis-py's."""

    _cloudroute: Placement

    def execute(self, raise_on_error: bool = True) -> List[Any]:
        batch = Batch()
        token = BATCH.set(batch)
        try:
            result: List[Any] = super().execute(raise_on_error)
        finally:
            BATCH.reset(token)
            PICK.set(None)
        batch.settle(self._cloudroute)
        return result

    def get_redis_connection(self, node: Any) -> Any:
        redis_node = super().get_redis_connection(node)
        batch = BATCH.get()
        pick = batch.picks.get(node.name) if batch is not None else None
        if pick is None:
            return redis_node
        return _ReportingNode(redis_node, self._cloudroute, pick.handle)

    def _execute_command(self, target_node: Any, *args: Any, **kwargs: Any) -> Any:
        # The one-by-one re-send of a command whose node failed in the batch.
        return execute_read(self, target_node, args, kwargs)

