#!/usr/bin/env bash
# bench/e2e/run.sh — cloudroute against the clients a user would pick instead, on a
# two-cloud Valkey 8 cluster where cloud B is reached through a latency proxy.
# Not part of the test command. Stops by itself: every client run is under `timeout`,
# the cluster and the proxies are stopped on exit.
#
#   bench/e2e/run.sh [--quick | --full] [--out DIR] [--wheel FILE] [--publish]
#
#   --quick (default, ~12 min on an idle 2-core machine): one-way delay 3 ms, fan-out 60,
#            concurrency 1 and 4, every client, 3 repetitions of 3 s; the same cell at
#            0 ms for cloudroute and GLIDE's best AZ mode; the fault run at concurrency 4.
#   --full  (~2 h): delays 1/3/10 ms (and 0 ms for the same subset), fan-out 10/60/100,
#            concurrency 1/4/16, 3 repetitions of 4 s, then the fault run.
#   --out    results directory (default build/e2e/<mode>-<UTC time>)
#   --fault-only  skip the matrix, run only the fault run
#   --wheel  install this cloudroute wheel instead of building one
#   --publish copy the CSVs, plots and tables into docs/benchmarks/
#
# Environment: E2E_BASE_PORT (default 8301: nodes 8301-8309, bus +10000, proxies on
# 127.0.3.x with the same ports), E2E_CLIENTS (space-separated subset of the client names
# of bench/e2e/clients.py, bench/e2e/jvm (JvmClients.java) and bench/e2e/native.py),
# E2E_REPS, E2E_SECONDS, E2E_CONCS (the requests in flight, comma-separated; default 1,4, --full
# 1,4,16), E2E_JVM_WARMUP (warm-up of the JVM clients, default 5 s), MVN.
# Peers come from PyPI into build/e2e-venv (bench/e2e/requirements.txt), the cloudroute
# wheel is built as tests/python/run.sh builds it (needs scripts/deps.sh's .venv). With a
# JVM client selected, the binding's jars are installed into .m2/ and bench/e2e/jvm is built
# (Jedis and Lettuce from Maven Central); with a c-* client, cloudroute_e2e_cdriver is built
# in build/e2e-c. Native clients (C client, redis-benchmark) have no fault run.
# Servers are started under the global lock /tmp/cr-servers.lock (held for the whole run).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
mode=quick out="" wheel="" publish=0 fault_only=0
while (($#)); do
  case $1 in
    --quick) mode=quick ;;
    --full) mode=full ;;
    --out) out=$2; shift ;;
    --wheel) wheel=$(realpath "$2"); shift ;;
    --publish) publish=1 ;;
    --fault-only) fault_only=1 ;;
    *) echo "usage: $0 [--quick|--full] [--out DIR] [--wheel FILE] [--fault-only] [--publish]" >&2; exit 2 ;;
  esac
  shift
done
out=${out:-$root/build/e2e/$mode-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out/raw"
base=${E2E_BASE_PORT:-8301}
# JVM clients (bench/e2e/jvm, run by its Java driver) and native ones (bench/e2e/native.py:
# the C client and redis-benchmark) are named here; the rest are driver.py's (clients.py).
jvm_clients="jedis-pipe jedis-cr-pipe jedis-slot-mget jedis-cr lettuce-primary lettuce-lowest-latency
  lettuce-replica-preferred lettuce-cr
  crjava-local"
native_clients="c-local c-master c-local-get c-master-get rb-get"
all_clients="cr-local cr-local-rf cr-adapter cr-master glide-az-rp glide-az glide-prefer-replica
  glide-primary glide-sync-az-rp redispy-primary redispy-rr-replicas redispy-rr-replicas-pipe
  $jvm_clients $native_clients"
clients=(${E2E_CLIENTS:-$all_clients})
ref_clients=()   # also measured with no delay: these, among the selected clients
for c in cr-local cr-local-rf glide-az-rp glide-sync-az-rp; do
  [[ " ${clients[*]} " == *" $c "* ]] && ref_clients+=("$c")
done
if [[ $mode == quick ]]; then
  delays=(3) fanouts=60 concs=${E2E_CONCS:-1,4} reps=${E2E_REPS:-3} secs=${E2E_SECONDS:-3}
else
  delays=(1 3 10) fanouts=10,60,100 concs=${E2E_CONCS:-1,4,16} reps=${E2E_REPS:-3} secs=${E2E_SECONDS:-4}
fi
fault_conc=4 warmup=1
jvm_warmup=${E2E_JVM_WARMUP:-5}   # the JIT needs more than 1 s of requests to settle
is_jvm() { [[ " ${jvm_clients//$'\n'/ } " == *" $1 "* ]]; }
is_native() { [[ " $native_clients " == *" $1 "* ]]; }
want_jvm=0 want_c=0
for c in "${clients[@]}"; do
  is_jvm "$c" && want_jvm=1
  [[ $c == c-* ]] && want_c=1
done

venv=$root/build/e2e-venv
py=$venv/bin/python
echo "== bench venv: $venv (peers from PyPI, bench/e2e/requirements.txt)"
[[ -x $py ]] || python3 -m venv "$venv"
"$py" -m pip install -q --disable-pip-version-check -r "$here/requirements.txt"
if [[ -z $wheel ]]; then
  echo "== cloudroute wheel (as tests/python/run.sh builds it)"
  [[ -x $root/.venv/bin/python ]] || { echo "run scripts/deps.sh first (.venv missing)" >&2; exit 1; }
  rm -rf "$root/build/python/dist"
  "$root/.venv/bin/python" -m pip wheel -q --no-build-isolation --no-deps -w "$root/build/python/dist" \
    "$root/bindings/python" -C build-dir="$root/build/python/cmake"
  wheel=$(ls "$root"/build/python/dist/cloudroute-*.whl)
fi
"$py" -m pip install -q --no-deps --force-reinstall "$wheel"
"$py" -m pip freeze | grep -iE '^(cloudroute|redis|valkey-glide|valkey-glide-sync|matplotlib)==' \
  >"$out/versions.txt"

if ((want_jvm)); then
  echo "== JVM driver (bench/e2e/jvm; the binding's jars installed into .m2/ as bench/jmh/run.sh does)"
  jvm_cp=$("$here/jvm/build.sh")
  grep -hoE '(cloudroute|cloudroute-clients|jedis|lettuce-core)-[0-9][^/]*\.jar' <<<"${jvm_cp//:/$'\n'}" |
    sed 's/\.jar$//' >>"$out/versions.txt"
  echo "java=$(java -version 2>&1 | head -n 1)" >>"$out/versions.txt"
fi

cdriver=$root/build/e2e-c/bench/cloudroute_e2e_cdriver
if ((want_c)); then
  echo "== C driver (bench/e2e/cdriver.cc; Release build in build/e2e-c, as bench/client_bench.sh builds)"
  cmake -S "$root" -B "$root/build/e2e-c" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCR_BUILD_BENCH=ON \
    -DCR_BUILD_TESTS=OFF >/dev/null
  timeout 1800 ninja -C "$root/build/e2e-c" -j2 cloudroute_e2e_cdriver >/dev/null
fi
echo "redis-benchmark=$(redis-benchmark --version | grep -o '[0-9][0-9.]*' | head -n 1)" >>"$out/versions.txt"

cdir=$out/cluster
cleanup() { "$here/cluster.sh" stop "$cdir" || true; }
exec 9>/tmp/cr-servers.lock
echo "== waiting for the server lock /tmp/cr-servers.lock"
flock -w 1800 9
trap cleanup EXIT INT TERM
{
  echo "date_utc=$(date -u +%FT%TZ)"
  echo "mode=$mode"
  echo "nproc=$(nproc)"
  echo "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
  echo "kernel=$(uname -r)"
  echo "python=$("$py" -c 'import sys; print(sys.version.split()[0])')"
  echo "valkey=$(valkey-server --version | grep -o 'v=[^ ]*')"
  echo "loadavg_start=$(cut -d' ' -f1-3 /proc/loadavg)"
} >"$out/machine.txt"
cat "$out/machine.txt"
echo "== starting the two-cloud Valkey cluster (ports $base-$((base + 8)))"
env_file=$("$here/cluster.sh" start "$cdir" "$base")
"$py" "$here/driver.py" load --env "$env_file" --keys 10000

ncells=$(($(tr ',' '\n' <<<"$fanouts" | wc -l) * $(tr ',' '\n' <<<"$concs" | wc -l)))
limit=$((90 + ncells * (jvm_warmup + secs) * 3))
run_one() { # CLIENT TAG FANOUTS CONCS [extra driver args]
  local c=$1 tag=$2 f=$3 k=$4 drv
  shift 4
  echo "-- $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg): $c ($tag)"
  if is_jvm "$c"; then
    drv=(java -cp "$jvm_cp" io.cloudroute.bench.e2e.Driver run --warmup "$jvm_warmup")
  elif is_native "$c"; then
    ((${#@} == 0)) || { echo "-- $c: no fault run (native clients)"; return 0; }
    drv=("$py" "$here/native.py" run --warmup "$warmup" --cdriver "$cdriver")
  else
    drv=("$py" "$here/driver.py" run --warmup "$warmup")
  fi
  timeout -k 10 "$limit" "${drv[@]}" --env "$env_file" --client "$c" \
    --fanout "$f" --concurrency "$k" --seconds "$secs" \
    --out "$out/raw/$tag-$c.json" "$@" ||
    echo "!! $c ($tag) failed (exit $?)" | tee -a "$out/failures.txt"
}

if ((fault_only)); then delays=(); else delays+=(0); fi   # 0 ms: the no-delay reference
for d in "${delays[@]}"; do
  "$here/cluster.sh" delay "$cdir" "$d"
  if ((d == 0)); then set -- "${ref_clients[@]}"; else set -- "${clients[@]}"; fi
  for ((r = 1; r <= reps; r++)); do
    # Rotate the order every repetition, so drift on a shared machine hits all alike.
    local_list=("$@")
    n=${#local_list[@]}
    for ((i = 0; i < n; i++)); do
      c=${local_list[$(((i + r - 1) % n))]}
      run_one "$c" "d$d-r$r" "$fanouts" "$concs"
    done
  done
done

echo "== fault run: delay 3 ms, fan-out 60, concurrency $fault_conc"
"$here/cluster.sh" delay "$cdir" 3
for c in "${clients[@]}"; do
  run_one "$c" "fault" 60 "$fault_conc" --fault
  "$here/cluster.sh" restore "$cdir"
done

echo "== report"
"$py" "$here/report.py" "$out"
if ((publish)); then
  mkdir -p "$root/docs/benchmarks"
  cp "$out"/*.csv "$out"/*.png "$out/tables.md" "$out/machine.txt" "$out/versions.txt" "$root/docs/benchmarks/"
  echo "published to docs/benchmarks/"
fi
echo "results: $out"
