#!/usr/bin/env python3
"""One measured run of one client of the peer benchmark (bench/e2e/run.sh calls it).

    driver.py load --env E2E_ENV --keys 10000
    driver.py run  --env E2E_ENV --client cr-local --fanout 60 --concurrency 4 \
                   --seconds 4 --warmup 1 [--fault] --out result.json

`run` opens the client, runs `concurrency` workers for warmup + seconds (each worker:
pick `fanout` random keys of the loaded set, one fan-out read, repeat), and writes one
JSON object: latency percentiles of the requests started after the warmup, requests/s,
failed requests, process CPU time per request (user + system of this whole process, so
a client's own I/O threads count), and the share of reads served in cloud A — from
INFO commandstats deltas (MGET + GET calls) of every node, read at the nodes' real
addresses around the measured window.

--fault: at +2 s the cloud-A replica of shard 1 (NODE2) is stopped with SIGSTOP, at +7 s
resumed with SIGCONT; at +9 s the cloud-B replica of shard 1 (NODE3) takes over with
CLUSTER FAILOVER (shard 1's master moves from cloud A to cloud B). Times are after the
warmup. The result then also holds per-phase numbers (stall, failover) and a 250 ms
timeline. The caller restores the cluster afterwards (run.sh: restore.sh).
Every request is bounded by the client's own timeout; the run ends by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import sys
import threading
import time
from typing import Any, Dict, Iterator, List, Optional, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clients  # noqa: E402

KEY_FMT = "e2e:{}"
STALL_AT, STALL_S, FAILOVER_AT = 2.0, 5.0, 9.0
FAULT_SECONDS = 14.0


def parse_env(path: str) -> Dict[str, str]:
    env: Dict[str, str] = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#") and "=" in line:
                k, v = line.split("=", 1)
                env[k] = v
    return env


def node_addrs(env: Dict[str, str]) -> List[Tuple[str, str, int]]:
    out = []
    for n in range(1, int(env["NODE_COUNT"]) + 1):
        out.append((env[f"NODE{n}_CLOUD"], env[f"NODE{n}_IP"], int(env[f"NODE{n}_PORT"])))
    return out


def read_calls(env: Dict[str, str]) -> Dict[str, int]:
    """MGET+GET calls per cloud, summed over the nodes (real addresses, no proxy)."""
    import redis

    calls = {"A": 0, "B": 0}
    for cloud, ip, port in node_addrs(env):
        r = redis.Redis(host=ip, port=port, socket_timeout=2.0, socket_connect_timeout=2.0)
        try:
            st = r.info("commandstats")
        except redis.RedisError:
            continue  # a stopped node serves nothing
        finally:
            r.close()
        for cmd in ("cmdstat_mget", "cmdstat_get"):
            calls[cloud] += int(st.get(cmd, {}).get("calls", 0))
    return calls


def cmd_load(args: argparse.Namespace) -> int:
    env = parse_env(args.env)
    from redis.cluster import RedisCluster

    host, port = env["CLOUD_A_NODES"].split(",")[0].split(":")
    c = RedisCluster(host=host, port=int(port), socket_timeout=5.0)
    val = "v" * args.value_size
    batch = 500
    for lo in range(0, args.keys, batch):
        c.mset_nonatomic({KEY_FMT.format(i): val for i in range(lo, min(args.keys, lo + batch))})
    probe = [KEY_FMT.format(i) for i in (0, args.keys // 2, args.keys - 1)]
    ok = all(v == val.encode() for v in c.mget_nonatomic(probe))
    c.close()
    print(f"loaded {args.keys} keys of {args.value_size} bytes; check {'ok' if ok else 'FAILED'}")
    return 0 if ok else 1


class Recorder:
    """Per-request (start offset s, latency s, ok) of the measured window."""

    def __init__(self, t_measure: float, t_end: float) -> None:
        self.t_measure = t_measure
        self.t_end = t_end
        self.rows: List[Tuple[float, float, bool]] = []
        self.errors: Dict[str, int] = {}
        self.lock = threading.Lock()

    def add(self, t0: float, t1: float, err: Optional[BaseException]) -> None:
        if t0 < self.t_measure:
            return
        with self.lock:
            self.rows.append((t0 - self.t_measure, t1 - t0, err is None))
            if err is not None:
                name = type(err).__name__
                self.errors[name] = self.errors.get(name, 0) + 1


def make_keys(rng: random.Random, nkeys: int, fanout: int) -> List[str]:
    return [KEY_FMT.format(i) for i in rng.sample(range(nkeys), fanout)]


def requests(rec: Recorder, wid: int, nkeys: int, fanout: int) -> Iterator[Tuple[float, List[str]]]:
    """(start time, keys) of one worker's requests, until the window ends."""
    rng = random.Random(wid * 7919 + 1)
    while True:
        t0 = time.monotonic()
        if t0 >= rec.t_end:
            return
        yield t0, make_keys(rng, nkeys, fanout)


def finish(rec: Recorder, t0: float, fanout: int, values: Any, err: Optional[BaseException]) -> None:
    """Record one request; a reply without every value counts as a failure."""
    if err is None and (len(values) != fanout or any(v is None for v in values)):
        err = RuntimeError("wrong reply (missing values)")
    rec.add(t0, time.monotonic(), err)


def run_threads(req: Any, fanout: int, conc: int, nkeys: int, rec: Recorder) -> None:
    def worker(wid: int) -> None:
        for t0, keys in requests(rec, wid, nkeys, fanout):
            try:
                values, err = req(keys), None
            except Exception as e:  # every failure counts; the run goes on
                values, err = None, e
            finish(rec, t0, fanout, values, err)

    threads = [threading.Thread(target=worker, args=(w,), daemon=True) for w in range(conc)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=max(1.0, rec.t_end - time.monotonic() + 30))


async def run_async(gc: clients.GlideAsync, fanout: int, conc: int, nkeys: int, rec: Recorder) -> None:
    async def worker(wid: int) -> None:
        for t0, keys in requests(rec, wid, nkeys, fanout):
            try:
                values, err = await gc.request(keys), None
            except Exception as e:
                values, err = None, e
            finish(rec, t0, fanout, values, err)

    await asyncio.wait_for(asyncio.gather(*(worker(w) for w in range(conc))),
                           timeout=rec.t_end - time.monotonic() + 30)


def fault_actions(env: Dict[str, str], t_measure: float, log: List[Tuple[float, str]]) -> threading.Thread:
    import redis

    def at(t: float) -> None:
        time.sleep(max(0.0, t_measure + t - time.monotonic()))

    def act() -> None:
        pid = int(env["NODE2_PID"])
        at(STALL_AT)
        os.kill(pid, signal.SIGSTOP)
        log.append((time.monotonic() - t_measure, f"SIGSTOP NODE2 {env['NODE2_ADDR']}"))
        at(STALL_AT + STALL_S)
        os.kill(pid, signal.SIGCONT)
        log.append((time.monotonic() - t_measure, "SIGCONT NODE2"))
        at(FAILOVER_AT)
        r = redis.Redis(host=env["NODE3_IP"], port=int(env["NODE3_PORT"]), socket_timeout=5.0)
        try:
            r.execute_command("CLUSTER", "FAILOVER")
            log.append((time.monotonic() - t_measure, f"CLUSTER FAILOVER to NODE3 {env['NODE3_ADDR']}"))
        finally:
            r.close()

    th = threading.Thread(target=act, daemon=True)
    th.start()
    return th


def pct(sorted_vals: List[float], p: float) -> float:
    if not sorted_vals:
        return float("nan")
    i = min(len(sorted_vals) - 1, max(0, int(round(p / 100.0 * len(sorted_vals) + 0.5)) - 1))
    return sorted_vals[i]


def summary(rows: List[Tuple[float, float, bool]], seconds: float) -> Dict[str, Any]:
    ok = sorted(lat for _, lat, good in rows if good)
    # Failed requests count in the latency too: a client that gives up is not fast.
    every = sorted(lat for _, lat, _ in rows)
    return {
        "requests": len(rows),
        "failed": sum(1 for _, _, good in rows if not good),
        "rps": len(ok) / seconds if seconds > 0 else float("nan"),
        "p50_ms": pct(every, 50) * 1e3,
        "p99_ms": pct(every, 99) * 1e3,
        "p999_ms": pct(every, 99.9) * 1e3,
        "max_ms": (every[-1] * 1e3) if every else float("nan"),
        "ok_p99_ms": pct(ok, 99) * 1e3,
    }


def measure(env: Dict[str, str], args: argparse.Namespace, family: str, req: Any,
            loop: Optional[asyncio.AbstractEventLoop], fanout: int, conc: int,
            seconds: float) -> Dict[str, Any]:
    def phase(rec: Recorder) -> None:
        if family == "async":
            assert loop is not None
            loop.run_until_complete(run_async(req, fanout, conc, args.keys, rec))
        else:
            run_threads(req, fanout, conc, args.keys, rec)

    load_before = os.getloadavg()[0]

    # Warm-up (connections, topology, zones), then the measured window with the
    # commandstats and CPU snapshots taken while no request is in flight.
    t_warm = time.monotonic()
    phase(Recorder(t_warm + args.warmup, t_warm + args.warmup))
    calls0 = read_calls(env)
    cpu0 = os.times()
    t_start = time.monotonic()
    rec = Recorder(t_start, t_start + seconds)
    actions: List[Tuple[float, str]] = []
    fault_th = fault_actions(env, rec.t_measure, actions) if args.fault else None
    phase(rec)
    cpu1 = os.times()
    calls1 = read_calls(env)
    if fault_th is not None:
        fault_th.join(timeout=10)
    cpu_s = (cpu1.user - cpu0.user) + (cpu1.system - cpu0.system)
    da, db = calls1["A"] - calls0["A"], calls1["B"] - calls0["B"]
    out: Dict[str, Any] = {
        "client": args.client,
        "description": clients.CLIENTS[args.client],
        "fanout": fanout,
        "concurrency": conc,
        "delay_ms": float(env.get("PROXY_DELAY_MS", "nan")),
        "seconds": seconds,
        "loadavg_1m": load_before,
        "cpu_us_per_req": cpu_s / max(1, len(rec.rows)) * 1e6,
        "local_share": da / (da + db) if da + db else float("nan"),
        "read_calls_a": da,
        "read_calls_b": db,
        "errors": rec.errors,
    }
    out.update(summary(rec.rows, seconds))
    if args.fault:
        # A phase holds every request that was in flight during it, also those started before.
        stall = [r for r in rec.rows if r[0] < STALL_AT + STALL_S + 1.0 and r[0] + r[1] >= STALL_AT]
        fo = [r for r in rec.rows if r[0] + r[1] >= FAILOVER_AT]
        out["stall"] = summary(stall, STALL_S + 1.0)
        out["failover"] = summary(fo, seconds - FAILOVER_AT)
        out["actions"] = actions
        bins: Dict[int, List[float]] = {}
        for t, lat, _ in rec.rows:
            bins.setdefault(int(t / 0.25), []).append(lat)
        out["timeline"] = [(b * 0.25, len(v), max(v) * 1e3) for b, v in sorted(bins.items())]
    print(f"{args.client:<20} fan-out {fanout:<3} conc {conc:<2} delay {out['delay_ms']:g} ms: "
          f"{out['rps']:8.1f} req/s  p50 {out['p50_ms']:7.2f}  p99 {out['p99_ms']:7.2f} ms  "
          f"failed {out['failed']}  local {out['local_share']:.2f}  "
          f"cpu/req {out['cpu_us_per_req']:.0f} us  load {load_before:.1f}", flush=True)
    return out


def cmd_run(args: argparse.Namespace) -> int:
    env = parse_env(args.env)
    seconds = FAULT_SECONDS if args.fault else args.seconds
    t_open = time.monotonic()
    family, req, close = clients.make(args.client, env)
    loop: Optional[asyncio.AbstractEventLoop] = None
    if family == "async":
        loop = asyncio.new_event_loop()
        loop.run_until_complete(req.open())
    open_s = time.monotonic() - t_open

    results = []
    for fanout in args.fanout:
        for conc in args.concurrency:
            results.append(measure(env, args, family, req, loop, fanout, conc, seconds))
            results[-1]["open_s"] = open_s
    if family == "async":
        assert loop is not None
        loop.run_until_complete(req.aclose())
        loop.close()
    elif close is not None:
        close()
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(results, f, indent=1)
    return 0


def int_list(text: str) -> List[int]:
    return [int(x) for x in text.split(",") if x]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    lo = sub.add_parser("load")
    lo.add_argument("--env", required=True)
    lo.add_argument("--keys", type=int, default=10000)
    lo.add_argument("--value-size", type=int, default=32)
    ru = sub.add_parser("run")
    ru.add_argument("--env", required=True)
    ru.add_argument("--client", required=True, choices=sorted(clients.CLIENTS))
    ru.add_argument("--keys", type=int, default=10000, help="size of the loaded key set")
    ru.add_argument("--fanout", type=int_list, default=[60], help="comma list, e.g. 10,60,100")
    ru.add_argument("--concurrency", type=int_list, default=[1], help="comma list, e.g. 1,4,16")
    ru.add_argument("--seconds", type=float, default=4.0)
    ru.add_argument("--warmup", type=float, default=1.0)
    ru.add_argument("--fault", action="store_true")
    ru.add_argument("--out", required=True)
    args = ap.parse_args()
    if args.cmd == "load":
        return cmd_load(args)
    if (min(args.fanout) < 1 or max(args.fanout) > args.keys or min(args.concurrency) < 1
            or args.seconds <= 0 or (args.fault and len(args.fanout) * len(args.concurrency) != 1)):
        ap.error("need 1 <= fanout <= keys, concurrency >= 1, seconds > 0; --fault takes one cell")
    return cmd_run(args)


if __name__ == "__main__":
    sys.exit(main())
