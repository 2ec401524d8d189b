#!/usr/bin/env python3
"""A scriptable hostile Redis Cluster node on loopback, for tests in every language.

It answers as a one-node cluster that owns every slot (CLUSTER SLOTS names its own
address; CLUSTER SHARDS is refused as on Redis 6, so clients fall back to SLOTS), and
derives every value from its key, so a reply handed to the wrong caller shows:

    GET k -> "v:k"    MGET k1 k2 -> ["v:k1", "v:k2"]    SET -> +OK    DEL/EXISTS/INCRBY -> :1
    PING -> as Redis    INFO -> a server section   HELLO -> -ERR (RESP2 only)   else +OK

Faults are armed by a control command only a test sends, ``FAKE <fault> [count]``
(count: how many matching commands get it; default 1; 0 disarms), or on the command
line (``--fault NAME --count N``). The faults:

    extra-reply   GET: its reply, then one more ("v:stale") in the same write
    push          (control only) "v:stale" written at once on every other open connection
    wrong-type    GET answers :1
    set-int       SET answers :0
    set-nil       SET answers nil
    readonly      SET answers -READONLY You can't write against a read only replica.
    nested-mget   MGET answers an array whose first element is an array
    truncate      GET: half a reply, then the connection is closed
    huge-ints     GET answers an array of N integers (N = --huge, default 16 Mi) streamed
    huge-bulk     GET answers a bulk string declared 2 GiB long, streamed until refused
    bad-moved     GET answers -MOVED with the target of --moved (default "1 [::1:9902")
    silent-hello  HELLO never answers
    garbage-hello HELLO answers bytes that are not RESP

Usage as a program: ``fake_node.py [--host 127.0.0.1] [--port 0] [--fault F --count N]``
prints ``READY <port>`` once listening and serves until killed or stdin closes.
As a module: ``with FakeNode() as node: node.arm("extra-reply", 3)``.
Bounded: every socket wait is at most 100 ms between checks of the stop flag.
"""

from __future__ import annotations

import argparse
import select
import socket
import sys
import threading
from typing import Dict, List, Optional, Tuple

STALE = b"$7\r\nv:stale\r\n"


def bulk(b: bytes) -> bytes:
    return b"$%d\r\n%s\r\n" % (len(b), b)


def parse_commands(buf: bytearray) -> Tuple[List[List[bytes]], int]:
    """The complete RESP arrays of buf as argv lists, and how many bytes they took."""
    out: List[List[bytes]] = []
    pos = 0
    while pos < len(buf) and buf[pos : pos + 1] == b"*":
        eol = buf.find(b"\r\n", pos)
        if eol < 0:
            break
        n = int(buf[pos + 1 : eol])
        p = eol + 2
        argv: List[bytes] = []
        for _ in range(n):
            eol = buf.find(b"\r\n", p)
            if eol < 0 or buf[p : p + 1] != b"$":
                return out, pos
            ln = int(buf[p + 1 : eol])
            if eol + 2 + ln + 2 > len(buf):
                return out, pos
            argv.append(bytes(buf[eol + 2 : eol + 2 + ln]))
            p = eol + 2 + ln + 2
        if len(argv) < n:
            break
        out.append(argv)
        pos = p
    return out, pos


class FakeNode:
    def __init__(self, host: str = "127.0.0.1", port: int = 0, huge: int = 16 * 1024 * 1024,
                 moved: str = "1 [::1:9902") -> None:
        self.host = host
        self.huge = huge
        self.moved = moved
        self._listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind((host, port))
        self._listener.listen(64)
        self.port: int = self._listener.getsockname()[1]
        self._lock = threading.Lock()
        self._faults: Dict[str, int] = {}
        self._conns: List[socket.socket] = []
        self.seen: List[str] = []  # command names, upper case, in arrival order
        self._stop = threading.Event()
        self._threads: List[threading.Thread] = []
        self._accept = threading.Thread(target=self._serve, daemon=True)

    # -- control -------------------------------------------------------------
    def start(self) -> "FakeNode":
        self._accept.start()
        return self

    def arm(self, fault: str, count: int = 1) -> None:
        with self._lock:
            if count <= 0:
                self._faults.pop(fault, None)
            else:
                self._faults[fault] = count

    def push(self, data: bytes = STALE, skip: Optional[socket.socket] = None) -> int:
        """Writes data on every open connection (but skip); how many got it."""
        with self._lock:
            conns = [c for c in self._conns if c is not skip]
        n = 0
        for c in conns:
            try:
                c.sendall(data)
                n += 1
            except OSError:
                pass
        return n

    def close(self) -> None:
        self._stop.set()
        self._listener.close()
        with self._lock:
            for c in self._conns:
                try:
                    c.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        for t in self._threads:
            t.join(timeout=2)

    def __enter__(self) -> "FakeNode":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def queued_at_clients(self) -> int:
        """Bytes that arrived at this process's sockets connected to the node but are not read
        yet (the rx_queue column of /proc/net/tcp): what a pushed reply is once it arrived."""
        total = 0
        with open("/proc/net/tcp") as f:
            next(f)
            for line in f:
                fields = line.split()
                if int(fields[2].split(":")[1], 16) == self.port:
                    total += int(fields[4].split(":")[1], 16)
        return total

    @property
    def address(self) -> str:
        return "%s:%d" % (self.host, self.port)

    # -- serving -------------------------------------------------------------
    def _take(self, fault: str) -> bool:
        with self._lock:
            n = self._faults.get(fault, 0)
            if n <= 0:
                return False
            if n == 1:
                del self._faults[fault]
            else:
                self._faults[fault] = n - 1
            return True

    def _serve(self) -> None:
        while not self._stop.is_set():
            r, _, _ = select.select([self._listener], [], [], 0.1)
            if not r:
                continue
            try:
                conn, _ = self._listener.accept()
            except OSError:
                return
            # As Redis does: small replies go out at once (Nagle would hold a
            # pushed reply until the client's delayed ACK of the last one).
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self._lock:
                self._conns.append(conn)
            t = threading.Thread(target=self._client, args=(conn,), daemon=True)
            self._threads.append(t)
            t.start()

    def _client(self, conn: socket.socket) -> None:
        buf = bytearray()
        try:
            while not self._stop.is_set():
                r, _, _ = select.select([conn], [], [], 0.1)
                if not r:
                    continue
                data = conn.recv(65536)
                if not data:
                    return
                buf += data
                cmds, used = parse_commands(buf)
                del buf[:used]
                for argv in cmds:
                    if not self._answer(conn, argv):
                        return
        except OSError:
            return
        finally:
            with self._lock:
                if conn in self._conns:
                    self._conns.remove(conn)
            conn.close()

    def _slots(self) -> bytes:
        return (b"*1\r\n*3\r\n:0\r\n:16383\r\n*3\r\n" + bulk(self.host.encode()) +
                b":%d\r\n" % self.port + bulk(b"f" * 40))

    def _answer(self, conn: socket.socket, argv: List[bytes]) -> bool:
        """Writes the answer to argv; False when the connection is to close."""
        name = argv[0].upper().decode("latin-1") if argv else ""
        with self._lock:
            self.seen.append(name)
        if name == "FAKE":
            if argv[1] == b"push":
                conn.sendall(b":%d\r\n" % self.push(skip=conn))
                return True
            self.arm(argv[1].decode(), int(argv[2]) if len(argv) > 2 else 1)
            conn.sendall(b"+OK\r\n")
            return True
        if name == "CLUSTER":
            sub = argv[1].upper() if len(argv) > 1 else b""
            conn.sendall(b"-ERR unknown subcommand 'SHARDS'\r\n" if sub == b"SHARDS" else self._slots())
            return True
        if name == "HELLO":
            if self._take("silent-hello"):
                return True
            if self._take("garbage-hello"):
                conn.sendall(b"\x00\x01garbage\r\n")
                return True
            conn.sendall(b"-ERR unknown command 'HELLO'\r\n")
            return True
        if name == "PING":
            conn.sendall(bulk(argv[1]) if len(argv) == 2 else b"+PONG\r\n")
            return True
        if name == "INFO":
            conn.sendall(bulk(b"# Server\r\nredis_version:7.0.0\r\n"))
            return True
        if name == "GET" and len(argv) == 2:
            key = argv[1]
            if self._take("extra-reply"):
                conn.sendall(bulk(b"v:" + key) + STALE)
            elif self._take("wrong-type"):
                conn.sendall(b":1\r\n")
            elif self._take("truncate"):
                conn.sendall(b"$10\r\nv:")
                return False
            elif self._take("bad-moved"):
                conn.sendall(b"-MOVED " + self.moved.encode("latin-1") + b"\r\n")
            elif self._take("huge-ints"):
                conn.sendall(b"*%d\r\n" % self.huge)
                chunk = b":1\r\n" * 65536
                left = self.huge
                while left > 0 and not self._stop.is_set():
                    k = min(left, 65536)
                    conn.sendall(chunk if k == 65536 else b":1\r\n" * k)
                    left -= k
            elif self._take("huge-bulk"):
                conn.sendall(b"$2147483648\r\n")
                chunk = b"x" * 65536
                for _ in range(2147483648 // 65536):
                    if self._stop.is_set():
                        break
                    conn.sendall(chunk)
                return False
            else:
                conn.sendall(bulk(b"v:" + key))
            return True
        if name == "SET":
            if self._take("set-int"):
                conn.sendall(b":0\r\n")
            elif self._take("set-nil"):
                conn.sendall(b"$-1\r\n")
            elif self._take("readonly"):
                conn.sendall(b"-READONLY You can't write against a read only replica.\r\n")
            else:
                conn.sendall(b"+OK\r\n")
            return True
        if name == "MGET":
            keys = argv[1:]
            if self._take("nested-mget"):
                conn.sendall(b"*%d\r\n*1\r\n:1\r\n" % len(keys) + b"$-1\r\n" * (len(keys) - 1))
            else:
                conn.sendall(b"*%d\r\n" % len(keys) + b"".join(bulk(b"v:" + k) for k in keys))
            return True
        if name in ("DEL", "EXISTS", "INCRBY", "INCR", "EXPIRE", "TTL", "HSET", "HDEL"):
            conn.sendall(b":1\r\n")
            return True
        conn.sendall(b"+OK\r\n")
        return True


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--fault")
    ap.add_argument("--count", type=int, default=1)
    ap.add_argument("--huge", type=int, default=16 * 1024 * 1024)
    ap.add_argument("--moved", default="1 [::1:9902")
    a = ap.parse_args()
    node = FakeNode(a.host, a.port, a.huge, a.moved).start()
    if a.fault:
        node.arm(a.fault, a.count)
    print("READY %d" % node.port, flush=True)
    try:
        sys.stdin.read()  # until the parent closes our stdin (or exits)
    except KeyboardInterrupt:
        pass
    node.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
