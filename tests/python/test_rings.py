"""Rings, Jedis hashes, jump hash and family keys: tests/vectors/rings.json and bad input."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import load_vectors, unhex

import cloudroute
from cloudroute import HashAlgo, Ring, RingAlgo, RingNaming

V = load_vectors("rings.json")


def test_jedis_hash_vectors() -> None:
    for c in V["jedis_hash"]:
        key = unhex(c["key_hex"])
        assert cloudroute.jedis_hash(key) == c["murmur"], c
        assert cloudroute.jedis_hash(key, "murmur") == c["murmur"]
        assert cloudroute.jedis_hash(key, HashAlgo.MD5) == c["md5"], c
    for c in V["jedis_printed"]:  # values printed by a real Jedis
        assert cloudroute.jedis_hash(c["key"]) == c["murmur"]
    assert cloudroute.jedis_hash(b"a", HashAlgo.DEFAULT) == cloudroute.jedis_hash(b"a", HashAlgo.MURMUR)


def test_jump_vectors() -> None:
    for c in V["jump"]:
        assert cloudroute.jump_hash(int(c["key"]), c["buckets"]) == c["bucket"], c
    for c in V["jump_guava"]:
        assert cloudroute.jump_hash(c["key"], c["buckets"]) == c["bucket"], c


def test_jump_takes_java_longs_as_their_bits() -> None:
    assert cloudroute.jump_hash(-1, 1000) == cloudroute.jump_hash(2**64 - 1, 1000)
    assert cloudroute.jump_hash(-(2**63), 77) == cloudroute.jump_hash(2**63, 77)
    h = cloudroute.jedis_hash("user:1")
    assert cloudroute.jump_hash(h, 10) == cloudroute.jump_hash(h % 2**64, 10)


@pytest.mark.parametrize(
    "key, buckets", [(2**64, 1), (-(2**63) - 1, 1), (2**200, 1), (0, 0), (0, -1), (0, 2**31), (0, 2**32)]
)
def test_jump_refuses_out_of_range(key: int, buckets: int) -> None:
    with pytest.raises(cloudroute.InvalidArgumentError):
        cloudroute.jump_hash(key, buckets)


@pytest.mark.parametrize("key, buckets", [("1", 1), (1.0, 1), (None, 1), (1, None), (1, "2"), (True, 3)])
def test_jump_refuses_wrong_types(key: Any, buckets: Any) -> None:
    with pytest.raises(TypeError):
        cloudroute.jump_hash(key, buckets)


def ring_of(case: dict[str, Any]) -> Ring:
    shards = [(s["name"], s["weight"]) for s in case["shards"]]
    return Ring(shards, algo=case["algo"], hash=case["hash"], naming=case.get("naming", "jedis3"),
                key_tags=case["key_tags"])


def test_ring_vectors() -> None:
    algos = set()
    for case in V["rings"]:
        ring = ring_of(case)
        assert len(ring) == len(case["shards"])
        keys = [unhex(k["key_hex"]) for k in case["keys"]]
        want = [k["shard"] for k in case["keys"]]
        assert [ring.locate(k) for k in keys] == want, case["name"]
        assert ring.locate_many(keys) == want, case["name"]
        algos.add(case["algo"])
    assert algos == {"jedis", "ketama", "jump", "modulo"}


def test_family_key_vectors() -> None:
    for c in V["family_keys"]:
        key = unhex(c["key_hex"])
        assert cloudroute.family_key(c["family"], key) == c["stored_key"], c
        assert cloudroute.family_key(c["family"].encode(), key) == c["stored_key"]
    assert cloudroute.FAMILY_KEY_SIZE == 21


@pytest.mark.parametrize("family", ["", "a:b", "a\0b"])
def test_family_key_refuses_bad_families(family: str) -> None:
    with pytest.raises(cloudroute.InvalidArgumentError):
        cloudroute.family_key(family, "k")


def test_family_key_types() -> None:
    with pytest.raises(TypeError):
        cloudroute.family_key(None, "k")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        cloudroute.family_key("f", 1)  # type: ignore[arg-type]


def test_ring_factories_match_the_c_tests() -> None:
    keys = ["a", "foo", "bar", "user:1", "user:1000", "123456789"]
    abc = ["shard-a", "shard-b", ("shard-c", 2)]
    assert Ring.jedis(abc).locate_many(keys) == [2, 2, 0, 1, 2, 1]
    assert Ring.jedis(abc, naming="jedis2").locate_many(keys) == [2, 2, 0, 0, 2, 2]
    mixed = [("redis-1", 1), (None, 2), "redis-3", ("redis-4", 3), None]
    assert Ring.jedis(mixed, key_tags=True).locate_many(keys) == [1, 3, 3, 1, 3, 1]
    hosts = ["10.0.0.1:6379", "10.0.0.2:6379", "10.0.0.3:6379"]
    assert Ring.jedis(hosts, hash="md5").locate_many(keys) == [0, 1, 0, 1, 0, 0]
    assert Ring.ketama(hosts).locate_many(keys) == [2, 2, 2, 0, 0, 0]
    assert Ring.jump(10).locate_many(keys) == [1, 1, 6, 4, 0, 4]
    assert Ring.modulo(7).locate_many(keys) == [4, 1, 6, 2, 3, 6]
    assert Ring.jump([b"x", "y"]).locate("a") in (0, 1)
    r = Ring.ketama(hosts)
    assert (r.algo, r.hash, r.naming, r.key_tags) == (RingAlgo.KETAMA, HashAlgo.MD5, RingNaming.JEDIS3, False)
    assert repr(r) == "<cloudroute.Ring ketama hash=md5 shards=3>"
    assert Ring(["a"], algo=1, hash=2).algo == RingAlgo.KETAMA


def test_ring_keys_are_binary_safe_and_str_is_utf8() -> None:
    ring = Ring.jedis(["a", "b", "c"])
    assert ring.locate("ключ") == ring.locate("ключ".encode()) == ring.locate(bytearray("ключ".encode()))
    with pytest.raises(TypeError):
        ring.locate(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        ring.locate_many([b"a", 3])  # type: ignore[list-item]
    with pytest.raises(UnicodeEncodeError):
        ring.locate("\udcff")


@pytest.mark.parametrize(
    "shards, kwargs, exc",
    [
        ([], {}, cloudroute.InvalidArgumentError),  # empty ring
        ([("a", 0)], {}, cloudroute.InvalidArgumentError),
        ([("a", -1)], {}, cloudroute.InvalidArgumentError),
        ([("a", 1_000_001)], {}, cloudroute.InvalidArgumentError),
        ([("a", 2**31)], {}, cloudroute.InvalidArgumentError),
        ([("a", 2**100)], {}, cloudroute.InvalidArgumentError),
        (["a", "a"], {}, cloudroute.InvalidArgumentError),  # duplicate
        ([""], {}, cloudroute.InvalidArgumentError),
        (["a\0b"], {}, cloudroute.InvalidArgumentError),
        ([None], {"algo": "ketama"}, cloudroute.InvalidArgumentError),
        ([("a", 2)], {"algo": "jump"}, cloudroute.InvalidArgumentError),
        (["a"], {"algo": "ketama", "hash": "murmur"}, cloudroute.InvalidArgumentError),
        (["a"], {"algo": "rendezvous"}, cloudroute.InvalidArgumentError),
        (["a"], {"algo": 9}, cloudroute.InvalidArgumentError),
        (["a"], {"hash": "sha1"}, cloudroute.InvalidArgumentError),
        (["a"], {"naming": -1}, cloudroute.InvalidArgumentError),
        (["x" * 200], {"algo": "ketama"}, cloudroute.InvalidArgumentError),
        ([("a", 1, 2)], {}, TypeError),
        ([1], {}, TypeError),
        ([("a", "1")], {}, TypeError),
        ([("a", None)], {}, TypeError),
        ("ab", {}, TypeError),
        (None, {}, TypeError),
        (["a"], {"algo": None}, TypeError),
        (["a"], {"algo": 1.0}, TypeError),
        (["a"], {"hash": True}, TypeError),
        (["\udcff"], {}, UnicodeEncodeError),
    ],
)
def test_ring_refuses_bad_input(shards: Any, kwargs: dict[str, Any], exc: type[BaseException]) -> None:
    with pytest.raises(exc):
        Ring(shards, **kwargs)


def test_ring_counts() -> None:
    with pytest.raises(cloudroute.InvalidArgumentError):
        Ring.jump(0)
    with pytest.raises(cloudroute.InvalidArgumentError):
        Ring.modulo(-3)
    with pytest.raises(cloudroute.LimitError):
        Ring.jump(2**40)
    with pytest.raises(TypeError):
        Ring.jump(True)
    assert len(Ring.jump(65536)) == 65536
    with pytest.raises(cloudroute.LimitError):  # 160 x weight points per shard, capped at 4194304
        Ring.jedis([(f"s{i}", 1_000_000) for i in range(30)])


def test_jedis_hash_bad_input() -> None:
    with pytest.raises(cloudroute.InvalidArgumentError):
        cloudroute.jedis_hash(b"a", "crc32")
    with pytest.raises(cloudroute.InvalidArgumentError):
        cloudroute.jedis_hash(b"a", 7)
    with pytest.raises(TypeError):
        cloudroute.jedis_hash(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        cloudroute.jedis_hash(b"a", None)  # type: ignore[arg-type]
