"""cloudroute.Client: a live Redis Cluster client routed by libcloudroute.

The commands, redirects, retries, MGET/MSET/DEL fan-out, pooling and
background topology refresh all run in the C library (``cr_client_*``);
this module only gives them redis-py's call shapes.

>>> import cloudroute
>>> with cloudroute.Client("127.0.1.1:7001", cloudroute.Config(local_cidrs=["127.0.1.0/24"])) as c:
...     c.set("user:1", "alice", ex=60)
...     c.get("user:1")
True
b'alice'

Replies: bulk strings are ``bytes``, status replies ``str`` ("OK"), integers
``int``, nil ``None``, arrays ``list``, RESP3 maps ``dict``. An error reply
raises :class:`cloudroute.ResponseError` with the server's message; a node
that cannot be reached raises :class:`cloudroute.ConnectionError` (also a
built-in ``ConnectionError``), a deadline :class:`cloudroute.TimeoutError`.

Threads: one Client is meant to be shared by every thread of a process;
each network call releases the GIL.
"""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from . import _native
from ._lifecycle import Closing
from ._native import ClientStats, NodeStats
from .commands import ClientCommands, _timeout_ms
from .errors import InvalidArgumentError
from .pubsub import Names, Subscription

if TYPE_CHECKING:
    from .pipeline import Pipeline

__all__ = ["AUTO", "Client", "ClientStats", "NodeStats", "READ", "WRITE"]

#: Access of execute_command / command: a read may be served by a replica
#: (the key's read candidates, local first) and is retried on the next
#: candidate; a write goes to the master and is never re-sent.
READ = 0
WRITE = 1
#: ... or as the server's own command table says (COMMAND, learned once per
#: client): a read when the server flags the command readonly, else a write;
#: key_index 0 lets the server's key specs find the key.
AUTO = 2

#: A command argument: bytes, str (UTF-8), int, float or a bytes-like object.
Arg = Union[bytes, str, int, float, bytearray, memoryview]
#: A key: bytes, str (UTF-8) or a bytes-like object.
KeyT = Union[bytes, str, bytearray, memoryview]
#: A duration: seconds (or milliseconds for px/pexpire) as an int, or a timedelta.
Expiry = Union[int, datetime.timedelta]
Seeds = Union[str, Iterable[Union[str, Tuple[str, int]]]]


def _seeds(seeds: Seeds) -> str:
    if isinstance(seeds, str):
        return seeds
    parts = []
    for s in seeds:
        if isinstance(s, tuple):
            host, port = s
            parts.append(f"[{host}]:{port}" if ":" in host else f"{host}:{port}")
        else:
            parts.append(s)
    return ",".join(parts)


def _ms(value: Expiry, what: str, unit_ms: int) -> int:
    if isinstance(value, datetime.timedelta):
        ms = int(value.total_seconds() * 1000)
    elif isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be an int or a timedelta, not {type(value).__name__}")
    else:
        ms = value * unit_ms
    if ms <= 0:
        raise InvalidArgumentError(f"{what} must be positive, not {value!r}")
    return ms


def _key_list(keys: Union[KeyT, Iterable[KeyT]], args: Sequence[KeyT]) -> List[KeyT]:
    """redis-py's ``mget(keys, *args)``: a list of keys, or keys as arguments."""
    if isinstance(keys, (str, bytes, bytearray, memoryview)):
        return [keys, *args]
    return [*keys, *args]


def _mapping_pairs(mapping: Mapping[KeyT, Arg], fn: str) -> Tuple[List[KeyT], List[Arg]]:
    """``mset(mapping)``'s keys and values, in the mapping's order;
    InvalidArgumentError when it is not a mapping."""
    if not isinstance(mapping, Mapping):
        raise InvalidArgumentError(f"{fn}: mapping must be a mapping of keys to values, not {type(mapping).__name__}")
    return list(mapping.keys()), list(mapping.values())


def _set_args(
    name: KeyT,
    value: Arg,
    ex: Optional[Expiry],
    px: Optional[Expiry],
    nx: bool,
    xx: bool,
    keepttl: bool,
    get: bool,
) -> List[Arg]:
    """SET's arguments with redis-py's options (Client.set, Pipeline.set); an
    expiry as PX milliseconds. InvalidArgumentError for ex with px or nx with xx."""
    if ex is not None and px is not None:
        raise InvalidArgumentError("set: give ex or px, not both")
    if nx and xx:
        raise InvalidArgumentError("set: give nx or xx, not both")
    args: List[Arg] = ["SET", name, value]
    if ex is not None:
        args += ["PX", _ms(ex, "ex", 1000)]
    elif px is not None:
        args += ["PX", _ms(px, "px", 1)]
    args += [flag for flag, on in (("NX", nx), ("XX", xx), ("KEEPTTL", keepttl), ("GET", get)) if on]
    return args


class Client(Closing, ClientCommands):
    """A Redis Cluster client whose reads go to the nearest candidate.

    ``seeds`` is ``"host:port[,host:port...]"`` or a list of ``"host:port"`` /
    ``(host, port)``; ``config`` a :class:`cloudroute.Config` (locality,
    policy, weights, address remaps). Keyword options are those of
    ``cr_client_options`` (None keeps the library's default)::

        Client("10.0.0.1:6379", Config(local_cidrs=["10.0.0.0/16"], policy="local"),
               command_timeout_ms=(200, 500, 500, 1000, 1000),   # by Tier, or one int
               password="...", tls=True, tls_ca_file="ca.pem",
               replica_max_lag_bytes=1 << 20, replica_max_lag_s=10,  # stale replicas last
               hedge_mode="fixed", hedge_delay_ms=20,  # a slow read also asks the next node
               read_your_writes_ms=1000,  # reads of a slot written <1 s ago: its master
               db=2,  # SELECT 2 on every connection (a cluster with cluster-databases)
               shared_connections=2)  # the default: all threads on 2 connections per node

    The constructor returns once the topology has been read from a seed.
    Commands covered with redis-py's call shapes: get, set (ex/px/nx/xx/
    keepttl/get), delete, exists, expire, pexpire, ttl, pttl, incr, incrby,
    decr, hget, hset, hdel, hgetall, mget, mset, plus execute_command for any
    single-key command (``timeout=`` for a call-level timeout), and from
    :class:`cloudroute.commands.ClientCommands`: execute_on_nodes, dbsize,
    script_load, scan_iter, register_script, fcall, fcall_ro, pinned.

    What an operator sees: events (node marked down/up, failover seen,
    refresh failed, MOVED/ASK, reads that fell back) go to the logger
    ``"cloudroute"`` at the level it has when the client starts (the fields
    are in the record's ``cloudroute`` dict; the config's log route is set for
    it), and :meth:`metrics_text` returns the statistics as Prometheus text.
    """

    def __init__(
        self,
        seeds: Seeds,
        config: Optional[_native.Config] = None,
        *,
        connect_timeout_ms: Optional[int] = None,
        command_timeout_ms: Union[int, Sequence[int], None] = None,
        pool_size: Optional[int] = None,
        pool_idle_ms: Optional[int] = None,
        refresh_interval_ms: Optional[int] = None,
        refresh_min_gap_ms: Optional[int] = None,
        max_redirects: Optional[int] = None,
        max_retries: Optional[int] = None,
        retry_backoff_ms: Optional[int] = None,
        failures_before_refresh: Optional[int] = None,
        tcp_keepalive_s: Optional[int] = None,
        tcp_user_timeout_ms: Optional[int] = None,
        max_reply_elements: Optional[int] = None,
        max_bulk_len: Optional[int] = None,
        max_reply_bytes: Optional[int] = None,
        username: Optional[str] = None,
        password: Optional[str] = None,
        client_name: Optional[str] = None,
        tls: Optional[bool] = None,
        tls_verify: Optional[bool] = None,
        tls_ca_file: Optional[str] = None,
        tls_ca_dir: Optional[str] = None,
        tls_cert_file: Optional[str] = None,
        tls_key_file: Optional[str] = None,
        tls_server_name: Optional[str] = None,
        replica_max_lag_bytes: Optional[int] = None,
        replica_max_lag_s: Optional[int] = None,
        hedge_mode: Optional[str] = None,
        hedge_delay_ms: Optional[int] = None,
        hedge_min_delay_ms: Optional[int] = None,
        hedge_budget_percent: Optional[int] = None,
        hedge_percentile: Optional[float] = None,
        read_your_writes_ms: Optional[int] = None,
        db: Optional[int] = None,
        shared_connections: Optional[int] = None,
    ) -> None:
        super().__init__(
            _seeds(seeds),
            config,
            connect_timeout_ms=connect_timeout_ms,
            command_timeout_ms=command_timeout_ms,
            pool_size=pool_size,
            pool_idle_ms=pool_idle_ms,
            refresh_interval_ms=refresh_interval_ms,
            refresh_min_gap_ms=refresh_min_gap_ms,
            max_redirects=max_redirects,
            max_retries=max_retries,
            retry_backoff_ms=retry_backoff_ms,
            failures_before_refresh=failures_before_refresh,
            tcp_keepalive_s=tcp_keepalive_s,
            tcp_user_timeout_ms=tcp_user_timeout_ms,
            max_reply_elements=max_reply_elements,
            max_bulk_len=max_bulk_len,
            max_reply_bytes=max_reply_bytes,
            username=username,
            password=password,
            client_name=client_name,
            tls=tls,
            tls_verify=tls_verify,
            tls_ca_file=tls_ca_file,
            tls_ca_dir=tls_ca_dir,
            tls_cert_file=tls_cert_file,
            tls_key_file=tls_key_file,
            tls_server_name=tls_server_name,
            replica_max_lag_bytes=replica_max_lag_bytes,
            replica_max_lag_s=replica_max_lag_s,
            hedge_mode=hedge_mode,
            hedge_delay_ms=hedge_delay_ms,
            hedge_min_delay_ms=hedge_min_delay_ms,
            hedge_budget_percent=hedge_budget_percent,
            hedge_percentile=hedge_percentile,
            read_your_writes_ms=read_your_writes_ms,
            db=db,
            shared_connections=shared_connections,
        )

    # -- generic -------------------------------------------------------------

    def execute_command(
        self,
        *args: Arg,
        read: Optional[bool] = None,
        key_index: Optional[int] = None,
        timeout: Optional[float] = None,
    ) -> Any:
        """Any keyed command: ``execute_command("HINCRBY", "h", "f", 2)``.

        By default the server decides (AUTO): a command it flags readonly
        (GET, HTTL on Valkey 9, EVAL_RO, OBJECT ENCODING …) may be served by a
        replica (local candidates first), anything else goes to the key's
        master, and its key specs find the key (EVAL_RO's numkeys, XREAD's
        STREAMS …). ``read=True`` / ``read=False`` decide instead (the key at
        ``key_index``, default 1); ``key_index`` alone keeps the server's
        class and places the command by that argument. ``timeout``
        (seconds) replaces the node's tier timeout for this call — for
        BLPOP, XREAD BLOCK, WAIT or a slow command; its passing raises
        TimeoutError but does not mark the node down.
        """
        access = AUTO if read is None else READ if read else WRITE
        index = key_index if key_index is not None else 0 if read is None else 1
        if timeout is not None:
            return self.command_opts(access, index, args, _timeout_ms(timeout))
        return self.command(access, index, args)

    # -- strings -------------------------------------------------------------

    def set(  # type: ignore[override]
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
        """SET name value [EX|PX] [NX|XX] [KEEPTTL] [GET]. True when set (None when
        NX/XX prevented it); with get=True the old value."""
        args = _set_args(name, value, ex, px, nx, xx, keepttl, get)
        if not (nx or xx or keepttl or get):  # SET name value [PX ms]: the plain call
            ttl_ms = args[4] if len(args) == 5 else 0
            assert isinstance(ttl_ms, int)
            super().set(name, value, ttl_ms)
            return True
        if get:
            return self.command(WRITE, 1, args)
        return True if self.command(WRITE, 1, args) is not None else None

    def incr(self, name: KeyT, amount: int = 1) -> int:
        """INCRBY name amount: the new value."""
        result: int = self.command(WRITE, 1, ("INCRBY", name, amount))
        return result

    incrby = incr

    def decr(self, name: KeyT, amount: int = 1) -> int:
        """DECRBY name amount: the new value."""
        result: int = self.command(WRITE, 1, ("DECRBY", name, amount))
        return result

    def mget(self, keys: Union[KeyT, Iterable[KeyT]], *args: KeyT) -> List[Optional[bytes]]:  # type: ignore[override]
        """MGET of keys in any slots (split by slot, every node asked at once).
        Accepts ``mget([k1, k2])`` or ``mget(k1, k2)`` as redis-py does."""
        result: List[Optional[bytes]] = super().mget(_key_list(keys, args))
        return result

    def mset(self, mapping: Mapping[KeyT, Arg]) -> bool:  # type: ignore[override]
        """MSET of a mapping in any slots (not atomic across slots). True."""
        super().mset(*_mapping_pairs(mapping, "mset"))
        return True

    def delete(self, *names: KeyT) -> int:  # type: ignore[override]
        """DEL of keys in any slots: how many existed."""
        return super().delete(names)

    # -- keys ----------------------------------------------------------------

    def exists(self, *names: KeyT) -> int:
        """How many of names exist (one EXISTS per key: they may be in any slots)."""
        return sum(int(self.command(READ, 1, ("EXISTS", n))) for n in names)

    def expire(self, name: KeyT, time: Expiry) -> bool:
        """EXPIRE name seconds (or a timedelta): True when the timeout was set."""
        if isinstance(time, datetime.timedelta):
            return bool(self.command(WRITE, 1, ("PEXPIRE", name, _ms(time, "time", 1000))))
        return bool(self.command(WRITE, 1, ("EXPIRE", name, time)))

    def pexpire(self, name: KeyT, time: Expiry) -> bool:
        """PEXPIRE name milliseconds (or a timedelta)."""
        ms = _ms(time, "time", 1) if isinstance(time, datetime.timedelta) else time
        return bool(self.command(WRITE, 1, ("PEXPIRE", name, ms)))

    def ttl(self, name: KeyT) -> int:
        """TTL name: seconds left, -1 without a timeout, -2 when missing."""
        result: int = self.command(READ, 1, ("TTL", name))
        return result

    def pttl(self, name: KeyT) -> int:
        """PTTL name: milliseconds left, -1 without a timeout, -2 when missing."""
        result: int = self.command(READ, 1, ("PTTL", name))
        return result

    # -- hashes --------------------------------------------------------------

    def hget(self, name: KeyT, key: Arg) -> Optional[bytes]:
        """HGET name key."""
        result: Optional[bytes] = self.command(READ, 1, ("HGET", name, key))
        return result

    def hset(
        self,
        name: KeyT,
        key: Optional[Arg] = None,
        value: Optional[Arg] = None,
        mapping: Optional[Mapping[Arg, Arg]] = None,
        items: Optional[Sequence[Arg]] = None,
    ) -> int:
        """HSET name key value / mapping={...} / items=[k, v, ...]: fields added."""
        args: List[Arg] = ["HSET", name]
        if key is not None:
            if value is None:
                raise InvalidArgumentError("hset: a key needs a value")
            args += [key, value]
        if mapping:
            for k, v in mapping.items():
                args += [k, v]
        if items:
            args += list(items)
        if len(args) == 2:
            raise InvalidArgumentError("hset: no key/value pairs")
        result: int = self.command(WRITE, 1, args)
        return result

    def hdel(self, name: KeyT, *keys: Arg) -> int:
        """HDEL name key [key ...]: fields removed."""
        result: int = self.command(WRITE, 1, ("HDEL", name, *keys))
        return result

    def hgetall(self, name: KeyT) -> Dict[bytes, bytes]:
        """HGETALL name as a dict."""
        reply = self.command(READ, 1, ("HGETALL", name))
        if isinstance(reply, dict):
            return reply
        it = iter(reply)
        return dict(zip(it, it))

    # -- publish / subscribe ---------------------------------------------------

    def subscribe(self, channels: Names = (), patterns: Names = (), shard_channels: Names = ()) -> Subscription:
        """A :class:`cloudroute.Subscription` of channels (SUBSCRIBE), patterns
        (PSUBSCRIBE) and shard channels (SSUBSCRIBE), each one name or an
        iterable of them; :meth:`Subscription.add` subscribes more::

            with client.subscribe(channels="news", shard_channels=["{eu}orders"]) as sub:
                for msg in sub:  # cloudroute.Message: messages and events
                    ...

        Channels and patterns are read on the node a read would use first (a
        local replica first), a shard channel on its slot's shard (its local
        replica where there is one); a name whose node fails or whose slot
        moves is subscribed again elsewhere (``MOVING``, then ``RESUBSCRIBED``).
        Publish with :meth:`publish` (``PUBLISH``, to any node) and
        :meth:`spublish` (``SPUBLISH``, to the slot's master): each returns how
        many subscribers got the message.
        """
        sub = Subscription(self.subscription())
        try:
            sub.add(channels, patterns, shard_channels)
        except BaseException:
            sub.close()
            raise
        return sub

    # -- pipelines -------------------------------------------------------------

    def pipeline(self, transaction: Optional[bool] = None) -> "Pipeline":
        """A :class:`cloudroute.Pipeline` on this client: commands in any slots
        queued, then sent at once by ``execute()`` (redis-py's shape). Cross-slot
        transactions are not offered: ``transaction=True`` is refused."""
        if transaction:
            raise InvalidArgumentError("pipeline: transactions are not supported (commands span slots)")
        from .pipeline import Pipeline  # pipeline.py imports this module

        return Pipeline(self)

    # -- lifecycle -------------------------------------------------------------

    def __repr__(self) -> str:
        if self.closed:
            return "<cloudroute.Client closed>"
        return f"<cloudroute.Client nodes={len(self.node_stats())}>"
