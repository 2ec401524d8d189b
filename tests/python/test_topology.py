"""Topology parsing: CLUSTER SLOTS / SHARDS bytes and static text."""

from __future__ import annotations

import pytest
import resp

import cloudroute
from cloudroute import Health, Role


def test_cluster_slots_example(two_clouds_reply: bytes) -> None:
    t = cloudroute.parse_cluster_slots(two_clouds_reply)
    assert repr(t) == "<cloudroute.Topology shards=3 nodes=9>"
    assert (t.shard_count, t.node_count) == (3, 9)
    assert t.shard_ranges(0) == [(0, 3096), (4078, 5460)]  # non-contiguous ranges
    assert t.shard_id(0) == "0000000000000000000000000000000000000001"
    assert t.slot_shard(0) == 0 and t.slot_shard(4077) == 1 and t.slot_shard(16383) == 2
    n0 = t.node(0)
    assert n0 == t.nodes[0]
    assert (n0.host, n0.port, n0.role, n0.health, n0.shard) == ("127.0.1.1", 7001, Role.MASTER, Health.ONLINE, 0)
    assert n0.role == "master" and isinstance(n0.role, Role)
    shards = t.shards
    assert [s.number for s in shards] == [0, 1, 2]
    assert [len(s.nodes) for s in shards] == [3, 3, 3]
    assert shards[1].ranges == [(3097, 4077), (5461, 10922)]
    assert [n.role for n in shards[2].nodes] == [Role.MASTER, Role.REPLICA, Role.REPLICA]
    # Every slot is covered, and the accessors agree.
    for s in shards:
        for start, end in s.ranges:
            assert t.slot_shard(start) == s.number and t.slot_shard(end) == s.number


def test_buffers_and_bytearray(two_clouds_reply: bytes) -> None:
    assert cloudroute.parse_cluster_slots(bytearray(two_clouds_reply)).node_count == 9
    assert cloudroute.parse_cluster_slots(memoryview(two_clouds_reply)).node_count == 9


def test_cluster_shards_with_zones_and_health() -> None:
    reply = resp.encode(
        [
            resp.shard(
                [0, 8191],
                [
                    resp.node("a" * 40, "10.0.0.1", 6379, "master", zone="use1-az1"),
                    resp.node("b" * 40, "10.1.0.1", 6379, "replica", zone="usc1-a", health="loading"),
                ],
            ),
            resp.shard(
                [8192, 9000, 9002, 16383],
                [
                    resp.node("c" * 40, "10.1.0.2", 6380, "master"),
                    resp.node("d" * 40, "", 6380, "replica", health="fail"),
                ],
            ),
        ]
    )
    t = cloudroute.parse_cluster_shards(reply, default_host="10.9.9.9")
    assert t.shard_count == 2
    assert t.shard_ranges(1) == [(8192, 9000), (9002, 16383)]
    with pytest.raises(cloudroute.SlotUncoveredError):
        t.slot_shard(9001)
    nodes = t.nodes
    assert nodes[0].zone == "use1-az1" and nodes[0].id == "a" * 40
    assert nodes[1].health == Health.LOADING
    assert nodes[3].health == Health.FAILED
    assert nodes[3].host == "10.9.9.9"  # empty endpoint -> default_host
    # Without default_host such a node is unknown.
    assert cloudroute.parse_cluster_shards(reply).nodes[3].host == "?"
    # CLUSTER SHARDS bytes are not CLUSTER SLOTS bytes.
    with pytest.raises(cloudroute.ParseError):
        cloudroute.parse_cluster_slots(reply)


def test_parse_errors_are_precise(two_clouds_reply: bytes) -> None:
    with pytest.raises(cloudroute.IncompleteError):
        cloudroute.parse_cluster_slots(two_clouds_reply[:-3])
    with pytest.raises(cloudroute.ParseError, match="byte"):
        cloudroute.parse_cluster_slots(two_clouds_reply + b"+extra\r\n")
    with pytest.raises(cloudroute.ParseError):
        cloudroute.parse_cluster_slots(b"\xff\xfe garbage")
    with pytest.raises(cloudroute.IncompleteError):
        cloudroute.parse_cluster_slots(b"")
    with pytest.raises(cloudroute.LimitError):
        cloudroute.parse_cluster_slots(two_clouds_reply, max_elements=2)
    with pytest.raises(cloudroute.LimitError):
        cloudroute.parse_cluster_slots(two_clouds_reply, max_total_bytes=10)
    with pytest.raises(cloudroute.LimitError):
        cloudroute.parse_cluster_slots(two_clouds_reply, max_bulk_len=4)
    with pytest.raises(cloudroute.LimitError):
        cloudroute.parse_cluster_slots(two_clouds_reply, max_depth=1)
    # Generous caps are fine.
    t = cloudroute.parse_cluster_slots(
        two_clouds_reply, max_elements=10**6, max_depth=8, max_bulk_len=2**40, max_total_bytes=2**62
    )
    assert t.node_count == 9


@pytest.mark.parametrize(
    "kwargs",
    [
        {"max_elements": 0},
        {"max_elements": -1},
        {"max_elements": 2**32},
        {"max_depth": 2**100},
        {"max_bulk_len": -5},
        {"max_total_bytes": 2**64},
    ],
)
def test_parse_caps_out_of_range(two_clouds_reply: bytes, kwargs: dict[str, int]) -> None:
    with pytest.raises(cloudroute.InvalidArgumentError, match="must be in"):
        cloudroute.parse_cluster_slots(two_clouds_reply, **kwargs)


def test_parse_bad_types(two_clouds_reply: bytes) -> None:
    with pytest.raises(TypeError, match="not str"):
        cloudroute.parse_cluster_slots(two_clouds_reply.decode())  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        cloudroute.parse_cluster_shards(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        cloudroute.parse_cluster_slots(two_clouds_reply, max_depth="8")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        cloudroute.parse_cluster_slots(two_clouds_reply, max_depth=8.0)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        cloudroute.parse_cluster_slots(two_clouds_reply, default_host=b"h")  # type: ignore[arg-type]
    with pytest.raises(cloudroute.InvalidArgumentError, match="NUL"):
        cloudroute.parse_cluster_slots(two_clouds_reply, default_host="h\0x")
    with pytest.raises(UnicodeEncodeError):
        cloudroute.parse_cluster_slots(two_clouds_reply, default_host="\udcff")
    with pytest.raises(TypeError):
        cloudroute.Topology()  # type: ignore[call-arg]


def test_parse_static() -> None:
    text = """
    # two shards
    shard slots=0-8191,10000 master=10.0.0.1:6379 replicas=10.1.0.1:6379,10.2.0.1:6379 id=alpha
    shard slots=8192-9999,10001-16383 master=[::1]:6380
    """
    t = cloudroute.parse_static(text)
    assert t.shard_count == 2 and t.node_count == 4
    assert t.shard_id(0) == "alpha"
    assert t.shard_ranges(0) == [(0, 8191), (10000, 10000)]
    assert t.nodes[3].host == "::1" and t.nodes[3].port == 6380
    assert cloudroute.parse_static(text.encode()).node_count == 4
    single = cloudroute.parse_static("shard master=10.0.0.1:6379")
    assert single.shard_ranges(0) == [(0, 16383)]


@pytest.mark.parametrize(
    "text",
    [
        "shard slots=0-16384 master=10.0.0.1:6379",
        "shard slots=0-100 master=10.0.0.1:99999",
        "shard slots=0-100",
        "nonsense",
        "shard slots=a-b master=10.0.0.1:6379",
        b"shard master=\xff\xfe",
    ],
)
def test_parse_static_errors(text: str | bytes) -> None:
    with pytest.raises(cloudroute.ParseError):
        cloudroute.parse_static(text)


def test_non_utf8_text_from_the_library_never_fails_to_decode() -> None:
    # Hosts must be IP literals or hostnames (0.2.0), but a reported zone is
    # free text kept as given; Python sees its bytes backslash-escaped.
    with pytest.raises(cloudroute.ParseError):
        cloudroute.parse_static(b"shard master=\xff\xfe:1")
    reply = (
        b"*1\r\n*3\r\n:0\r\n:16383\r\n*4\r\n$8\r\n10.0.0.1\r\n:6379\r\n$1\r\nm\r\n"
        b"*2\r\n$17\r\navailability-zone\r\n$2\r\n\xff\xfe\r\n"
    )
    t = cloudroute.parse_cluster_slots(reply)
    assert t.nodes[0].zone == "\\xff\\xfe"


def test_topology_index_errors(two_clouds_reply: bytes) -> None:
    t = cloudroute.parse_cluster_slots(two_clouds_reply)
    for bad in (9, 2**31):  # past the end: no such node
        with pytest.raises(cloudroute.NotFoundError):
            t.node(bad)
    for bad in (-1, 2**40, 2**200):
        with pytest.raises(cloudroute.InvalidArgumentError, match="must be in"):
            t.node(bad)
        with pytest.raises(cloudroute.InvalidArgumentError):
            t.shard_ranges(bad)
        with pytest.raises(cloudroute.InvalidArgumentError):
            t.slot_shard(bad)
    with pytest.raises(cloudroute.NotFoundError):
        t.shard_id(3)
    with pytest.raises(cloudroute.InvalidArgumentError):
        t.slot_shard(16384)
    for bad_type in (None, "1", 1.0, True):
        with pytest.raises(TypeError):
            t.node(bad_type)  # type: ignore[arg-type]
