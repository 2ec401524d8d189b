"""Failure feedback for redis.asyncio's ClusterPipeline (redis_asyncio's
CloudRouteCluster.pipeline()).

redis.asyncio sends each node its share of a pipeline through that node's
``execute_pipeline(commands)`` (5.x to 8.x), on the node the NodesManager
gave for each command — libcloudroute's choice for a read. A node that does
not answer either raises (the dial or the write failed; redis.asyncio then
closes its connections, re-reads the topology and sends the whole batch
again) or leaves ConnectionError / TimeoutError in place of its replies
(redis.asyncio then fails the pipeline). Neither told the Router.

During :class:`CloudRoutePipeline`'s execute a read's node is handed to
redis.asyncio wrapped (:class:`_ReportingNode`): a raise is reported to the
Router, and the batch redis.asyncio sends again skips the node; failed replies
are reported and those of reads — reads only, writes are never re-sent — are
asked again on the slot's next candidates, one attempt per node and no node
twice (never through redis.asyncio's retry loop, which re-reads the topology
and backs off before each try: a pipeline whose nodes are all down would wait
that out once per lost read; nor through its close of every connection on a
failure, which would cut the pipeline's other nodes off mid-reply); the
pipeline's other chosen nodes are reported as successes. A pipeline left with
errors is retried by redis.asyncio as its own: every connection closed, the
topology re-read.

Read your writes: the execution's Batch also collects the slots its writes
go to, in queue order; a later read of such a slot is given the slot's
primary, not a replica (_cluster_reads.install), on the first send and on
redis-py's re-sends alike.
"""

from __future__ import annotations

from typing import Any, List

from redis.asyncio.cluster import ClusterPipeline
from redis.commands import READ_COMMANDS
from redis.exceptions import ConnectionError, RedisError, TimeoutError

from ._cluster_reads import BATCH, CLIENT_SIDE_ERRORS, PICK, Attempts, Batch, Pick


class _ReportingNode:
    """A redis.asyncio ClusterNode as a pipeline sees it: the same, but its
    share of the batch reports to the Router and its failed reads are re-asked."""

    def __init__(self, node: Any, client: Any, pick: Pick) -> None:
        self._node = node
        self._client = client
        self._pick = pick

    async def execute_pipeline(self, commands: List[Any]) -> bool:
        placement = self._client._cloudroute
        try:
            await self._node.execute_pipeline(commands)
        except (ConnectionError, TimeoutError) as e:
            if not isinstance(e, CLIENT_SIDE_ERRORS):
                placement.report(self._pick.handle, ok=False)
            raise
        lost = [c for c in commands if isinstance(c.result, (ConnectionError, TimeoutError))]
        if lost:
            placement.report(self._pick.handle, ok=False)
            batch = BATCH.get()
            # Nodes not to ask again, shared by the lost reads: once a node failed,
            # none of them waits for it again.
            tried = set(batch.failed if batch is not None else ()) | {self._pick.handle}
            cache = self._client.nodes_manager.slots_cache
            token = BATCH.set(None)  # the single-command path places these, not this batch
            try:
                for c in lost:
                    if c.args[0] not in READ_COMMANDS:
                        continue
                    attempts = Attempts(placement, self._pick, tried)
                    if not attempts.next(cache):
                        continue  # no node left: the error stays, as redis.asyncio leaves it
                    try:
                        c.result = await self._client._send_read(attempts, c.args, c.kwargs, in_pipeline=True)
                    except RedisError as e:
                        c.result = e  # in place, as redis.asyncio leaves a command's error
            finally:
                BATCH.reset(token)
        return any(isinstance(c.result, Exception) for c in commands)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._node, name)


def _client_of(pipe: Any) -> Any:
    """The pipeline's RedisCluster: cluster_client (redis-py 6+) or _client (5.x)."""
    client = getattr(pipe, "cluster_client", None)
    return client if client is not None else pipe._client


class CloudRoutePipeline(ClusterPipeline):
    """redis.asyncio's ClusterPipeline whose read nodes' failures reach the
    Router. Made by CloudRouteCluster.pipeline(); use it as redis.asyncio's."""

    __slots__ = ()

    async def execute(self, *args: Any, **kwargs: Any) -> List[Any]:
        client = _client_of(self)
        batch = Batch(wrap=lambda pick: _ReportingNode(pick.node, client, pick))
        token = BATCH.set(batch)
        try:
            result: List[Any] = await super().execute(*args, **kwargs)
        finally:
            BATCH.reset(token)
            PICK.set(None)
        batch.settle(client._cloudroute)
        return result
