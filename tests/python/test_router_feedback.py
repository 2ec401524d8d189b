"""Router feedback the C API has and Python gained for parity: replicas marked
lagging (read after every other candidate), slots marked migrating (read from
their master), with their bad input."""

from __future__ import annotations

from typing import Any

import pytest

import cloudroute
from cloudroute import Policy, Role

KEY = "user:1000"  # shard 0: master 127.0.1.1:7001, replicas 127.0.1.2:7002, 127.0.2.2:7102


def addr(x: Any) -> str:
    return f"{x.host}:{x.port}"


def router(two_clouds_reply: bytes) -> cloudroute.Router:
    cfg = cloudroute.Config(local_cidrs=["127.0.1.0/24"], policy=Policy.LOCAL_REPLICAS_FIRST)
    return cloudroute.Router(cfg, cloudroute.parse_cluster_slots(two_clouds_reply))


def test_lagging_replica_is_read_last_until_cleared(two_clouds_reply: bytes) -> None:
    r = router(two_clouds_reply)
    before = [addr(c) for c in r.candidates(KEY)]
    assert before[0] == "127.0.1.2:7002"
    r.set_replica_lagging("127.0.1.2", 7002)
    after = [addr(c) for c in r.candidates(KEY)]
    assert after[-1] == "127.0.1.2:7002" and sorted(after) == sorted(before)
    assert all(addr(r.route_read(KEY)) != "127.0.1.2:7002" for _ in range(50))
    r.set_replica_lagging("127.0.1.2", 7002, lagging=False)
    assert [addr(c) for c in r.candidates(KEY)] == before
    assert addr(r.route_read(KEY)) == "127.0.1.2:7002"


def test_lagging_bad_input(two_clouds_reply: bytes) -> None:
    r = router(two_clouds_reply)
    with pytest.raises(cloudroute.InvalidArgumentError):
        r.set_replica_lagging("", 7002)
    with pytest.raises(cloudroute.InvalidArgumentError):
        r.set_replica_lagging("127.0.1.2", 0)
    with pytest.raises(cloudroute.InvalidArgumentError):
        r.set_replica_lagging("127.0.1.2", 70000)
    with pytest.raises(TypeError):
        r.set_replica_lagging(b"127.0.1.2", 7002)  # type: ignore[arg-type]


def test_migrating_slot_reads_its_master(two_clouds_reply: bytes) -> None:
    r = router(two_clouds_reply)
    slot = cloudroute.keyslot(KEY)
    other = cloudroute.keyslot("user:1001")
    assert not r.slot_migrating(slot)
    assert r.route_read(KEY).role == Role.REPLICA
    r.report_migrating(slot)
    assert r.slot_migrating(slot) and not r.slot_migrating(other)
    route = r.route_read(KEY)
    assert addr(route) == "127.0.1.1:7001" and route.role == Role.MASTER
    assert r.route_read_slot(slot).role == Role.MASTER
    r.report_migrating(slot, migrating=False)
    assert not r.slot_migrating(slot)
    assert addr(r.route_read(KEY)) == "127.0.1.2:7002"
    # A MOVED for the slot clears the mark too.
    r.report_migrating(slot, True)
    r.report_moved(slot, "127.0.1.1", 7001)
    assert not r.slot_migrating(slot)


@pytest.mark.parametrize("slot", [-1, 16384, 65536, 1 << 40])
def test_migrating_refuses_slots_out_of_range(two_clouds_reply: bytes, slot: int) -> None:
    r = router(two_clouds_reply)
    with pytest.raises(cloudroute.InvalidArgumentError, match="slot"):
        r.report_migrating(slot)
    with pytest.raises(cloudroute.InvalidArgumentError, match="slot"):
        r.slot_migrating(slot)
    with pytest.raises(TypeError):
        r.report_migrating("1")  # type: ignore[arg-type]
