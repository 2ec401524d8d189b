"""Read placement shared by the redis-py adapters (redis_py: redis.cluster,
redis_asyncio: redis.asyncio.cluster).

redis-py asks its NodesManager for "a node of slot S" (``get_node_from_slot``)
and passes whether the command is a read. For reads, :class:`Placement`
answers with ``Router.route_read_slot(S)`` on a Router built from redis-py's
own slot table (``slots_cache``, rebuilt whenever redis-py re-reads the
topology), and remembers the pick (a context variable: per thread, per
asyncio task) so the adapter's ``_execute_command`` can report how the node
answered — success or failure — to the Router's health breaker, and try the
slot's next candidate when it did not answer. The breaker then skips a dead
node for every later read, long before redis-py's slot table drops it.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
import time
from typing import Any, Callable, Dict, Iterator, List, NamedTuple, Optional, Set, Tuple, Type

from . import _native
from ._native import Router
from .errors import Error, InvalidArgumentError

_SLOTS = 16384
_RESYNC_GAP_S = 0.5  # at most one rebuild per gap after a miss (MOVED patches)


def _addr(node: Any) -> str:
    host = str(node.host)
    return f"[{host}]:{node.port}" if ":" in host else f"{host}:{node.port}"


def topology_from_slots_cache(slots_cache: Dict[int, List[Any]]) -> _native.Topology:
    """A cloudroute Topology of redis-py's slot table (slot -> [primary, replicas...])."""
    # A run of slots ends where the node list changes. redis-py puts the same
    # node objects in every slot of a range: the extension compares the slots
    # by the identity of their nodes (bench/python/bench_slots_cache.py: a
    # Python loop over the 16384 slots took 12 ms a build, this 0.3 ms), and
    # addresses are formatted once per run. Two objects for one address only split a run;
    # the runs are grouped by address below.
    shards: Dict[Tuple[str, ...], List[Tuple[int, int]]] = {}
    for first, last, nodes in _native.slot_runs(slots_cache):
        key = tuple(_addr(n) for n in nodes)
        shards.setdefault(key, []).append((first, last))
    lines = []
    for key, ranges in shards.items():
        slots = ",".join(f"{a}-{b}" if a != b else str(a) for a, b in ranges)
        line = f"shard slots={slots} master={key[0]}"
        if len(key) > 1:
            line += " replicas=" + ",".join(key[1:])
        lines.append(line)
    return _native.parse_static("\n".join(lines))


class Pick(NamedTuple):
    """A read node libcloudroute chose: redis-py's node object, its slot, its handle."""

    node: Any
    slot: int
    handle: int


#: The last pick of this thread / asyncio task, consumed by _execute_command.
PICK: contextvars.ContextVar[Optional[Pick]] = contextvars.ContextVar("cloudroute_pick", default=None)


class Batch:
    """One pipeline execution (the adapters' pipeline classes): the read node
    libcloudroute chose per redis-py node name, and the handles that failed
    during it, which the execution's later choices (redis-py re-sending the
    batch) skip at once, breaker open or not. wrap, when set, turns a chosen
    node into what the pipeline is given instead (the asyncio adapter's node
    that reports how its share of the batch went)."""

    def __init__(self, wrap: Optional[Callable[[Pick], Any]] = None) -> None:
        self.picks: Dict[str, Pick] = {}
        self.failed: Set[int] = set()
        self.wrap = wrap
        # Slots an earlier command of this execution writes: its later reads of
        # them go to the slot's primary (read your writes; redis-py asks for each
        # command's node in queue order).
        self.written: Set[int] = set()

    def settle(self, placement: "Placement") -> None:
        """The pipeline answered: every chosen node that did not fail is reported
        as a success."""
        for pick in self.picks.values():
            if pick.handle not in self.failed:
                placement.report(pick.handle, ok=True)


#: The pipeline execution of this thread, if any.
BATCH: contextvars.ContextVar[Optional[Batch]] = contextvars.ContextVar("cloudroute_batch", default=None)


class Placement:
    """The Router of one adapter client, kept in step with redis-py's slot table,
    and the adapter's counters."""

    def __init__(self, config: Optional[_native.Config], read_your_writes_ms: int = 0) -> None:
        if not isinstance(read_your_writes_ms, int) or isinstance(read_your_writes_ms, bool) \
                or not 0 <= read_your_writes_ms <= 0xFFFFFFFF:
            raise InvalidArgumentError(
                f"read_your_writes_ms must be an int in [0, 2**32), got {read_your_writes_ms!r}")
        self.router = Router(config)
        # Read your writes across calls: per slot, the instant (time.monotonic)
        # until which reads go to the primary; None when off.
        self.window_s = read_your_writes_ms / 1000.0
        self.written_until: Optional[List[float]] = [0.0] * _SLOTS if read_your_writes_ms else None
        self.synced: Optional[Dict[int, List[Any]]] = None
        self.last_build = 0.0
        self.lock = threading.Lock()
        self.routed = 0  # reads whose node libcloudroute chose
        self.fallbacks = 0  # reads left to redis-py's choice
        self.failures = 0  # failed attempts on a chosen node, reported to the Router
        self.retried = 0  # reads answered by a next candidate after a failure
        self.redirected = 0  # reads moved on after a replica's MOVED to its own primary
        # Replicas that do not serve reads, read last (Router.set_replica_lagging):
        # those that refused READONLY (an ACL without +readonly: for good) and those
        # that answered a read with MOVED to their own primary (until redis-py next
        # re-reads the topology: READONLY may be in effect on new connections).
        self.refused: Set[Tuple[str, int]] = set()
        self.moved: Set[Tuple[str, int]] = set()

    def stats(self) -> Dict[str, int]:
        return {"routed": self.routed, "fallbacks": self.fallbacks, "failures": self.failures,
                "retried": self.retried, "redirected": self.redirected,
                "readonly_refused": len(self.refused)}

    def _mark(self, address: Tuple[str, int], read_last: bool) -> None:
        try:
            self.router.set_replica_lagging(address[0], address[1], read_last)
        except Error:
            pass  # no topology yet: ensure() marks it after the first build

    def readonly_refused(self, host: str, port: int) -> None:
        """A node refused READONLY: its connections stay usable for master reads
        (and writes), but as a replica it answers reads with MOVED: read it last."""
        with self.lock:
            self.refused.add((host, port))
            self._mark((host, port), True)

    def replica_moved(self, host: str, port: int) -> None:
        """A replica answered a read of a slot it holds with MOVED to its primary."""
        with self.lock:
            self.moved.add((host, port))
            self._mark((host, port), True)

    def ensure(self, cache: Dict[int, List[Any]], force: bool = False) -> bool:
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
            for address in self.moved - self.refused:
                self._mark(address, False)
            self.moved.clear()
            for address in self.refused:
                self._mark(address, True)
            return True

    def note_write(self, slot: int) -> None:
        """A write of slot is being routed: the pipeline's later reads of it, and
        with read_your_writes_ms this client's reads of it for the window, go to
        its primary."""
        batch = BATCH.get()
        if batch is not None:
            batch.written.add(slot)
        if self.written_until is not None and 0 <= slot < _SLOTS:
            self.written_until[slot] = time.monotonic() + self.window_s

    def primary_only(self, slot: int) -> bool:
        """Whether a read of slot goes to its primary (note_write)."""
        batch = BATCH.get()
        if batch is not None and slot in batch.written:
            return True
        until = self.written_until
        return until is not None and 0 <= slot < _SLOTS and time.monotonic() < until[slot]

    def _lookup(self, cache: Dict[int, List[Any]], slot: int) -> Optional[Pick]:
        try:
            route = self.router.route_read_slot(slot)
        except Error:
            return None
        for node in cache.get(slot) or ():
            if node.port == route.port and node.host == route.host:
                return Pick(node, slot, route.node_handle)
        return None

    def choose(self, cache: Dict[int, List[Any]], slot: int) -> Optional[Any]:
        """The node of a read of slot (recorded in PICK), or None: redis-py's choice."""
        pick = None
        inflight = INFLIGHT.get()
        if inflight is not None and inflight.slot == slot:
            pick = inflight.redirected(cache)
        if pick is None and self.ensure(cache):
            pick = self._lookup(cache, slot)
            if pick is None and self.ensure(cache, force=True):
                pick = self._lookup(cache, slot)
        if inflight is not None and inflight.slot == slot:
            inflight.placed(pick)
        batch = BATCH.get()
        if pick is not None and batch is not None:
            if pick.handle in batch.failed:
                pick = self.next_candidate(cache, slot, batch.failed)
            if pick is not None:
                batch.picks[pick.node.name] = pick
        PICK.set(pick)
        if pick is None:
            self.fallbacks += 1
            return None
        self.routed += 1
        if batch is not None and batch.wrap is not None:
            return batch.wrap(pick)
        return pick.node

    def next_candidate(self, cache: Dict[int, List[Any]], slot: int, tried: Set[int]) -> Optional[Pick]:
        """The slot's first candidate (rank order, nodes marked down last) not yet
        tried, among the nodes redis-py lists for the slot; None when none is left."""
        self.ensure(cache)
        try:
            candidates = self.router.slot_candidates(slot)
        except Error:
            return None
        nodes = {(n.host, n.port): n for n in cache.get(slot) or ()}
        for c in sorted(candidates, key=lambda c: c.down):  # stable: rank order kept
            node = nodes.get((c.host, c.port))
            if node is not None and c.node_handle not in tried:
                return Pick(node, slot, c.node_handle)
        return None

    def report(self, handle: int, ok: bool) -> None:
        try:
            if ok:
                self.router.report_success(handle)
            else:
                self.failures += 1
                batch = BATCH.get()
                if batch is not None:
                    batch.failed.add(handle)
                self.router.report_failure(handle)
        except Error:
            pass  # a handle of a router rebuilt meanwhile: nothing to mark


def _client_side_errors() -> Tuple[Type[BaseException], ...]:
    import redis.exceptions as rex

    names = ("AuthenticationError", "MaxConnectionsError")
    return tuple(getattr(rex, n) for n in names if hasattr(rex, n))


#: ConnectionError subclasses that say nothing about the node's health (a
#: refused password, the client's own pool exhausted): re-raised, never reported.
CLIENT_SIDE_ERRORS = _client_side_errors()


class Attempts:
    """One read's attempts, from the node libcloudroute chose on through the
    slot's next candidates; each outcome is reported to the Router. tried (the
    handles not to choose again) may be shared by the reads of one failed batch."""

    def __init__(self, placement: Placement, pick: Pick, tried: Optional[Set[int]] = None) -> None:
        self.placement = placement
        self.pick: Optional[Pick] = pick
        self.slot = pick.slot
        self.tried: Set[int] = set() if tried is None else tried
        self.moved_on = False  # a next candidate was tried (failure or MOVED)

    @property
    def node(self) -> Any:
        assert self.pick is not None
        return self.pick.node

    def next(self, cache: Dict[int, List[Any]]) -> bool:
        """Moves on to the slot's next candidate not tried yet; False when none is left."""
        if self.pick is not None:
            self.tried.add(self.pick.handle)
        following = self.placement.next_candidate(cache, self.slot, self.tried)
        if following is None:
            return False
        self.pick, self.moved_on = following, True
        return True

    def failed(self, error: BaseException, cache: Dict[int, List[Any]]) -> None:
        """The node did not answer (error, a ConnectionError or TimeoutError): report
        it and move on to the slot's next candidate; re-raises error when none is
        left or when error says nothing of the node (CLIENT_SIDE_ERRORS)."""
        if isinstance(error, CLIENT_SIDE_ERRORS) or self.pick is None:
            raise error
        self.placement.report(self.pick.handle, ok=False)
        if not self.next(cache):
            raise error

    def redirected(self, cache: Dict[int, List[Any]]) -> Optional[Pick]:
        """redis-py asks for the slot's read node again while sending this read:
        the node it was sent to answered MOVED (redis-py's only such path). A node
        redis-py still lists as one of the slot's replicas holds the slot but did
        not serve the read (READONLY not in effect on that connection): it is read
        last from now on and the read moves to the slot's next candidate at once.
        None otherwise (the slot moved: redis-py's table says where)."""
        pick = self.pick
        if pick is None:
            return None
        replicas = (cache.get(self.slot) or [])[1:]
        if not any(n.host == pick.node.host and n.port == pick.node.port for n in replicas):
            return None
        self.placement.replica_moved(pick.node.host, pick.node.port)
        self.placement.redirected += 1
        return self.pick if self.next(cache) else None

    def placed(self, pick: Optional[Pick]) -> None:
        """The node the read goes to next (None: redis-py's choice, not reported)."""
        self.pick = pick

    def answered(self, response: Any) -> Any:
        if self.pick is not None:
            self.placement.report(self.pick.handle, ok=True)
        if self.moved_on:
            self.placement.retried += 1
        return response


#: The read libcloudroute placed that redis-py is sending now (its
#: _execute_command) in this thread / asyncio task, if any.
INFLIGHT: contextvars.ContextVar[Optional[Attempts]] = contextvars.ContextVar("cloudroute_inflight", default=None)


def consume_pick(target_node: Any, command: Any, read_commands: Any) -> Optional[Pick]:
    """The pick behind this _execute_command call, when target_node is the read
    node libcloudroute chose for it (never for a write: those are not re-sent)."""
    pick = PICK.get()
    if pick is None:
        return None
    PICK.set(None)
    if pick.node is not target_node or command not in read_commands:
        return None
    return pick


def _is_read(args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> bool:
    """Whether redis-py's get_node_from_slot arguments ask for a read node:
    5.0: (slot, read_from_replicas, server_type); 5.1+: (slot, read_from_replicas,
    load_balancing_strategy, server_type)."""
    read = bool(args[0]) if args else bool(kwargs.get("read_from_replicas"))
    server_type = kwargs.get("server_type")
    for a in args[1:]:
        if isinstance(a, str):
            server_type = a
        elif a is not None:
            read = True  # a load-balancing strategy: redis-py passes one for reads only
    if kwargs.get("load_balancing_strategy") is not None:
        read = True
    return read and server_type != "primary"


def install(manager: Any, placement: Placement) -> None:
    """Makes manager (a redis-py NodesManager, sync or asyncio) place reads through
    placement: its class becomes a subclass adding no instance state (the asyncio
    NodesManager uses __slots__, so only then may __class__ change) whose
    get_node_from_slot asks placement first: a write's slot is noted
    (Placement.note_write), a read of a slot written before it in the same
    pipeline (or within read_your_writes_ms) gets the primary, any other read
    placement's choice."""
    base = type(manager)

    def get_node_from_slot(self: Any, slot: int, *args: Any, **kwargs: Any) -> Any:
        if not _is_read(args, kwargs):
            placement.note_write(slot)
        elif placement.primary_only(slot):
            PICK.set(None)
            return base.get_node_from_slot(self, slot)  # the primary (read your writes)
        else:
            node = placement.choose(self.slots_cache, slot)
            if node is not None:
                return node
        return base.get_node_from_slot(self, slot, *args, **kwargs)

    manager.__class__ = type("CloudRoute" + base.__name__, (base,),
                             {"__slots__": (), "get_node_from_slot": get_node_from_slot})


#: redis-py's load-balancing strategies (LoadBalancingStrategy member names) as
#: the policy and selection that read the same nodes in the same manner: among
#: the primary and its replicas, or the replicas only; in turn or at random.
STRATEGIES: Dict[str, Tuple[str, str]] = {
    "ROUND_ROBIN": ("local-spread", "round-robin"),
    "RANDOM": ("local-spread", "random"),
    "ROUND_ROBIN_REPLICAS": ("replica-only", "round-robin"),
    "RANDOM_REPLICA": ("replica-only", "random"),
}


def read_placement(kwargs: Dict[str, Any], config: Optional[_native.Config],
                   load_balancing: Any) -> Tuple[Optional[_native.Config], bool]:
    """What the caller's RedisCluster arguments ask of reads: the Config to place
    them with and whether libcloudroute places them at all.

    - ``load_balancing_strategy``: honoured, as the policy and selection of
      STRATEGIES (no locality rules); with a ``config`` too it is refused
      (ValueError: both choose the read node), as is a strategy STRATEGIES lacks.
    - ``read_from_replicas=False`` (given, no strategy): honoured as redis-py
      does: reads stay on the primaries and libcloudroute places none; with a
      ``config`` too it is refused (ValueError: it would place nothing).
    - ``read_from_replicas=True``: reads from replicas, placed by ``config`` or,
      without one, as redis-py's ROUND_ROBIN (which it stands for).
    - neither: ``config`` (default: Config()) places reads.
    Replica connections need READONLY, which redis-py sends when either argument
    asks for replica reads: when neither does, kwargs gets redis-py's ROUND_ROBIN
    (>= 5.1; read_from_replicas before) — only for that; libcloudroute replaces
    its order."""
    strategy = kwargs.get("load_balancing_strategy")
    if strategy is not None:
        name = getattr(strategy, "name", str(strategy))
        if name not in STRATEGIES:
            raise ValueError(f"load_balancing_strategy {strategy!r} has no cloudroute equivalent "
                             f"(known: {', '.join(sorted(STRATEGIES))}); pass config=cloudroute.Config(policy=..., "
                             f"selection=...) instead")
        policy, selection = STRATEGIES[name]
        if config is not None:
            raise ValueError(f"give load_balancing_strategy or config, not both: both choose the node of a read "
                             f"({name} is config=cloudroute.Config(policy={policy!r}, selection={selection!r}), "
                             f"to which locality rules may be added)")
        return _config(policy, selection), True
    replicas = kwargs.get("read_from_replicas")
    if "read_from_replicas" in kwargs and not replicas:
        if config is not None:
            raise ValueError("read_from_replicas=False keeps every read on its slot's primary, as redis-py does: "
                             "a config would place nothing (drop one of the two)")
        return None, False
    if replicas and config is None:
        policy, selection = STRATEGIES["ROUND_ROBIN"]
        return _config(policy, selection), True
    if not replicas:
        if load_balancing is None:
            kwargs["read_from_replicas"] = True
        else:
            kwargs["load_balancing_strategy"] = load_balancing.ROUND_ROBIN
    return config, True


def _config(policy: str, selection: str) -> _native.Config:
    config = _native.Config()
    config.set_router_options(policy=policy)
    config.set_selection(selection)
    return config


@contextlib.contextmanager
def readonly_refusal(connection: Any, refused: Callable[[str, int], None], awaited: bool) -> Iterator[None]:
    """While redis-py's on_connect runs on connection: an error reply to the
    READONLY it sends (an ACL user without +readonly: NOPERM) calls
    refused(host, port) and reads as "OK" to redis-py, so the connection stays
    usable (writes and master reads need no READONLY) instead of failing every
    command. Other replies pass unchanged. awaited: the connection is
    redis.asyncio's (its send_command and read_response are coroutines)."""
    from redis.exceptions import ResponseError

    send, read = connection.send_command, connection.read_response
    pending = [False]

    def sending(args: Tuple[Any, ...]) -> None:
        pending[0] = bool(args) and str(args[0]).upper() == "READONLY"

    def refusal(error: ResponseError, readonly: bool) -> bytes:
        if not readonly:
            raise error
        refused(str(connection.host), int(connection.port))
        return b"OK"

    def reading() -> bool:
        readonly, pending[0] = pending[0], False
        return readonly

    if awaited:
        async def send_async(*args: Any, **kwargs: Any) -> Any:
            sending(args)
            return await send(*args, **kwargs)

        async def read_async(*args: Any, **kwargs: Any) -> Any:
            readonly = reading()
            try:
                return await read(*args, **kwargs)
            except ResponseError as e:
                return refusal(e, readonly)

        connection.send_command, connection.read_response = send_async, read_async
    else:
        def send_sync(*args: Any, **kwargs: Any) -> Any:
            sending(args)
            return send(*args, **kwargs)

        def read_sync(*args: Any, **kwargs: Any) -> Any:
            readonly = reading()
            try:
                return read(*args, **kwargs)
            except ResponseError as e:
                return refusal(e, readonly)

        connection.send_command, connection.read_response = send_sync, read_sync
    try:
        yield
    finally:
        del connection.send_command, connection.read_response
