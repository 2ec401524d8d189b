#!/usr/bin/env bash
# bench/e2e/lettuce_bench.sh — the Lettuce adapter (CloudRouteReadFrom, live view) against
# plain Lettuce, same run, on the seed workload: a request reads 60 random keys over every
# shard (Lettuce's async mget: one MGET per slot, all at once), cloud B 3 ms away through
# bench/e2e/cluster.sh's latency proxies, 1, 4 and 16 requests in flight.
# Not part of the test command. Every driver run is under `timeout`; the cluster and the
# proxies are stopped on exit.
#
#   bench/e2e/lettuce_bench.sh [--out DIR]
#
# Clients (bench/e2e/jvm, JvmClients.java): lettuce-cr (policy local, the adapter's live
# view), lettuce-replica-preferred (ReadFrom.REPLICA_PREFERRED), lettuce-primary (Lettuce's
# default, ReadFrom.UPSTREAM). Each repetition runs every client once, in turn, the first
# client rotating from one repetition to the next, so slow phases of a shared machine hit them
# alike; the table gives each cell's median over the repetitions (req/s, latency, the JVM's CPU
# time per request, the latency proxies' and the Valkey servers' CPU time per request, the JIT
# compilers' time in the window, the share of the machine's CPUs busy and the 1-minute load
# average at the cell's start) and the adapter's ratios (req/s over req/s, p50 over p50, CPU
# per request over CPU per request).
# LETTUCE_BENCH_CLIENTS (space-separated, from that list or any other of JvmClients.java) runs
# other clients the same way, the first one's ratios given against each of the rest: e.g.
# "crjava-local glide-java-az glide-java-az-rp" pits the binding's Client against Valkey
# GLIDE's Java client in its two AZ modes.
# Environment: LETTUCE_BENCH_PORT (default 9060: nodes 9060-9068, bus +10000, proxies on
# 127.0.3.x with the same ports), LETTUCE_BENCH_REPS (default 3), LETTUCE_BENCH_SECONDS
# (window per cell, default 3), LETTUCE_BENCH_WARMUP (seconds of load before each cell's window,
# default 5), LETTUCE_BENCH_DELAY_MS (default 3), MVN.
# Needs valkey-server >= 8 and the tools virtualenv .venv (redis-py loads the keys).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$root/build/e2e/lettuce-$(date -u +%Y%m%dT%H%M%SZ)
if [[ ${1:-} == --out ]]; then out=$2; fi
base=${LETTUCE_BENCH_PORT:-9060}
reps=${LETTUCE_BENCH_REPS:-3}
secs=${LETTUCE_BENCH_SECONDS:-3}
warmup=${LETTUCE_BENCH_WARMUP:-5}
delay=${LETTUCE_BENCH_DELAY_MS:-3}
read -r -a clients <<<"${LETTUCE_BENCH_CLIENTS:-lettuce-cr lettuce-replica-preferred lettuce-primary}"
mkdir -p "$out/raw"

echo "== JVM driver (bench/e2e/jvm; the binding's jars installed into .m2/)"
mvn=(${MVN:-mvn} -B -q "-Dmaven.repo.local=$root/.m2")
"${mvn[@]}" -f "$root/bindings/java/pom.xml" -DskipTests install
"${mvn[@]}" -f "$root/bindings/java/clients/pom.xml" -DskipTests install
"${mvn[@]}" -f "$here/jvm/pom.xml" package dependency:build-classpath \
  -Dmdep.outputFile=target/classpath.txt
cp=$here/jvm/target/classes:$(cat "$here/jvm/target/classpath.txt")

cdir=$out/cluster
cleanup() { "$here/cluster.sh" stop "$cdir" >/dev/null 2>&1 || true; }
exec 9>/tmp/cr-servers.lock
echo "== waiting for the server lock /tmp/cr-servers.lock"
flock -w 1800 9
trap cleanup EXIT INT TERM
echo "== two-cloud Valkey cluster on $base-$((base + 8)), cloud B $delay ms away"
env_file=$("$here/cluster.sh" start "$cdir" "$base" 9>&-)
"$here/cluster.sh" delay "$cdir" "$delay" 9>&-
"$root/.venv/bin/python" "$here/driver.py" load --env "$env_file" --keys 10000
echo "load_start=$(cut -d' ' -f1-3 /proc/loadavg) nproc=$(nproc)" >"$out/machine.txt"
for ((r = 1; r <= reps; r++)); do
  for ((i = 0; i < ${#clients[@]}; i++)); do
    c=${clients[(i + r - 1) % ${#clients[@]}]}
    timeout 300 java -cp "$cp" io.cloudroute.bench.e2e.Driver run --env "$env_file" --client "$c" \
      --fanout 60 --concurrency 1,4,16 --seconds "$secs" --warmup "$warmup" \
      --out "$out/raw/$c-$r.json" 9>&-
  done
done
echo "load_end=$(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/machine.txt"
python3 - "$out" "${clients[@]}" <<'PY' | tee "$out/summary.txt"
import glob, json, statistics, sys
out, clients = sys.argv[1], sys.argv[2:]
cells = {}
for c in clients:
    for f in sorted(glob.glob(f"{out}/raw/{c}-*.json")):
        for row in json.load(open(f)):
            cells.setdefault((c, row["concurrency"]), []).append(row)
med = lambda rows, k: statistics.median(r[k] for r in rows)
print(f"{'client':28} {'conc':>4} {'req/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'local':>6} {'failed':>6}"
      f" {'cpu us/req':>10} {'proxy us/req':>12} {'server us/req':>13} {'jit ms':>6} {'busy':>5}"
      f" {'load':>5}")
for (c, n), rows in sorted(cells.items(), key=lambda kv: (kv[0][1], clients.index(kv[0][0]))):
    print(f"{c:28} {n:>4} {med(rows, 'rps'):9.1f} {med(rows, 'p50_ms'):8.2f} {med(rows, 'p99_ms'):8.2f}"
          f" {med(rows, 'local_share'):6.2f} {sum(r['failed'] for r in rows):6d}"
          f" {med(rows, 'cpu_us_per_req'):10.0f} {med(rows, 'proxy_cpu_us_per_req'):12.0f}"
          f" {med(rows, 'server_cpu_us_per_req'):13.0f} {med(rows, 'jit_ms'):6.0f}"
          f" {med(rows, 'machine_busy'):5.2f} {med(rows, 'loadavg_1m'):5.1f}")
first = clients[0]
print(f"\n{first} over each other client, medians: req/s ratio, p50 ratio (other / {first}),"
      f" CPU per request ratio ({first} / other)")
for n in sorted({k[1] for k in cells}):
    cr = cells.get((first, n))
    for other in clients[1:]:
        o = cells.get((other, n))
        if cr and o:
            print(f"  conc {n:>2} vs {other:26} {med(cr, 'rps') / med(o, 'rps'):5.2f}x req/s"
                  f"  {med(o, 'p50_ms') / med(cr, 'p50_ms'):5.2f}x p50"
                  f"  {med(cr, 'cpu_us_per_req') / med(o, 'cpu_us_per_req'):5.2f}x CPU/req")
PY
echo "results: $out"
