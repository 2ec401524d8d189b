#!/usr/bin/env python3
"""Summarize Google Benchmark JSON (median aggregates) from bench/run.sh.

Usage: summarize.py OUT.json [OUT2.json ...]
Prints every median with ns/key (1e9 / items_per_second: for multi-threaded
rows this is the aggregate throughput), the ratios of our keyslot against the
classic table CRC16, and a pass/fail line per target. Standard library only.
"""
import json
import sys

TO_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def load(paths):
    rows = {}
    for p in paths:
        with open(p) as f:
            data = json.load(f)
        benches = data.get("benchmarks", [])
        has_agg = any(b.get("run_type") == "aggregate" for b in benches)
        for b in benches:
            if has_agg and b.get("aggregate_name") != "median":
                continue
            if b.get("error_occurred"):
                rows[b["run_name"]] = {"error": b.get("error_message", "error")}
                continue
            r = {
                "time_ns": b["real_time"] * TO_NS[b.get("time_unit", "ns")],
                "unit": b.get("time_unit", "ns"),
                "threads": b.get("threads", 1),
                "label": b.get("label", ""),
            }
            if "items_per_second" in b:
                r["ns_key"] = 1e9 / b["items_per_second"]
            for k in ("updates", "updates_per_s", "reports"):
                if k in b:
                    r[k] = b[k]
            rows[b.get("run_name", b["name"])] = r
    return rows


def main():
    rows = load(sys.argv[1:])
    print("%-62s %12s %10s  %s" % ("benchmark (median of 5)", "time", "ns/key", "notes"))
    for name, r in rows.items():
        if "error" in r:
            print("%-62s ERROR %s" % (name, r["error"]))
            continue
        t = r["time_ns"]
        ts = "%.1f us" % (t / 1e3) if r["unit"] != "ns" else "%.0f ns" % t
        nk = "%.2f" % r["ns_key"] if "ns_key" in r else "-"
        notes = [r["label"]] if r["label"] else []
        for k in ("updates", "updates_per_s", "reports"):
            if k in r:
                notes.append("%s=%.0f" % (k, r[k]))
        print("%-62s %12s %10s  %s" % (name, ts, nk, " ".join(notes)))

    def nk(name):
        r = rows.get(name)
        return r.get("ns_key") if r else None

    def us(name):
        r = rows.get(name)
        return r["time_ns"] / 1e3 if r and "time_ns" in r else None

    print("\nkeyslot vs classic table CRC16 (ratio = table ns/key / ours ns/key):")
    for kind, label in ((0, "short 'user:NNNNNN'"), (1, "64-byte"), (2, "hash-tagged")):
        base = nk("BM_KeySlot_Table/keys:%d" % kind)
        parts = []
        for impl in ("KeySlot_Core", "KeySlot_CApi", "KeySlots_CApiBatch"):
            v = nk("BM_%s/keys:%d" % (impl, kind))
            if base and v:
                parts.append("%s %.2f ns (%.2fx)" % (impl, v, base / v))
        if base:
            print("  %-20s table %.2f ns | %s" % (label, base, " | ".join(parts)))

    print("\ntargets:")
    checks = []
    b_short, t_short = nk("BM_KeySlots_CApiBatch/keys:0"), nk("BM_KeySlot_Table/keys:0")
    b_long = nk("BM_KeySlots_CApiBatch/keys:1")
    c_short = nk("BM_KeySlot_CApi/keys:0")
    if b_short is not None:
        checks.append(("keyslot batch <= 10 ns/key (short)", b_short <= 10, "%.2f" % b_short))
    if b_long is not None:
        checks.append(("keyslot batch, 64-byte keys (info; 8x the bytes)", None, "%.2f" % b_long))
    if c_short and t_short:
        checks.append(("keyslot >= 1.3x table on short keys (cr_keyslot)", t_short / c_short >= 1.3,
                       "%.2fx" % (t_short / c_short)))
    for n in (3, 100):
        for b in ("BM_RouteRead_Router", "BM_RouteRead_CApi", "BM_RouteRead_CApiSnapshot",
                  "BM_RouteReads_CApiBatch", "BM_Shared_RouteRead_CApi"):
            v = nk("%s/shards:%d" % (b, n))
            if v is not None:
                checks.append(("%s/shards:%d <= 15 ns/key" % (b, n), v <= 15, "%.2f" % v))
    for n in (10, 100):
        v = us("BM_Rebuild_ParseAndUpdate/shards:%d" % n)
        if v is not None:
            if n == 10:
                checks.append(("parse + Router::Update, 10 shards <= 100 us", v <= 100, "%.1f us" % v))
            else:
                checks.append(("parse + Router::Update, %d shards (info)" % n, None, "%.1f us" % v))
    for n in (4, 16, 64):
        for ours, ref, target, what in (("BM_RingLookup_Core", "BM_RingLookup_StdMap", 5, "lookup, hash excluded"),
                                        ("BM_RingLocate_Core", "BM_RingLocate_StdMap", 25, "locate incl. MurmurHash")):
            a, b = nk("%s/shards:%d" % (ours, n)), nk("%s/shards:%d" % (ref, n))
            if a is not None:
                ratio = " (std::map %.2f ns: %.2fx faster)" % (b, b / a) if b else ""
                checks.append(("ring %s, %d shards <= %d ns/key" % (what, n, target), a <= target,
                               "%.2f%s" % (a, ratio)))
    # Control: policy master reads draw no random number and write no shared
    # line. When even it does not scale, the second CPU was busy (the host is
    # shared) and the scaling rows of this run say nothing.
    c1, c2 = nk("BM_RouteRead_MT/policy:1/real_time/threads:1"), nk("BM_RouteRead_MT/policy:1/real_time/threads:2")
    control_ok = bool(c1 and c2 and c1 / c2 >= 1.6)
    for base in ("BM_RouteRead_MT/policy:1", "BM_RouteRead_MT/policy:0", "BM_SnapshotRouteRead_MT"):
        one, two = nk(base + "/real_time/threads:1"), nk(base + "/real_time/threads:2")
        if one and two:
            s = one / two
            ok = (s >= 1.6) if control_ok else None
            note = "" if control_ok else " (control did not scale: 2nd CPU busy, re-run)"
            checks.append(("%s scales 1->2 threads (>= 1.6x)" % base, ok, "%.2fx throughput%s" % (s, note)))
    for t in (1, 2):
        a = nk("BM_RouteRead_MT/policy:0/real_time/threads:%d" % t)
        b = rows.get("BM_RouteRead_MT_WithUpdater/real_time/threads:%d" % t)
        if a and b and "ns_key" in b:
            checks.append(("readers with a concurrent Router::Update loop, %d reader(s) (info)" % t, None,
                           "%.2f ns/key vs %.2f alone, %.0f updates/s" % (b["ns_key"], a, b.get("updates_per_s", 0))))
    for what, ok, val in checks:
        print("  [%s] %-66s %s" % ("info" if ok is None else "met " if ok else "MISS", what, val))


if __name__ == "__main__":
    main()
