"""cloudroute.Pipeline: any commands in any slots, sent at once (redis-py's shape).

>>> with client.pipeline() as pipe:
...     pipe.get("user:1").hgetall("profile:1").zrange("scores", 0, 9).set("seen:1", 1)
...     user, profile, top, _ = pipe.execute()

Commands queue on the pipeline (each method returns it, so calls chain) and
``execute()`` runs them in the C library (``cr_pipeline_*``): each routed by
its key and its read/write nature, grouped per node, every node's group
pipelined on one connection and all nodes in flight together. Replies come
back in queue order. A MOVED/ASK is followed for the commands it concerns
only, a read whose node fails moves on to its next candidate, and a write
that may have reached its node is never re-sent (its result is the error).
A read of a slot that an earlier command of the same pipeline writes goes to
that slot's master, after the write (read your writes): ``pipe.set(k, v).get(k)``
reads ``v`` even with replica-first policies.

Errors stay in place: ``execute(raise_on_error=False)`` returns each failed
command's exception object (:class:`cloudroute.ResponseError` for an error
reply, :class:`cloudroute.ConnectionError` …) in its position; with the
default ``raise_on_error=True`` the first one is raised, its message naming
the command, once every command has run.
"""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Mapping, Optional, Sequence, Set, Tuple, Type, Union

from . import _native
from .client import Arg, Expiry, KeyT, _key_list, _mapping_pairs, _set_args
from .errors import InvalidArgumentError

if TYPE_CHECKING:
    from .client import Client
    from .sharded import ShardedClient

__all__ = ["Pipeline"]

_READ = 0
_WRITE = 1
_AUTO = 2  # the server's command table decides (client.AUTO)

#: Where a queued command goes: its key's position, or a (host, port) node.
_Target = Union[int, Tuple[str, int]]
#: Turns the replies of one queued call (one or more commands) into its result.
_Combine = Callable[[List[Any]], Any]


def _first(replies: List[Any]) -> Any:
    return replies[0]


def _to_bool(replies: List[Any]) -> bool:
    return bool(replies[0])


def _ok_true(replies: List[Any]) -> Optional[bool]:
    return True if replies[0] is not None else None


def _to_dict(replies: List[Any]) -> Dict[Any, Any]:
    reply = replies[0]
    if isinstance(reply, dict):
        return reply
    it = iter(reply)
    return dict(zip(it, it))


def _to_set(replies: List[Any]) -> Set[Any]:
    return set(replies[0])


def _sum(replies: List[Any]) -> int:
    return sum(int(r) for r in replies)


def _to_list(replies: List[Any]) -> List[Any]:
    return list(replies)


def _all_true(replies: List[Any]) -> bool:
    return True


def _float_or_none(replies: List[Any]) -> Optional[float]:
    return None if replies[0] is None else float(replies[0])


def _pairs(replies: List[Any]) -> List[Tuple[Any, float]]:
    flat = replies[0]
    if flat and isinstance(flat[0], list):  # RESP3: [[member, score], ...]
        return [(m, float(s)) for m, s in flat]
    it = iter(flat)
    return [(m, float(s)) for m, s in zip(it, it)]



def _results(
    commands: List[Tuple[int, _Target, Tuple[Any, ...]]],
    calls: List[Tuple[int, _Combine]],
    replies: List[Any],
    raise_on_error: bool,
) -> List[Any]:
    """Each queued call's result made of its commands' replies (a failed
    command's place holds its exception); with raise_on_error the first
    failure is raised, naming its call."""
    results: List[Any] = []
    at = 0
    for count, combine in calls:
        part = replies[at : at + count]
        error = next((r for r in part if isinstance(r, Exception)), None)
        if error is not None and raise_on_error:
            failed = commands[at + part.index(error)][2]
            text = " ".join(str(a) for a in failed)
            error.args = (f"Command # {len(results) + 1} ({text}) of pipeline caused error: {error}",)
            raise error
        results.append(error if error is not None else combine(part))
        at += count
    return results

class Pipeline:
    """Commands queued for one :class:`cloudroute.Client`, run by :meth:`execute`.

    Not thread-safe (like redis-py's pipelines): one per thread; the client
    itself is shared. Command methods follow redis-py's signatures and
    return the pipeline.
    """

    def __init__(self, client: Union[Client, ShardedClient]) -> None:
        self._client = client
        self._commands: List[Tuple[int, _Target, Tuple[Any, ...]]] = []
        # One entry per queued call: how many commands it queued, and how
        # their replies make its result.
        self._calls: List[Tuple[int, _Combine]] = []

    # -- queueing --------------------------------------------------------------

    def _queue(self, access: int, target: _Target, args: Sequence[Any], combine: _Combine = _first) -> "Pipeline":
        self._commands.append((access, target, tuple(args)))
        self._calls.append((1, combine))
        return self

    def _queue_each(self, access: int, commands: Sequence[Sequence[Any]], combine: _Combine) -> "Pipeline":
        # A multi-key call (MGET, DEL, EXISTS of keys in any slots): one
        # command per key, their replies combined into one result.
        if not commands:
            raise InvalidArgumentError("a multi-key command needs at least one key")
        for args in commands:
            self._commands.append((access, 1, tuple(args)))
        self._calls.append((len(commands), combine))
        return self

    def execute_command(
        self,
        *args: Arg,
        read: Optional[bool] = None,
        key_index: Optional[int] = None,
        node: Optional[Tuple[str, int]] = None,
    ) -> "Pipeline":
        """Queues any command: ``execute_command("HINCRBY", "h", "f", 2)``.

        As Client.execute_command, the server decides by default whether it
        is a read and which key places it; ``read=True`` / ``read=False`` and
        ``key_index`` decide instead. A keyless command (PING, INFO, DBSIZE …)
        needs ``node=(host, port)``: it is sent to that node only, once.
        """
        if not args:
            raise InvalidArgumentError("execute_command needs at least the command name")
        access = _AUTO if read is None else _READ if read else _WRITE
        if node is not None:
            return self._queue(access, (node[0], node[1]), args)
        if key_index is None:
            key_index = 0 if read is None else 1
        if key_index == 0 and len(args) < 2:  # its name alone: no key for the server's table to find
            raise InvalidArgumentError(f"{args[0]!r} has no key: a keyless command needs node=(host, port)")
        if key_index >= len(args):
            raise InvalidArgumentError(
                f"{args[0]!r} has no key at index {key_index}: a keyless command needs node=(host, port)"
            )
        return self._queue(access, key_index, args)

    # -- strings ---------------------------------------------------------------

    def get(self, name: KeyT) -> "Pipeline":
        return self._queue(_READ, 1, ("GET", name))

    def set(
        self,
        name: KeyT,
        value: Arg,
        ex: Optional[Expiry] = None,
        px: Optional[Expiry] = None,
        nx: bool = False,
        xx: bool = False,
        keepttl: bool = False,
        get: bool = False,
    ) -> "Pipeline":
        """SET with redis-py's options; its result is True (None when NX/XX
        prevented it), or the old value with get=True."""
        args = _set_args(name, value, ex, px, nx, xx, keepttl, get)
        return self._queue(_WRITE, 1, args, _first if get else _ok_true)

    def incr(self, name: KeyT, amount: int = 1) -> "Pipeline":
        return self._queue(_WRITE, 1, ("INCRBY", name, amount))

    incrby = incr

    def decr(self, name: KeyT, amount: int = 1) -> "Pipeline":
        return self._queue(_WRITE, 1, ("DECRBY", name, amount))

    def mget(self, keys: Union[KeyT, Sequence[KeyT]], *args: KeyT) -> "Pipeline":
        """Values of keys in any slots, as one list (one GET per key)."""
        return self._queue_each(_READ, [("GET", k) for k in _key_list(keys, args)], _to_list)

    def mset(self, mapping: Mapping[KeyT, Arg]) -> "Pipeline":
        """Keys in any slots set (one SET per key; not atomic). True."""
        names, values = _mapping_pairs(mapping, "mset")
        return self._queue_each(_WRITE, [("SET", k, v) for k, v in zip(names, values)], _all_true)

    # -- keys ------------------------------------------------------------------

    def delete(self, *names: KeyT) -> "Pipeline":
        """How many of names existed (one DEL per key)."""
        return self._queue_each(_WRITE, [("DEL", n) for n in names], _sum)

    def exists(self, *names: KeyT) -> "Pipeline":
        """How many of names exist (one EXISTS per key)."""
        return self._queue_each(_READ, [("EXISTS", n) for n in names], _sum)

    def expire(self, name: KeyT, time: int) -> "Pipeline":
        return self._queue(_WRITE, 1, ("EXPIRE", name, time), _to_bool)

    def ttl(self, name: KeyT) -> "Pipeline":
        return self._queue(_READ, 1, ("TTL", name))

    # -- hashes ----------------------------------------------------------------

    def hget(self, name: KeyT, key: Arg) -> "Pipeline":
        return self._queue(_READ, 1, ("HGET", name, key))

    def hgetall(self, name: KeyT) -> "Pipeline":
        return self._queue(_READ, 1, ("HGETALL", name), _to_dict)

    def hset(
        self,
        name: KeyT,
        key: Optional[Arg] = None,
        value: Optional[Arg] = None,
        mapping: Optional[Mapping[Arg, Arg]] = None,
    ) -> "Pipeline":
        args: List[Any] = ["HSET", name]
        if key is not None:
            if value is None:
                raise InvalidArgumentError("hset: a key needs a value")
            args += [key, value]
        for k, v in (mapping or {}).items():
            args += [k, v]
        if len(args) == 2:
            raise InvalidArgumentError("hset: no key/value pairs")
        return self._queue(_WRITE, 1, args)

    def hdel(self, name: KeyT, *keys: Arg) -> "Pipeline":
        return self._queue(_WRITE, 1, ("HDEL", name, *keys))

    # -- sets, sorted sets, lists -------------------------------------------------

    def sadd(self, name: KeyT, *values: Arg) -> "Pipeline":
        return self._queue(_WRITE, 1, ("SADD", name, *values))

    def smembers(self, name: KeyT) -> "Pipeline":
        return self._queue(_READ, 1, ("SMEMBERS", name), _to_set)

    def zadd(self, name: KeyT, mapping: Mapping[Arg, float]) -> "Pipeline":
        args: List[Any] = ["ZADD", name]
        for member, score in mapping.items():
            args += [score, member]
        return self._queue(_WRITE, 1, args)

    def zrange(self, name: KeyT, start: int, end: int, withscores: bool = False) -> "Pipeline":
        """ZRANGE name start end; with withscores=True a list of (member, score)."""
        if withscores:
            return self._queue(_READ, 1, ("ZRANGE", name, start, end, "WITHSCORES"), _pairs)
        return self._queue(_READ, 1, ("ZRANGE", name, start, end))

    def zscore(self, name: KeyT, value: Arg) -> "Pipeline":
        return self._queue(_READ, 1, ("ZSCORE", name, value), _float_or_none)

    def rpush(self, name: KeyT, *values: Arg) -> "Pipeline":
        return self._queue(_WRITE, 1, ("RPUSH", name, *values))

    def lrange(self, name: KeyT, start: int, end: int) -> "Pipeline":
        return self._queue(_READ, 1, ("LRANGE", name, start, end))

    # -- running -----------------------------------------------------------------

    def execute(self, raise_on_error: bool = True) -> List[Any]:
        """Runs every queued command at once; their results in queue order.

        With ``raise_on_error`` (the default) the first failed command's
        exception is raised after all have run; otherwise each failed
        command's place holds its exception object. The queue is empty
        afterwards either way.
        """
        commands, calls = self._take()
        if not commands:
            return []
        return _results(commands, calls, _native.execute_pipeline(self._client, commands), raise_on_error)

    def _take(self) -> Tuple[List[Tuple[int, _Target, Tuple[Any, ...]]], List[Tuple[int, _Combine]]]:
        # The queued commands and calls (the asyncio pipeline submits them);
        # the queue is empty afterwards.
        commands, calls = self._commands, self._calls
        self.reset()
        return commands, calls

    def reset(self) -> None:
        """Empties the queue without sending it."""
        self._commands = []
        self._calls = []

    def __len__(self) -> int:
        return len(self._calls)

    def __bool__(self) -> bool:
        return True  # an empty pipeline is still a pipeline (redis-py's rule)

    def __enter__(self) -> "Pipeline":
        return self

    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        self.reset()

    def __repr__(self) -> str:
        return f"<cloudroute.Pipeline commands={len(self)}>"
