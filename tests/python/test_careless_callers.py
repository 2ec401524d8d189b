"""The binding survives careless callers: a log handler that
closes the client or asks for a refresh from inside one, a client used across
os.fork() (directly and through multiprocessing's "fork" start method, and a
child that simply exits), CR/LF in host and location text, and the option
ranges Java refuses alike. Each would once abort or hang the process, so every
risky step runs bounded (a child process with a deadline, a wait with a
timeout).

The peer is a scripted cluster node in this file (one master owning every
slot, answering what the client asks, never answering a BLPOP on an empty list
nor a GET of "careless:stall"): no redis-server, no shared ports.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from typing import Any, Callable, Dict, Iterator, List, Optional

import pytest
from conftest import wait_until

import cloudroute
from cloudroute import Client, Config, Router


# ---- a scripted cluster node ----------------------------------------------------


def _bulk(b: bytes) -> bytes:
    return b"$%d\r\n%s\r\n" % (len(b), b)


def _commands(buf: bytearray) -> Iterator[List[bytes]]:
    """Complete RESP commands at the front of buf, removed as they are read."""
    while buf.startswith(b"*"):
        eol = buf.find(b"\r\n")
        if eol < 0:
            return
        n, pos, argv = int(buf[1:eol]), eol + 2, []
        for _ in range(n):
            eol = buf.find(b"\r\n", pos)
            if eol < 0:
                return
            size = int(buf[pos + 1 : eol])
            if len(buf) < eol + 2 + size + 2:
                return
            argv.append(bytes(buf[eol + 2 : eol + 2 + size]))
            pos = eol + 2 + size + 2
        del buf[:pos]
        yield argv


class FakeNode:
    """A cluster node on 127.0.0.1 as far as the live client asks: CLUSTER SHARDS
    is an error (the client falls back to CLUSTER SLOTS: one shard, this node),
    INFO an empty section, GET/SET/DEL/RPUSH on a dict; BLPOP pops or, on an
    empty list, never answers; GET of careless:stall never answers."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port = self.sock.getsockname()[1]
        self.data: Dict[bytes, Any] = {}
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _answer(self, argv: List[bytes]) -> Optional[bytes]:
        cmd = argv[0].upper()
        sub = argv[1].upper() if len(argv) > 1 else b""
        with self.lock:
            if cmd == b"CLUSTER" and sub == b"SHARDS":
                return b"-ERR unknown subcommand 'SHARDS'\r\n"
            if cmd == b"CLUSTER":
                return (b"*1\r\n*3\r\n:0\r\n:16383\r\n*3\r\n" + _bulk(b"127.0.0.1")
                        + b":%d\r\n" % self.port + _bulk(b"a" * 40))
            if cmd == b"INFO":
                return _bulk(b"# Server\r\n")
            if cmd == b"PING":
                return _bulk(argv[1]) if len(argv) == 2 else b"+PONG\r\n"
            if cmd == b"GET":
                if argv[1] == b"careless:stall":
                    return None
                v = self.data.get(argv[1])
                return b"$-1\r\n" if v is None else _bulk(v)
            if cmd == b"SET":
                self.data[argv[1]] = argv[2]
                return b"+OK\r\n"
            if cmd == b"DEL":
                n = sum(1 for k in argv[1:] if self.data.pop(k, None) is not None)
                return b":%d\r\n" % n
            if cmd == b"RPUSH":
                lst = self.data.setdefault(argv[1], [])
                lst.extend(argv[2:])
                return b":%d\r\n" % len(lst)
            if cmd == b"BLPOP":
                lst = self.data.get(argv[1])
                if not lst:
                    return None
                return b"*2\r\n" + _bulk(argv[1]) + _bulk(lst.pop(0))
            return b"+OK\r\n"

    def _serve(self, conn: socket.socket) -> None:
        buf = bytearray()
        with conn:
            while True:
                try:
                    chunk = conn.recv(65536)
                except OSError:
                    return
                if not chunk:
                    return
                buf += chunk
                for argv in _commands(buf):
                    out = self._answer(argv)
                    if out is None:  # never answered: wait for the peer to close
                        while conn.recv(65536):
                            pass
                        return
                    conn.sendall(out)


@pytest.fixture(scope="module")
def node() -> Iterator[str]:
    n = FakeNode()
    yield f"127.0.0.1:{n.port}"
    n.sock.close()


class Handler(logging.Handler):
    """Runs action(record) for each event of the "cloudroute" logger."""

    def __init__(self, action: Callable[[logging.LogRecord], None]) -> None:
        super().__init__(logging.DEBUG)
        self.action = action

    def emit(self, record: logging.LogRecord) -> None:
        self.action(record)


@pytest.fixture
def debug_log() -> Iterator[Callable[[Callable[[logging.LogRecord], None]], None]]:
    """Installs handlers on the "cloudroute" logger at DEBUG (what a client made
    afterwards sends), removed again after the test."""
    logger = logging.getLogger("cloudroute")
    level = logger.level
    added: List[logging.Handler] = []

    def add(action: Callable[[logging.LogRecord], None]) -> None:
        h = Handler(action)
        added.append(h)
        logger.addHandler(h)

    logger.setLevel(logging.DEBUG)
    yield add
    for h in added:
        logger.removeHandler(h)
    logger.setLevel(level)


# ---- log handlers that call back into the client ---------------------------


def test_close_from_a_handler_on_the_refresher_thread(
    node: str, debug_log: Callable[[Callable[[logging.LogRecord], None]], None]
) -> None:
    main = threading.get_ident()
    state: Dict[str, Optional[Client]] = {"client": None}
    closed_on: List[int] = []

    def close_it(record: logging.LogRecord) -> None:
        c = state["client"]
        if c is not None and record.getMessage().startswith("refresh done") and threading.get_ident() != main:
            state["client"] = None
            c.close()  # the last reference: once aborted the process (the refresher joined itself)
            closed_on.append(threading.get_ident())

    debug_log(close_it)
    c = Client(node, refresh_interval_ms=50)
    c.get("careless:k")  # a pooled connection, as any client in use has
    state["client"] = c
    assert wait_until(lambda: len(closed_on) == 1), "no periodic refresh closed the client"
    assert c.closed
    with pytest.raises(cloudroute.InvalidArgumentError, match="closed"):
        c.get("careless:k")


def test_refresh_from_a_handler_of_that_refresh_is_refused(
    node: str, debug_log: Callable[[Callable[[logging.LogRecord], None]], None]
) -> None:
    errors: List[BaseException] = []
    armed = threading.Event()
    box: Dict[str, Client] = {}

    def refresh_again(record: logging.LogRecord) -> None:
        if armed.is_set() and record.getMessage() == "refresh started":
            armed.clear()
            try:
                box["c"].refresh()  # once blocked forever: the refresh waited for itself
            except cloudroute.Error as e:
                errors.append(e)

    debug_log(refresh_again)
    with Client(node, refresh_interval_ms=0) as c:
        box["c"] = c
        armed.set()
        # The handler runs on the refreshing thread, inside its refresh; a
        # thread of its own, so that a hang fails the test instead of hanging it.
        t = threading.Thread(target=c.refresh, daemon=True)
        t.start()
        t.join(30)
        assert not t.is_alive(), "refresh() from the handler waited for its own refresh"
        assert len(errors) == 1
        assert isinstance(errors[0], cloudroute.InvalidArgumentError)
        assert "log handler" in str(errors[0])
        c.refresh()  # outside a handler a refresh runs


def test_close_from_a_handler_inside_a_call_closes_after_it(
    node: str, debug_log: Callable[[Callable[[logging.LogRecord], None]], None]
) -> None:
    box: Dict[str, Client] = {}
    armed = threading.Event()

    def close_it(record: logging.LogRecord) -> None:
        if armed.is_set() and record.getMessage().startswith("refresh done"):
            armed.clear()
            box["c"].close()

    debug_log(close_it)
    c = Client(node, refresh_interval_ms=0)
    box["c"] = c
    armed.set()
    c.refresh()  # returns: the running call keeps the handle until it ends
    assert c.closed
    with pytest.raises(cloudroute.InvalidArgumentError, match="closed"):
        c.refresh()


# ---- fork ------------------------------------------------------------------


def _child_uses_and_drops(c: Client) -> int:
    """In a forked child: every call refuses with a clear error, close() and
    dropping the client return at once. The exit code says what failed."""
    try:
        c.get("careless:k")
        return 2
    except cloudroute.InvalidArgumentError as e:
        if "fork" not in str(e):
            return 3
    try:
        c.router  # noqa: B018 (a call on the client like any other)
        return 4
    except cloudroute.InvalidArgumentError:
        pass
    c.close()
    if not c.closed:
        return 5
    return 0


def _wait_child(pid: int, timeout: float = 20.0) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done == pid:
            return os.waitstatus_to_exitcode(status)
        time.sleep(0.02)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    raise AssertionError("the forked child hung")


def test_a_client_across_os_fork(node: str) -> None:
    with Client(node, refresh_interval_ms=0) as c:
        c.set("careless:fork", b"parent")
        pid = os.fork()
        if pid == 0:  # the child: never returns into pytest
            code = 1
            try:
                code = _child_uses_and_drops(c)
                # A new client works in the child.
                with Client(node) as fresh:
                    if fresh.get("careless:fork") != b"parent":
                        code = 6
            finally:
                os._exit(code)
        assert _wait_child(pid) == 0
        # The parent's client goes on, on its own connections.
        assert c.get("careless:fork") == b"parent"


def _mp_target(c: Client) -> None:
    code = _child_uses_and_drops(c)
    del c
    sys.exit(code)


def test_a_client_across_multiprocessing_fork(node: str) -> None:
    ctx = multiprocessing.get_context("fork")
    with Client(node, refresh_interval_ms=50) as c:
        p = ctx.Process(target=_mp_target, args=(c,))
        p.start()
        p.join(20)
        if p.is_alive():
            p.kill()
            p.join()
            raise AssertionError("the multiprocessing child hung")
        assert p.exitcode == 0
        c.set("careless:mp", b"parent")  # the parent's client goes on
        assert c.get("careless:mp") == b"parent"


def test_a_forked_child_that_exits_with_a_live_client(node: str) -> None:
    """The child of a fork ends through interpreter shutdown (globals freed),
    the client still open: it exits at once."""
    script = (
        "import os, sys, cloudroute\n"
        f"c = cloudroute.Client({node!r}, refresh_interval_ms=50)\n"
        "c.get('careless:k')\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    sys.exit(0)\n"
        "_, status = os.waitpid(pid, 0)\n"
        "c.close()\n"
        "sys.exit(os.waitstatus_to_exitcode(status))\n"
    )
    r = subprocess.run([sys.executable, "-c", script], timeout=60, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


# ---- signals ------------------------------------------------------------------


class Interrupted(Exception):
    pass


def _interrupt(signum: int, frame: object) -> None:
    raise Interrupted()


@pytest.mark.parametrize("read", [False, True])
def test_a_signal_ends_a_blocking_call_at_once(node: str, read: bool) -> None:
    """A signal handler that raises (as Ctrl-C's KeyboardInterrupt does) during a
    call that would wait seconds (a write: BLPOP 5 on an empty list; a read: a
    GET the node never answers, 10 s timeout): the call raises it within well
    under a second. The connection is closed, not reused: the next BLPOP gets
    its own reply, and the node was not counted as failed. Pooled connections
    (shared_connections=0): on a shared one an interrupted request is only
    abandoned, its reply dropped when it comes (tests/net/interrupt_test.cc), and
    this node never answers the stalled GET."""
    key = "careless:blpop:" + str(read)
    old = signal.signal(signal.SIGALRM, _interrupt)
    try:
        with Client(node, command_timeout_ms=10000, shared_connections=0) as c:
            c.execute_command("DEL", key)
            signal.setitimer(signal.ITIMER_REAL, 0.3)
            t0 = time.monotonic()
            with pytest.raises(Interrupted):
                if read:
                    c.get("careless:stall")  # a read the node never answers (tier timeout: 10 s)
                else:
                    c.execute_command("BLPOP", key, 5)
            elapsed = time.monotonic() - t0
            print(f"{'GET' if read else 'BLPOP'} ended {elapsed - 0.3:.3f} s after the signal")
            assert elapsed < 1.5, f"the signal took {elapsed:.2f} s to reach Python"
            c.execute_command("RPUSH", key, "x")
            assert c.execute_command("BLPOP", key, 1) == [key.encode(), b"x"]
            assert c.stats().conn_errors == 0  # the interrupt marked no node
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def test_keyboard_interrupt_ends_a_blocking_call(node: str, ctrl_c: None) -> None:
    """Ctrl-C itself: SIGINT from another thread, Python's default handler."""
    key = "careless:blpop:sigint"
    with Client(node, command_timeout_ms=10000) as c:
        c.execute_command("DEL", key)
        timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
        t0 = time.monotonic()
        timer.start()
        try:
            with pytest.raises(KeyboardInterrupt):
                c.execute_command("BLPOP", key, 5)
        finally:
            timer.join()
        assert time.monotonic() - t0 < 1.5


# ---- text that enters routing state -----------------------------------------


@pytest.mark.parametrize("bad", ["10.9.9.9\r\n", "10.9.9.9\n", "evil\rhost", "a b"])
def test_report_moved_refuses_a_host_with_control_characters(bad: str) -> None:
    r = Router()
    with pytest.raises(cloudroute.InvalidArgumentError, match="neither an IP address nor a hostname"):
        r.report_moved(1, bad, 7000)
    with pytest.raises(cloudroute.InvalidArgumentError, match="neither an IP address nor a hostname"):
        r.report_ask(1, bad, 7000)


def test_locations_and_zones_refuse_control_characters() -> None:
    with pytest.raises(cloudroute.InvalidArgumentError, match=r"\\x0d\\x0a"):
        Config(client_location="aws/us-east-1\r\n")
    with pytest.raises(cloudroute.InvalidArgumentError, match=r"\\x0a"):
        Config(location_rules={"10.0.0.0/8": "gcp/\nx"})
    with pytest.raises(cloudroute.InvalidArgumentError, match=r"\\x0d"):
        Config(zones={"use1-az1\r": "aws/us-east-1/use1-az1"})
    with pytest.raises(cloudroute.InvalidArgumentError, match=r"\\x0a"):
        Router().set_node_zone("10.0.0.1", 7000, "az\n1")


def test_seeds_refuse_control_characters() -> None:
    with pytest.raises(cloudroute.InvalidArgumentError, match="seed host"):
        Client("127.0.0.1\r\n:7000")


# ---- option ranges: what Java refuses alike (tests/java: OptionRangesTest) ---


@pytest.mark.parametrize(
    "option,value,message",
    [
        ("pool_size", -1, "pool_size must be in 0..4294967295, not -1"),
        ("connect_timeout_ms", -5, "connect_timeout_ms must be in 0..4294967295, not -5"),
        ("max_reply_elements", -1, "max_reply_elements must be in 0..4294967295, not -1"),
        ("pool_size", 0, "pool_size must be at least 1"),
        ("connect_timeout_ms", 0, "connect_timeout_ms must be > 0"),
        ("max_reply_elements", 0, "reply caps must be > 0"),
    ],
)
def test_option_ranges(node: str, option: str, value: int, message: str) -> None:
    with pytest.raises(cloudroute.InvalidArgumentError, match=message):
        Client(node, **{option: value})  # type: ignore[arg-type]
