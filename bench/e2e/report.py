#!/usr/bin/env python3
"""Aggregate a bench/e2e run: CSVs, PNG plots and Markdown tables.

    report.py RESULTS_DIR

Reads RESULTS_DIR/raw/*.json (written by driver.py) and writes
  results.csv   one row per measured cell and repetition (fault runs excluded),
  summary.csv   medians over repetitions per (delay, fan-out, concurrency, client),
  fault.csv     the fault run: failed requests and p99/max during the stall and the failover,
  latency_<delay>ms_f<fanout>_c<conc>.png   p50/p99/p99.9 per client (medians),
  fault_timeline.png   worst latency per 250 ms per client during the fault run,
  tables.md     the tables and the goal ratios, for docs/BENCHMARKS.md.
"""

from __future__ import annotations

import csv
import json
import math
import pathlib
import statistics
import sys
from typing import Any, Dict, List, Tuple

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

METRICS = ["rps", "p50_ms", "p99_ms", "p999_ms", "cpu_us_per_req", "local_share", "failed", "loadavg_1m"]
OURS_LOCAL = ("cr-local", "cr-local-rf")
GLIDE_BEST_AZ = ("glide-az-rp", "glide-sync-az-rp")
PRIMARY_ONLY = ("redispy-primary", "glide-primary", "cr-master")
# JVM and native pairs: (with cloudroute, the plain client it is compared with).
PAIRS = (
    ("jedis-cr", "jedis-slot-mget"), ("jedis-cr", "jedis-pipe"),
    ("lettuce-cr", "lettuce-primary"), ("lettuce-cr", "lettuce-lowest-latency"),
    ("crjava-local", "lettuce-lowest-latency"), ("crjava-local", "lettuce-cr"), ("crjava-local", "jedis-pipe"),
    ("c-local", "c-master"), ("c-local", "cr-local"), ("c-local", "glide-az-rp"),
    ("c-local-get", "rb-get"), ("c-master-get", "rb-get"), ("c-local-get", "c-master-get"),
)


def load(out: pathlib.Path) -> Tuple[List[Dict[str, Any]], List[Dict[str, Any]]]:
    rows: List[Dict[str, Any]] = []
    faults: List[Dict[str, Any]] = []
    for p in sorted((out / "raw").glob("*.json")):
        tag = p.name.split("-", 1)[0]
        for r in json.loads(p.read_text()):
            r["rep"] = tag
            (faults if tag == "fault" else rows).append(r)
    return rows, faults


def med(vals: List[float]) -> float:
    vals = [v for v in vals if not (isinstance(v, float) and math.isnan(v))]
    return statistics.median(vals) if vals else float("nan")


def summarize(rows: List[Dict[str, Any]]) -> Dict[Tuple[float, int, int, str], Dict[str, float]]:
    groups: Dict[Tuple[float, int, int, str], List[Dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((r["delay_ms"], r["fanout"], r["concurrency"], r["client"]), []).append(r)
    out = {}
    for k, rs in sorted(groups.items()):
        s = {m: med([float(r[m]) for r in rs]) for m in METRICS}
        s["reps"] = len(rs)
        s["failed"] = sum(int(r["failed"]) for r in rs)
        out[k] = s
    return out


def write_csv(path: pathlib.Path, header: List[str], rows: List[List[Any]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


def fmt(v: float, nd: int = 2) -> str:
    return "–" if isinstance(v, float) and math.isnan(v) else f"{v:.{nd}f}"


def ratio(a: float, b: float) -> float:
    return a / b if b and not math.isnan(a) and not math.isnan(b) else float("nan")


def plot_cell(out: pathlib.Path, cell: Tuple[float, int, int], summ: Dict[Any, Dict[str, float]]) -> str:
    d, f, c = cell
    items = sorted(((k[3], v) for k, v in summ.items() if k[:3] == cell), key=lambda kv: kv[1]["p50_ms"])
    names = [n for n, _ in items]
    fig, ax = plt.subplots(figsize=(9, 0.45 * len(names) + 1.5))
    y = range(len(names))
    for i, (metric, label) in enumerate((("p50_ms", "p50"), ("p99_ms", "p99"), ("p999_ms", "p99.9"))):
        ax.barh([v + (i - 1) * 0.27 for v in y], [s[metric] for _, s in items], height=0.27, label=label)
    ax.set_yticks(list(y))
    ax.set_yticklabels(names)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlim(left=0.1)
    ax.set_xlabel("request latency, ms (log scale; medians of repetitions)")
    ax.set_title(f"read {f} keys over all shards, {d:g} ms one-way to cloud B, {c} in flight")
    ax.legend(loc="upper right")
    fig.tight_layout()
    name = f"latency_{d:g}ms_f{f}_c{c}.png"
    fig.savefig(out / name, dpi=90)
    plt.close(fig)
    return name


def plot_fault(out: pathlib.Path, faults: List[Dict[str, Any]]) -> str:
    fig, ax = plt.subplots(figsize=(10, 5))
    colors = plt.get_cmap("tab20").colors
    styles = {"cr": "-", "crjava": "-", "glide": "--", "redispy": ":", "jedis": "-.", "lettuce": "-."}
    for i, r in enumerate(sorted(faults, key=lambda r: r["client"])):
        tl = r.get("timeline", [])
        ax.plot([t for t, _, _ in tl], [mx for _, _, mx in tl], label=r["client"], linewidth=1.2,
                color=colors[(2 * i) % 20 + (2 * i) // 20], linestyle=styles.get(r["client"].split("-")[0], "-"))
    for t, what in (faults[0].get("actions", []) if faults else []):
        ax.axvline(t, color="grey", linestyle=":")
        ax.text(t, ax.get_ylim()[1] if ax.get_yscale() == "linear" else 1, what.split(" ")[0] + " " +
                what.split(" ")[1], rotation=90, fontsize=7, va="top")
    ax.set_yscale("log")
    ax.set_xlabel("seconds into the measured window (requests binned by start time)")
    ax.set_ylabel("worst request latency per 250 ms, ms (log)")
    ax.set_title("fault run: local replica SIGSTOP 2-7 s, shard-1 failover into cloud B at 9 s")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(out / "fault_timeline.png", dpi=90)
    plt.close(fig)
    return "fault_timeline.png"



def ratio_row(cell: Any, ours: str, peer: str, o: Dict[str, float], p: Dict[str, float]) -> str:
    """One row of a ratio table: ours against peer in one cell (see the note under it)."""
    return (f"| {cell[0]:g} ms, f{cell[1]}, c{cell[2]} | {ours} | {peer} | "
            f"{fmt(ratio(o['rps'], p['rps']))}× | {fmt(ratio(p['p50_ms'], o['p50_ms']))}× | "
            f"{fmt(ratio(p['p99_ms'], o['p99_ms']))}× | "
            f"{fmt(ratio(o['cpu_us_per_req'], p['cpu_us_per_req']))} |")

def goals(summ: Dict[Any, Dict[str, float]], lines: List[str]) -> None:
    lines.append("\n### Goal ratios (same run, medians)\n")
    lines.append("| cell | ours | vs | req/s ratio | p50 ratio | p99 ratio | CPU/req ratio |")
    lines.append("|---|---|---|---|---|---|---|")
    cells = sorted({k[:3] for k in summ if k[0] > 0})
    for cell in cells:
        for ours in OURS_LOCAL:
            o = summ.get(cell + (ours,))
            if o is None:
                continue
            for peer in GLIDE_BEST_AZ + PRIMARY_ONLY:
                p = summ.get(cell + (peer,))
                if p is None:
                    continue
                lines.append(ratio_row(cell, ours, peer, o, p))
    lines.append("\nRatios > 1 in the req/s, p50 and p99 columns mean cloudroute is better (p50/p99: peer ÷ "
                 "ours); the CPU column is ours ÷ peer (< 1 = cloudroute uses less CPU per request).\n")
    pair_lines = []
    for cell in sorted({k[:3] for k in summ}):
        for ours, peer in PAIRS:
            o, p = summ.get(cell + (ours,)), summ.get(cell + (peer,))
            if o is not None and p is not None:
                pair_lines.append(ratio_row(cell, ours, peer, o, p))
    if pair_lines:
        lines.append("\n### JVM and native pairs (same run, medians; same reading as above)\n")
        lines.append("| cell | with cloudroute | vs | req/s ratio | p50 ratio | p99 ratio | CPU/req ratio |")
        lines.append("|---|---|---|---|---|---|---|")
        lines.extend(pair_lines)
    lines.append("\n### Delay cost: p99 at the measured delay minus p99 with no delay (same client)\n")
    lines.append("| client | fan-out | conc | delay | p99 with delay | p99 at 0 ms | difference ms |")
    lines.append("|---|---|---|---|---|---|---|")
    for (d, f, c, name), s in summ.items():
        z = summ.get((0.0, f, c, name))
        if d > 0 and z is not None:
            lines.append(f"| {name} | {f} | {c} | {d:g} ms | {fmt(s['p99_ms'])} | {fmt(z['p99_ms'])} | "
                         f"{fmt(s['p99_ms'] - z['p99_ms'])} |")


def main() -> int:
    out = pathlib.Path(sys.argv[1])
    rows, faults = load(out)
    write_csv(out / "results.csv", ["rep", "client", "delay_ms", "fanout", "concurrency"] + METRICS + ["requests"],
              [[r["rep"], r["client"], r["delay_ms"], r["fanout"], r["concurrency"]] + [r[m] for m in METRICS]
               + [r["requests"]] for r in rows])
    summ = summarize(rows)
    write_csv(out / "summary.csv", ["delay_ms", "fanout", "concurrency", "client", "reps"] + METRICS,
              [list(k) + [v["reps"]] + [v[m] for m in METRICS] for k, v in summ.items()])
    lines = ["### Medians per cell\n"]
    for cell in sorted({k[:3] for k in summ}):
        png = plot_cell(out, cell, summ)
        lines.append(f"\n#### {cell[0]:g} ms one-way, fan-out {cell[1]}, {cell[2]} in flight\n")
        lines.append(f"![latency]({png})\n")
        lines.append("| client | req/s | p50 ms | p99 ms | p99.9 ms | CPU µs/req | reads in zone | failed | "
                     "load (1 min) | reps |")
        lines.append("|---|---|---|---|---|---|---|---|---|---|")
        for (_, _, _, name), s in sorted(((k, v) for k, v in summ.items() if k[:3] == cell),
                                         key=lambda kv: -kv[1]["rps"]):
            lines.append(f"| {name} | {fmt(s['rps'], 1)} | {fmt(s['p50_ms'])} | {fmt(s['p99_ms'])} | "
                         f"{fmt(s['p999_ms'])} | {fmt(s['cpu_us_per_req'], 0)} | {fmt(s['local_share'])} | "
                         f"{int(s['failed'])} | {fmt(s['loadavg_1m'], 1)} | {int(s['reps'])} |")
    goals(summ, lines)
    if faults:
        fr = []
        for r in sorted(faults, key=lambda r: r["client"]):
            st, fo = r["stall"], r["failover"]
            fr.append([r["client"], r["failed"], r["requests"], st["failed"], st["p99_ms"], st["max_ms"],
                       fo["failed"], fo["p99_ms"], fo["max_ms"], r["p99_ms"], r["local_share"], r["loadavg_1m"],
                       json.dumps(r["errors"])])
        hdr = ["client", "failed", "requests", "stall_failed", "stall_p99_ms", "stall_max_ms", "failover_failed",
               "failover_p99_ms", "failover_max_ms", "run_p99_ms", "local_share", "loadavg_1m", "errors"]
        write_csv(out / "fault.csv", hdr, fr)
        png = plot_fault(out, faults)
        lines.append("\n### Fault run (3 ms, fan-out 60, 4 in flight; one run per client)\n")
        lines.append(f"![fault timeline]({png})\n")
        lines.append("| client | failed / requests | stall: failed | stall: p99 ms | stall: max ms | "
                     "failover: failed | failover: p99 ms | failover: max ms | errors |")
        lines.append("|---|---|---|---|---|---|---|---|---|")
        for x in fr:
            lines.append(f"| {x[0]} | {x[1]} / {x[2]} | {x[3]} | {fmt(x[4])} | {fmt(x[5])} | {x[6]} | "
                         f"{fmt(x[7])} | {fmt(x[8])} | {x[12]} |")
    (out / "tables.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"report: {out / 'tables.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
