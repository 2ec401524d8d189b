"""Never a reply to the wrong caller, through the Python binding.

Against the real harness cluster: the subscribe family, MONITOR and the other commands
that change a connection's state are refused before anything is sent (the reported
reproduction: SSUBSCRIBE with two channels, then a GET of the same slot), in
``execute_command``, pipelines and node commands. Against the hostile node of
tests/hostile/fake_node.py: threads sharing one client while the node sends extra
replies never get another caller's value (every value is derived from its key), a
refused or malformed SET is never reported as done, and every poisoned connection is
counted in ``stats().poisoned``.
"""

from __future__ import annotations

import pathlib
import sys
import threading
import time
from typing import Dict, Iterator, List

import pytest
from conftest import live, wait_until

import cloudroute
from cloudroute import Client, Config

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "hostile"))
from fake_node import FakeNode  # noqa: E402

REFUSED = [
    ("SSUBSCRIBE", "{k1}a", "{k1}b"),
    ("SUBSCRIBE", "{k1}a"),
    ("PSUBSCRIBE", "{k1}*"),
    ("MONITOR",),
    ("CLIENT", "REPLY", "OFF"),
    ("SELECT", "1"),
    ("HELLO", "3"),
    ("MULTI",),
    ("RESET",),
]


@pytest.fixture(scope="module")
def client(cluster: Dict[str, str]) -> Iterator[Client]:
    cfg = Config(local_cidrs=[cluster["CLOUD_A_CIDR"]], policy="local-replicas-first")
    with Client(cluster["SEEDS"], cfg) as c:
        yield c


@live
@pytest.mark.parametrize("argv", REFUSED, ids=lambda a: " ".join(a))
def test_state_changing_commands_are_refused_and_the_next_get_is_its_own(
    client: Client, argv: tuple
) -> None:  # type: ignore[type-arg]
    client.set("{k1}x", "mine")
    with pytest.raises(cloudroute.InvalidArgumentError, match="is not sent on the client's pooled"):
        client.execute_command(*argv, key_index=1 if len(argv) > 1 else 0)
    for _ in range(20):  # every pooled connection of the node, several times over
        assert client.get("{k1}x") == b"mine"
    assert client.stats().poisoned == 0


@live
def test_pipelines_and_node_commands_refuse_them_in_place(client: Client) -> None:
    client.set("{k1}p", "pv")
    p = client.pipeline()
    p.get("{k1}p")
    p.execute_command("SSUBSCRIBE", "{k1}a", "{k1}b")
    p.get("{k1}p")
    out = p.execute(raise_on_error=False)
    assert out[0] == b"pv" and out[2] == b"pv"
    assert isinstance(out[1], cloudroute.InvalidArgumentError)
    with pytest.raises(cloudroute.InvalidArgumentError, match="MONITOR"):
        client.execute_on_nodes("MONITOR", target="all")


@pytest.fixture()
def node() -> Iterator[FakeNode]:
    with FakeNode() as n:
        yield n


def test_threads_never_get_another_callers_value(node: FakeNode) -> None:
    with Client(node.address, Config(), command_timeout_ms=2000) as c:
        wrong: List[str] = []
        failed: List[str] = []
        stop = threading.Event()

        def reader(t: int) -> None:
            for i in range(1500):
                if stop.is_set():
                    return
                key = "t%d:%d" % (t, i)
                try:
                    v = c.get(key)
                except cloudroute.ParseError as e:
                    failed.append(str(e))
                    continue
                except cloudroute.UnavailableError:
                    # A shared connection's poisoning fails every request on it at
                    # once: the node may be set aside for its cool-down.
                    continue
                if v != b"v:" + key.encode():
                    wrong.append("%s -> %r" % (key, v))

        threads = [threading.Thread(target=reader, args=(t,)) for t in range(4)]
        for t in threads:
            t.start()
        for _ in range(25):  # 25 extra replies while they run
            node.arm("extra-reply")
            stop.wait(0.01)
        for t in threads:
            t.join(timeout=60)
        stop.set()
        assert wrong == []
        assert c.stats().poisoned >= 1
        # Each extra reply poisons the connection it came on and fails the
        # requests in flight there: at most one per thread.
        assert len(failed) <= 25 * len(threads)
        assert all("replies no longer match requests" in f for f in failed)


def test_a_set_that_is_not_done_is_never_reported_done(node: FakeNode) -> None:
    with Client(node.address, Config()) as c:
        node.arm("readonly")
        with pytest.raises(cloudroute.ResponseError, match="READONLY"):
            c.set("k", "v")
        for fault in ("set-int", "set-nil"):
            node.arm(fault)
            with pytest.raises(cloudroute.ParseError, match="may have reached the server"):
                c.set("k", "v")
        node.arm("set-int")
        with pytest.raises(cloudroute.ParseError, match="where SET answers"):
            c.set("k", "v", nx=True)
        node.arm("set-nil")
        assert c.set("k", "v", nx=True) is None  # NX not met: nil is a real answer
        assert c.set("k", "v") is True
        # A connection's poisoning is counted by the thread that closes it, which
        # may do so just after its caller got the error.
        assert wait_until(lambda: c.stats().poisoned == 3), c.stats().poisoned


def test_wrong_types_are_protocol_errors_not_values(node: FakeNode) -> None:
    with Client(node.address, Config()) as c:
        node.arm("wrong-type")
        with pytest.raises(cloudroute.ParseError, match="the integer 1 where GET answers"):
            c.get("k")
        node.arm("nested-mget")
        with pytest.raises(cloudroute.ParseError, match="where MGET answers an array of 2"):
            c.mget(["{t}a", "{t}b"])
        assert c.mget(["{t}a", "{t}b"]) == [b"v:{t}a", b"v:{t}b"]
        assert c.get("k") == b"v:k"
        # Counted on a thread of the client's own (it may log): polled.
        deadline = time.monotonic() + 10
        while c.stats().poisoned < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert c.stats().poisoned == 2


def test_an_extra_reply_while_idle_is_dropped_before_use(node: FakeNode) -> None:
    with Client(node.address, Config()) as c:
        assert c.get("a") == b"v:a"
        # A second connection to the node pushes the stale reply to the idle one.
        with Client(node.address, Config()) as other:
            assert other.execute_command("FAKE", "push", key_index=0) >= 1
        deadline = time.monotonic() + 5  # arrived: loopback delivers a moment after send()
        while node.queued_at_clients() == 0 and time.monotonic() < deadline:
            time.sleep(0.005)
        assert node.queued_at_clients() > 0
        for i in range(20):
            assert c.get("b%d" % i) == b"v:b%d" % i
        assert c.stats().poisoned == 1
