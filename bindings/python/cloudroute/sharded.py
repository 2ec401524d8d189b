"""cloudroute.ShardedClient: pre-sharded standalone servers, routed by libcloudroute.

Client-side sharding as Jedis's ``ShardedJedis`` did it: a :class:`cloudroute.Ring`
places each key on a shard, and ``servers[i]`` serves ring shard i. The C library
(``cr_sharded_client_*``) sends reads to the shard's instances nearest first (the
next one when one fails: a shard whose master died keeps serving reads from its
replicas), writes to its master, multi-key commands and pipelines as one command per
shard with every shard at once, scans every shard; this module only gives it
redis-py's call shapes.

>>> import cloudroute
>>> ring = cloudroute.Ring.jedis([("cache-a", 1), ("cache-b", 1)], hash="murmur", naming="jedis3")
>>> with cloudroute.ShardedClient(["127.0.0.1:6379", ["127.0.0.1:6380", "127.0.0.1:6381"]],
...                               ring) as c:
...     c.set("user:1", "alice")
...     c.get("user:1")
True
b'alice'

A shard moves to another server without moving a key: replicate it there, promote
the copy, then ``client.set_servers(new_servers)`` (the ring is unchanged).

Threads: one ShardedClient is meant to be shared by every thread; each network call
releases the GIL.
"""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Any, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Union

from . import _native
from ._lifecycle import Closing
from ._native import ClientStats
from .client import READ, WRITE, Arg, Expiry, KeyT, _key_list, _mapping_pairs, _ms, _set_args
from .commands import _TARGETS, _timeout_ms
from .errors import InvalidArgumentError

if TYPE_CHECKING:
    from .pipeline import Pipeline

__all__ = ["ShardedClient", "Servers"]

#: ``servers[i]`` for ring shard i: ``"host:port"``, or a list whose first entry is
#: the master and the rest its replicas.
Servers = Sequence[Union[str, Sequence[str]]]


def _servers(servers: Servers) -> List[str]:
    if isinstance(servers, (str, bytes)):
        raise TypeError("servers must be a list with one entry per ring shard, not a single string")
    out: List[str] = []
    for i, entry in enumerate(servers):
        if isinstance(entry, str):
            out.append(entry)
        elif isinstance(entry, (list, tuple)) and entry and all(isinstance(a, str) for a in entry):
            out.append(",".join(entry))
        else:
            raise InvalidArgumentError(
                f"servers[{i}] must be 'host:port' or a non-empty list of them (master first), not {entry!r}"
            )
    return out


class ShardedClient(Closing, _native.ShardedClient):
    """A client for pre-sharded standalone servers: ``servers[i]`` serves ring shard i
    (``"host:port"``, or ``[master, replica, ...]``); ``ring`` places the keys (the
    ring the existing application used, e.g. ``Ring.jedis(...)`` for ShardedJedis);
    ``config`` gives the locality, weights and breaker settings. Keyword options are
    those of ``cr_sharded_options`` (None keeps the library's default): timeouts,
    pool, ``username``/``password``, ``db``, ``tls*``, ``hedge_*``::

        ShardedClient(["10.0.0.1:6379", ["10.0.0.2:6379", "10.1.0.2:6379"]],
                      Ring.jedis([("cache-a", 1), ("cache-b", 1)]),
                      Config(local_cidrs=["10.0.0.0/16"]), password="...")

    Nothing is dialed by the constructor. A ring whose shard count differs from
    ``len(servers)``, or a bad server entry, raises InvalidArgumentError.
    """

    def __init__(
        self,
        servers: Servers,
        ring: _native.Ring,
        config: Optional[_native.Config] = None,
        **options: Any,
    ) -> None:
        super().__init__(_servers(servers), ring, config, **options)

    def set_servers(self, servers: Servers) -> None:  # type: ignore[override]
        """New addresses for every shard (same count, same shapes as the constructor's).
        The ring is unchanged, so no key moves; commands started afterwards use the new
        servers, commands in flight finish where they are."""
        super().set_servers(_servers(servers))

    # -- generic -------------------------------------------------------------

    def execute_command(
        self, *args: Arg, read: bool = False, key_index: int = 1, timeout: Optional[float] = None
    ) -> Any:
        """Any single-key command: ``execute_command("HINCRBY", "h", "f", 2)``.
        ``read=True`` lets a replica of the key's shard serve it; ``timeout`` (seconds)
        replaces the tier timeout for this call."""
        return self.command_opts(READ if read else WRITE, key_index, args, _timeout_ms(timeout))

    def get(self, name: KeyT) -> Optional[bytes]:
        """GET name: bytes, or None when the key does not exist (a read)."""
        result: Optional[bytes] = self.command(READ, 1, ("GET", name))
        return result

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
    ) -> Any:
        """SET name value [EX|PX] [NX|XX] [KEEPTTL] [GET] on the key's shard's master."""
        reply = self.command(WRITE, 1, _set_args(name, value, ex, px, nx, xx, keepttl, get))
        if get:
            return reply
        return True if reply is not None else None

    def mget(self, keys: Union[KeyT, Iterable[KeyT]], *args: KeyT) -> List[Optional[bytes]]:  # type: ignore[override]
        """MGET of keys on any shards (one MGET per shard, all at once), in key order."""
        result: List[Optional[bytes]] = super().mget(_key_list(keys, args))
        return result

    def mset(self, mapping: Mapping[KeyT, Arg]) -> bool:  # type: ignore[override]
        """MSET of a mapping on any shards (not atomic across shards). True."""
        super().mset(*_mapping_pairs(mapping, "mset"))
        return True

    def delete(self, *names: KeyT) -> int:  # type: ignore[override]
        """DEL of keys on any shards: how many existed."""
        return super().delete(names)

    def exists(self, *names: KeyT) -> int:  # type: ignore[override]
        """How many of names exist (a key named twice counts twice)."""
        return super().exists(names)

    def expire(self, name: KeyT, time: Expiry) -> bool:
        """EXPIRE name seconds (or a timedelta): True when the timeout was set."""
        if isinstance(time, datetime.timedelta):
            return bool(self.command(WRITE, 1, ("PEXPIRE", name, _ms(time, "time", 1000))))
        return bool(self.command(WRITE, 1, ("EXPIRE", name, time)))

    def ttl(self, name: KeyT) -> int:
        """TTL name: seconds left, -1 without a timeout, -2 when missing."""
        result: int = self.command(READ, 1, ("TTL", name))
        return result

    # -- every shard -----------------------------------------------------------

    def scan_iter(
        self,
        match: Optional[KeyT] = None,
        count: Optional[int] = None,
        _type: Optional[str] = None,
        timeout: Optional[float] = None,
    ) -> Iterator[bytes]:
        """Every key of every shard (as redis-py's ``scan_iter``), with MATCH / COUNT / TYPE."""
        scan = self.scan(match, count, _type, _timeout_ms(timeout))
        try:
            while True:
                batch = scan.next()
                if batch is None:
                    return
                yield from batch
        finally:
            scan.close()

    def execute_on_nodes(
        self, *args: Arg, node: Optional[str] = None, target: str = "masters", timeout: Optional[float] = None
    ) -> Dict[str, Any]:
        """A keyless command on ``node="host:port"``, every master (``target="masters"``)
        or every instance (``"all"``): ``{"host:port": reply}``, shards in ring order.
        The first failure raises."""
        code = 0 if node is not None else _TARGETS.get(target, -1)
        if code < 0:
            raise InvalidArgumentError(f"target must be 'masters' or 'all', not {target!r}")
        out = {address: value for address, _role, value in self.command_nodes(code, node, args, _timeout_ms(timeout))}
        failed = [v for v in out.values() if isinstance(v, Exception)]
        if failed:
            raise failed[0]
        return out

    def eval(self, body: Union[str, bytes], numkeys: int, *keys_and_args: Arg) -> Any:
        """EVAL as EVALSHA of body on its keys' shard (keys on two shards: InvalidArgumentError)."""
        if not 0 <= numkeys <= len(keys_and_args):
            raise InvalidArgumentError(f"numkeys {numkeys} is not in 0-{len(keys_and_args)}")
        return self.eval_script(_native.Script(body), False, keys_and_args[:numkeys], keys_and_args[numkeys:])

    def pipeline(self, transaction: Optional[bool] = None) -> "Pipeline":
        """A :class:`cloudroute.Pipeline` on this client (commands on any shards, sent at
        once by ``execute()``). ``transaction=True`` is refused."""
        if transaction:
            raise InvalidArgumentError("pipeline: transactions are not supported (commands span shards)")
        from .pipeline import Pipeline  # pipeline.py imports client.py

        return Pipeline(self)

    def locate(self, key: KeyT) -> int:
        """The ring shard of key."""
        return self.groups.locate(key)

    def stats(self) -> ClientStats:
        """Counters since the client was created (moved, ask and refreshes stay 0)."""
        return super().stats()

    def __repr__(self) -> str:
        if self.closed:
            return "<cloudroute.ShardedClient closed>"
        return f"<cloudroute.ShardedClient shards={len(self.groups)}>"
