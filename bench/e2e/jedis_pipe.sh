#!/usr/bin/env bash
# bench/e2e/jedis_pipe.sh — the Jedis adapter's pipeline (CloudRouteJedisCluster, jedis-cr-pipe)
# against a plain JedisCluster pipeline (jedis-pipe) on the seed workload: one request reads
# FANOUT random keys (default 60) over every shard, cloud B DELAY ms away (default 3) through
# bench/e2e/cluster.sh's latency proxies, at 1, 4 and 16 in flight; both clients in the same run,
# their order rotated every repetition. Prints each cell's median (over the repetitions) of the
# p50 latency and of req/s, and the adapter's ratios. Not part of the test command; stops by
# itself (every driver run is under `timeout`; the cluster and proxies are stopped on exit).
#
#   bench/e2e/jedis_pipe.sh [--reps N] [--seconds S] [--delay MS] [--fanout N] [--out DIR]
#
# Environment: E2E_JEDIS_PIPE_PORT (default 9051: nodes 9051-9059, bus +10000, proxies on
# 127.0.3.x with the same ports), MVN. Needs scripts/deps.sh's .venv (redis-py loads the keys).
# Servers run under the global lock /tmp/cr-servers.lock (held for the whole run).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
reps=3 secs=3 delay=3 fanout=60 out=""
while (($#)); do
  case $1 in
    --reps) reps=$2; shift ;;
    --seconds) secs=$2; shift ;;
    --delay) delay=$2; shift ;;
    --fanout) fanout=$2; shift ;;
    --out) out=$2; shift ;;
    *) echo "usage: $0 [--reps N] [--seconds S] [--delay MS] [--fanout N] [--out DIR]" >&2; exit 2 ;;
  esac
  shift
done
out=${out:-$root/build/e2e/jedis-pipe-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out/raw"
base=${E2E_JEDIS_PIPE_PORT:-9051}
py=$root/.venv/bin/python
[[ -x $py ]] || { echo "run scripts/deps.sh first (.venv missing)" >&2; exit 1; }

echo "== JVM driver (bench/e2e/jvm/build.sh)"
cp=$("$here/jvm/build.sh")

cdir=$out/cluster
cleanup() { "$here/cluster.sh" stop "$cdir" || true; }
exec 9>/tmp/cr-servers.lock
echo "== waiting for the server lock /tmp/cr-servers.lock"
flock -w 1800 9
trap cleanup EXIT INT TERM
echo "loadavg_start=$(cut -d' ' -f1-3 /proc/loadavg) nproc=$(nproc)" | tee "$out/machine.txt"
env_file=$("$here/cluster.sh" start "$cdir" "$base" 9>&-)
"$here/cluster.sh" delay "$cdir" "$delay" 9>&-
"$py" "$here/driver.py" load --env "$env_file" --keys 10000

clients=(jedis-pipe jedis-cr-pipe)
for ((r = 1; r <= reps; r++)); do
  for ((i = 0; i < ${#clients[@]}; i++)); do
    c=${clients[$(((i + r - 1) % ${#clients[@]}))]}
    timeout -k 10 300 java -cp "$cp" io.cloudroute.bench.e2e.Driver run --warmup 5 \
      --env "$env_file" --client "$c" --fanout "$fanout" --concurrency 1,4,16 \
      --seconds "$secs" --out "$out/raw/r$r-$c.json" 9>&-
  done
done

echo "== medians over $reps repetitions (fan-out $fanout, cloud B $delay ms away)"
"$py" - "$out/raw" <<'PY' | tee "$out/summary.txt"
import glob, json, os, statistics, sys
cells = {}
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
    for row in json.load(open(f)):
        cells.setdefault((row["client"], row["concurrency"]), []).append(row)
print(f"{'in flight':>9} {'client':>14} {'p50 ms':>8} {'req/s':>9} {'failed':>6}")
for k in sorted({c for _, c in cells}):
    med = {}
    for name in ("jedis-pipe", "jedis-cr-pipe"):
        rows = cells.get((name, k), [])
        if not rows:
            continue
        med[name] = (statistics.median(r["p50_ms"] for r in rows),
                     statistics.median(r["rps"] for r in rows))
        print(f"{k:>9} {name:>14} {med[name][0]:>8.2f} {med[name][1]:>9.1f}"
              f" {sum(r['failed'] for r in rows):>6}")
    if len(med) == 2:
        print(f"{k:>9} {'ratio':>14} {med['jedis-pipe'][0] / med['jedis-cr-pipe'][0]:>7.2f}x"
              f" {med['jedis-cr-pipe'][1] / med['jedis-pipe'][1]:>8.2f}x"
              "   (p50: plain/adapter; req/s: adapter/plain)")
PY
echo "results: $out"
