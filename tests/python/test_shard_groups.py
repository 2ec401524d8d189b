"""Sentinel shard groups: a ring over named groups, masters and replicas, locality."""

from __future__ import annotations

import threading

import pytest

import cloudroute
from cloudroute import Ring, Role, ShardGroups, Tier


def make_groups(**config: object) -> ShardGroups:
    g = ShardGroups(cloudroute.Config(**config) if config else None)  # type: ignore[arg-type]
    assert g.add("group0") == 0
    assert g.add("group1") == 1
    g.set_master("group0", "127.0.1.31", 7201)
    g.set_replicas(0, [("127.0.1.32", 7202), ("127.0.2.33", 7203)])
    g.set_master(1, "127.0.2.34", 7204)
    g.set_replicas("group1", [("127.0.2.35", 7205), ["127.0.1.36", 7206]])
    g.set_ring(Ring.jedis(["group0", "group1"]))
    return g


def test_locate_and_route() -> None:
    g = make_groups(local_cidrs=["127.0.1.0/24"], seed=1)
    assert len(g) == 2 and g.find("group1") == 1
    ring = Ring.jedis(["group0", "group1"])
    for i in range(200):
        key = f"user:{i}"
        group = g.locate(key)
        assert group == ring.locate(key)
        w = g.route_write(key)
        assert w.shard == group and w.role == Role.MASTER and w.slot == 0
        assert (w.host, w.port) == (("127.0.1.31", 7201) if group == 0 else ("127.0.2.34", 7204))
        r = g.route_read(key)
        assert r.tier == Tier.LOCAL and r.host.startswith("127.0.1.")
        order = g.read_order(key)
        assert len(order) == 3 and order[0].tier == Tier.LOCAL
        assert {o.host for o in order} == ({"127.0.1.31", "127.0.1.32", "127.0.2.33"} if group == 0 else
                                          {"127.0.2.34", "127.0.2.35", "127.0.1.36"})


def test_failover_and_breaker() -> None:
    g = make_groups(local_cidrs=["127.0.1.0/24"], failure_threshold=1, down_cooldown_ms=60_000)
    key = next(k for k in (f"k{i}" for i in range(100)) if g.locate(k) == 1)
    local = g.route_read(key)
    assert (local.host, local.port) == ("127.0.1.36", 7206)
    g.report_failure(local.node_handle)
    assert g.route_read(key).host != "127.0.1.36"
    assert g.read_order(key)[-1].down
    g.report_success(local.node_handle)
    assert g.route_read(key).host == "127.0.1.36"
    g.set_master("group1", "127.0.2.35", 7205)  # +switch-master
    assert g.route_write(key).port == 7205
    g.set_master("group1", None)
    with pytest.raises(cloudroute.UnavailableError):
        g.route_write(key)


def test_errors() -> None:
    g = ShardGroups()
    with pytest.raises(cloudroute.NoTopologyError):
        g.locate("k")
    g.add("a")
    with pytest.raises(cloudroute.InvalidArgumentError):
        g.add("a")
    with pytest.raises(cloudroute.InvalidArgumentError):
        g.add("")
    with pytest.raises(cloudroute.NotFoundError):
        g.find("b")
    with pytest.raises(cloudroute.NotFoundError):
        g.set_master("b", "h", 1)
    with pytest.raises(cloudroute.NotFoundError):
        g.set_master(5, "h", 1)
    with pytest.raises(cloudroute.InvalidArgumentError):
        g.set_master(-1, "h", 1)
    with pytest.raises(cloudroute.InvalidArgumentError):
        g.set_master(0, "h", 65536)
    with pytest.raises(TypeError):
        g.set_master(None, "h", 1)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        g.set_master(0.0, "h", 1)  # type: ignore[arg-type]
    with pytest.raises(cloudroute.InvalidArgumentError):
        g.set_ring(Ring.jedis(["x", "y"]))  # 2 ring shards, 1 group
    with pytest.raises(TypeError):
        g.set_ring(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        g.set_replicas(0, [("h",)])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        g.set_replicas(0, ["h:1"])  # type: ignore[list-item]
    with pytest.raises(cloudroute.InvalidArgumentError):
        g.set_replicas(0, [("h", -1)])
    with pytest.raises(cloudroute.InvalidArgumentError):
        g.set_replicas(0, [("h\0", 1)])
    with pytest.raises(cloudroute.NotFoundError):
        g.report_failure(99)
    with pytest.raises(cloudroute.InvalidArgumentError):
        g.report_success(-1)
    g.set_ring(Ring.jedis(["a"]))
    with pytest.raises(cloudroute.UnavailableError):
        g.route_read("k")
    with pytest.raises(TypeError):
        g.route_read(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        ShardGroups(config=1)  # type: ignore[arg-type]


def test_shared_between_threads() -> None:
    g = make_groups(local_cidrs=["127.0.1.0/24"])
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            for i in range(2000):
                g.route_read(f"{n}:{i}")
                if i % 100 == 0:
                    g.set_replicas(0, [("127.0.1.32", 7202), ("127.0.2.33", 7203)])
        except BaseException as e:  # pragma: no cover
            errors.append(e)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
