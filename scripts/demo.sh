#!/usr/bin/env bash
# The main job: a live demo on this machine, nothing to set up.
#
# Starts a real Redis Cluster (3 masters x 2 replicas, redis-server 7.0) split
# over two simulated clouds on loopback: cloud A = 127.0.1.x (where the demo
# client runs), cloud B = 127.0.2.x. Every cloud-B node is reached through a
# user-space proxy that adds DEMO_DELAY_MS (default 3) each way, like a
# cross-cloud hop. Then:
#   1. the same fan-out workload (MGET of 60 keys per request) with reads on
#      the masters, as Jedis and redis-py do, and with libcloudroute's
#      cloud-aware reads — latency and where reads were served;
#   2. a live view while a master fails over from cloud B to cloud A and a
#      local replica is killed: zero failed requests, reads follow.
# Everything it starts is stopped when it exits. Environment: DEMO_DELAY_MS,
# DEMO_BASE_PORT (default 7801; nodes use BASE..BASE+8), DEMO_REQUESTS.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -n ${CLOUDROUTE_CLI:-} ]]; then
  cli=$CLOUDROUTE_CLI   # a tool already built (the integration test sets it)
else
  bash scripts/deps.sh
  # In the test command's tree (preset package): the test command then finds
  # the library and the tool compiled.
  echo "== building the cloudroute tool"
  cmake --preset package >/dev/null
  cmake --build build/package --target cloudroute_cli -j "$(nproc)" >/dev/null
  cli=$PWD/build/package/tools/cloudroute
fi
delay=${DEMO_DELAY_MS:-3}
base=${DEMO_BASE_PORT:-7801}
work=$(mktemp -d /tmp/cloudroute-demo.XXXXXX)
proxies=()
cleanup() {
  for p in "${proxies[@]}"; do kill "$p" 2>/dev/null || true; done
  scripts/redis-harness.sh stop "$work" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

echo "== starting a two-cloud Redis Cluster on loopback (about 5 s)"
scripts/redis-harness.sh cluster "$work" "$base" >/dev/null 2>"$work/harness.log" || {
  cat "$work/harness.log" >&2; exit 1; }
# shellcheck disable=SC1091
set -a; . "$work/cluster.env"; set +a

echo "== cloud B is ${delay} ms away each way: one latency proxy per cloud-B node"
remaps=()
IFS=, read -r -a bnodes <<<"$CLOUD_B_NODES"
for node in "${bnodes[@]}"; do
  ip=${node%:*} port=${node##*:}
  proxy_ip=127.0.3.${ip##*.}
  python3 scripts/latency-proxy.py --listen "$proxy_ip:$port" --target "$node" --delay-ms "$delay" \
    >"$work/proxy-$port.log" 2>&1 &
  proxies+=($!)
  remaps+=(--remap "$node=$proxy_ip:$port")
done
for port in "${bnodes[@]##*:}"; do
  for _ in $(seq 50); do grep -q ready "$work/proxy-$port.log" 2>/dev/null && break; sleep 0.1; done
done
seeds=${CLOUD_A_NODES}
loc=(--client-location aws/us-east-1/use1-az1 --local-cidr "$CLOUD_A_CIDR"
     --location-rule "$CLOUD_B_CIDR=gcp/us-central1")

echo
echo "== 1. the same workload, two read policies (client in cloud A)"
"$cli" demo latency --seeds "$seeds" "${loc[@]}" "${remaps[@]}" --requests "${DEMO_REQUESTS:-200}" --fanout 60

echo
echo "== 2. live view: at ~3 s shard 2's master fails over from cloud B to cloud A;"
echo "      at ~6 s the cloud-A replica of shard 1 is killed"
"$cli" demo watch --seeds "$seeds" "${loc[@]}" "${remaps[@]}" --seconds 9 --fanout 60 \
  --probe "$SHARD2_KEY" --probe "$SHARD1_KEY" &
watcher=$!
sleep 3
shard2_a_replica=${SHARD2_REPLICAS#*,}   # 127.0.1.6:… (the cloud-A replica)
redis-cli -h "${shard2_a_replica%:*}" -p "${shard2_a_replica##*:}" CLUSTER FAILOVER >/dev/null
echo "   >> CLUSTER FAILOVER sent to $shard2_a_replica"
sleep 3
shard1_a_replica=${SHARD1_REPLICAS%%,*}  # 127.0.1.2:… (the cloud-A replica)
kill -9 "$NODE2_PID"
echo "   >> killed $shard1_a_replica (pid $NODE2_PID)"
wait "$watcher"
