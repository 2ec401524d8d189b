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
# in bench/e2e/clients.py), E2E_REPS, E2E_SECONDS.
# Peers come from PyPI into build/e2e-venv (bench/e2e/requirements.txt), the cloudroute
# wheel is built as tests/python/run.sh builds it (needs scripts/deps.sh's .venv).
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
all_clients="cr-local cr-local-rf cr-adapter cr-master glide-az-rp glide-az glide-prefer-replica
  glide-primary glide-sync-az-rp redispy-primary redispy-rr-replicas redispy-rr-replicas-pipe"
clients=(${E2E_CLIENTS:-$all_clients})
ref_clients=()   # also measured with no delay: these, among the selected clients
for c in cr-local cr-local-rf glide-az-rp glide-sync-az-rp; do
  [[ " ${clients[*]} " == *" $c "* ]] && ref_clients+=("$c")
done
if [[ $mode == quick ]]; then
  delays=(3) fanouts=60 concs=1,4 reps=${E2E_REPS:-3} secs=${E2E_SECONDS:-3}
else
  delays=(1 3 10) fanouts=10,60,100 concs=1,4,16 reps=${E2E_REPS:-3} secs=${E2E_SECONDS:-4}
fi
fault_conc=4 warmup=1

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
limit=$((90 + ncells * (warmup + secs) * 3))
run_one() { # CLIENT TAG FANOUTS CONCS [extra driver args]
  local c=$1 tag=$2 f=$3 k=$4
  shift 4
  echo "-- $(date -u +%T) load $(cut -d' ' -f1 /proc/loadavg): $c ($tag)"
  timeout -k 10 "$limit" "$py" "$here/driver.py" run --env "$env_file" --client "$c" \
    --fanout "$f" --concurrency "$k" --seconds "$secs" --warmup "$warmup" \
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
