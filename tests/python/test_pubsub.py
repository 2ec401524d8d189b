"""Publish / subscribe through the Python binding against a two-cloud cluster
of its own (scripts/redis-harness.sh cluster, ports 9171-9179: tests/PORTS.md;
cloud A = 127.0.1.x, the client's; policy local-replicas-first):

- channels, patterns and a shard channel get messages, each subscribed on a
  cloud-A node (the shard channel on its shard's cloud-A replica);
- a thread waiting for a message returns when another closes the
  subscription; Ctrl-C ends a wait on the main thread;
- asyncio: ``async for`` under a timeout, and a timed-out wait loses nothing;
- a CLUSTER FAILOVER of a shard channel's shard while messages flow: every
  message published after the last (re)subscription arrives;
- a slot migration while a shard channel of the slot is subscribed (CLUSTER
  SETSLOT IMPORTING / MIGRATING / NODE; test_valkey9.py runs the same with
  Valkey 9.1's CLUSTER MIGRATESLOTS): the server's sunsubscribe gives MOVING,
  then RESUBSCRIBED on the new owner's cloud-A node, and every message
  published after that arrives; the slot goes back;
- the node of a channel subscription is killed (last: the cluster is not
  restored): MOVING, RESUBSCRIBED on another cloud-A node, and every message
  published after that arrives.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import threading
import time
from typing import Callable, Dict, Iterator, List, Optional, Tuple

import pytest
from conftest import harness, live, wait_until

import cloudroute
import cloudroute.asyncio
from cloudroute import ChannelKind, Message, MessageType

pytestmark = live

PORT = 9171


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Dict[str, str]]:
    with harness("cluster", tmp_path_factory, PORT) as e:
        yield e


def client(env: Dict[str, str]) -> cloudroute.Client:
    cfg = cloudroute.Config(local_cidrs=[env["CLOUD_A_CIDR"]], policy="local-replicas-first", failure_threshold=1)
    return cloudroute.Client(env["SEEDS"], cfg, refresh_min_gap_ms=200, command_timeout_ms=2000)


def name_in_shard(env: Dict[str, str], shard: int, prefix: str) -> str:
    first, _, last = env[f"SHARD{shard}_SLOTS"].split(",")[0].partition("-")
    i = 0
    while not int(first) <= cloudroute.keyslot(f"{prefix}{i}") <= int(last):
        i += 1
    return f"{prefix}{i}"


def cli(addr: str, *args: str) -> str:
    host, port = addr.rsplit(":", 1)
    out = subprocess.run(["redis-cli", "-h", host, "-p", port, *args], capture_output=True, text=True, timeout=10)
    return out.stdout.strip()


def in_cloud_a(node: str) -> bool:
    return node.startswith("127.0.1.")


class Reader:
    """Iterates a subscription on a thread of its own, keeping every item and
    when it was read; ends when the subscription is closed."""

    def __init__(self, sub: cloudroute.Subscription) -> None:
        self.sub = sub
        self.items: List[Tuple[Message, float]] = []
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        for msg in self.sub:
            with self.lock:
                self.items.append((msg, time.monotonic()))

    def snapshot(self) -> List[Tuple[Message, float]]:
        with self.lock:
            return list(self.items)

    def find(self, pred: Callable[[Message], bool], timeout: float = 10.0) -> Optional[Message]:
        found: List[Message] = []

        def seen() -> bool:
            found[:] = [m for m, _ in self.snapshot() if pred(m)][:1]
            return bool(found)

        return found[0] if wait_until(seen, timeout) else None

    def event(self, type: MessageType, name: bytes, timeout: float = 10.0) -> Optional[Message]:
        return self.find(lambda m: m.type == type and m.channel == name, timeout)

    def stop(self) -> None:
        self.sub.close()
        self.thread.join(10)
        assert not self.thread.is_alive()


def settled(env: Dict[str, str]) -> None:
    """Every node is up in a cluster that is ok, every replica linked to its master."""

    def ok(addr: str) -> bool:
        role = cli(addr, "ROLE")
        return "cluster_state:ok" in cli(addr, "CLUSTER", "INFO") and (
            role.startswith("master") or "connected" in role
        )

    for n in range(1, int(env["NODE_COUNT"]) + 1):
        addr = env[f"NODE{n}_ADDR"]
        assert wait_until(lambda: ok(addr), 30, 0.05), addr  # noqa: B023 (called here only)


def test_channels_patterns_and_shard_channels_arrive_from_local_nodes(env: Dict[str, str]) -> None:
    shard_ch = name_in_shard(env, 1, "ps:s1:")
    with client(env) as c, c.subscribe(channels="ps:news", patterns=["ps:pat.*"], shard_channels=[shard_ch]) as sub:
        r = Reader(sub)
        for name in (b"ps:news", b"ps:pat.*"):
            ev = r.event(MessageType.SUBSCRIBED, name)
            assert ev is not None, name
            assert in_cloud_a(ev.node), ev
        ev = r.event(MessageType.SUBSCRIBED, shard_ch.encode())
        assert ev is not None and ev.kind == ChannelKind.SHARD
        assert ev.node == env["NODE2_ADDR"], "shard 1's replica in cloud A"
        assert c.publish("ps:news", b"a\0\r\nb") >= 0
        assert c.publish("ps:pat.x", "meow") >= 0
        assert c.spublish(shard_ch, "s1") >= 0
        m = r.find(lambda m: m.payload == b"a\0\r\nb")
        assert m is not None and m.type == MessageType.MESSAGE and m.channel == b"ps:news"
        assert m.kind == ChannelKind.CHANNEL and m.pattern is None and in_cloud_a(m.node)
        m = r.find(lambda m: m.payload == b"meow")
        assert m is not None and m.channel == b"ps:pat.x" and m.pattern == b"ps:pat.*"
        assert m.kind == ChannelKind.PATTERN
        m = r.find(lambda m: m.payload == b"s1")
        assert m is not None and m.kind == ChannelKind.SHARD and m.node == env["NODE2_ADDR"]
        # remove: its event, and no more of its messages.
        sub.remove(channels=["ps:news"])
        assert r.event(MessageType.UNSUBSCRIBED, b"ps:news") is not None
        c.publish("ps:news", "after")
        c.publish("ps:pat.y", "marker")
        assert r.find(lambda m: m.payload == b"marker") is not None
        assert all(m.payload != b"after" for m, _ in r.snapshot())
        r.stop()
    assert sub.closed and sub.get_message(0) is None


def test_get_message_times_out_and_a_close_ends_a_wait_on_another_thread(env: Dict[str, str]) -> None:
    with client(env) as c:
        sub = c.subscribe(channels="ps:idle")
        first = sub.get_message(timeout=5)
        assert first is not None and first.type == MessageType.SUBSCRIBED
        t0 = time.monotonic()
        assert sub.get_message(timeout=0.2) is None
        assert 0.15 <= time.monotonic() - t0 < 2
        got: List[object] = []
        waiter = threading.Thread(target=lambda: got.append(sub.get_message()))
        waiter.start()
        time.sleep(0.1)  # let it wait (not asserted on: the close must end it either way)
        sub.close()
        waiter.join(5)
        assert not waiter.is_alive() and got == [None]
        assert list(sub) == []


def test_ctrl_c_ends_a_wait_on_the_main_thread(env: Dict[str, str], ctrl_c: None) -> None:
    with client(env) as c, c.subscribe(channels="ps:sigint") as sub:
        assert sub.get_message(timeout=5) is not None  # SUBSCRIBED
        main = threading.get_ident()
        # A bound, should the interrupt not end the wait: the close does.
        guard = threading.Timer(10, sub.close)
        threading.Timer(0.2, lambda: signal.pthread_kill(main, signal.SIGINT)).start()
        guard.start()
        t0 = time.monotonic()
        try:
            with pytest.raises(KeyboardInterrupt):
                next(iter(sub))
        finally:
            guard.cancel()
        assert time.monotonic() - t0 < 5


def test_asyncio_async_for_with_a_timeout(env: Dict[str, str]) -> None:
    async def main() -> List[bytes]:
        async with cloudroute.asyncio.Client(env["SEEDS"], cloudroute.Config(local_cidrs=[env["CLOUD_A_CIDR"]])) as c:
            async with c.subscribe(channels=["ps:aio"]) as sub:
                first = await sub.get_message(timeout=5)
                assert first is not None and first.type == MessageType.SUBSCRIBED
                assert in_cloud_a(first.node)
                # Timed out: None, and the wait left running loses nothing.
                assert await sub.get_message(timeout=0.05) is None
                assert await c.publish("ps:aio", "one") >= 0
                got: List[bytes] = []

                async def take() -> None:
                    async for msg in sub:
                        assert msg.payload is not None
                        got.append(msg.payload)
                        if len(got) == 3:
                            return
                        if len(got) == 1:
                            await c.publish("ps:aio", "two")
                            await c.publish("ps:aio", "three")

                await asyncio.wait_for(take(), 10)
                sub.close()
                assert await sub.get_message() is None
                return got

    assert asyncio.run(main()) == [b"one", b"two", b"three"]


class Publisher:
    """SPUBLISHes "<seq>" on a channel every few ms until stopped (or its with block
    ends), noting when each started."""

    def __init__(self, c: cloudroute.Client, channel: str) -> None:
        self.c, self.channel = c, channel
        self.sent: List[Tuple[float, bool]] = []
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        seq = 0
        while not self.done.is_set():
            start = time.monotonic()
            try:
                self.c.spublish(self.channel, str(seq))
                ok = True
            except cloudroute.Error:
                ok = False
            self.sent.append((start, ok))
            seq += 1
            time.sleep(0.01)

    def stop(self) -> None:
        self.done.set()
        self.thread.join(10)

    def __enter__(self) -> "Publisher":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def await_flowing(r: Reader, pub: Publisher, channel: bytes, placed: Callable[[Message], bool]) -> None:
    """Until channel's last event is one placed() accepts and 60 publishes were
    acknowledged after it (bounded)."""

    def steady() -> bool:
        events = [(m, t) for m, t in r.snapshot() if m.channel == channel and m.payload is None]
        m, t = events[-1]
        return placed(m) and sum(ok for start, ok in pub.sent if start > t) >= 60

    assert wait_until(steady, 30), [m for m, _ in r.snapshot() if m.payload is None]


def drain(r: Reader, pub: Publisher) -> None:
    """After the publisher stopped: until its last acknowledged message arrived
    (bounded; the caller judges what arrived), then the reader stops."""
    last = str(max(seq for seq, (_, ok) in enumerate(pub.sent) if ok)).encode()
    r.find(lambda m: m.payload == last, 5)
    r.stop()


def failover(env: Dict[str, str], to: int, replicas: List[int]) -> None:
    """CLUSTER FAILOVER on replica `to` until it is the master and every other node of
    its shard (replicas) replicates from it. A manual failover the old master does not
    complete in time is abandoned by the servers: asked again, three times at most."""
    new = env[f"NODE{to}_ADDR"]
    for _ in range(3):
        assert cli(new, "CLUSTER", "FAILOVER") == "OK"
        if wait_until(lambda: cli(new, "ROLE").startswith("master"), 8, 0.05):
            break
    port = env[f"NODE{to}_PORT"]

    def follows(addr: str) -> bool:
        role = cli(addr, "ROLE").split("\n")
        return role[:1] == ["slave"] and port in role and "connected" in role

    for n in replicas:
        addr = env[f"NODE{n}_ADDR"]
        assert wait_until(lambda: follows(addr), 20, 0.05), (addr, cli(addr, "ROLE"))  # noqa: B023


PLACED = (MessageType.SUBSCRIBED, MessageType.RESUBSCRIBED)
PLANNED = "a nearer node is ready"  # a MOVING reason: make-before-break, nothing lost


def no_loss_while_placed(r: Reader, pub: Publisher, channel: bytes, since: float, min_checked: int) -> None:
    """The contract: a message published (and acknowledged) after a (re)subscription
    was read arrives, unless the name then lost its subscription (a MOVING that is
    not a planned move: what was published around the loss may be lost). Only those
    published after since (the servers' failover done: one the old master took while
    handing over may never reach the shard's other nodes)."""
    items = r.snapshot()
    events = [(m, t) for m, t in items if m.channel == channel and m.type != MessageType.MESSAGE]
    got = {m.payload for m, _ in items if m.type == MessageType.MESSAGE and m.channel == channel}
    expected = []
    for seq, (start, ok) in enumerate(pub.sent):
        before = [i for i, (_, t) in enumerate(events) if t < start]
        if not ok or start <= since or not before or events[before[-1]][0].type not in PLACED:
            continue
        after = events[before[-1] + 1 :]
        if after and after[0][0].type == MessageType.MOVING and not after[0][0].reason.startswith(PLANNED):
            continue
        expected.append(str(seq).encode())
    assert len(expected) >= min_checked, [m for m, _ in events]
    missing = [e for e in expected if e not in got]
    seen = [(str(m.type), m.node, m.reason, round(t - since, 3)) for m, t in events]
    starts = [round(pub.sent[int(e)][0] - since, 3) for e in missing[:5]]
    assert not missing, f"{len(missing)} of {len(expected)} never arrived: {missing[:5]} at {starts}; events {seen}"


def test_a_cluster_failover_during_a_shard_subscription(env: Dict[str, str]) -> None:
    settled(env)
    # Shard 2: n4 master (cloud B), n5 replica (B), n6 replica (A).
    ch = name_in_shard(env, 2, "ps:fo:")
    with client(env) as c:
        r = Reader(c.subscribe(shard_channels=ch))
        ev = r.event(MessageType.SUBSCRIBED, ch.encode())
        assert ev is not None and ev.node == env["NODE6_ADDR"]
        with Publisher(c, ch) as pub:
            failover(env, to=5, replicas=[4, 6])
            done = time.monotonic()
            # The name may move (to the new master in cloud B while n6 resyncs, then back
            # to n6: a planned move); until its last event is a (re)subscription and 60
            # publishes were acknowledged after it.
            settled(env)
            await_flowing(r, pub, ch.encode(), lambda m: m.type in PLACED)
        drain(r, pub)
        no_loss_while_placed(r, pub, ch.encode(), done, 50)
    failover(env, to=4, replicas=[5, 6])  # back to the harness layout


def owner_everywhere(env: Dict[str, str], slot: int) -> Optional[str]:
    """The address of the master every node's CLUSTER NODES gives slot to; None while
    the nodes disagree (or one does not answer)."""
    owners = set()
    for n in range(1, int(env["NODE_COUNT"]) + 1):
        found = None
        for line in cli(env[f"NODE{n}_ADDR"], "CLUSTER", "NODES").splitlines():
            f = line.split()
            if len(f) < 8 or "master" not in f[2].split(","):
                continue
            for r in f[8:]:
                if r.startswith("["):
                    continue  # a migrating / importing mark, not an owner
                first, _, last = r.partition("-")
                if int(first) <= slot <= int(last or first):
                    found = f[1].split("@")[0]
        owners.add(found)
    return owners.pop() if len(owners) == 1 else None


def setslot_move(env: Dict[str, str], slot: int, frm: int, to: int) -> None:
    """Moves slot (no keys in it) from shard frm's master to shard to's: IMPORTING on the
    target, MIGRATING on the source, then SETSLOT NODE on the target, the source and
    every other master (redis 7 refuses SETSLOT on a replica; they follow their masters)."""
    src, dst = env[f"SHARD{frm}_MASTER"], env[f"SHARD{to}_MASTER"]
    src_id, dst_id = env[f"SHARD{frm}_MASTER_ID"], env[f"SHARD{to}_MASTER_ID"]
    s = str(slot)
    assert cli(dst, "CLUSTER", "SETSLOT", s, "IMPORTING", src_id) == "OK"
    assert cli(src, "CLUSTER", "SETSLOT", s, "MIGRATING", dst_id) == "OK"
    assert cli(src, "CLUSTER", "COUNTKEYSINSLOT", s) == "0", "a key to migrate"
    others = [env[f"SHARD{k}_MASTER"] for k in range(1, int(env["SHARD_COUNT"]) + 1) if k not in (frm, to)]
    for addr in [dst, src, *others]:
        assert cli(addr, "CLUSTER", "SETSLOT", s, "NODE", dst_id) == "OK", addr


def await_owner(env: Dict[str, str], slot: int, shard: int) -> None:
    """Until every node gives slot to shard's master (bounded)."""
    want = env[f"SHARD{shard}_MASTER"]
    assert wait_until(lambda: owner_everywhere(env, slot) == want, 20, 0.05), (slot, want, owner_everywhere(env, slot))


def a_slot_migration_during_a_shard_subscription(
    env: Dict[str, str], move: Callable[[Dict[str, str], int, int, int], None], prefix: str
) -> None:
    """The scenario of the slot migration tests (move: the server's way of moving a slot
    between two shards' masters). A shard channel of shard 1 is subscribed on its cloud-A
    replica n2; its slot moves to shard 3 (master n7 in cloud A, replicas in cloud B)
    while it is SPUBLISHed every few ms. The server pushes sunsubscribe: MOVING from n2,
    then RESUBSCRIBED on a node of shard 3 (a cloud-A one: n7), which stays; every
    message published after that arrives. The slot goes back to shard 1 at the end."""
    settled(env)
    ch = name_in_shard(env, 1, prefix)
    slot = cloudroute.keyslot(ch)
    new_owner = [env["SHARD3_MASTER"], *env["SHARD3_REPLICAS"].split(",")]
    local = [a for a in new_owner if in_cloud_a(a)] or new_owner
    try:
        with client(env) as c:
            r = Reader(c.subscribe(shard_channels=ch))
            ev = r.event(MessageType.SUBSCRIBED, ch.encode())
            assert ev is not None and ev.node == env["NODE2_ADDR"], ev
            with Publisher(c, ch) as pub:
                start = time.monotonic()
                move(env, slot, 1, 3)
                await_owner(env, slot, 3)
                await_flowing(r, pub, ch.encode(), lambda m: m.type == MessageType.RESUBSCRIBED)
            drain(r, pub)
            events = [m for m, _ in r.snapshot() if m.channel == ch.encode() and m.payload is None]
            assert [m.type for m in events[:3]] == [
                MessageType.SUBSCRIBED,
                MessageType.MOVING,
                MessageType.RESUBSCRIBED,
            ], events
            moving, re, last = events[1], events[2], events[-1]
            # The server's sunsubscribe, or (should the client's refresh see the move
            # first) the topology's new owner: either way the name leaves n2.
            why = (f"slot {slot} moved: the server sent sunsubscribe", f"the topology no longer places it on {ev.node}")
            assert moving.node == env["NODE2_ADDR"] and moving.reason in why, moving
            # At once on the new owner's cloud-A node, and there it stays.
            assert re.node in local and last.type == MessageType.RESUBSCRIBED and last.node in local, (events, local)
            no_loss_while_placed(r, pub, ch.encode(), start, 50)
    finally:
        move(env, slot, 3, 1)  # back to the harness layout
        await_owner(env, slot, 1)


def test_a_slot_migration_during_a_shard_subscription(env: Dict[str, str]) -> None:
    a_slot_migration_during_a_shard_subscription(env, setslot_move, "ps:mig:")


def test_the_node_of_a_channel_subscription_is_killed(env: Dict[str, str]) -> None:
    # Last in this module: the killed node stays down.
    settled(env)
    with client(env) as c, c.subscribe(channels="ps:kill") as sub:
        r = Reader(sub)
        ev = r.event(MessageType.SUBSCRIBED, b"ps:kill")
        assert ev is not None and in_cloud_a(ev.node)
        victim = next(n for n in range(1, 10) if env[f"NODE{n}_ADDR"] == ev.node)
        os.kill(int(env[f"NODE{victim}_PID"]), signal.SIGKILL)
        moving = r.event(MessageType.MOVING, b"ps:kill")
        assert moving is not None and moving.node == ev.node and moving.reason
        re = r.event(MessageType.RESUBSCRIBED, b"ps:kill", 15)
        assert re is not None and re.node != ev.node and in_cloud_a(re.node), re
        # Published on a cloud-B node (the victim may have been a master).
        for i in range(50):
            assert cli(env["NODE5_ADDR"], "PUBLISH", "ps:kill", f"k{i}").isdigit()
        want = {f"k{i}".encode() for i in range(50)}
        assert wait_until(lambda: want <= {m.payload for m, _ in r.snapshot()}, 10)
        r.stop()
