#!/usr/bin/env python3
"""1 000 concurrent asyncio GETs against one cluster: cloudroute.asyncio
against GLIDE's asyncio client (valkey-glide), same cluster, same keys,
rounds interleaved.

The cluster is scripts/redis-harness.sh's (--noncontiguous) on --port
(default 8871: tests/PORTS.md), started and stopped here. Each client runs in
a process of its own, from its own interpreter: --python for cloudroute (the
installed wheel, e.g. build/python/venv-test/bin/python after
tests/python/run.sh) and --glide-python for GLIDE (a virtualenv with
valkey-glide, e.g. python3 -m venv /tmp/glide-venv && /tmp/glide-venv/bin/pip
install valkey-glide). Each round: --concurrency GETs of distinct keys
gathered at once; the round's wall time gives req/s, each GET's own time
its latency. Prints one line per client (median req/s over the rounds, p50
and p99 of the per-request latency in ms, the process's CPU ms per 1 000
requests) and the ratios.

    flock /tmp/cr-servers.lock build/python/venv-test/bin/python bench/python/bench_asyncio.py \\
        --glide-python /tmp/glide-venv/bin/python
"""

from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import subprocess
import sys
import tempfile
from typing import Any, Dict, List

ROOT = pathlib.Path(__file__).resolve().parents[2]
HARNESS = ROOT / "scripts" / "redis-harness.sh"

# The client side, run as `python -c WORKER kind host port rounds concurrency`.
WORKER = r"""
import asyncio, json, statistics, sys, time
kind, host, port, rounds, conc = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
keys = [f"bench:aio:{i}" for i in range(conc)]

async def main():
    if kind == "cloudroute":
        import cloudroute, cloudroute.asyncio as cra
        c = await cra.Client(f"{host}:{port}", cloudroute.Config(local_cidrs=["127.0.1.0/24"])).connect()
        get, set_, close = c.get, c.set, c.close
    else:
        from glide import GlideClusterClient, GlideClusterClientConfiguration, NodeAddress
        c = await GlideClusterClient.create(GlideClusterClientConfiguration([NodeAddress(host, port)]))
        get, set_ = c.get, c.set
        async def close_glide():
            await c.close()
        close = None
    await asyncio.gather(*(set_(k, "v" * 32) for k in keys))
    lat, rates = [], []

    async def one(k):
        t0 = time.perf_counter()
        v = await get(k)
        lat.append(time.perf_counter() - t0)
        assert v == b"v" * 32, v

    for _ in range(3):  # warm-up
        await asyncio.gather(*(one(k) for k in keys))
    lat.clear()
    cpu0 = time.process_time()
    for _ in range(rounds):
        t0 = time.perf_counter()
        await asyncio.gather(*(one(k) for k in keys))
        rates.append(conc / (time.perf_counter() - t0))
    cpu = time.process_time() - cpu0
    if close is not None:
        close()
    else:
        await close_glide()
    lat.sort()
    print(json.dumps({"rps": statistics.median(rates), "p50": lat[len(lat) // 2] * 1e3,
                      "p99": lat[int(len(lat) * 0.99)] * 1e3, "cpu_ms_per_1k": cpu * 1e3 / (rounds * conc) * 1000}))

asyncio.run(main())
"""


def run(python: str, kind: str, host: str, port: int, rounds: int, conc: int) -> Dict[str, Any]:
    out = subprocess.run([python, "-c", WORKER, kind, host, str(port), str(rounds), str(conc)],
                         check=True, capture_output=True, text=True, timeout=600)
    result: Dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--port", type=int, default=8871)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--glide-python", required=True)
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--concurrency", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=3, help="interleaved runs of each client")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="cr-aio-bench-") as d:
        subprocess.run([str(HARNESS), "cluster", "--noncontiguous", d, str(args.port)], check=True,
                       stdout=subprocess.DEVNULL, timeout=180)
        try:
            host = "127.0.1.1"
            results: Dict[str, List[Dict[str, Any]]] = {"cloudroute": [], "glide": []}
            for _ in range(args.repeats):
                results["cloudroute"].append(run(args.python, "cloudroute", host, args.port, args.rounds,
                                                 args.concurrency))
                results["glide"].append(run(args.glide_python, "glide", host, args.port, args.rounds,
                                            args.concurrency))
        finally:
            subprocess.run([str(HARNESS), "stop", d], check=False, stdout=subprocess.DEVNULL, timeout=60)
    med = {k: {f: statistics.median(r[f] for r in v) for f in ("rps", "p50", "p99", "cpu_ms_per_1k")}
           for k, v in results.items()}
    for k, m in med.items():
        print(f"ASYNCIO client={k} concurrency={args.concurrency} req_s={m['rps']:.0f} p50_ms={m['p50']:.2f} "
              f"p99_ms={m['p99']:.2f} cpu_ms_per_1k={m['cpu_ms_per_1k']:.1f}")
    c, g = med["cloudroute"], med["glide"]
    print(f"ASYNCIO ratio req_s={c['rps'] / g['rps']:.2f}x p50={g['p50'] / c['p50']:.2f}x "
          f"p99={g['p99'] / c['p99']:.2f}x cpu={g['cpu_ms_per_1k'] / c['cpu_ms_per_1k']:.2f}x (>1: cloudroute ahead)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
