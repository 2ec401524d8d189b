#!/usr/bin/env bash
# cluster.sh — the two-cloud Valkey 8 cluster of the peer benchmark (bench/e2e).
#
#   cluster.sh start DIR [BASE_PORT]   harness cluster of valkey-server nodes, zones set,
#                                      cloud-B nodes announced at their proxy address
#   cluster.sh delay DIR MS            (re)start the latency proxies with MS one-way delay
#   cluster.sh restore DIR             after a fault run: shard 1's master back on NODE1
#                                      (cloud A), every node healthy again
#   cluster.sh stop  DIR               stop the proxies, then the nodes
#
# The layout is scripts/redis-harness.sh's (3 shards x 3 nodes; cloud A = 127.0.1.x,
# cloud B = 127.0.2.x; shard 3 has no replica in cloud A). On top of it:
#   * every node: `availability-zone` = ZONE_A (use1-az1) or ZONE_B (usc1-a), so GLIDE's AZ
#     affinity and cloudroute's zone discovery see the same thing;
#   * every cloud-B node 127.0.2.N:P gets a latency proxy on 127.0.3.N:P
#     (scripts/latency-proxy.py) and `cluster-announce-client-ipv4 127.0.3.N` (Valkey 8):
#     CLUSTER SLOTS/SHARDS/NODES and MOVED name the proxy, so every client reaches cloud B
#     only through it, with no address remap. Node-to-node traffic (bus, replication) keeps
#     the real addresses and has no added delay.
# valkey-server runs through a symlink named redis-server, as the zones test does: the
# harness recognises its processes by that name when it stops them.
# Writes DIR/e2e.env (the harness's cluster.env plus PROXY_* and ZONE_* lines).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
harness=$repo/scripts/redis-harness.sh
proxy_py=$repo/scripts/latency-proxy.py
ZONE_A=use1-az1
ZONE_B=usc1-a

die() { echo "cluster.sh: error: $*" >&2; exit 1; }

cli() { # ADDR ARGS...
  local a=$1
  shift
  timeout 5 valkey-cli -h "${a%:*}" -p "${a##*:}" --raw "$@" 2>/dev/null
}

proxy_addr() { # 127.0.2.N:P -> 127.0.3.N:P
  local ip=${1%:*}
  echo "127.0.3.${ip##*.}:${1##*:}"
}

stop_proxies() {
  local dir=$1 f pid
  for f in "$dir"/proxy-*.pid; do
    [[ -f $f ]] || continue
    pid=$(<"$f")
    # Only a process that is our proxy (guards against PID reuse).
    if [[ -r /proc/$pid/cmdline ]] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q latency-proxy.py; then
      kill -TERM "$pid" 2>/dev/null || true
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$f"
  done
}

cmd_delay() {
  local dir=$1 ms=$2 node p log
  [[ -f $dir/cluster.env ]] || die "no cluster in $dir"
  stop_proxies "$dir"
  # shellcheck disable=SC1091
  . "$dir/cluster.env"
  IFS=, read -ra bnodes <<<"$CLOUD_B_NODES"
  for node in "${bnodes[@]}"; do
    p=$(proxy_addr "$node")
    log=$dir/proxy-${node##*:}.log
    # setsid: the proxy outlives this script; `stop` ends it by its recorded PID.
    setsid python3 "$proxy_py" --listen "$p" --target "$node" --delay-ms "$ms" \
      --pidfile "$dir/proxy-${node##*:}.pid" >"$log" 2>&1 </dev/null &
  done
  for node in "${bnodes[@]}"; do
    log=$dir/proxy-${node##*:}.log
    for _ in $(seq 100); do grep -q ready "$log" 2>/dev/null && break; sleep 0.1; done
    grep -q ready "$log" || die "proxy for $node did not start: $(cat "$log")"
  done
  sed -i '/^PROXY_DELAY_MS=/d' "$dir/e2e.env"
  echo "PROXY_DELAY_MS=$ms" >>"$dir/e2e.env"
}

topology_announced() { # every node's CLUSTER SLOTS names the proxies, never 127.0.2.x
  local a out
  for a in "${all[@]}"; do
    out=$(cli "$a" CLUSTER SLOTS) || return 1
    ! grep -q '^127\.0\.2\.' <<<"$out" || return 1
    [[ $(grep -c '^127\.0\.3\.' <<<"$out") -eq ${#bnodes[@]} ]] || return 1
  done
}

cmd_start() {
  local dir=$1 base=${2:-8301} a ip zone i
  command -v valkey-server >/dev/null || die "valkey-server not found (scripts/deps.sh installs it)"
  mkdir -p "$dir/bin"
  ln -sf "$(command -v valkey-server)" "$dir/bin/redis-server"
  REDIS_SERVER=$dir/bin/redis-server REDIS_CLI=valkey-cli "$harness" cluster "$dir" "$base" >/dev/null
  # shellcheck disable=SC1091
  . "$dir/cluster.env"
  IFS=, read -ra all <<<"$SEEDS"
  IFS=, read -ra bnodes <<<"$CLOUD_B_NODES"
  trap 'rc=$?; ((rc == 0)) || cmd_stop "$dir"' EXIT
  for a in "${all[@]}"; do
    ip=${a%:*}
    if [[ $ip == 127.0.1.* ]]; then zone=$ZONE_A; else zone=$ZONE_B; fi
    [[ $(cli "$a" CONFIG SET availability-zone "$zone") == OK ]] || die "availability-zone on $a"
    if [[ $ip == 127.0.2.* ]]; then
      [[ $(cli "$a" CONFIG SET cluster-announce-client-ipv4 "127.0.3.${ip##*.}") == OK ]] ||
        die "cluster-announce-client-ipv4 on $a (Valkey >= 8.0 needed)"
    fi
  done
  {
    cat "$dir/cluster.env"
    echo "ZONE_A=$ZONE_A"
    echo "ZONE_B=$ZONE_B"
    echo "CLIENT_CIDR_A=127.0.1.0/24"
    echo "PROXY_CIDR_B=127.0.3.0/24"
    local px=""
    for a in "${bnodes[@]}"; do px+=${px:+,}$(proxy_addr "$a"); done
    echo "CLOUD_B_PROXIES=$px"
  } >"$dir/e2e.env"
  cmd_delay "$dir" 0
  for i in $(seq 100); do topology_announced && break; sleep 0.1; done
  topology_announced || die "cloud-B nodes are not announced at their proxies after 10 s"
  echo "$dir/e2e.env"
}

all_healthy() { # no node flagged fail/pfail anywhere, cluster_state ok everywhere
  local a out
  for a in "${all[@]}"; do
    out=$(cli "$a" CLUSTER NODES) || return 1
    ! grep -qE 'fail|handshake|disconnected' <<<"$out" || return 1
    [[ $(cli "$a" CLUSTER INFO) == *cluster_state:ok* ]] || return 1
  done
}

wait_until() { # SECONDS WHAT CMD...
  local secs=$1 what=$2 i
  shift 2
  for ((i = 0; i < secs * 5; i++)); do
    "$@" && return 0
    sleep 0.2
  done
  die "timed out after ${secs}s waiting for $what"
}

node1_master() { [[ $(cli "$NODE1_ADDR" ROLE | head -n 1) == master ]]; }

cmd_restore() {
  local dir=$1
  # shellcheck disable=SC1091
  . "$dir/e2e.env"
  IFS=, read -ra all <<<"$SEEDS"
  wait_until 30 "every node healthy" all_healthy
  if ! node1_master; then
    [[ $(cli "$NODE1_ADDR" CLUSTER FAILOVER) == OK ]] || die "CLUSTER FAILOVER on $NODE1_ADDR"
    wait_until 30 "$NODE1_ADDR to be master again" node1_master
  fi
  wait_until 30 "every node healthy after the failback" all_healthy
}

cmd_stop() {
  local dir=$1
  [[ -d $dir ]] || return 0
  stop_proxies "$dir"
  "$harness" stop "$dir" >/dev/null 2>&1 || true
}

case ${1:-} in
  start) shift; (($# >= 1)) || die "usage: cluster.sh start DIR [BASE_PORT]"; cmd_start "$@" ;;
  delay) shift; (($# == 2)) || die "usage: cluster.sh delay DIR MS"; cmd_delay "$@" ;;
  restore) shift; (($# == 1)) || die "usage: cluster.sh restore DIR"; cmd_restore "$@" ;;
  stop) shift; (($# == 1)) || die "usage: cluster.sh stop DIR"; cmd_stop "$@" ;;
  *) die "usage: cluster.sh start|delay|restore|stop DIR ..." ;;
esac
