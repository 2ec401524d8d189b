"""cloudroute.SentinelClient: Sentinel-managed shard groups, routed by libcloudroute.

The C library (``cr_sentinel_client_*``) asks the sentinels for every
group's master and replicas, stays subscribed to +switch-master and the
instance events, sends reads to the key's group's instances nearest first
(trying the next one when one fails) and writes to its master (retried
after re-asking the sentinels when refused as READONLY or not dialed);
this module only gives it redis-py's call shapes.

>>> import cloudroute
>>> ring = cloudroute.Ring.jedis(["group0", "group1"])
>>> with cloudroute.SentinelClient("127.0.1.41:26379", ["group0", "group1"], ring,
...                                cloudroute.Config(local_cidrs=["127.0.1.0/24"])) as c:
...     c.set("user:1", "alice")
...     c.get("user:1")
...     c.mset({"user:2": "bob", "user:3": "carol"})   # one MSET per group
...     c.mget(["user:1", "user:2", "user:4"])
...     c.delete("user:1", "user:2", "user:3")
True
b'alice'
True
[b'alice', b'bob', None]
3

Threads: one SentinelClient is meant to be shared by every thread; each
network call releases the GIL.
"""

from __future__ import annotations

from typing import Any, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from . import _native
from ._lifecycle import Closing
from ._native import Candidate, Route, SentinelStats
from .client import READ, WRITE, Arg, Expiry, KeyT, Seeds, _key_list, _mapping_pairs, _ms, _seeds
from .errors import InvalidArgumentError

__all__ = ["SentinelClient", "SentinelStats"]


def _batch_outcome(
    keys: Sequence[KeyT], outcome: Tuple[List[Any], int, Optional[BaseException]]
) -> Tuple[List[Any], int]:
    """A batch's (results, count), or its error raised with ``.results`` and
    ``.failed_keys`` set (the blocking and the asyncio batches alike)."""
    results, count, error = outcome
    if error is not None:
        failed: Any = error  # the attributes are set on this instance only
        failed.results = results
        failed.failed_keys = [k for k, r in zip(keys, results) if isinstance(r, Exception)]
        raise error
    return results, count


class SentinelClient(Closing, _native.SentinelClient):
    """A client for the Sentinel masters ``names`` (group i is ``names[i]``), asked
    through ``sentinels`` (``"host:port[,host:port...]"`` or a list of ``"host:port"`` /
    ``(host, port)``). ``ring`` places keys on groups (ring shard i is group i; build it
    as the existing client does, e.g. ``Ring.jedis(names)``); ``config`` gives the
    locality, weights and breaker settings. Keyword options are those of
    ``cr_sentinel_options`` (None keeps the library's default)::

        SentinelClient("10.0.0.5:26379,10.1.0.5:26379", ["orders", "users"],
                       Ring.jedis(["orders", "users"]),
                       Config(local_cidrs=["10.0.0.0/16"]),
                       command_timeout_ms=(200, 500, 500, 1000, 1000), password="...")

    Commands run on the same engine as ``Client``'s: a timeout sets an instance aside
    at once, reads move on to the group's next instance, ``hedge_mode`` hedges reads,
    ``tls=True`` speaks TLS to the sentinels and the data nodes alike (``tls_*`` as
    for ``Client``), ``username``/``password`` are the data nodes' ACL user and
    ``sentinel_username``/``sentinel_password`` the sentinels'; ``shared_connections``
    (default 2) as for ``Client``.
    The constructor returns once every group's master and replicas are known.
    """

    def __init__(
        self,
        sentinels: Seeds,
        names: Iterable[str],
        ring: _native.Ring,
        config: Optional[_native.Config] = None,
        *,
        connect_timeout_ms: Optional[int] = None,
        command_timeout_ms: Union[int, Sequence[int], None] = None,
        sentinel_timeout_ms: Optional[int] = None,
        reask_interval_ms: Optional[int] = None,
        pool_size: Optional[int] = None,
        pool_idle_ms: Optional[int] = None,
        max_retries: Optional[int] = None,
        retry_backoff_ms: Optional[int] = None,
        tcp_keepalive_s: Optional[int] = None,
        tcp_user_timeout_ms: Optional[int] = None,
        username: Optional[str] = None,
        password: Optional[str] = None,
        sentinel_username: Optional[str] = None,
        sentinel_password: Optional[str] = None,
        client_name: Optional[str] = None,
        db: Optional[int] = None,
        failures_before_refresh: Optional[int] = None,
        refresh_min_gap_ms: Optional[int] = None,
        tls: Optional[bool] = None,
        tls_verify: Optional[bool] = None,
        tls_ca_file: Optional[str] = None,
        tls_ca_dir: Optional[str] = None,
        tls_cert_file: Optional[str] = None,
        tls_key_file: Optional[str] = None,
        tls_server_name: Optional[str] = None,
        hedge_mode: Optional[str] = None,
        hedge_delay_ms: Optional[int] = None,
        hedge_min_delay_ms: Optional[int] = None,
        hedge_budget_percent: Optional[int] = None,
        hedge_percentile: Optional[float] = None,
        shared_connections: Optional[int] = None,
    ) -> None:
        super().__init__(
            _seeds(sentinels),
            names,
            ring,
            config,
            connect_timeout_ms=connect_timeout_ms,
            command_timeout_ms=command_timeout_ms,
            sentinel_timeout_ms=sentinel_timeout_ms,
            reask_interval_ms=reask_interval_ms,
            pool_size=pool_size,
            pool_idle_ms=pool_idle_ms,
            max_retries=max_retries,
            retry_backoff_ms=retry_backoff_ms,
            tcp_keepalive_s=tcp_keepalive_s,
            tcp_user_timeout_ms=tcp_user_timeout_ms,
            username=username,
            password=password,
            sentinel_username=sentinel_username,
            sentinel_password=sentinel_password,
            client_name=client_name,
            db=db,
            failures_before_refresh=failures_before_refresh,
            refresh_min_gap_ms=refresh_min_gap_ms,
            tls=tls,
            tls_verify=tls_verify,
            tls_ca_file=tls_ca_file,
            tls_ca_dir=tls_ca_dir,
            tls_cert_file=tls_cert_file,
            tls_key_file=tls_key_file,
            tls_server_name=tls_server_name,
            hedge_mode=hedge_mode,
            hedge_delay_ms=hedge_delay_ms,
            hedge_min_delay_ms=hedge_min_delay_ms,
            hedge_budget_percent=hedge_budget_percent,
            hedge_percentile=hedge_percentile,
            shared_connections=shared_connections,
        )

    def execute_command(self, *args: Arg, read: bool = False, key_index: int = 1) -> Any:
        """Any single-key command: ``execute_command("HINCRBY", "h", "f", 2)``.
        ``read=True`` lets a replica of the key's group serve it (nearest first);
        the default sends it to the group's master."""
        return self.command(READ if read else WRITE, key_index, args)

    def get(self, name: KeyT) -> Optional[bytes]:
        """GET name: bytes, or None when the key does not exist (a read)."""
        result: Optional[bytes] = self.command(READ, 1, ("GET", name))
        return result

    def set(self, name: KeyT, value: Arg, ex: Optional[Expiry] = None, px: Optional[Expiry] = None) -> bool:
        """SET name value [PX ms] on the key's group's master: True."""
        if ex is not None and px is not None:
            raise InvalidArgumentError("set: give ex or px, not both")
        args: List[Arg] = ["SET", name, value]
        if ex is not None:
            args += ["PX", _ms(ex, "ex", 1000)]
        elif px is not None:
            args += ["PX", _ms(px, "px", 1)]
        self.command(WRITE, 1, args)
        return True

    # -- batches: one command per group, every group at once ---------------------
    #
    # A batch is not a transaction: each group's command succeeds or fails on its
    # own. When keys failed, the call raises the exception of the first failed key's
    # status (its message names every failed group, its keys' positions and its
    # error), with ``.results`` — a result per key, the failed keys' exception
    # objects in their places — and ``.failed_keys`` set; the other keys' writes
    # stand.

    def _batch(self, kind: str, keys: Sequence[KeyT], values: Optional[Sequence[Arg]] = None) -> Tuple[List[Any], int]:
        return _batch_outcome(keys, self.batch(kind, keys, values))

    def mget(self, keys: Union[KeyT, Iterable[KeyT]], *args: KeyT) -> List[Optional[bytes]]:
        """MGET: each key's value (bytes) or None, in key order — one MGET per group
        (reads: the groups' instances nearest first)."""
        return self._batch("MGET", _key_list(keys, args))[0]

    def mset(self, mapping: Mapping[KeyT, Arg]) -> bool:
        """MSET of every pair of mapping — one MSET per group, on its master: True."""
        self._batch("MSET", *_mapping_pairs(mapping, "mset"))
        return True

    def delete(self, *names: KeyT) -> int:
        """DEL of names — one DEL per group: how many existed."""
        return self._batch("DEL", names)[1]

    def exists(self, *names: KeyT) -> int:
        """How many of names exist (a name given twice counts twice) — one EXISTS per group."""
        return self._batch("EXISTS", names)[1]

    def expire(self, name: KeyT, time: Expiry) -> bool:
        """EXPIRE name in ``time`` seconds (int or timedelta; sent as PEXPIRE): True
        when set, False when the key does not exist."""
        return self.expire_ms(name, _ms(time, "time", 1000))

    # -- placement (the client's ShardGroups) ----------------------------------

    def locate(self, key: KeyT) -> int:
        """The group index of key."""
        return self.groups.locate(key)

    def route_write(self, key: KeyT) -> Route:
        """The key's group's master (Route.shard is the group)."""
        return self.groups.route_write(key)

    def route_read(self, key: KeyT) -> Route:
        """The instance a read of key would try first."""
        return self.groups.route_read(key)

    def read_order(self, key: KeyT) -> List[Candidate]:
        """Every instance of the key's group in the order a read tries them."""
        return self.groups.read_order(key)

    # -- lifecycle ---------------------------------------------------------------

    def __repr__(self) -> str:
        if self.closed:
            return "<cloudroute.SentinelClient closed>"
        return f"<cloudroute.SentinelClient groups={len(self.groups)}>"
