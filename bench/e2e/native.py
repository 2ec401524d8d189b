#!/usr/bin/env python3
"""One measured run of a native client of the peer benchmark: libcloudroute's C client
(bench/e2e/cdriver.cc) or redis-benchmark --cluster. bench/e2e/run.sh calls it as it calls
driver.py, and it writes the same JSON rows, so report.py tables them alike.

    native.py run --env E2E_ENV --client c-local --fanout 60 --concurrency 1,4 \
                  --seconds 3 --warmup 1 --cdriver BUILD/bench/cloudroute_e2e_cdriver --out F

Clients:
  c-local, c-master     the C client (cr_client_cmd_mget), policy local / master: driver.py's
                        request shape (one MGET of `fanout` random loaded keys, split by slot)
  c-local-get, c-master-get   the C client, one GET of one random loaded key per request
  rb-get                redis-benchmark --cluster -t get: each of its connections is bound to
                        one master and reads keys hash-tagged to that master's slots (its own
                        keys, written first with -t set, 32-byte values like the loaded set)
GET clients are recorded with fan-out 1 (their own table). Metrics as driver.py's: the C
driver measures latency and its own CPU over the window (it waits on stdin after its warm-up,
while this script reads the nodes' INFO commandstats); redis-benchmark's latency is its own
report (--csv: p50 and p99, no p99.9), its CPU is the child's rusage, and it has no warm-up
beyond a short calibration run that sizes -n to about `seconds`.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import resource
import subprocess
import sys
from typing import Any, Dict, List

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import driver  # noqa: E402

CLIENTS: Dict[str, str] = {
    "c-local": "cloudroute C client (cr_client_cmd_mget) policy=local",
    "c-master": "cloudroute C client (cr_client_cmd_mget) policy=master (primary only)",
    "c-local-get": "cloudroute C client, one GET per request, policy=local",
    "c-master-get": "cloudroute C client, one GET per request, policy=master",
    "rb-get": "redis-benchmark 7 --cluster -t get (each connection bound to one master)",
}


def c_run(args: argparse.Namespace, env: Dict[str, str], fanout: int, conc: int) -> Dict[str, Any]:
    get = args.client.endswith("-get")
    policy = "master" if args.client.startswith("c-master") else "local"
    cmd = [args.cdriver, "--env", args.env, "--mode", "get" if get else "mget", "--fanout", str(fanout),
           "--threads", str(conc), "--seconds", str(args.seconds), "--warmup", str(args.warmup),
           "--policy", policy, "--keys", str(args.keys)]
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert p.stdin is not None and p.stdout is not None
    line = p.stdout.readline()  # after connect + warm-up (bounded by the caller's timeout)
    if line.strip() != "READY":
        p.kill()
        raise SystemExit(f"cdriver did not get ready: {line!r} (exit {p.wait()})")
    calls0 = driver.read_calls(env)
    out, _ = p.communicate("go\n", timeout=args.seconds + 60)
    calls1 = driver.read_calls(env)
    if p.returncode != 0:
        raise SystemExit(f"cdriver exit {p.returncode}")
    r: Dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    r["fanout"] = 1 if get else fanout
    return finish(r, calls0, calls1)


def rb_cmd(env: Dict[str, str], test: str, conc: int, n: int, keys: int) -> List[str]:
    host, port = env["CLOUD_A_NODES"].split(",")[0].split(":")
    return ["redis-benchmark", "--cluster", "-h", host, "-p", port, "-t", test, "-c", str(conc),
            "-n", str(n), "-r", str(keys), "-d", "32", "--csv"]


def rb_csv(out: str) -> Dict[str, float]:
    rows = list(csv.DictReader(io.StringIO(out[out.index('"test"'):])))
    if not rows:
        raise SystemExit(f"no CSV from redis-benchmark: {out!r}")
    return {k: float(v) for k, v in rows[-1].items() if k != "test"}


def rb_run(args: argparse.Namespace, env: Dict[str, str], conc: int) -> Dict[str, Any]:
    def bench(test: str, n: int) -> Dict[str, float]:
        p = subprocess.run(rb_cmd(env, test, conc, n, args.keys), capture_output=True, text=True,
                           timeout=args.seconds * 4 + 60)
        if p.returncode != 0:
            raise SystemExit(f"redis-benchmark {test} failed: {p.stderr.strip()}")
        return rb_csv(p.stdout)

    bench("set", 3 * args.keys)  # its keys, once per cell (SETs: not in the read counts)
    calib = bench("get", 500)  # also the warm-up; sizes the measured run to about `seconds`
    n = max(500, min(2_000_000, int(calib["rps"] * args.seconds)))
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    calls0 = driver.read_calls(env)
    rb = bench("get", n)
    calls1 = driver.read_calls(env)
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
    r = {"requests": n, "failed": 0, "rps": rb["rps"], "p50_ms": rb["p50_latency_ms"],
         "p99_ms": rb["p99_latency_ms"], "p999_ms": float("nan"), "max_ms": rb["max_latency_ms"],
         "ok_p99_ms": rb["p99_latency_ms"], "cpu_us_per_req": cpu / n * 1e6, "errors": {},
         "fanout": 1}
    return finish(r, calls0, calls1)


def finish(r: Dict[str, Any], calls0: Dict[str, int], calls1: Dict[str, int]) -> Dict[str, Any]:
    da, db = calls1["A"] - calls0["A"], calls1["B"] - calls0["B"]
    r.update(local_share=da / (da + db) if da + db else float("nan"), read_calls_a=da, read_calls_b=db)
    return r


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("cmd", choices=["run"])
    ap.add_argument("--env", required=True)
    ap.add_argument("--client", required=True, choices=sorted(CLIENTS))
    ap.add_argument("--keys", type=int, default=10000)
    ap.add_argument("--fanout", type=driver.int_list, default=[60])
    ap.add_argument("--concurrency", type=driver.int_list, default=[1])
    ap.add_argument("--seconds", type=float, default=4.0)
    ap.add_argument("--warmup", type=float, default=1.0)
    ap.add_argument("--cdriver", default="", help="path of cloudroute_e2e_cdriver (c-* clients)")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    if args.client.startswith("c-") and not os.access(args.cdriver, os.X_OK):
        ap.error("c-* clients need --cdriver (build target cloudroute_e2e_cdriver)")
    if min(args.fanout) < 1 or max(args.fanout) > args.keys or min(args.concurrency) < 1 or args.seconds <= 0:
        ap.error("need 1 <= fanout <= keys, concurrency >= 1, seconds > 0")
    env = driver.parse_env(args.env)
    results = []
    get = args.client.endswith("-get")
    for fanout in [1] if get else args.fanout:  # GET clients: one cell per concurrency
        for conc in args.concurrency:
            load = os.getloadavg()[0]
            r = rb_run(args, env, conc) if args.client == "rb-get" else c_run(args, env, fanout, conc)
            r.update(client=args.client, description=CLIENTS[args.client], concurrency=conc,
                     delay_ms=float(env.get("PROXY_DELAY_MS", "nan")), seconds=args.seconds, loadavg_1m=load)
            print(f"{args.client:<20} fan-out {r['fanout']:<3} conc {conc:<2} delay {r['delay_ms']:g} ms: "
                  f"{r['rps']:8.1f} req/s  p50 {r['p50_ms']:7.2f}  p99 {r['p99_ms']:7.2f} ms  "
                  f"failed {r['failed']}  local {r['local_share']:.2f}  "
                  f"cpu/req {r['cpu_us_per_req']:.0f} us  load {load:.1f}", flush=True)
            results.append(r)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
