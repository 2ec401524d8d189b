"""The redis-py adapters' Topology of redis-py's slot table (offline: any
objects with host and port stand for redis-py's ClusterNode)."""

from __future__ import annotations

from typing import Any, Dict, List

import pytest

from cloudroute import _native
from cloudroute._cluster_reads import topology_from_slots_cache
from cloudroute.errors import SlotUncoveredError


class Node:
    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port


def test_one_shard_per_address_list_whatever_the_objects() -> None:
    # Two objects for one address (a node redis-py made anew) end a run of
    # slots, not the shard: its ranges join again.
    a1, a2, b, c = Node("127.0.1.1", 7001), Node("127.0.1.1", 7001), Node("127.0.2.1", 7002), Node("::1", 7003)
    cache: Dict[int, List[Node]] = {}
    for slot in range(0, 100):
        cache[slot] = [a1, b]
    for slot in range(100, 200):
        cache[slot] = [a2, b]
    for slot in range(200, 16384):
        cache[slot] = [c]
    topo = topology_from_slots_cache(cache)
    assert topo.shard_count == 2 and topo.node_count == 3
    first = topo.slot_shard(0)
    assert topo.slot_shard(199) == first and topo.shard_ranges(first) == [(0, 199)]
    assert sorted(topo.shard_ranges(topo.slot_shard(200))) == [(200, 16383)]


def test_a_slot_no_node_serves_stays_uncovered() -> None:
    a, b, c = Node("127.0.1.1", 7001), Node("127.0.1.2", 7002), Node("127.0.2.2", 7002)
    cache = {slot: [a] for slot in range(0, 5000)}
    cache.update({slot: [b, c] for slot in range(5001, 16384)})
    topo = topology_from_slots_cache(cache)
    assert topo.shard_count == 2
    assert sorted(topo.shard_ranges(topo.slot_shard(0))) == [(0, 4999)]
    assert sorted(topo.shard_ranges(topo.slot_shard(16383))) == [(5001, 16383)]
    with pytest.raises(SlotUncoveredError):
        topo.slot_shard(5000)


def test_slot_runs_compare_the_node_objects_in_order() -> None:
    # The runs topology_from_slots_cache formats: consecutive slots whose
    # lists hold the same objects in the same order (one list object or
    # several), gaps for slots missing, None or empty.
    a, b = Node("127.0.1.1", 7001), Node("127.0.2.1", 7001)
    ab = [a, b]
    cache: Dict[int, Any] = {slot: ab for slot in range(0, 10)}
    cache.update({slot: [a, b] for slot in range(10, 20)})  # new lists, same objects
    cache.update({slot: (a, b) for slot in range(20, 21)})  # a tuple holds them too
    cache.update({slot: [b, a] for slot in range(21, 30)})  # another order
    cache[30], cache[31] = None, []
    cache.update({slot: [a] for slot in range(33, 16384)})  # 32 missing
    cache[-1] = cache[16384] = [b]  # not a slot: ignored
    cache["x"] = [b]  # type: ignore[index]
    runs = _native.slot_runs(cache)
    assert [(first, last) for first, last, _ in runs] == [(0, 20), (21, 29), (33, 16383)]
    assert runs[0][2] is ab and list(runs[1][2]) == [b, a] and list(runs[2][2]) == [a]
    assert _native.slot_runs({}) == []


def test_slot_runs_refuses_what_is_no_slot_table() -> None:
    with pytest.raises(TypeError, match="must be a dict"):
        _native.slot_runs([[Node("127.0.1.1", 7001)]])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"slots_cache\[7\] must be a list of nodes, not set"):
        _native.slot_runs({7: {Node("127.0.1.1", 7001)}})
