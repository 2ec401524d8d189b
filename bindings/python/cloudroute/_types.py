"""Enumerations shared by the records and options of cloudroute.

The str enums compare equal to their names (``Tier.LOCAL == "local"``) and
are accepted wherever a name is; the int enums carry the C library's pinned
values.
"""

from __future__ import annotations

import enum

__all__ = [
    "Policy",
    "Tier",
    "Role",
    "Health",
    "RingAlgo",
    "HashAlgo",
    "RingNaming",
    "Selection",
    "FamilyKeyVariant",
    "ChannelKind",
    "MessageType",
]


class _StrEnum(str, enum.Enum):
    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)


class Policy(_StrEnum):
    """How a read's candidates are ordered (cr_policy)."""

    MASTER = "master"  #: the master only (Jedis's default)
    PREFER_REPLICA = "prefer-replica"  #: replicas, nearest tier first; then the master
    LOCAL = "local"  #: per tier, nearest first: the master, then replicas (default)
    LOCAL_REPLICAS_FIRST = "local-replicas-first"  #: per tier: replicas, then the master
    NEAREST = "nearest"  #: by measured RTT (Router.set_rtt), with a tolerance band
    LOCAL_SPREAD = "local-spread"  #: per tier, nearest first: master and replicas share by weight
    REPLICA_ONLY = "replica-only"  #: replicas only, nearest tier first; never a master


class Selection(_StrEnum):
    """How a read picks among candidates of equal rank (cr_selection)."""

    RANDOM = "random"  #: weighted random, from the router's seeded streams (default)
    ROUND_ROBIN = "round-robin"  #: steady weighted round-robin: exact shares over every cycle
    #: load-aware: the less loaded (in flight x recent latency) of two weighted random draws
    LEAST_LOADED = "least-loaded"


class FamilyKeyVariant(_StrEnum):
    """Which Java hash wrote stored family keys (cr_family_key_variant)."""

    JEDIS = "jedis"  #: Jedis MurmurHash.hash(String), seed 0x1234ABCD (default)
    COMMONS_CODEC = "commons-codec"  #: commons-codec MurmurHash2.hash64(String), seed 0xe17a1465


class Tier(_StrEnum):
    """How far a node is from the client: the first level at which locations differ."""

    LOCAL = "local"
    SAME_REGION = "same-region"
    SAME_CLOUD = "same-cloud"
    OTHER_CLOUD = "other-cloud"
    UNKNOWN = "unknown"


class Role(_StrEnum):
    """A node's role in its shard."""

    MASTER = "master"
    REPLICA = "replica"


class Health(_StrEnum):
    """A node's health as the server reported it (CLUSTER SHARDS)."""

    ONLINE = "online"
    LOADING = "loading"
    FAILED = "failed"


class ChannelKind(_StrEnum):
    """What a subscribed name is (cr_channel_kind)."""

    CHANNEL = "channel"  #: a channel: SUBSCRIBE, PUBLISH
    PATTERN = "pattern"  #: a glob-style pattern of channels: PSUBSCRIBE
    SHARD = "shard"  #: a shard channel, placed by its slot: SSUBSCRIBE, SPUBLISH


class MessageType(_StrEnum):
    """What a Subscription gave: a message or an event about a name (cr_message_type)."""

    MESSAGE = "message"  #: a published message: channel, payload (and pattern)
    SUBSCRIBED = "subscribed"  #: the name is subscribed on node (first time)
    RESUBSCRIBED = "resubscribed"  #: the name is subscribed again, on node, after MOVING
    MOVING = "moving"  #: the name lost its subscription on node (reason); moving
    UNSUBSCRIBED = "unsubscribed"  #: Subscription.remove took the name off node


class RingAlgo(enum.IntEnum):
    """Which existing client's placement a Ring reproduces (cr_ring_algo)."""

    JEDIS = 0  #: Jedis ShardedJedis / ShardedJedisPool
    KETAMA = 1  #: libmemcached KETAMA_WEIGHTED / twemproxy ketama
    JUMP = 2  #: jump consistent hash of the key's hash
    MODULO = 3  #: the key's hash modulo the shard count (not consistent)


class HashAlgo(enum.IntEnum):
    """The hash of keys and Jedis ring points (cr_hash_algo)."""

    DEFAULT = 0  #: the algorithm's own: MURMUR, except MD5 for KETAMA
    MURMUR = 1  #: Jedis Hashing.MURMUR_HASH (MurmurHash64A, seed 0x1234ABCD)
    MD5 = 2  #: Jedis Hashing.MD5


class RingNaming(enum.IntEnum):
    """How a named Jedis shard names its virtual nodes (cr_ring_naming)."""

    JEDIS3 = 0  #: name + "*" + n (Jedis 3.x and later)
    JEDIS2 = 1  #: name + "*" + weight + n (Jedis 2.x)
