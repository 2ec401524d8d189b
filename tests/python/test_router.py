"""Config and Router: the cross-language routing vectors, policies, locality,
health feedback, redirects, snapshots, threads and bad input."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from conftest import REPO, load_vectors

import cloudroute
from cloudroute import Policy, Role, Tier


def addr(x: Any) -> str:
    return f"{x.host}:{x.port}"


def router_of_case(case: dict[str, Any]) -> cloudroute.Router:
    reply = (REPO / case["reply_file"]).read_bytes()
    kind = case["reply_kind"]
    topo = (cloudroute.parse_cluster_shards if kind == "cluster-shards" else cloudroute.parse_cluster_slots)(reply)
    conf = case["config"]
    cfg = cloudroute.Config(
        client_location=conf.get("client_location"),
        local_cidrs=conf.get("local_cidrs", []),
        location_rules=[tuple(r) for r in conf.get("location_rules", [])],
        policy=conf["policy"],
    )
    return cloudroute.Router(cfg, topo)


def test_routing_vectors_give_identical_answers() -> None:
    cases = load_vectors("routing.json")["cases"]
    assert cases
    checked = 0
    for case in cases:
        router = router_of_case(case)
        keys = [k["key"] for k in case["keys"]]
        for k in case["keys"]:
            key = k["key"]
            assert cloudroute.keyslot(key) == k["slot"], (case["name"], key)
            assert addr(router.route_write(key)) == k["write"], (case["name"], key)
            assert [addr(c) for c in router.candidates(key)] == k["read"], (case["name"], key)
            assert [addr(c) for c in router.slot_candidates(k["slot"])] == k["read"]
            checked += 1
        # Reads land on a first-rank candidate; the batch agrees with the single calls.
        for key, route in zip(keys, router.route_reads(keys)):
            first_rank = [addr(c) for c in router.candidates(key) if c.rank == router.candidates(key)[0].rank]
            assert addr(route) in first_rank
            assert route.slot == cloudroute.keyslot(key)
    assert checked > 20


def two_clouds(two_clouds_reply: bytes, **kwargs: Any) -> cloudroute.Router:
    return cloudroute.Router(cloudroute.Config(**kwargs), cloudroute.parse_cluster_slots(two_clouds_reply))


def test_route_fields(two_clouds_reply: bytes) -> None:
    r = two_clouds(two_clouds_reply, local_cidrs=["127.0.1.0/24"], policy=Policy.LOCAL_REPLICAS_FIRST)
    w = r.route_write("user:1000")
    assert (w.host, w.port, w.role, w.slot, w.shard) == ("127.0.1.1", 7001, Role.MASTER, 1649, 0)
    assert w.tier == Tier.LOCAL and w.tier == "local"
    host, port, role, tier, slot, shard, node = w  # a named tuple
    assert (host, port) == ("127.0.1.1", 7001)
    assert r.node_handle("127.0.1.1", 7001) == node
    read = r.route_read(b"user:1000")
    assert read.role == Role.REPLICA and read.tier == Tier.LOCAL and read.host == "127.0.1.2"
    assert "slot 1649" in r.explain("user:1000")
    assert "127.0.1.2:7002" in r.explain(b"user:1000")


def test_policies(two_clouds_reply: bytes) -> None:
    key = "user:1000"  # shard 0: master 127.0.1.1, replicas 127.0.1.2, 127.0.2.2
    master = two_clouds(two_clouds_reply, local_cidrs=["127.0.2.0/24"], policy="master")
    assert [addr(c) for c in master.candidates(key)] == ["127.0.1.1:7001"]
    prefer = two_clouds(two_clouds_reply, local_cidrs=["127.0.2.0/24"], policy="PREFER_REPLICA")
    assert [c.role for c in prefer.candidates(key)][-1] == Role.MASTER
    assert addr(prefer.candidates(key)[0]) == "127.0.2.2:7102"
    with pytest.raises(cloudroute.InvalidArgumentError, match="polic"):
        cloudroute.Config(policy="fastest")
    with pytest.raises(TypeError):
        cloudroute.Config(policy=2)  # type: ignore[arg-type]


def test_nearest_policy_uses_rtt(two_clouds_reply: bytes) -> None:
    r = two_clouds(two_clouds_reply, policy="nearest", nearest_margin_us=100, seed=7)
    key = "user:1000"
    handles = {addr(c): c.node_handle for c in r.candidates(key)}
    r.set_rtt(handles["127.0.2.2:7102"], 300)
    r.set_rtt(handles["127.0.1.1:7001"], 5000)
    r.set_rtt(handles["127.0.1.2:7002"], 9000)
    cands = r.candidates(key)
    assert [addr(c) for c in cands] == ["127.0.2.2:7102", "127.0.1.1:7001", "127.0.1.2:7002"]
    assert cands[0].rtt_us == 300
    assert addr(r.route_read(key)) == "127.0.2.2:7102"


def test_locality_rules_zones_and_weights(two_clouds_reply: bytes) -> None:
    cfg = (
        cloudroute.Config()
        .set_client_location("gcp/us-central1/b")
        .add_location_rule("127.0.1.0/24", "aws/us-east-1")
        .add_location_rule("127.0.2.0/24", "gcp/us-central1/b")
        .add_node_location("127.0.2.2:7102", "gcp/us-central1/c")
        .add_zone("use1-az1", "aws/us-east-1/use1-az1")
        .set_weight("127.0.1.2:7002", 5)
        .set_router_options(policy="local")
    )
    r = cloudroute.Router(cfg, cloudroute.parse_cluster_slots(two_clouds_reply))
    by_addr = {addr(c): c for c in r.candidates("user:1000")}
    assert by_addr["127.0.2.2:7102"].tier == Tier.SAME_REGION
    assert by_addr["127.0.1.1:7001"].tier == Tier.OTHER_CLOUD
    assert by_addr["127.0.1.2:7002"].weight == 5
    # A zone a node reports about itself, mapped through add_zone.
    r.set_node_zone("127.0.1.1", 7001, "use1-az1")
    assert {addr(c): c.tier for c in r.candidates("user:1000")}["127.0.1.1:7001"] == Tier.OTHER_CLOUD


def test_config_kwargs_take_mappings_and_pairs() -> None:
    cfg = cloudroute.Config(
        client_location="aws/us-east-1/a",
        local_cidrs=("10.0.0.0/24",),
        location_rules={"10.1.0.0/16": "gcp/us-central1"},
        node_locations=[("10.2.0.1:6379", "azure/eastus")],
        zones={"a": "aws/us-east-1/a"},
        weights={"10.0.0.5:6379": 0},
        failure_threshold=1,
        down_cooldown_ms=10,
    )
    assert isinstance(cfg, cloudroute.Config)


@pytest.mark.parametrize(
    "kwargs, exc",
    [
        ({"local_cidrs": ["10.0.0.0/33"]}, cloudroute.ParseError),
        ({"local_cidrs": ["not a cidr"]}, cloudroute.ParseError),
        ({"location_rules": {"10.0.0.0/8": ""}}, cloudroute.Error),
        ({"client_location": "a/b/c/d/e"}, cloudroute.Error),
        ({"weights": {"10.0.0.1:6379": -1}}, cloudroute.InvalidArgumentError),
        ({"weights": {"10.0.0.1:6379": 2**32}}, cloudroute.InvalidArgumentError),
        ({"weights": {"10.0.0.1:99999": 1}}, cloudroute.ParseError),
        ({"node_locations": [("my node", "aws")]}, cloudroute.ParseError),
        ({"failure_threshold": -1}, cloudroute.InvalidArgumentError),
        ({"down_cooldown_ms": 2**64}, cloudroute.InvalidArgumentError),
        ({"seed": -1}, cloudroute.InvalidArgumentError),
        ({"seed": 2**64}, cloudroute.InvalidArgumentError),
        ({"client_location": "aws\0x"}, cloudroute.InvalidArgumentError),
        ({"client_location": "\udcff"}, UnicodeEncodeError),
        ({"client_location": b"aws"}, TypeError),
        ({"local_cidrs": "10.0.0.0/8"}, TypeError),
        ({"local_cidrs": [None]}, TypeError),
        ({"weights": {"10.0.0.1:6379": 1.5}}, TypeError),
        ({"weights": {"10.0.0.1:6379": None}}, TypeError),
        ({"nearest_margin_us": "5"}, TypeError),
    ],
)
def test_config_refuses_bad_input(kwargs: dict[str, Any], exc: type[BaseException]) -> None:
    with pytest.raises(exc):
        cloudroute.Config(**kwargs)


def test_seed_accepts_the_full_unsigned_range(two_clouds_reply: bytes) -> None:
    # Without locality both replicas of a shard rank equal: the router's seeded
    # randomness picks. Every seed up to 2**64 - 1 reproduces its picks, and
    # the top bits count (2**64 - 1 is not cut down to 2**32 - 1). 0 asks for
    # a seed from the clock.
    keys = [f"user:{i}" for i in range(200)]

    def picks(seed: int) -> list[str]:
        return [addr(r) for r in two_clouds(two_clouds_reply, policy="prefer_replica", seed=seed).route_reads(keys)]

    for seed in (1, 2**32 - 1, 2**64 - 1):
        assert picks(seed) == picks(seed)
    assert len(set(picks(1))) == 6  # two replicas of each of the three shards
    assert picks(2**64 - 1) != picks(2**32 - 1)
    assert len(set(picks(0))) == 6


def test_router_errors(two_clouds_reply: bytes) -> None:
    empty = cloudroute.Router()
    for call in (lambda: empty.route_read("k"), lambda: empty.route_write("k"), empty.snapshot,
                 lambda: empty.route_reads(["k"]), lambda: empty.candidates("k")):
        with pytest.raises(cloudroute.NoTopologyError):
            call()
    partial = cloudroute.Router(topology=cloudroute.parse_static("shard slots=0-100 master=10.0.0.1:6379"))
    with pytest.raises(cloudroute.SlotUncoveredError):
        partial.route_read("user:1000")
    with pytest.raises(cloudroute.SlotUncoveredError):
        partial.route_reads([b"", "user:1000"])
    assert partial.route_read(b"").slot == 0
    r = two_clouds(two_clouds_reply)
    with pytest.raises(cloudroute.NotFoundError):
        r.node_handle("10.9.9.9", 1)
    with pytest.raises(cloudroute.InvalidArgumentError):
        r.slot_candidates(16384)
    for bad in (-1, 2**32, 2**100):
        with pytest.raises(cloudroute.InvalidArgumentError, match="must be in"):
            r.slot_candidates(bad)
        with pytest.raises(cloudroute.InvalidArgumentError):
            r.report_failure(bad)
        with pytest.raises(cloudroute.InvalidArgumentError):
            r.set_rtt(0, bad)
    for bad_port in (-1, 65536, 2**70):
        with pytest.raises(cloudroute.InvalidArgumentError, match="port"):
            r.report_moved(1, "127.0.1.1", bad_port)
        with pytest.raises(cloudroute.InvalidArgumentError, match="port"):
            r.node_handle("127.0.1.1", bad_port)
    with pytest.raises(cloudroute.InvalidArgumentError):
        r.report_moved(16384, "127.0.1.1", 7001)
    with pytest.raises(cloudroute.NotFoundError):
        r.report_failure(10**6)
    for bad_key in (None, 5, ["k"]):
        for call in (r.route_read, r.route_write, r.candidates, r.explain):
            with pytest.raises(TypeError):
                call(bad_key)  # type: ignore[operator]
    with pytest.raises(TypeError):
        r.update(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        r.update("topology")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        cloudroute.Router(config="local")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        r.set_node_zone(None, 1, "z")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        r.report_moved(1, "h", True)
    with pytest.raises(UnicodeEncodeError):
        r.route_read("\ud800")


def test_health_feedback_and_breaker(two_clouds_reply: bytes) -> None:
    r = two_clouds(two_clouds_reply, local_cidrs=["127.0.1.0/24"], policy="local-replicas-first",
                   failure_threshold=2, down_cooldown_ms=60_000)
    key = "user:1000"
    first = r.route_read(key)
    assert addr(first) == "127.0.1.2:7002"
    r.report_failure(first.node_handle)
    r.report_failure(first.node_handle)
    cands = r.candidates(key)
    assert [c.down for c in cands if c.node_handle == first.node_handle] == [True]
    assert r.route_read(key).node_handle != first.node_handle
    r.report_success(first.node_handle)
    assert r.route_read(key).node_handle == first.node_handle
    # Every candidate down: reads fail, writes still go to the master.
    for c in cands:
        r.report_failure(c.node_handle)
        r.report_failure(c.node_handle)
    with pytest.raises(cloudroute.UnavailableError):
        r.route_read(key)
    assert addr(r.route_write(key)) == "127.0.1.1:7001"


def test_redirects_and_refresh(two_clouds_reply: bytes) -> None:
    r = two_clouds(two_clouds_reply)
    slot = cloudroute.keyslot("user:1000")
    assert not r.refresh_needed
    ask = r.report_ask(slot, "127.0.2.1", 7101)
    assert (ask.host, ask.port, ask.slot) == ("127.0.2.1", 7101, slot)
    assert addr(r.route_write("user:1000")) == "127.0.1.1:7001"  # ASK changes nothing
    r.report_moved(slot, "127.0.2.1", 7101)
    assert r.refresh_needed
    assert addr(r.route_write("user:1000")) == "127.0.2.1:7101"
    r.update(cloudroute.parse_cluster_slots(two_clouds_reply))
    assert not r.refresh_needed
    assert addr(r.route_write("user:1000")) == "127.0.1.1:7001"


def test_snapshots_outlive_updates_and_the_router(two_clouds_reply: bytes) -> None:
    r = two_clouds(two_clouds_reply)
    snap = r.snapshot()
    gen = snap.generation
    r.update(cloudroute.parse_static("shard master=10.0.0.1:6379"))
    assert r.snapshot().generation > gen
    assert addr(r.route_write("user:1000")) == "10.0.0.1:6379"
    assert addr(snap.route_write("user:1000")) == "127.0.1.1:7001"
    assert snap.route_read("user:1000").slot == 1649
    del r
    topo = snap.topology
    assert topo.node_count == 9
    with pytest.raises(TypeError):
        snap.route_read(None)  # type: ignore[arg-type]


def test_router_is_safe_to_share_between_threads(two_clouds_reply: bytes) -> None:
    r = two_clouds(two_clouds_reply, local_cidrs=["127.0.1.0/24"])
    topo_a = cloudroute.parse_cluster_slots(two_clouds_reply)
    topo_b = cloudroute.parse_static("shard master=10.0.0.1:6379 replicas=10.0.0.2:6379")
    keys = [f"k{i}" for i in range(3000)]
    errors: list[BaseException] = []
    stop = threading.Event()

    def reader() -> None:
        try:
            while not stop.is_set():
                for route in r.route_reads(keys):
                    assert route.host in {"127.0.1.1", "127.0.1.2", "127.0.1.3", "127.0.1.4", "127.0.1.5",
                                          "127.0.2.1", "127.0.2.2", "127.0.2.3", "127.0.2.4",
                                          "10.0.0.1", "10.0.0.2"}
                r.route_read("x")
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=reader) for _ in range(3)]
    for t in threads:
        t.start()
    for i in range(40):
        r.update(topo_a if i % 2 else topo_b)
    stop.set()
    for t in threads:
        t.join()
    assert not errors


def test_subclasses_must_initialise_the_native_part() -> None:
    class Bad(cloudroute.Config):
        def __init__(self) -> None:  # forgets super().__init__()
            pass

    with pytest.raises(TypeError):
        Bad()
    with pytest.raises(TypeError):
        cloudroute.Snapshot()  # type: ignore[call-arg]
    assert cloudroute.Router(cloudroute._native.Config()).refresh_needed is False
