"""Read modes (local-spread, replica-only, round-robin selection) and
family-key variants, from Python. Distributions use a fixed seed: every
bound is deterministic."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from conftest import load_vectors, unhex

import cloudroute
from cloudroute import FamilyKeyVariant, Policy, Role, Selection

KEY = "user:1000"  # shard 0 of examples/two-clouds: master 127.0.1.1:7001, replicas 127.0.1.2:7002, 127.0.2.2:7102


def router(reply: bytes, **kwargs: Any) -> cloudroute.Router:
    cfg = cloudroute.Config(local_cidrs=["127.0.1.0/24"], seed=11, **kwargs)
    return cloudroute.Router(cfg, cloudroute.parse_cluster_slots(reply))


def reads(r: cloudroute.Router, n: int) -> list[str]:
    return [f"{x.host}:{x.port}" for x in (r.route_read(KEY) for _ in range(n))]


def test_local_spread_shares_the_local_tier_by_weight(two_clouds_reply: bytes) -> None:
    local = router(two_clouds_reply, policy="local")
    assert set(reads(local, 200)) == {"127.0.1.1:7001"}  # today: the local master alone
    spread = router(two_clouds_reply, policy=Policy.LOCAL_SPREAD, weights={"127.0.1.2:7002": 3})
    ranks = [(f"{c.host}:{c.port}", c.rank) for c in spread.candidates(KEY)]
    assert ranks == [("127.0.1.1:7001", 0), ("127.0.1.2:7002", 0), ("127.0.2.2:7102", 1)]
    got = Counter(reads(spread, 20000))
    assert set(got) == {"127.0.1.1:7001", "127.0.1.2:7002"}
    # Expected 5000 / 15000; chi-square with df=1 under 10.8 (p=0.001), fixed seed.
    x2 = (got["127.0.1.1:7001"] - 5000) ** 2 / 5000 + (got["127.0.1.2:7002"] - 15000) ** 2 / 15000
    assert x2 < 10.8, got


def test_replica_only_never_reads_the_master(two_clouds_reply: bytes) -> None:
    r = router(two_clouds_reply, policy="replica-only")
    assert all(c.role == Role.REPLICA for c in r.candidates(KEY))
    assert set(reads(r, 500)) == {"127.0.1.2:7002"}
    for c in r.candidates(KEY):
        for _ in range(3):  # the default failure threshold
            r.report_failure(c.node_handle)
    with pytest.raises(cloudroute.UnavailableError):
        r.route_read(KEY)
    assert r.route_write(KEY).port == 7001


def test_round_robin_is_exact_per_cycle(two_clouds_reply: bytes) -> None:
    r = router(two_clouds_reply, policy="local-spread", selection=Selection.ROUND_ROBIN,
               weights={"127.0.1.1:7001": 1, "127.0.1.2:7002": 2})
    seq = reads(r, 300)
    for i in range(0, 300, 3):
        assert Counter(seq[i:i + 3]) == {"127.0.1.1:7001": 1, "127.0.1.2:7002": 2}, (i, seq[i:i + 3])
    cfg = cloudroute.Config().set_selection("round_robin")
    assert isinstance(cfg, cloudroute.Config)
    with pytest.raises(cloudroute.InvalidArgumentError, match="round-robin"):
        cloudroute.Config(selection="sticky")


def test_policy_and_selection_names() -> None:
    assert Policy("local-spread") is Policy.LOCAL_SPREAD and Policy.REPLICA_ONLY == "replica-only"
    assert [s.value for s in Selection] == ["random", "round-robin", "least-loaded"]
    with pytest.raises(cloudroute.InvalidArgumentError, match="local-spread or replica-only"):
        cloudroute.Config(policy="fastest")


def test_family_key_variants_match_the_real_java_classes() -> None:
    v = load_vectors("family_keys.json")
    assert v["fields"] == ["family_hex", "key_hex", "jedis", "commons_codec"]
    for fam_hex, key_hex, jedis, codec in v["cases"]:
        family, key = unhex(fam_hex).decode("utf-8"), unhex(key_hex)
        assert cloudroute.family_key(family, key) == jedis
        assert cloudroute.family_key(family, key, variant="jedis") == jedis
        assert cloudroute.family_key(family, key.decode("utf-8"), variant=FamilyKeyVariant.COMMONS_CODEC) == codec


def test_family_key_variant_errors() -> None:
    with pytest.raises(cloudroute.InvalidArgumentError, match="jedis or commons-codec"):
        cloudroute.family_key("user", "1", variant="guava")
    with pytest.raises(cloudroute.InvalidArgumentError):
        cloudroute.family_key("a:b", "1", variant="commons-codec")


def test_least_loaded_without_a_live_feed_draws_like_random(two_clouds_reply: bytes) -> None:
    # A router used for routing only has no loads: every node is idle and
    # unmeasured, so the two draws tie and the first one stands.
    r = router(two_clouds_reply, policy="local-spread", selection=Selection.LEAST_LOADED)
    got = Counter(reads(r, 400))
    assert set(got) == {"127.0.1.1:7001", "127.0.1.2:7002"}, got
    assert min(got.values()) > 120, got
    assert cloudroute.Config(selection="least_loaded") is not None
