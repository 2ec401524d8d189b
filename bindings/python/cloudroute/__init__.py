"""cloudroute — which Redis node serves a key, with cloud locality.

Python bindings of libcloudroute: every function here calls the library's
C API (statically linked into ``cloudroute._native``), so Python routes
exactly as C, the CLI and the JVM do.

>>> import cloudroute
>>> cloudroute.keyslot("user:1000")
1649
>>> topo = cloudroute.parse_static("shard slots=0-16383 master=10.0.0.1:6379 replicas=10.1.0.1:6379")
>>> router = cloudroute.Router(cloudroute.Config(local_cidrs=["10.1.0.0/16"], policy="local"), topo)
>>> router.route_read("user:1000").host
'10.1.0.1'

Live cluster: ``cloudroute.Client(seeds, config)`` (commands, MGET/MSET
fan-out, statistics; shared between threads, the GIL released around every
network call); ``cloudroute.SentinelClient`` for Sentinel-managed shard
groups. redis-py users: ``cloudroute.redis_py.CloudRouteCluster`` (and
``cloudroute.redis_asyncio.CloudRouteCluster`` for redis.asyncio).

Threads: Router, ShardGroups, Topology, Snapshot and Ring objects are safe to
share between threads. A Config is built by one thread, then handed to
Router/ShardGroups, which copy it. Long calls (parsing, Router.update, ring
builds, batches of 2048 keys or more) release the GIL.
"""

from __future__ import annotations

import logging
from typing import Iterable, Mapping, Optional, Tuple, Type, TypeVar, Union

from . import _native
from ._native import (
    FAMILY_KEY_SIZE,
    SLOT_COUNT,
    Candidate,
    Node,
    Route,
    Router,
    Shard,
    ShardGroups,
    Snapshot,
    Topology,
    crc16,
    family_key,
    jump_hash,
    keyslot,
    keyslots,
    parse_cluster_shards,
    parse_cluster_slots,
    parse_static,
)
from .client import AUTO, READ, WRITE, Client, ClientStats, NodeStats
from .sentinel import SentinelClient, SentinelStats
from .sharded import ShardedClient
from .commands import Pinned, Script
from .pipeline import Pipeline
from .pubsub import Message, Subscription
from ._types import ChannelKind, MessageType
from ._types import Health, HashAlgo, Policy, RingAlgo, RingNaming, Role, Tier
from ._types import FamilyKeyVariant, Selection
from .errors import (
    ConnectionError,
    Error,
    IncompleteError,
    InternalError,
    InvalidArgumentError,
    LimitError,
    NoTopologyError,
    NotFoundError,
    OutOfMemoryError,
    ParseError,
    ResponseError,
    VersionError,
    RoutingError,
    SlotUncoveredError,
    TimeoutError,
    UnavailableError,
)

# Silent until the application configures logging (a library's manners).
logging.getLogger("cloudroute").addHandler(logging.NullHandler())

__all__ = [
    "__version__",
    "version_info",
    "SLOT_COUNT",
    "FAMILY_KEY_SIZE",
    "keyslot",
    "keyslots",
    "crc16",
    "jedis_hash",
    "jump_hash",
    "family_key",
    "parse_cluster_slots",
    "parse_cluster_shards",
    "parse_static",
    "Topology",
    "Node",
    "Shard",
    "Config",
    "Router",
    "Snapshot",
    "Route",
    "Candidate",
    "Ring",
    "ShardGroups",
    "Client",
    "ClientStats",
    "NodeStats",
    "SentinelClient",
    "SentinelStats",
    "ShardedClient",
    "Pinned",
    "Script",
    "Pipeline",
    "Subscription",
    "Message",
    "ChannelKind",
    "MessageType",
    "AUTO",
    "READ",
    "WRITE",
    "Policy",
    "Tier",
    "Role",
    "Health",
    "RingAlgo",
    "HashAlgo",
    "RingNaming",
    "Selection",
    "FamilyKeyVariant",
    "Error",
    "InvalidArgumentError",
    "ParseError",
    "IncompleteError",
    "LimitError",
    "RoutingError",
    "NoTopologyError",
    "SlotUncoveredError",
    "UnavailableError",
    "NotFoundError",
    "OutOfMemoryError",
    "InternalError",
    "ConnectionError",
    "TimeoutError",
    "ResponseError",
    "VersionError",
]

#: The version of the linked libcloudroute (the CR_VERSION_* macros of
#: cloudroute.h; the wheel's version comes from the same macros).
__version__: str = _native.VERSION
version_info: Tuple[int, int, int] = (
    _native.VERSION_NUMBER // 10000,
    _native.VERSION_NUMBER // 100 % 100,
    _native.VERSION_NUMBER % 100,
)

#: A key: bytes, str (hashed as its UTF-8 bytes) or another bytes-like object.
Key = Union[bytes, str, bytearray, memoryview]

_E = TypeVar("_E", RingAlgo, HashAlgo, RingNaming)


def _enum(cls: Type[_E], value: Union[_E, int, str], what: str) -> _E:
    """An int enum member from a member, its value or its name ('ketama', 'jedis-2')."""
    if isinstance(value, str):
        try:
            return cls[value.strip().upper().replace("-", "_")]
        except KeyError:
            names = ", ".join(repr(m.name.lower()) for m in cls)
            raise InvalidArgumentError(f"unknown {what} {value!r} (expected {names})") from None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} must be a {cls.__name__}, an int or a str, not {type(value).__name__}")
    try:
        return cls(value)
    except ValueError:
        raise InvalidArgumentError(f"unknown {what} {value!r}") from None


def _pairs(items: Union[Mapping[str, str], Iterable[Tuple[str, str]]]) -> Iterable[Tuple[str, str]]:
    return items.items() if isinstance(items, Mapping) else items


class Config(_native.Config):
    """Locality, weights and router options, for a Router or ShardGroups.

    Everything can be given as keywords, or added with the chaining methods
    (``Config().add_local_cidr("10.0.0.0/24").set_client_location("aws/us-east-1")``)::

        Config(
            client_location="aws/us-east-1/use1-az1",   # cloud[/region[/zone]]
            client_zone="use1-az1",     # or alone: the zone the servers report (client_az)
            local_cidrs=["10.0.0.0/24"],                 # nodes in the client's zone
            location_rules={"10.1.0.0/16": "gcp/us-central1"},
            zones={"use1-az1": "aws/us-east-1/use1-az1"},  # server-reported zones
            node_locations={"10.2.0.7:6379": "azure/eastus"},
            weights={"10.0.0.5:6379": 2},
            address_remap={"10.0.0.5:6379": "nat-gw:16379"},  # the live Client dials here
            policy="local",                              # or a Policy
            selection="random",          # or "round-robin", "least-loaded", a Selection
        )

    Each entry is checked at once: a bad CIDR raises ParseError here.
    Router options left as None take the library's defaults.
    """

    def __init__(
        self,
        *,
        client_location: Optional[str] = None,
        client_zone: Optional[str] = None,
        local_cidrs: Iterable[str] = (),
        location_rules: Union[Mapping[str, str], Iterable[Tuple[str, str]]] = (),
        node_locations: Union[Mapping[str, str], Iterable[Tuple[str, str]]] = (),
        zones: Union[Mapping[str, str], Iterable[Tuple[str, str]]] = (),
        weights: Union[Mapping[str, int], Iterable[Tuple[str, int]]] = (),
        address_remap: Union[Mapping[str, str], Iterable[Tuple[str, str]]] = (),
        policy: Union[Policy, str, None] = None,
        nearest_margin_us: Optional[int] = None,
        failure_threshold: Optional[int] = None,
        down_cooldown_ms: Optional[int] = None,
        seed: Optional[int] = None,
        selection: Union[Selection, str, None] = None,
    ) -> None:
        super().__init__()
        if client_location is not None:
            self.set_client_location(client_location)
        if client_zone is not None:
            self.set_client_zone(client_zone)
        if isinstance(local_cidrs, (str, bytes)):
            raise TypeError("local_cidrs must be an iterable of CIDR strings, not a single string")
        for cidr in local_cidrs:
            self.add_local_cidr(cidr)
        for cidr, location in _pairs(location_rules):
            self.add_location_rule(cidr, location)
        for node, location in _pairs(node_locations):
            self.add_node_location(node, location)
        for zone, location in _pairs(zones):
            self.add_zone(zone, location)
        for node, weight in weights.items() if isinstance(weights, Mapping) else weights:
            self.set_weight(node, weight)
        for announced, dial in _pairs(address_remap):
            self.add_address_remap(announced, dial)
        if any(v is not None for v in (policy, nearest_margin_us, failure_threshold, down_cooldown_ms, seed)):
            self.set_router_options(
                policy=policy,
                nearest_margin_us=nearest_margin_us,
                failure_threshold=failure_threshold,
                down_cooldown_ms=down_cooldown_ms,
                seed=seed,
            )
        if selection is not None:
            self.set_selection(selection)


#: A ring shard: a name (str or bytes), None for an unnamed shard, or a
#: (name, weight) pair.
ShardSpec = Union[str, bytes, None, Tuple[Union[str, bytes, None], int]]


class Ring(_native.Ring):
    """A consistent-hashing ring that places keys exactly where an existing client does.

    Shards are given in the order the existing client lists them (the order
    is part of the placement), each as a name, None (unnamed), or a
    ``(name, weight)`` pair. The ring knows names, never addresses: re-point a
    name to a new server and no key moves. A Ring is built by its
    constructor, immutable afterwards and safe to share between threads.

    >>> ring = Ring.jedis(["shard-a", "shard-b", ("shard-c", 2)])
    >>> ring.locate("user:1000")
    2
    """

    def __init__(
        self,
        shards: Iterable[ShardSpec],
        *,
        algo: Union[RingAlgo, int, str] = RingAlgo.JEDIS,
        hash: Union[HashAlgo, int, str] = HashAlgo.DEFAULT,
        naming: Union[RingNaming, int, str] = RingNaming.JEDIS3,
        key_tags: bool = False,
    ) -> None:
        self._algo = _enum(RingAlgo, algo, "ring algorithm")
        self._hash = _enum(HashAlgo, hash, "hash algorithm")
        self._naming = _enum(RingNaming, naming, "ring naming")
        self._key_tags = bool(key_tags)
        super().__init__(shards, int(self._algo), int(self._hash), int(self._naming), self._key_tags)

    @classmethod
    def jedis(
        cls,
        shards: Iterable[ShardSpec],
        *,
        hash: Union[HashAlgo, int, str] = HashAlgo.MURMUR,
        naming: Union[RingNaming, int, str] = RingNaming.JEDIS3,
        key_tags: bool = False,
    ) -> "Ring":
        """Jedis's ShardedJedis ring: 160 x weight points per shard.

        key_tags=True hashes only the tag of Jedis's default pattern ``\\{(.+?)\\}``.
        naming='jedis2' reproduces Jedis 2.x's virtual node names.
        """
        return cls(shards, algo=RingAlgo.JEDIS, hash=hash, naming=naming, key_tags=key_tags)

    @classmethod
    def ketama(cls, shards: Iterable[ShardSpec], *, key_tags: bool = False) -> "Ring":
        """libmemcached / twemproxy ketama (MD5). A shard's name is the server's
        twemproxy name, or "host:port", or "host" when the port is 11211."""
        return cls(shards, algo=RingAlgo.KETAMA, hash=HashAlgo.MD5, key_tags=key_tags)

    @classmethod
    def jump(
        cls,
        shards: Union[int, Iterable[ShardSpec]],
        *,
        hash: Union[HashAlgo, int, str] = HashAlgo.MURMUR,
        key_tags: bool = False,
    ) -> "Ring":
        """Jump consistent hash of the key's hash; shards (a count, or names) add
        and leave at the end only, unweighted."""
        return cls(_shards(shards), algo=RingAlgo.JUMP, hash=hash, key_tags=key_tags)

    @classmethod
    def modulo(
        cls,
        shards: Union[int, Iterable[ShardSpec]],
        *,
        hash: Union[HashAlgo, int, str] = HashAlgo.MURMUR,
        key_tags: bool = False,
    ) -> "Ring":
        """The key's hash (unsigned) modulo the shard count. NOT consistent:
        for deployments that already place keys this way."""
        return cls(_shards(shards), algo=RingAlgo.MODULO, hash=hash, key_tags=key_tags)

    @property
    def algo(self) -> RingAlgo:
        return self._algo

    @property
    def hash(self) -> HashAlgo:
        return self._hash

    @property
    def naming(self) -> RingNaming:
        return self._naming

    @property
    def key_tags(self) -> bool:
        return self._key_tags

    def __repr__(self) -> str:
        return (
            f"<cloudroute.Ring {self._algo.name.lower()} hash={self._hash.name.lower()} "
            f"shards={len(self)}{' key_tags' if self._key_tags else ''}>"
        )


def _shards(shards: Union[int, Iterable[ShardSpec]]) -> Iterable[ShardSpec]:
    if isinstance(shards, bool):
        raise TypeError("shards must be a count or an iterable of shards, not bool")
    if isinstance(shards, int):
        if shards < 1:
            raise InvalidArgumentError(f"a ring needs at least one shard, not {shards}")
        if shards > 65536:
            raise LimitError(f"a ring has at most 65536 shards, not {shards}")
        return [None] * shards
    return shards


def jedis_hash(key: Key, algo: Union[HashAlgo, int, str] = HashAlgo.MURMUR) -> int:
    """Jedis's ``Hashing.<algo>.hash(key)``: MURMUR gives the signed 64-bit long,
    MD5 a value in 0 .. 2**32-1. str keys are hashed as UTF-8 (as Jedis hashes a
    String)."""
    return _native.jedis_hash(key, int(_enum(HashAlgo, algo, "hash algorithm")))
