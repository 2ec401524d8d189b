"""keyslot, keyslots and crc16: golden vectors, redis-py, and bad input."""

from __future__ import annotations

import random
import threading

import pytest
from conftest import load_vectors, unhex

import cloudroute


def test_keyslot_vectors_match_redis_server() -> None:
    cases = load_vectors("keyslot.json")["cases"]
    assert len(cases) > 100
    keys = [unhex(c["key_hex"]) for c in cases]
    want = [c["slot"] for c in cases]
    assert [cloudroute.keyslot(k) for k in keys] == want
    assert cloudroute.keyslots(keys) == want


def test_keyslot_agrees_with_redis_py_on_random_binary_keys() -> None:
    from redis.crc import key_slot

    rng = random.Random(20240611)
    alphabet = b"{}ab\x00\xff"
    keys = []
    for _ in range(10_000):
        if rng.random() < 0.5:  # braces and NULs are common: hash tags get exercised
            key = bytes(rng.choice(alphabet) for _ in range(rng.randrange(0, 12)))
        else:
            key = rng.randbytes(rng.randrange(0, 40))
        keys.append(key)
    want = [key_slot(k) for k in keys]
    assert [cloudroute.keyslot(k) for k in keys] == want
    assert cloudroute.keyslots(keys) == want


def test_keyslot_known_values_and_hash_tags() -> None:
    assert cloudroute.keyslot(b"user:1000") == 1649
    assert cloudroute.keyslot(b"") == 0
    assert cloudroute.keyslot(b"{user1000}.following") == cloudroute.keyslot(b"user1000")
    assert cloudroute.keyslot(b"foo{}{bar}") == 8363  # an empty tag hashes the whole key
    assert cloudroute.SLOT_COUNT == 16384


def test_keyslot_takes_str_as_utf8_and_bytes_like_objects() -> None:
    for text in ["user:1000", "ключ", "鍵{タグ}", "", "emoji \U0001F600"]:
        raw = text.encode("utf-8")
        slot = cloudroute.keyslot(raw)
        assert cloudroute.keyslot(text) == slot
        assert cloudroute.keyslot(bytearray(raw)) == slot
        assert cloudroute.keyslot(memoryview(raw)) == slot
    assert cloudroute.keyslots(["a", b"a", bytearray(b"a"), memoryview(b"xay")[1:2]]) == [15495] * 4


class _BytesSub(bytes):
    pass


class _StrSub(str):
    pass


def test_keyslot_subclasses() -> None:
    assert cloudroute.keyslot(_BytesSub(b"foo")) == 12182
    assert cloudroute.keyslot(_StrSub("foo")) == 12182


@pytest.mark.parametrize("bad", [None, 1, 1.5, ["a"], {"a": 1}, object(), True])
def test_keyslot_refuses_non_keys_with_type_error(bad: object) -> None:
    with pytest.raises(TypeError, match="key must be bytes, str or a bytes-like object"):
        cloudroute.keyslot(bad)  # type: ignore[arg-type]


def test_keyslot_refuses_str_that_is_not_utf8_encodable() -> None:
    with pytest.raises(UnicodeEncodeError):
        cloudroute.keyslot("lone surrogate \udcff")
    with pytest.raises(UnicodeEncodeError):
        cloudroute.keyslots(["ok", "\ud800"])


def test_keyslot_refuses_non_contiguous_buffers() -> None:
    with pytest.raises(BufferError):
        cloudroute.keyslot(memoryview(b"abcdef")[::2])


def test_keyslots_accepts_any_iterable_and_checks_each_item() -> None:
    assert cloudroute.keyslots([]) == []
    assert cloudroute.keyslots(()) == []
    assert cloudroute.keyslots(k for k in [b"foo", "bar"]) == [12182, 5061]
    with pytest.raises(TypeError, match=r"keys\[1\] must be bytes, str"):
        cloudroute.keyslots([b"foo", None])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="keys must be an iterable of keys"):
        cloudroute.keyslots(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not a single bytes"):
        cloudroute.keyslots(b"foo")
    with pytest.raises(TypeError, match="not a single str"):
        cloudroute.keyslots("foo")

    def broken():  # an iterable that fails midway: its error propagates
        yield b"a"
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        cloudroute.keyslots(broken())


@pytest.mark.parametrize("n", [255, 256, 257, 513, 2047, 2048, 2049, 5000])
def test_keyslots_chunk_boundaries(n: int) -> None:
    keys: list[object] = [f"k{i}" if i % 3 else bytearray(b"b%d" % i) for i in range(n)]
    assert cloudroute.keyslots(keys) == [cloudroute.keyslot(k) for k in keys]  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=rf"keys\[{n}\]"):
        cloudroute.keyslots(keys + [None])  # type: ignore[operator]
    with pytest.raises(UnicodeEncodeError):
        cloudroute.keyslots(keys + ["\udcff"])  # type: ignore[operator]


def test_keyslots_large_batches_release_the_gil_and_stay_correct() -> None:
    keys = [f"key:{i}".encode() for i in range(50_000)]
    want = [cloudroute.keyslot(k) for k in keys]
    results: list[list[int]] = []

    def work() -> None:
        results.append(cloudroute.keyslots(keys))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == [want] * 4


def test_crc16() -> None:
    assert cloudroute.crc16(b"123456789") == 0x31C3
    assert cloudroute.crc16("123456789") == 0x31C3
    assert cloudroute.crc16(b"") == 0
    with pytest.raises(TypeError):
        cloudroute.crc16(None)  # type: ignore[arg-type]
