#!/usr/bin/env python3
"""latency-proxy.py — a loopback TCP proxy that adds a fixed one-way delay (and faults).

Simulates a cross-cloud hop for integration tests (this kernel has no tc netem):

    latency-proxy.py --listen 127.0.2.10:7101 --target 127.0.2.1:7001 --delay-ms 5

Every chunk read from one side is written to the other side DELAY ms after it was read,
in both directions, so a request/response round trip gains 2 x DELAY. Bytes keep their
order per connection and direction; a half-close (EOF) is forwarded after the same delay.
Pipelined traffic is not serialised: each chunk is delayed from its own arrival time.

Faults, switchable at runtime through a control file (--control FILE, read every 20 ms;
its first word is the mode, a missing or empty file means "forward"):
  forward   pass bytes on (after the delay)
  stall     accept connections but pass nothing on, in either direction, on new and
            existing connections alike: a stopped node, or a partition that drops every
            packet. Bytes already read are held, not lost, and flow again (in order) once
            the mode changes back, as TCP retransmission would deliver them after a heal.
  garbage   replace every chunk the target sends with bytes that are not RESP
            ("@garbage…": "@" starts no RESP2 or RESP3 reply), on every connection.
Each change of mode is logged to stderr ("latency-proxy: mode stall"), and the mode in
force is written to FILE.ack.PID (removed on exit), so whoever changes the control file
can wait until every proxy reading it has applied the change instead of sleeping.

Only loopback addresses (127.0.0.0/8, ::1) are accepted for --listen and --target.
Outgoing connections to the target leave from the listen address (like redis
`bind-source-addr`), unless --source-addr says otherwise.

Resource bounds: at most --max-conns concurrent connections (extra ones are closed at
once), and per direction at most --max-buffer-kib of data in flight; reading from a
side pauses while its outgoing buffer is full.

Prints one line "latency-proxy ready listen=IP:PORT target=IP:PORT delay_ms=D pid=PID"
on stdout when listening, and exits 0 on SIGTERM or SIGINT, or after --lifetime-s seconds
(so a proxy whose test crashed does not linger). Python 3.11 stdlib only.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import os
import signal
import sys

READ_SIZE = 64 * 1024
CONNECT_TIMEOUT_S = 5.0
CONTROL_POLL_S = 0.02
MODES = ("forward", "stall", "garbage")
GARBAGE = b"@garbage from a broken node\r\n"


def loopback_addr(text: str) -> tuple[str, int]:
    """Parse IP:PORT or [IPv6]:PORT; accept loopback addresses only."""
    host, sep, port_text = text.rpartition(":")
    if not sep or not host:
        raise argparse.ArgumentTypeError(f"expected IP:PORT, got {text!r}")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    try:
        ip = ipaddress.ip_address(host)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not an IP address: {host!r}") from exc
    if not ip.is_loopback:
        raise argparse.ArgumentTypeError(f"{host} is not a loopback address (127.0.0.0/8 or ::1)")
    try:
        port = int(port_text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"bad port {port_text!r}") from exc
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"bad port {port}")
    return str(ip), port


def loopback_ip(text: str) -> str:
    return loopback_addr(f"{text}:0")[0]


def fmt(addr: tuple[str, int]) -> str:
    host, port = addr
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


class Gate:
    """The proxy's current mode, shared by every connection."""

    def __init__(self) -> None:
        self.mode = "forward"
        self.flowing = asyncio.Event()
        self.flowing.set()

    def set_mode(self, mode: str) -> None:
        self.mode = mode
        if mode == "stall":
            self.flowing.clear()
        else:
            self.flowing.set()


class Direction:
    """One direction of one connection: read, hold each chunk DELAY, write, in order."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 delay_s: float, max_buffer: int, gate: Gate, from_target: bool) -> None:
        self.gate = gate
        self.from_target = from_target
        self.reader = reader
        self.writer = writer
        self.delay_s = delay_s
        self.max_buffer = max_buffer
        self.queue: asyncio.Queue[tuple[float, bytes | None]] = asyncio.Queue()
        self.buffered = 0
        self.room = asyncio.Event()
        self.room.set()

    async def read_side(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            while True:
                await self.room.wait()
                data = await self.reader.read(READ_SIZE)
                due = loop.time() + self.delay_s
                if not data:
                    self.queue.put_nowait((due, None))
                    return
                self.buffered += len(data)
                if self.buffered >= self.max_buffer:
                    self.room.clear()
                self.queue.put_nowait((due, data))
        except (ConnectionError, OSError):
            self.queue.put_nowait((loop.time(), None))
            raise

    async def write_side(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            due, data = await self.queue.get()
            wait = due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            await self.gate.flowing.wait()
            if data is None:
                if self.writer.can_write_eof() and not self.writer.is_closing():
                    self.writer.write_eof()
                return
            garbage = self.from_target and self.gate.mode == "garbage"
            self.writer.write(GARBAGE if garbage else data)
            await self.writer.drain()
            self.buffered -= len(data)
            if self.buffered < self.max_buffer:
                self.room.set()


class Proxy:
    def __init__(self, args: argparse.Namespace) -> None:
        self.listen = args.listen
        self.target = args.target
        self.source_ip = args.source_addr or args.listen[0]
        self.delay_s = args.delay_ms / 1000.0
        self.max_conns = args.max_conns
        self.max_buffer = args.max_buffer_kib * 1024
        self.conns: set[asyncio.Task[None]] = set()
        self.verbose = args.verbose
        self.gate = Gate()
        self.control = args.control

    def note(self, msg: str) -> None:
        if self.verbose:
            print(f"latency-proxy: {msg}", file=sys.stderr, flush=True)

    async def handle(self, c_reader: asyncio.StreamReader, c_writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        if len(self.conns) >= self.max_conns:
            self.note("connection limit reached, refusing a client")
            c_writer.close()
            return
        self.conns.add(task)
        t_writer: asyncio.StreamWriter | None = None
        try:
            try:
                local = (self.source_ip, 0)
                t_reader, t_writer = await asyncio.wait_for(
                    asyncio.open_connection(self.target[0], self.target[1], local_addr=local),
                    CONNECT_TIMEOUT_S)
            except (OSError, asyncio.TimeoutError) as exc:
                self.note(f"cannot connect to {fmt(self.target)}: {exc}")
                return
            up = Direction(c_reader, t_writer, self.delay_s, self.max_buffer, self.gate, False)
            down = Direction(t_reader, c_writer, self.delay_s, self.max_buffer, self.gate, True)
            tasks = [asyncio.ensure_future(coro) for coro in
                     (up.read_side(), up.write_side(), down.read_side(), down.write_side())]
            try:
                # Finish when both directions have delivered their EOF, or on any error.
                done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
                for t in done:
                    if not t.cancelled() and t.exception() is not None:
                        self.note(f"connection closed: {t.exception()!r}")
            finally:
                for t in tasks:
                    t.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
        finally:
            for w in (c_writer, t_writer):
                if w is not None:
                    w.close()
            self.conns.discard(task)

    def read_mode(self) -> str:
        try:
            with open(self.control, encoding="ascii") as f:
                words = f.read().split()
        except FileNotFoundError:
            return "forward"
        except (OSError, UnicodeDecodeError) as exc:
            print(f"latency-proxy: cannot read {self.control}: {exc}", file=sys.stderr, flush=True)
            return self.gate.mode
        if words and words[0] not in MODES:
            print(f"latency-proxy: unknown mode {words[0]!r} in {self.control} "
                  f"(one of {', '.join(MODES)})", file=sys.stderr, flush=True)
            return self.gate.mode
        return words[0] if words else "forward"

    def ack_path(self) -> str:
        return f"{self.control}.ack.{os.getpid()}"

    def ack_mode(self) -> None:
        """Publish the mode in force (atomically: a reader never sees half a word)."""
        tmp = self.ack_path() + ".tmp"
        with open(tmp, "w", encoding="ascii") as f:
            f.write(self.gate.mode + "\n")
        os.replace(tmp, self.ack_path())

    async def watch_control(self) -> None:
        while True:
            mode = self.read_mode()
            if mode != self.gate.mode:
                self.gate.set_mode(mode)
                self.ack_mode()
                print(f"latency-proxy: mode {mode}", file=sys.stderr, flush=True)
            await asyncio.sleep(CONTROL_POLL_S)

    async def run(self, lifetime_s: float | None) -> int:
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        if lifetime_s is not None:
            loop.call_later(lifetime_s, stop.set)
        watcher = None
        if self.control is not None:
            self.gate.set_mode(self.read_mode())
            self.ack_mode()
            watcher = asyncio.ensure_future(self.watch_control())
        server = await asyncio.start_server(self.handle, self.listen[0], self.listen[1],
                                            reuse_address=True, backlog=128)
        bound = server.sockets[0].getsockname()[:2]
        print(f"latency-proxy ready listen={fmt(bound)} target={fmt(self.target)} "
              f"delay_ms={self.delay_s * 1000:g} pid={os.getpid()}", flush=True)
        await stop.wait()
        if watcher is not None:
            watcher.cancel()
            try:
                os.unlink(self.ack_path())
            except FileNotFoundError:
                pass
        self.gate.set_mode("forward")  # release held writers so their tasks can end
        server.close()
        for t in list(self.conns):
            t.cancel()
        await asyncio.gather(*self.conns, return_exceptions=True)
        await server.wait_closed()
        return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--listen", type=loopback_addr, required=True,
                    help="loopback IP:PORT to listen on (port 0 picks a free one)")
    ap.add_argument("--target", type=loopback_addr, required=True,
                    help="loopback IP:PORT to forward to")
    ap.add_argument("--delay-ms", type=float, default=5.0,
                    help="one-way delay added to each direction (default 5)")
    ap.add_argument("--source-addr", type=loopback_ip, default=None,
                    help="source IP for connections to the target (default: the listen IP)")
    ap.add_argument("--max-conns", type=int, default=256,
                    help="maximum concurrent connections (default 256)")
    ap.add_argument("--max-buffer-kib", type=int, default=1024,
                    help="maximum in-flight data per direction per connection (default 1024)")
    ap.add_argument("--control", default=None,
                    help="file whose first word sets the mode: forward, stall or garbage")
    ap.add_argument("--lifetime-s", type=float, default=None,
                    help="exit after this many seconds (default: run until signalled)")
    ap.add_argument("--pidfile", default=None, help="write the PID here; removed on exit")
    ap.add_argument("-v", "--verbose", action="store_true", help="log connection events to stderr")
    args = ap.parse_args(argv)
    if args.delay_ms < 0 or args.max_conns < 1 or args.max_buffer_kib < 1:
        ap.error("--delay-ms must be >= 0, --max-conns and --max-buffer-kib >= 1")
    if args.lifetime_s is not None and args.lifetime_s <= 0:
        ap.error("--lifetime-s must be > 0")
    if args.pidfile:
        with open(args.pidfile, "w", encoding="ascii") as f:
            f.write(f"{os.getpid()}\n")
    try:
        return asyncio.run(Proxy(args).run(args.lifetime_s))
    finally:
        if args.pidfile:
            try:
                os.unlink(args.pidfile)
            except FileNotFoundError:
                pass


if __name__ == "__main__":
    sys.exit(main())
