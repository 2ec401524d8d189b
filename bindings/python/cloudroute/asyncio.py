"""cloudroute.asyncio: the live clients — Redis Cluster, Sentinel groups,
pre-sharded servers — as coroutines.

>>> import cloudroute.asyncio
>>> async def main():
...     async with cloudroute.asyncio.Client("127.0.1.1:7001", config) as c:
...         await c.set("user:1", "alice")
...         return await c.get("user:1")

No thread per call: a single-key command (``get``, ``set``, ``execute_command``
and the other single-key helpers) is submitted to the C library
(``cr_client_submit``) and its completion waits in the client's completion
queue, whose file descriptor the event loop watches (``loop.add_reader``);
``cr_client_run_completions`` then resolves the futures on the loop's thread.
Routing, retries, redirects and errors are those of :class:`cloudroute.Client`
(the first attempt runs on the library's engine thread over one shared
connection per node — ``shared_connections`` if set —, the rare retry on one of
its few worker threads).

Multi-key calls (``mget``, ``mset``, ``delete``, ``exists`` of keys in any
slots) and pipelines (``await p.execute()``) are submitted the same way
(``cr_client_submit_mget`` …, ``cr_pipeline_submit``): every node's share is
one request on its shared connection, all in flight at once, completed through
the same queue — no executor thread either. They route, retry and fail as
:meth:`cloudroute.Client.mget` and :meth:`cloudroute.Pipeline.execute` do.

Subscriptions (``c.subscribe(...)``, an ``async for`` of
:class:`cloudroute.Message` records, ``await sub.get_message(timeout)``) wait
on a thread of their own for the next message, never on the loop; a
coroutine cancelled while it waits loses nothing: the message goes to the
next one that asks. ``publish`` and ``spublish`` are submitted as the other
commands are.

``SentinelClient`` is the same face for :class:`cloudroute.SentinelClient`:
its single-key commands (``cr_sentinel_client_submit``) and its batches
(``mget``, ``mset``, ``delete``, ``exists``: ``cr_sentinel_client_submit_mget``
…, one command per group, every group at once) are submitted the same way;
``ShardedClient`` for :class:`cloudroute.ShardedClient` too (its single-key
commands and ``mget``, ``mset``, ``delete``, ``exists``; its pipelines stay
blocking).

Cancelling a coroutine that awaits a command, a multi-key call or a pipeline
does not touch its connections: the requests stay on the wire and their
replies are read and dropped when they come (every request on a shared
connection is closed by a marker, so the connection stays in step); a write
may still be applied.

Closing (``close()`` or leaving ``async with``) runs every call still in
flight to completion with :class:`cloudroute.ConnectionError` ("cancelled:
...") before it returns; it blocks the loop for as long as the library takes
to close its connections and threads (milliseconds).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
from types import TracebackType
from typing import (
    Any,
    Callable,
    Dict,
    Generic,
    Iterable,
    List,
    Mapping,
    Optional,
    Protocol,
    Tuple,
    Type,
    TypeVar,
    Union,
)

from .client import (
    AUTO,
    READ,
    WRITE,
    Arg,
    Client as _SyncClient,
    Expiry,
    KeyT,
    Seeds,
    _key_list,
    _mapping_pairs,
    _set_args,
)
from .commands import _timeout_ms
from . import _native
from .pipeline import Pipeline as _SyncPipeline, _results
from .pubsub import Message, Names, Subscription as _SyncSubscription
from .sentinel import SentinelClient as _SyncSentinelClient, _batch_outcome
from .sharded import ShardedClient as _SyncShardedClient

__all__ = ["Client", "Pipeline", "SentinelClient", "ShardedClient", "Subscription"]


def _resolver(fut: "asyncio.Future[Any]", convert: Optional[Callable[[Any], Any]]) -> Callable[[Any, Any], None]:
    def done(error: Optional[BaseException], value: Any) -> None:
        if fut.done():  # the awaiting coroutine was cancelled: the reply is dropped
            return
        if error is not None:
            fut.set_exception(error)
        else:
            fut.set_result(convert(value) if convert is not None else value)

    return done


class _Queue(Protocol):
    """What the asyncio faces need of a blocking client: its completion queue."""

    def completion_fd(self) -> int: ...
    def submit(
        self, access: int, key_index: int, args: Any, timeout_ms: int, callback: Callable[[Any, Any], None]
    ) -> None: ...
    def run_completions(self, max: int = 0) -> int: ...
    def close(self) -> None: ...


S = TypeVar("S", bound=_Queue)
A = TypeVar("A", bound="_AsyncClient[Any]")


class _AsyncClient(Generic[S]):
    """What the asyncio faces share: the blocking client made off the loop, its
    completion queue watched by the loop, single-key commands submitted."""

    def __init__(self, make: Callable[[], S]) -> None:
        self._make = make
        self._sync: Optional[S] = None
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._fd = -1

    async def connect(self: A) -> A:
        """Makes the blocking client (off the loop: it reads the topology) and
        starts watching the completion queue. Idempotent."""
        if self._sync is not None:
            return self
        loop = asyncio.get_running_loop()
        sync = await loop.run_in_executor(None, self._make)
        self._sync, self._loop = sync, loop
        self._fd = sync.completion_fd()
        loop.add_reader(self._fd, self._run_completions)
        return self

    def _run_completions(self) -> None:
        if self._sync is not None:
            self._sync.run_completions(0)

    @property
    def sync(self) -> S:
        """The blocking client underneath (stats, metrics_text, node_stats ...)."""
        if self._sync is None:
            from .errors import InvalidArgumentError

            raise InvalidArgumentError("the client is not connected (async with, or await connect())")
        return self._sync

    def close(self) -> None:
        """Stops watching the queue and frees the client; every call in flight
        completes with ConnectionError ("cancelled: ...") first. Idempotent."""
        sync, self._sync = self._sync, None
        if sync is None:
            return
        if self._loop is not None and self._fd >= 0:
            self._loop.remove_reader(self._fd)
        self._fd = -1
        # The completions still queued run now, on this thread, cancelled.
        sync.close()

    async def __aenter__(self: A) -> A:
        return await self.connect()

    async def __aexit__(
        self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException], tb: Optional[TracebackType]
    ) -> None:
        self.close()

    @property
    def closed(self) -> bool:
        return self._sync is None

    # -- single-key commands: no thread per call -----------------------------------

    def _submit(
        self,
        access: int,
        key_index: int,
        args: Any,
        timeout: Optional[float],
        convert: Optional[Callable[[Any], Any]] = None,
    ) -> "asyncio.Future[Any]":
        sync = self.sync
        assert self._loop is not None
        fut: asyncio.Future[Any] = self._loop.create_future()
        ms = _timeout_ms(timeout)
        sync.submit(access, key_index, args, 0 if ms is None else ms, _resolver(fut, convert))
        return fut

    async def get(self, name: KeyT) -> Optional[bytes]:
        """GET name: bytes, or None."""
        result: Optional[bytes] = await self._submit(READ, 1, ("GET", name), None)
        return result

    async def set(
        self,
        name: KeyT,
        value: Arg,
        ex: Optional[Expiry] = None,
        px: Optional[Expiry] = None,
        nx: bool = False,
        xx: bool = False,
        keepttl: bool = False,
        get: bool = False,
    ) -> Any:
        """SET, as :meth:`cloudroute.Client.set`: True when set (None when NX/XX
        prevented it); with get=True the old value."""
        args = _set_args(name, value, ex, px, nx, xx, keepttl, get)
        reply = await self._submit(WRITE, 1, args, None)
        if get:
            return reply
        return True if reply is not None else None

    async def incr(self, name: KeyT, amount: int = 1) -> int:
        """INCRBY name amount: the new value."""
        result: int = await self._submit(WRITE, 1, ("INCRBY", name, amount), None)
        return result

    incrby = incr

    async def hget(self, name: KeyT, key: Arg) -> Optional[bytes]:
        """HGET name key."""
        result: Optional[bytes] = await self._submit(READ, 1, ("HGET", name, key), None)
        return result

    async def hgetall(self, name: KeyT) -> Dict[bytes, bytes]:
        """HGETALL name as a dict."""
        reply = await self._submit(READ, 1, ("HGETALL", name), None)
        if isinstance(reply, dict):
            return reply
        it = iter(reply)
        return dict(zip(it, it))


class _MultiQueue(_Queue, Protocol):
    """A blocking client with multi-key submits too."""

    def submit_multi(
        self, kind: str, keys: Any, values: Any, callback: Callable[[Any, Any], None]
    ) -> None: ...


M = TypeVar("M", bound=_MultiQueue)


class _MultiKey(_AsyncClient[M]):
    """MGET, MSET, DEL and EXISTS over keys in any places, submitted (the
    cluster and the pre-sharded clients: ``cr_*_submit_mget`` …)."""

    async def exists(self, *names: KeyT) -> int:
        """How many of names exist, in any slots (a name given twice counts twice)."""
        if not names:
            return 0
        result: int = await self._submit_multi("exists", names, ())
        return result

    # -- multi-key commands: submitted too --------------------------------------------

    def _submit_multi(self, kind: str, keys: Iterable[KeyT], values: Iterable[Arg]) -> "asyncio.Future[Any]":
        sync = self.sync
        assert self._loop is not None
        fut: asyncio.Future[Any] = self._loop.create_future()
        sync.submit_multi(kind, keys, values, _resolver(fut, None))
        return fut

    async def mget(self, keys: Union[KeyT, Iterable[KeyT]], *args: KeyT) -> List[Optional[bytes]]:
        """MGET of keys in any slots, as :meth:`cloudroute.Client.mget` (``mget([k1,
        k2])`` or ``mget(k1, k2)``): values in key order, None for a missing key."""
        names = _key_list(keys, args)
        if not names:
            return []
        result: List[Optional[bytes]] = await self._submit_multi("mget", names, ())
        return result

    async def mset(self, mapping: Mapping[KeyT, Arg]) -> bool:
        """MSET of a mapping in any slots (not atomic across slots). True."""
        names, values = _mapping_pairs(mapping, "mset")
        if names:
            await self._submit_multi("mset", names, values)
        return True

    async def delete(self, *names: KeyT) -> int:
        """DEL of keys in any slots: how many existed."""
        if not names:
            return 0
        result: int = await self._submit_multi("delete", names, ())
        return result


class Client(_MultiKey[_SyncClient]):
    """The asyncio face of :class:`cloudroute.Client`: the same ``seeds``,
    ``config`` and keyword options (``shared_connections``, timeouts, TLS,
    hedging ...). ``async with Client(...) as c`` connects (discovery runs in
    the default executor) and closes on exit; ``await c.connect()`` and
    ``c.close()`` do the same by hand."""

    def __init__(self, seeds: Seeds, config: Any = None, **options: Any) -> None:
        super().__init__(functools.partial(_SyncClient, seeds, config, **options))

    async def execute_command(
        self,
        *args: Arg,
        read: Optional[bool] = None,
        key_index: Optional[int] = None,
        timeout: Optional[float] = None,
    ) -> Any:
        """Any keyed command, as :meth:`cloudroute.Client.execute_command`: by
        default the server's command table classes it and finds its keys;
        ``read=True`` / ``read=False`` decide instead (the key at
        ``key_index``, default 1); ``timeout`` in seconds."""
        access = AUTO if read is None else READ if read else WRITE
        index = key_index if key_index is not None else 0 if read is None else 1
        return await self._submit(access, index, args, timeout)

    def pipeline(self, transaction: Optional[bool] = None) -> "Pipeline":
        """A :class:`Pipeline`: commands queued as on :class:`cloudroute.Pipeline`,
        sent by ``await p.execute()``."""
        return Pipeline(self, self.sync.pipeline(transaction))

    # -- publish / subscribe ------------------------------------------------------

    def subscribe(self, channels: Names = (), patterns: Names = (), shard_channels: Names = ()) -> "Subscription":
        """A :class:`Subscription` of channels, patterns and shard channels, placed
        and moved as :meth:`cloudroute.Client.subscribe` does (returns at once: the
        ``SUBSCRIBED`` events follow)::

            async with c.subscribe(channels="news") as sub:
                async for msg in sub:
                    ...
        """
        return Subscription(self.sync.subscribe(channels, patterns, shard_channels))

    async def publish(self, channel: KeyT, message: Arg) -> int:
        """PUBLISH channel message: how many subscribers of the node it reached got it."""
        result: int = await self._submit(WRITE, 1, ("PUBLISH", channel, message), None)
        return result

    async def spublish(self, channel: KeyT, message: Arg) -> int:
        """SPUBLISH, on the shard channel's slot's master: its subscribers in that shard that got it."""
        result: int = await self._submit(WRITE, 1, ("SPUBLISH", channel, message), None)
        return result

    def __repr__(self) -> str:
        if self._sync is None:
            return "<cloudroute.asyncio.Client closed>"
        return f"<cloudroute.asyncio.Client {self._sync!r}>"


class Subscription:
    """The asyncio face of :class:`cloudroute.Subscription` (from
    :meth:`Client.subscribe`): ``async for msg in sub`` gives every message and
    event until the subscription is closed; ``await sub.get_message(timeout)``
    waits at most timeout seconds. The wait runs on a thread of the
    subscription's own (``cloudroute-subscription``), one message at a time (a
    slow reader leaves the rest queued in the library, which stops reading its
    sockets past its limit); a waiting coroutine that is cancelled (or timed
    out) loses nothing: the message goes to the next wait. ``add``, ``remove``
    and ``close`` return at once. ``async with`` closes it on exit."""

    def __init__(self, sync: _SyncSubscription) -> None:
        self._sync = sync
        self._thread = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="cloudroute-subscription")
        self._waiting: Optional["concurrent.futures.Future[Optional[Message]]"] = None
        self._lock: Optional[asyncio.Lock] = None

    @property
    def sync(self) -> _SyncSubscription:
        """The blocking subscription underneath."""
        return self._sync

    def add(self, channels: Names = (), patterns: Names = (), shard_channels: Names = ()) -> None:
        """Subscribes more names, as :meth:`cloudroute.Subscription.add`."""
        self._sync.add(channels, patterns, shard_channels)

    def remove(self, channels: Names = (), patterns: Names = (), shard_channels: Names = ()) -> None:
        """Unsubscribes names, as :meth:`cloudroute.Subscription.remove`."""
        self._sync.remove(channels, patterns, shard_channels)

    async def get_message(self, timeout: Optional[float] = None) -> Optional[Message]:
        """The next message or event; waits at most ``timeout`` seconds (None:
        until one comes). None when none came in time, or once closed."""
        try:
            return await asyncio.wait_for(self._next(), timeout)
        except asyncio.TimeoutError:
            return None

    async def _next(self) -> Optional[Message]:
        if self._lock is None:  # made on the loop (Python 3.9 binds a Lock to one)
            self._lock = asyncio.Lock()
        async with self._lock:  # one coroutine takes each message
            if self._sync.closed:
                return None
            if self._waiting is None:
                self._waiting = self._thread.submit(self._sync.get_message, None)
            # Shielded: a coroutine cancelled here (or timed out) leaves the wait
            # running, and its message, for the next one.
            msg = await asyncio.shield(asyncio.wrap_future(self._waiting))
            self._waiting = None
            return msg

    def __aiter__(self) -> "Subscription":
        return self

    async def __anext__(self) -> Message:
        msg = await self.get_message()
        if msg is None:
            raise StopAsyncIteration
        return msg

    @property
    def closed(self) -> bool:
        return self._sync.closed

    def close(self) -> None:
        """Closes the subscription (the thread's wait returns; every coroutine
        waiting gets None, and ``async for`` ends). Idempotent."""
        self._sync.close()
        self._thread.shutdown(wait=False)

    async def __aenter__(self) -> "Subscription":
        return self

    async def __aexit__(
        self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException], tb: Optional[TracebackType]
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<cloudroute.asyncio.Subscription{' closed' if self.closed else ''}>"


class Pipeline:
    """Commands queued as on :class:`cloudroute.Pipeline` (``p.get(k).set(k2, v)``);
    ``await p.execute()`` submits them (``cr_pipeline_submit``: no thread per
    call) and gives their results. Usable as ``async with c.pipeline() as p``."""

    def __init__(self, client: Client, pipe: _SyncPipeline) -> None:
        self._client = client
        self._pipe = pipe

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._pipe, name)
        if not callable(attr) or name in ("execute", "reset"):
            return attr

        @functools.wraps(attr)
        def queue(*args: Any, **kwargs: Any) -> "Pipeline":
            attr(*args, **kwargs)
            return self

        return queue

    async def execute(self, raise_on_error: bool = True) -> List[Any]:
        """Sends every queued command; their results in order (as
        :meth:`cloudroute.Pipeline.execute`). The queue is empty afterwards."""
        sync = self._client.sync
        loop = self._client._loop
        assert loop is not None
        commands, calls = self._pipe._take()
        if not commands:
            return []
        fut: asyncio.Future[Any] = loop.create_future()
        _native.submit_pipeline(sync, commands, _resolver(fut, None))
        return _results(commands, calls, await fut, raise_on_error)

    def reset(self) -> None:
        self._pipe.reset()

    def __len__(self) -> int:
        return len(self._pipe)

    async def __aenter__(self) -> "Pipeline":
        return self

    async def __aexit__(
        self, exc_type: Optional[Type[BaseException]], exc: Optional[BaseException], tb: Optional[TracebackType]
    ) -> None:
        self.reset()


class SentinelClient(_AsyncClient[_SyncSentinelClient]):
    """The asyncio face of :class:`cloudroute.SentinelClient`: the same
    ``sentinels``, ``names``, ``ring``, ``config`` and keyword options;
    ``async with SentinelClient(...) as c`` (the sentinels are asked in the
    default executor). Single-key commands are submitted
    (``cr_sentinel_client_submit``: no thread per call; a write whose group's
    master did not execute it re-asks the sentinels and is tried again, as the
    blocking call does), and so are the batches (``cr_sentinel_client_submit_mget``
    …): they answer and fail as the blocking batches do — a failed batch raises
    with ``.results`` and ``.failed_keys``, the other groups' writes stand."""

    def __init__(
        self, sentinels: Seeds, names: Iterable[str], ring: _native.Ring, config: Any = None, **options: Any
    ) -> None:
        super().__init__(functools.partial(_SyncSentinelClient, sentinels, list(names), ring, config, **options))

    async def execute_command(
        self, *args: Arg, read: bool = False, key_index: int = 1, timeout: Optional[float] = None
    ) -> Any:
        """Any single-key command, as :meth:`cloudroute.SentinelClient.execute_command`:
        ``read=True`` lets a replica of the key's group serve it; the default sends
        it to the group's master; ``timeout`` in seconds."""
        return await self._submit(READ if read else WRITE, key_index, args, timeout)

    async def _batch(self, kind: str, keys: List[KeyT], values: Any = None) -> Tuple[List[Any], int]:
        sync = self.sync
        assert self._loop is not None
        fut: asyncio.Future[Any] = self._loop.create_future()
        sync.submit_batch(kind, keys, values, _resolver(fut, None))
        return _batch_outcome(keys, await fut)

    async def mget(self, keys: Union[KeyT, Iterable[KeyT]], *args: KeyT) -> List[Optional[bytes]]:
        """MGET, as :meth:`cloudroute.SentinelClient.mget`: each key's value (bytes)
        or None, in key order — one MGET per group."""
        return (await self._batch("MGET", _key_list(keys, args)))[0]

    async def mset(self, mapping: Mapping[KeyT, Arg]) -> bool:
        """MSET of every pair of mapping — one MSET per group, on its master: True."""
        names, values = _mapping_pairs(mapping, "mset")
        await self._batch("MSET", names, values)
        return True

    async def delete(self, *names: KeyT) -> int:
        """DEL of names — one DEL per group: how many existed."""
        return (await self._batch("DEL", list(names)))[1]

    async def exists(self, *names: KeyT) -> int:
        """How many of names exist (a name given twice counts twice) — one EXISTS per group."""
        return (await self._batch("EXISTS", list(names)))[1]

    def __repr__(self) -> str:
        if self._sync is None:
            return "<cloudroute.asyncio.SentinelClient closed>"
        return f"<cloudroute.asyncio.SentinelClient {self._sync!r}>"


class ShardedClient(_MultiKey[_SyncShardedClient]):
    """The asyncio face of :class:`cloudroute.ShardedClient`: the same
    ``servers``, ``ring``, ``config`` and keyword options; ``async with
    ShardedClient(...) as c``. Single-key commands (``cr_sharded_client_submit``)
    and ``mget``, ``mset``, ``delete``, ``exists`` (``cr_sharded_client_submit_mget``
    …: one command per shard, every shard at once) are submitted: no thread per
    call; they route, retry and fail as the blocking calls do. Its pipelines
    stay blocking (``c.sync.pipeline()``): the library submits only the cluster
    client's."""

    def __init__(self, servers: Any, ring: _native.Ring, config: Any = None, **options: Any) -> None:
        super().__init__(functools.partial(_SyncShardedClient, servers, ring, config, **options))

    async def execute_command(
        self, *args: Arg, read: bool = False, key_index: int = 1, timeout: Optional[float] = None
    ) -> Any:
        """Any single-key command, as :meth:`cloudroute.ShardedClient.execute_command`:
        ``read=True`` lets a replica of the key's shard serve it; the default sends it
        to the shard's master; ``timeout`` in seconds."""
        return await self._submit(READ if read else WRITE, key_index, args, timeout)

    def __repr__(self) -> str:
        if self._sync is None:
            return "<cloudroute.asyncio.ShardedClient closed>"
        return f"<cloudroute.asyncio.ShardedClient {self._sync!r}>"
