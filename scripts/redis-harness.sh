#!/usr/bin/env bash
# redis-harness.sh — start/stop real redis-server processes on loopback for tests.
#
# Used by the CTest fixtures and CI (Debian 12: redis-server/redis-tools 7.0.15 and
# redis-sentinel; `apt-get install -y redis-server redis-tools redis-sentinel`).
# Every address used is inside 127.0.0.0/8; nothing else is ever contacted.
#
# Usage:
#   redis-harness.sh single   DIR PORT [IP]                 one cluster-enabled node, no slots (one per DIR)
#   redis-harness.sh cluster  [--noncontiguous] DIR [BASE_PORT]   3 masters x 2 replicas
#   redis-harness.sh sentinel DIR [BASE_PORT]               2 groups x 3 nodes + 3 sentinels
#   redis-harness.sh stop     DIR                           stop everything started in DIR
#   redis-harness.sh status   DIR                           print what is running
#
# Every start command waits (bounded) until the setup is fully usable, writes
# DIR/<kind>.env (KEY=value lines, values contain no spaces or quotes, so
# `set -a; . DIR/cluster.env; set +a` works, as does any KEY=value parser) and records
# every process in DIR/pids ("kind name pid ip port"). On failure it prints the tails of
# the logs, stops what it started (unless HARNESS_KEEP_ON_FAILURE=1) and exits non-zero.
# Processes are daemonized (redis `daemonize yes`) so they never hold a caller's
# stdout/stderr open; `stop` signals them by recorded PID only (never by name).
#
# Two clouds are simulated by address: cloud A = 127.0.1.0/24, cloud B = 127.0.2.0/24.
# Linux routes all of 127.0.0.0/8 to lo, so no setup is needed. On such addresses each
# node gets `bind <ip>`, `bind-source-addr <ip>` (outgoing replication, cluster-bus and
# sentinel connections leave from the node's own address, otherwise they come from
# 127.0.0.1 and peers learn a wrong address), `protected-mode no` (protected mode only
# trusts the literal 127.0.0.1/::1), `cluster-announce-ip <ip>` / `replica-announce-ip <ip>`
# and, for Sentinel, `sentinel announce-ip <ip>`.
#
# cluster layout (port = BASE_PORT + n - 1, default BASE_PORT 7001; cluster bus port =
# port + 10000):
#   node ip          port   cloud  shard  role     slots (default | --noncontiguous)
#   n1   127.0.1.1   7001   A      1      master   0-5460      | 0-3096,4078-5460
#   n2   127.0.1.2   7002   A      1      replica
#   n3   127.0.2.3   7003   B      1      replica
#   n4   127.0.2.4   7004   B      2      master   5461-10922  | 3097-4077,5461-10922
#   n5   127.0.2.5   7005   B      2      replica
#   n6   127.0.1.6   7006   A      2      replica
#   n7   127.0.1.7   7007   A      3      master   10923-16383 | 10923-16383
#   n8   127.0.2.8   7008   B      3      replica
#   n9   127.0.2.9   7009   B      3      replica
# Every shard has nodes in both clouds; masters live in both clouds (A: shards 1, 3;
# B: shard 2); shard 3 has both replicas in the cloud opposite to its master.
# One key per shard is written (SHARDn_KEY/SHARDn_VALUE) and the command returns only
# when every replica holds it and appears in CLUSTER SLOTS and CLUSTER SHARDS of every
# node. cluster-node-timeout is CLUSTER_NODE_TIMEOUT_MS (default 2000);
# replica migration is off and cluster-replica-validity-factor is 0 so the layout stays
# as created and any replica may fail over.
#
# sentinel layout (data port = BASE_PORT + n - 1, default BASE_PORT 7201; sentinels on
# BASE_PORT + 10..12):
#   node ip           port  cloud  group   role
#   r1   127.0.1.31   7201  A      group0  master
#   r2   127.0.1.32   7202  A      group0  replica
#   r3   127.0.2.33   7203  B      group0  replica
#   r4   127.0.2.34   7204  B      group1  master
#   r5   127.0.2.35   7205  B      group1  replica
#   r6   127.0.1.36   7206  A      group1  replica
#   s1   127.0.1.41   7211  A      sentinel
#   s2   127.0.2.42   7212  B      sentinel
#   s3   127.0.1.43   7213  A      sentinel
# Data nodes run from a config file (DIR/sentinel/rN/redis.conf) so that Sentinel's
# CONFIG REWRITE after a failover works. Sentinels are `redis-server CONF --sentinel`.
# Quorum 2, down-after-milliseconds SENTINEL_DOWN_AFTER_MS (default 1000),
# failover-timeout SENTINEL_FAILOVER_TIMEOUT_MS (default 4000). Returns when every
# sentinel sees both masters, both replicas of each, and the two other sentinels.
#
# Environment knobs: NONCONTIGUOUS=1 (same as --noncontiguous), HARNESS_START_TIMEOUT
# (s, default 10), HARNESS_READY_TIMEOUT (s, default 60), HARNESS_STOP_TIMEOUT (s,
# default 10), HARNESS_KEEP_ON_FAILURE=1, HARNESS_EXTRA_CONF (extra redis.conf lines
# appended to every data node's config), REDIS_SERVER, REDIS_CLI (binaries).

set -euo pipefail

readonly PROG=${0##*/}
REDIS_SERVER=${REDIS_SERVER:-redis-server}
REDIS_CLI=${REDIS_CLI:-redis-cli}
START_TIMEOUT=${HARNESS_START_TIMEOUT:-10}
READY_TIMEOUT=${HARNESS_READY_TIMEOUT:-60}
STOP_TIMEOUT=${HARNESS_STOP_TIMEOUT:-10}
NODE_TIMEOUT_MS=${CLUSTER_NODE_TIMEOUT_MS:-2000}
DOWN_AFTER_MS=${SENTINEL_DOWN_AFTER_MS:-1000}
FAILOVER_TIMEOUT_MS=${SENTINEL_FAILOVER_TIMEOUT_MS:-4000}

# Cluster layout, index 0..8 = node n1..n9.
readonly CL_IPS=(127.0.1.1 127.0.1.2 127.0.2.3 127.0.2.4 127.0.2.5 127.0.1.6 127.0.1.7 127.0.2.8 127.0.2.9)
readonly CL_SHARD=(1 1 1 2 2 2 3 3 3)
readonly CL_ROLE=(master replica replica master replica replica master replica replica)
readonly CL_SLOTS_CONTIG=("0-5460" "5461-10922" "10923-16383")
readonly CL_SLOTS_NONCONTIG=("0-3096,4078-5460" "3097-4077,5461-10922" "10923-16383")

# Sentinel layout, index 0..5 = r1..r6, sentinels s1..s3.
readonly SE_IPS=(127.0.1.31 127.0.1.32 127.0.2.33 127.0.2.34 127.0.2.35 127.0.1.36)
readonly SE_GROUP=(0 0 0 1 1 1)
readonly SE_ROLE=(master replica replica master replica replica)
readonly SE_SENTINEL_IPS=(127.0.1.41 127.0.2.42 127.0.1.43)
readonly SE_SENTINEL_PORT_OFFSET=10

T0_MS=0
START_KIND=""
START_DIR=""

# ---------------------------------------------------------------------------- helpers

now_ms() {
  local t=${EPOCHREALTIME//[.,]/}
  echo $((10#$t / 1000))
}

log() {
  local el=$(($(now_ms) - T0_MS))
  printf '%s: [%d.%03ds] %s\n' "$PROG" $((el / 1000)) $((el % 1000)) "$*" >&2
}

die() {
  printf '%s: error: %s\n' "$PROG" "$*" >&2
  exit 1
}

usage() {
  sed -n '/^# Usage:/,/^# *$/p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

cloud_of() { # ip -> A|B|-
  case $1 in
    127.0.1.*) echo A ;;
    127.0.2.*) echo B ;;
    *) echo - ;;
  esac
}

check_ip() {
  local ip=$1 o
  [[ $ip =~ ^127\.([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})$ ]] ||
    die "address '$ip' is not in 127.0.0.0/8 (loopback only)"
  for o in "${BASH_REMATCH[@]:1}"; do
    ((10#$o <= 255)) || die "bad address '$ip'"
  done
}

check_port() { # port max
  if ! [[ $1 =~ ^[0-9]+$ ]] || ((10#$1 < 1 || 10#$1 > $2)); then
    die "bad port '$1' (must be 1..$2)"
  fi
}

check_tools() {
  command -v "$REDIS_SERVER" >/dev/null || die "$REDIS_SERVER not found (apt-get install -y redis-server redis-tools redis-sentinel)"
  command -v "$REDIS_CLI" >/dev/null || die "$REDIS_CLI not found (apt-get install -y redis-tools)"
  command -v timeout >/dev/null || die "timeout(1) not found"
}

# rcli IP PORT ARGS... — one bounded redis-cli call, raw output, stderr dropped.
rcli() {
  local ip=$1 port=$2
  shift 2
  timeout 5 "$REDIS_CLI" -h "$ip" -p "$port" --raw "$@" 2>/dev/null
}

# port_open IP PORT — true if something accepts TCP connections there.
port_open() {
  # shellcheck disable=SC2016 # $1/$2 are expanded by the inner bash
  timeout 2 bash -c 'exec 3<>"/dev/tcp/$1/$2"' _ "$1" "$2" 2>/dev/null
}

# wait_for SECONDS DESCRIPTION CMD... — poll CMD every 100 ms until it succeeds.
wait_for() {
  local secs=$1 desc=$2
  shift 2
  local deadline=$(($(now_ms) + secs * 1000))
  until "$@"; do
    if (($(now_ms) >= deadline)); then
      printf '%s: error: timed out after %ss waiting for %s\n' "$PROG" "$secs" "$desc" >&2
      return 1
    fi
    sleep 0.1
  done
}

# pid_alive PID — running and not a zombie (exited children of init may stay zombies
# for a second or more until PID 1 reaps them; they hold no ports or files).
pid_alive() {
  local state
  kill -0 "$1" 2>/dev/null || return 1
  state=$(awk '/^State:/ { print $2 }' "/proc/$1/status" 2>/dev/null) || return 1
  [[ -n $state && $state != Z && $state != X ]]
}

# proc_matches PID IP PORT — PID is alive and is a redis or valkey process for IP:PORT
# (guards against PID reuse; they set their titles to "redis-server IP:PORT [mode]" and
# "valkey-server IP:PORT [mode]", sentinels to "redis-sentinel …" / "valkey-sentinel …").
proc_matches() {
  local pid=$1 ip=$2 port=$3 cmd
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  pid_alive "$pid" || return 1
  cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || return 1
  [[ ($cmd == *redis* || $cmd == *valkey*) && $cmd == *"$ip:$port"* ]]
}

# record_lines DIR [KIND] — print "kind name pid ip port" records (optionally one kind).
record_lines() {
  local dir=$1 kind=${2:-}
  [[ -f $dir/pids ]] || return 0
  if [[ -n $kind ]]; then
    awk -v k="$kind" '$1 == k' "$dir/pids"
  else
    cat "$dir/pids"
  fi
}

dump_logs() { # DIR KIND
  local f
  for f in "$1/$2"/*/*.log; do
    [[ -f $f ]] || continue
    printf '%s: ---- tail of %s ----\n' "$PROG" "$f" >&2
    tail -n 15 "$f" >&2 || true
  done
}

on_start_exit() {
  local rc=$1
  if ((rc != 0)) && [[ -n $START_KIND ]]; then
    printf '%s: %s setup in %s failed\n' "$PROG" "$START_KIND" "$START_DIR" >&2
    dump_logs "$START_DIR" "$START_KIND"
    if [[ ${HARNESS_KEEP_ON_FAILURE:-0} == 1 ]]; then
      printf '%s: HARNESS_KEEP_ON_FAILURE=1: leaving processes running; stop with: %s stop %s\n' \
        "$PROG" "$0" "$START_DIR" >&2
    else
      stop_kind "$START_DIR" "$START_KIND" || true
    fi
  fi
}

# begin_start DIR KIND — common preamble of the start commands.
begin_start() {
  local dir=$1 kind=$2 k name pid ip port
  check_tools
  mkdir -p "$dir"
  while read -r k name pid ip port; do
    if proc_matches "$pid" "$ip" "$port"; then
      die "$kind '$name' ($ip:$port pid $pid) from an earlier start is still running in $dir; run: $0 stop $dir"
    fi
  done < <(record_lines "$dir" "$kind")
  if [[ -f $dir/pids ]]; then
    awk -v k="$kind" '$1 != k' "$dir/pids" >"$dir/pids.tmp"
    mv "$dir/pids.tmp" "$dir/pids"
  fi
  rm -rf "${dir:?}/$kind" "$dir/$kind.env"
  mkdir -p "$dir/$kind"
  START_KIND=$kind
  START_DIR=$dir
  trap 'on_start_exit $?' EXIT
}

# write_node_conf FILE IP PORT NODEDIR — common config of every data node.
write_node_conf() {
  local conf=$1 ip=$2 port=$3 nd=$4
  cat >"$conf" <<EOF
# generated by $PROG
port $port
bind $ip
bind-source-addr $ip
protected-mode no
daemonize yes
pidfile $nd/redis.pid
logfile $nd/redis.log
dir $nd
save ""
appendonly no
repl-diskless-sync yes
repl-diskless-sync-delay 0
replica-announce-ip $ip
enable-debug-command yes
EOF
  if [[ -n ${HARNESS_EXTRA_CONF:-} ]]; then
    printf '%s\n' "$HARNESS_EXTRA_CONF" >>"$conf"
  fi
}

# launch KIND DIR NAME IP PORT CONF [redis-server args...] — start one daemonized server.
launch() {
  local kind=$1 dir=$2 name=$3 ip=$4 port=$5 conf=$6
  shift 6
  if port_open "$ip" "$port"; then
    die "$ip:$port is already in use (choose another port)"
  fi
  "$REDIS_SERVER" "$conf" "$@" >>"$dir/$kind/$name/start.out" 2>&1 ||
    die "$REDIS_SERVER failed to start $name ($ip:$port): $(tail -n 5 "$dir/$kind/$name/start.out")"
}

pid_answers() { # IP PORT PID
  local out
  out=$(rcli "$1" "$2" INFO server) || return 1
  [[ $out == *"process_id:$3"* ]]
}

# await_started KIND DIR NAME IP PORT — wait for the pidfile and a matching INFO reply,
# then record the process.
await_started() {
  local kind=$1 dir=$2 name=$3 ip=$4 port=$5 nd pid=""
  nd=$dir/$kind/$name
  wait_for "$START_TIMEOUT" "$name ($ip:$port) to write $nd/redis.pid" test -s "$nd/redis.pid" ||
    die "$name ($ip:$port) did not start; log: $nd/redis.log"
  pid=$(<"$nd/redis.pid")
  printf '%s %s %s %s %s\n' "$kind" "$name" "$pid" "$ip" "$port" >>"$dir/pids"
  wait_for "$START_TIMEOUT" "$name ($ip:$port, pid $pid) to answer" pid_answers "$ip" "$port" "$pid" ||
    die "$name ($ip:$port) does not answer PING/INFO; log: $nd/redis.log"
}

pids_of() { # DIR KIND -> comma-separated pids
  record_lines "$1" "$2" | awk '{ printf "%s%s", (n++ ? "," : ""), $3 } END { print "" }'
}

# ---------------------------------------------------------------------------- single

cmd_single() {
  (($# >= 2 && $# <= 3)) || usage
  local dir=$1 port=$2 ip=${3:-127.0.0.1} nd name
  check_ip "$ip"
  check_port "$port" 55535
  T0_MS=$(now_ms)
  name=single-$port
  begin_start "$dir" single # one single node per DIR
  if port_open "$ip" $((port + 10000)); then
    die "cluster bus port $ip:$((port + 10000)) is already in use"
  fi
  nd=$dir/single/$name
  mkdir -p "$nd"
  write_node_conf "$nd/redis.conf" "$ip" "$port" "$nd"
  cat >>"$nd/redis.conf" <<EOF
cluster-enabled yes
cluster-config-file $nd/nodes.conf
EOF
  launch single "$dir" "$name" "$ip" "$port" "$nd/redis.conf"
  await_started single "$dir" "$name" "$ip" "$port"
  local pid
  pid=$(<"$nd/redis.pid")
  cat >"$dir/single.env" <<EOF
# generated by $PROG single (cluster-enabled node without slots, for CLUSTER KEYSLOT)
HARNESS_KIND=single
HARNESS_DIR=$dir
SINGLE_ADDR=$ip:$port
SINGLE_IP=$ip
SINGLE_PORT=$port
SINGLE_PID=$pid
SINGLE_LOG=$nd/redis.log
PIDS=$pid
EOF
  START_KIND=""
  log "single node $ip:$port ready (pid $pid); env: $dir/single.env"
  echo "$dir/single.env"
}

# ---------------------------------------------------------------------------- cluster

cluster_nodes_settled() { # expects all nodes known, connected, no handshake
  local i out
  for i in "${!CL_IPS[@]}"; do
    out=$(rcli "${CL_IPS[i]}" "${CLUSTER_PORTS[i]}" CLUSTER NODES) || return 1
    [[ $(grep -c . <<<"$out") -eq ${#CL_IPS[@]} ]] || return 1
    ! grep -qE 'handshake|noaddr|fail|disconnected' <<<"$out" || return 1
  done
}

cluster_all_ok() {
  local i out
  for i in "${!CL_IPS[@]}"; do
    out=$(rcli "${CL_IPS[i]}" "${CLUSTER_PORTS[i]}" CLUSTER INFO) || return 1
    [[ $out == *cluster_state:ok* && $out == *cluster_slots_assigned:16384* &&
      $out == *cluster_slots_ok:16384* && $out == *"cluster_known_nodes:${#CL_IPS[@]}"* ]] || return 1
  done
}

cluster_roles_ok() {
  local i out want
  for i in "${!CL_IPS[@]}"; do
    out=$(rcli "${CL_IPS[i]}" "${CLUSTER_PORTS[i]}" ROLE | head -n 1) || return 1
    want=${CL_ROLE[i]/replica/slave}
    [[ $out == "$want" ]] || return 1
  done
}

cluster_replicas_have_keys() {
  local i s out
  for i in "${!CL_IPS[@]}"; do
    [[ ${CL_ROLE[i]} == replica ]] || continue
    s=${CL_SHARD[i]}
    out=$(printf 'READONLY\nGET %s\n' "${SHARD_KEY[s]}" |
      timeout 5 "$REDIS_CLI" -h "${CL_IPS[i]}" -p "${CLUSTER_PORTS[i]}" --raw 2>/dev/null) || return 1
    [[ $(tail -n 1 <<<"$out") == "${SHARD_VALUE[s]}" ]] || return 1
  done
}

# Every node's CLUSTER SLOTS names all 9 node ids (replicas are listed only once they
# have a replication offset) and CLUSTER SHARDS reports all 9 nodes "online".
cluster_topology_complete() {
  local i id out
  for i in "${!CL_IPS[@]}"; do
    out=$(rcli "${CL_IPS[i]}" "${CLUSTER_PORTS[i]}" CLUSTER SLOTS) || return 1
    for id in "${NODE_IDS[@]}"; do
      grep -qx "$id" <<<"$out" || return 1
    done
    out=$(rcli "${CL_IPS[i]}" "${CLUSTER_PORTS[i]}" CLUSTER SHARDS) || return 1
    [[ $(grep -cx online <<<"$out") -eq ${#CL_IPS[@]} ]] || return 1
  done
}

slot_in_ranges() { # slot "a-b,c-d"
  local slot=$1 r lo hi
  local -a ranges
  IFS=, read -ra ranges <<<"$2"
  for r in "${ranges[@]}"; do
    lo=${r%-*}
    hi=${r#*-}
    ((slot >= lo && slot <= hi)) && return 0
  done
  return 1
}

cmd_cluster() {
  local nonc=${NONCONTIGUOUS:-0}
  if [[ ${1:-} == --noncontiguous ]]; then
    nonc=1
    shift
  fi
  (($# >= 1 && $# <= 2)) || usage
  local dir=$1 base=${2:-7001}
  check_port "$base" $((55535 - ${#CL_IPS[@]}))
  [[ $nonc == 1 ]] || nonc=0
  T0_MS=$(now_ms)
  begin_start "$dir" cluster

  local -a slots
  if ((nonc)); then slots=("${CL_SLOTS_NONCONTIG[@]}"); else slots=("${CL_SLOTS_CONTIG[@]}"); fi
  CLUSTER_PORTS=()
  local i ip port nd name
  for i in "${!CL_IPS[@]}"; do
    CLUSTER_PORTS[i]=$((base + i))
    if port_open "${CL_IPS[i]}" $((base + i + 10000)); then
      die "cluster bus port ${CL_IPS[i]}:$((base + i + 10000)) is already in use"
    fi
  done

  log "starting 9 cluster nodes (base port $base, noncontiguous=$nonc, node timeout ${NODE_TIMEOUT_MS}ms)"
  for i in "${!CL_IPS[@]}"; do
    ip=${CL_IPS[i]} port=${CLUSTER_PORTS[i]} name=n$((i + 1))
    nd=$dir/cluster/$name
    mkdir -p "$nd"
    write_node_conf "$nd/redis.conf" "$ip" "$port" "$nd"
    cat >>"$nd/redis.conf" <<EOF
cluster-enabled yes
cluster-config-file $nd/nodes.conf
cluster-node-timeout $NODE_TIMEOUT_MS
cluster-announce-ip $ip
cluster-replica-validity-factor 0
cluster-allow-replica-migration no
EOF
    launch cluster "$dir" "$name" "$ip" "$port" "$nd/redis.conf"
  done
  for i in "${!CL_IPS[@]}"; do
    await_started cluster "$dir" "n$((i + 1))" "${CL_IPS[i]}" "${CLUSTER_PORTS[i]}"
  done
  log "all nodes answer"

  NODE_IDS=()
  for i in "${!CL_IPS[@]}"; do
    NODE_IDS[i]=$(rcli "${CL_IPS[i]}" "${CLUSTER_PORTS[i]}" CLUSTER MYID)
    [[ ${NODE_IDS[i]} =~ ^[0-9a-f]{40}$ ]] || die "n$((i + 1)): bad CLUSTER MYID reply '${NODE_IDS[i]}'"
  done

  # Slots first (on masters), then MEET everyone from n1, then REPLICATE.
  local s r out
  local -a ranges
  local -A MASTER_IDX=()
  for i in "${!CL_IPS[@]}"; do
    [[ ${CL_ROLE[i]} == master ]] || continue
    s=${CL_SHARD[i]}
    MASTER_IDX[$s]=$i
    IFS=, read -ra ranges <<<"${slots[s - 1]}"
    for r in "${ranges[@]}"; do
      out=$(rcli "${CL_IPS[i]}" "${CLUSTER_PORTS[i]}" CLUSTER ADDSLOTSRANGE "${r%-*}" "${r#*-}")
      [[ $out == OK ]] || die "CLUSTER ADDSLOTSRANGE $r on n$((i + 1)) failed: $out"
    done
    # Distinct config epochs (as redis-cli --cluster create does): no epoch collision
    # resolution needed, and shard s's master starts with epoch s.
    out=$(rcli "${CL_IPS[i]}" "${CLUSTER_PORTS[i]}" CLUSTER SET-CONFIG-EPOCH "$s")
    [[ $out == OK ]] || die "CLUSTER SET-CONFIG-EPOCH on n$((i + 1)) failed: $out"
  done
  for i in "${!CL_IPS[@]}"; do
    ((i == 0)) && continue
    out=$(rcli "${CL_IPS[0]}" "${CLUSTER_PORTS[0]}" CLUSTER MEET "${CL_IPS[i]}" "${CLUSTER_PORTS[i]}")
    [[ $out == OK ]] || die "CLUSTER MEET ${CL_IPS[i]}:${CLUSTER_PORTS[i]} failed: $out"
  done
  wait_for "$READY_TIMEOUT" "all nodes to know each other (CLUSTER NODES)" cluster_nodes_settled
  log "all nodes met"
  for i in "${!CL_IPS[@]}"; do
    [[ ${CL_ROLE[i]} == replica ]] || continue
    s=${CL_SHARD[i]}
    out=$(rcli "${CL_IPS[i]}" "${CLUSTER_PORTS[i]}" CLUSTER REPLICATE "${NODE_IDS[${MASTER_IDX[$s]}]}")
    [[ $out == OK ]] || die "CLUSTER REPLICATE on n$((i + 1)) failed: $out"
  done
  wait_for "$READY_TIMEOUT" "cluster_state:ok on every node" cluster_all_ok
  wait_for "$READY_TIMEOUT" "every node to have its role (ROLE)" cluster_roles_ok
  log "cluster_state:ok everywhere"

  # One key per shard, found with CLUSTER KEYSLOT, written to the master.
  SHARD_KEY=()
  SHARD_VALUE=()
  SHARD_SLOT=()
  local n key slot mi
  for s in 1 2 3; do
    mi=${MASTER_IDX[$s]}
    for ((n = 0; ; n++)); do
      ((n < 1000)) || die "no key found for shard $s"
      key=harness:shard$s:$n
      slot=$(rcli "${CL_IPS[0]}" "${CLUSTER_PORTS[0]}" CLUSTER KEYSLOT "$key")
      slot_in_ranges "$slot" "${slots[s - 1]}" && break
    done
    SHARD_KEY[s]=$key
    SHARD_SLOT[s]=$slot
    SHARD_VALUE[s]=value-of-shard$s
    out=$(rcli "${CL_IPS[mi]}" "${CLUSTER_PORTS[mi]}" SET "$key" "${SHARD_VALUE[s]}")
    [[ $out == OK ]] || die "SET $key on n$((mi + 1)) failed: $out"
  done
  wait_for "$READY_TIMEOUT" "every replica to hold its shard's key" cluster_replicas_have_keys
  wait_for "$READY_TIMEOUT" "every replica to appear in CLUSTER SLOTS/SHARDS of every node" cluster_topology_complete
  log "replicas synced and visible in CLUSTER SLOTS/SHARDS"

  # ------------------------------------------------------------ cluster.env
  local seeds="" a_seeds="" b_seeds="" pid env=$dir/cluster.env.tmp
  for i in "${!CL_IPS[@]}"; do
    seeds+=${seeds:+,}${CL_IPS[i]}:${CLUSTER_PORTS[i]}
    if [[ $(cloud_of "${CL_IPS[i]}") == A ]]; then
      a_seeds+=${a_seeds:+,}${CL_IPS[i]}:${CLUSTER_PORTS[i]}
    else
      b_seeds+=${b_seeds:+,}${CL_IPS[i]}:${CLUSTER_PORTS[i]}
    fi
  done
  {
    echo "# generated by $PROG cluster — see the header of $PROG for the layout"
    echo "HARNESS_KIND=cluster"
    echo "HARNESS_DIR=$dir"
    echo "NONCONTIGUOUS=$nonc"
    echo "BASE_PORT=$base"
    echo "CLUSTER_NODE_TIMEOUT_MS=$NODE_TIMEOUT_MS"
    echo "CLOUD_A_CIDR=127.0.1.0/24"
    echo "CLOUD_B_CIDR=127.0.2.0/24"
    echo "SEEDS=$seeds"
    echo "CLOUD_A_NODES=$a_seeds"
    echo "CLOUD_B_NODES=$b_seeds"
    echo "NODE_COUNT=${#CL_IPS[@]}"
    echo "SHARD_COUNT=3"
    for s in 1 2 3; do
      local reps=""
      mi=${MASTER_IDX[$s]}
      for i in "${!CL_IPS[@]}"; do
        [[ ${CL_SHARD[i]} == "$s" && ${CL_ROLE[i]} == replica ]] || continue
        reps+=${reps:+,}${CL_IPS[i]}:${CLUSTER_PORTS[i]}
      done
      echo "SHARD${s}_MASTER=${CL_IPS[mi]}:${CLUSTER_PORTS[mi]}"
      echo "SHARD${s}_MASTER_ID=${NODE_IDS[mi]}"
      echo "SHARD${s}_MASTER_CLOUD=$(cloud_of "${CL_IPS[mi]}")"
      echo "SHARD${s}_REPLICAS=$reps"
      echo "SHARD${s}_SLOTS=${slots[s - 1]}"
      echo "SHARD${s}_KEY=${SHARD_KEY[s]}"
      echo "SHARD${s}_KEY_SLOT=${SHARD_SLOT[s]}"
      echo "SHARD${s}_VALUE=${SHARD_VALUE[s]}"
    done
    for i in "${!CL_IPS[@]}"; do
      n=$((i + 1))
      pid=$(record_lines "$dir" cluster | awk -v nm="n$n" '$2 == nm { print $3 }' | tail -n 1)
      echo "NODE${n}_ADDR=${CL_IPS[i]}:${CLUSTER_PORTS[i]}"
      echo "NODE${n}_IP=${CL_IPS[i]}"
      echo "NODE${n}_PORT=${CLUSTER_PORTS[i]}"
      echo "NODE${n}_BUS_PORT=$((CLUSTER_PORTS[i] + 10000))"
      echo "NODE${n}_ROLE=${CL_ROLE[i]}"
      echo "NODE${n}_CLOUD=$(cloud_of "${CL_IPS[i]}")"
      echo "NODE${n}_SHARD=${CL_SHARD[i]}"
      echo "NODE${n}_ID=${NODE_IDS[i]}"
      echo "NODE${n}_PID=$pid"
      echo "NODE${n}_LOG=$dir/cluster/n$n/redis.log"
    done
    echo "PIDS=$(pids_of "$dir" cluster)"
  } >"$env"
  mv "$env" "$dir/cluster.env"
  START_KIND=""
  log "cluster ready; seeds ${CL_IPS[0]}:${CLUSTER_PORTS[0]},...; env: $dir/cluster.env"
  echo "$dir/cluster.env"
}

# ---------------------------------------------------------------------------- sentinel

sentinel_field() { # key  (stdin: flat raw key/value lines) -> every value of key
  awk -v k="$1" 'NR % 2 == 1 { key = $0; next } key == k { print }'
}

sentinel_all_see_all() {
  local j g out
  for j in "${!SE_SENTINEL_IPS[@]}"; do
    for g in 0 1; do
      out=$(rcli "${SE_SENTINEL_IPS[j]}" "${SENTINEL_PORTS[j]}" SENTINEL MASTER "group$g") || return 1
      [[ $(sentinel_field flags <<<"$out") == master ]] || return 1
      [[ $(sentinel_field num-slaves <<<"$out") == 2 ]] || return 1
      [[ $(sentinel_field num-other-sentinels <<<"$out") == 2 ]] || return 1
      [[ $(sentinel_field ip <<<"$out"):$(sentinel_field port <<<"$out") == "${GROUP_MASTER[g]}" ]] || return 1
      out=$(rcli "${SE_SENTINEL_IPS[j]}" "${SENTINEL_PORTS[j]}" SENTINEL REPLICAS "group$g") || return 1
      [[ $(sentinel_field flags <<<"$out" | grep -cx slave) == 2 ]] || return 1
      [[ $(sentinel_field master-link-status <<<"$out" | grep -cx ok) == 2 ]] || return 1
      [[ $(sentinel_field ip <<<"$out" | grep -c '^127\.0\.[12]\.') == 2 ]] || return 1
      out=$(rcli "${SE_SENTINEL_IPS[j]}" "${SENTINEL_PORTS[j]}" SENTINEL SENTINELS "group$g") || return 1
      [[ $(sentinel_field flags <<<"$out" | grep -cx sentinel) == 2 ]] || return 1
    done
  done
}

sentinel_replicas_linked() {
  local i out
  for i in "${!SE_IPS[@]}"; do
    [[ ${SE_ROLE[i]} == replica ]] || continue
    out=$(rcli "${SE_IPS[i]}" "${SENTINEL_DATA_PORTS[i]}" INFO replication) || return 1
    [[ $out == *master_link_status:up* ]] || return 1
  done
}

cmd_sentinel() {
  (($# >= 1 && $# <= 2)) || usage
  local dir=$1 base=${2:-7201}
  check_port "$base" $((65535 - SE_SENTINEL_PORT_OFFSET - ${#SE_SENTINEL_IPS[@]}))
  T0_MS=$(now_ms)
  begin_start "$dir" sentinel

  SENTINEL_DATA_PORTS=()
  SENTINEL_PORTS=()
  GROUP_MASTER=()
  local i j g ip port nd name
  for i in "${!SE_IPS[@]}"; do
    SENTINEL_DATA_PORTS[i]=$((base + i))
    if [[ ${SE_ROLE[i]} == master ]]; then
      GROUP_MASTER[SE_GROUP[i]]=${SE_IPS[i]}:$((base + i))
    fi
  done
  for j in "${!SE_SENTINEL_IPS[@]}"; do
    SENTINEL_PORTS[j]=$((base + SE_SENTINEL_PORT_OFFSET + j))
  done

  log "starting 6 data nodes (base port $base) and 3 sentinels"
  for i in "${!SE_IPS[@]}"; do
    ip=${SE_IPS[i]} port=${SENTINEL_DATA_PORTS[i]} name=r$((i + 1))
    nd=$dir/sentinel/$name
    mkdir -p "$nd"
    write_node_conf "$nd/redis.conf" "$ip" "$port" "$nd"
    if [[ ${SE_ROLE[i]} == replica ]]; then
      local m=${GROUP_MASTER[SE_GROUP[i]]}
      echo "replicaof ${m%:*} ${m#*:}" >>"$nd/redis.conf"
    fi
    launch sentinel "$dir" "$name" "$ip" "$port" "$nd/redis.conf"
  done
  for i in "${!SE_IPS[@]}"; do
    await_started sentinel "$dir" "r$((i + 1))" "${SE_IPS[i]}" "${SENTINEL_DATA_PORTS[i]}"
  done
  wait_for "$READY_TIMEOUT" "replicas to link to their masters" sentinel_replicas_linked
  log "data nodes replicating"

  for j in "${!SE_SENTINEL_IPS[@]}"; do
    ip=${SE_SENTINEL_IPS[j]} port=${SENTINEL_PORTS[j]} name=s$((j + 1))
    nd=$dir/sentinel/$name
    mkdir -p "$nd"
    {
      echo "# generated by $PROG (sentinel rewrites this file)"
      echo "port $port"
      echo "bind $ip"
      echo "bind-source-addr $ip"
      echo "protected-mode no"
      echo "daemonize yes"
      echo "pidfile $nd/redis.pid"
      echo "logfile $nd/sentinel.log"
      echo "dir $nd"
      echo "sentinel announce-ip $ip"
      echo "sentinel announce-port $port"
      echo "sentinel resolve-hostnames no"
      for g in 0 1; do
        echo "sentinel monitor group$g ${GROUP_MASTER[g]%:*} ${GROUP_MASTER[g]#*:} 2"
        echo "sentinel down-after-milliseconds group$g $DOWN_AFTER_MS"
        echo "sentinel failover-timeout group$g $FAILOVER_TIMEOUT_MS"
        echo "sentinel parallel-syncs group$g 2"
      done
    } >"$nd/sentinel.conf"
    launch sentinel "$dir" "$name" "$ip" "$port" "$nd/sentinel.conf" --sentinel
  done
  for j in "${!SE_SENTINEL_IPS[@]}"; do
    await_started sentinel "$dir" "s$((j + 1))" "${SE_SENTINEL_IPS[j]}" "${SENTINEL_PORTS[j]}"
  done
  log "sentinels answer; waiting for discovery"
  wait_for "$READY_TIMEOUT" "every sentinel to see both masters, their replicas and the other sentinels" \
    sentinel_all_see_all
  log "sentinels agree"

  # ------------------------------------------------------------ sentinel.env
  local sentinels="" env=$dir/sentinel.env.tmp n pid reps kind
  for j in "${!SE_SENTINEL_IPS[@]}"; do
    sentinels+=${sentinels:+,}${SE_SENTINEL_IPS[j]}:${SENTINEL_PORTS[j]}
  done
  {
    echo "# generated by $PROG sentinel — see the header of $PROG for the layout"
    echo "HARNESS_KIND=sentinel"
    echo "HARNESS_DIR=$dir"
    echo "BASE_PORT=$base"
    echo "CLOUD_A_CIDR=127.0.1.0/24"
    echo "CLOUD_B_CIDR=127.0.2.0/24"
    echo "SENTINELS=$sentinels"
    echo "SENTINEL_MASTER_NAMES=group0,group1"
    echo "SENTINEL_QUORUM=2"
    echo "SENTINEL_DOWN_AFTER_MS=$DOWN_AFTER_MS"
    echo "SENTINEL_FAILOVER_TIMEOUT_MS=$FAILOVER_TIMEOUT_MS"
    for g in 0 1; do
      reps=""
      for i in "${!SE_IPS[@]}"; do
        [[ ${SE_GROUP[i]} == "$g" && ${SE_ROLE[i]} == replica ]] || continue
        reps+=${reps:+,}${SE_IPS[i]}:${SENTINEL_DATA_PORTS[i]}
      done
      echo "GROUP${g}_NAME=group$g"
      echo "GROUP${g}_MASTER=${GROUP_MASTER[g]}"
      echo "GROUP${g}_MASTER_CLOUD=$(cloud_of "${GROUP_MASTER[g]%:*}")"
      echo "GROUP${g}_REPLICAS=$reps"
    done
    echo "NODE_COUNT=${#SE_IPS[@]}"
    for i in "${!SE_IPS[@]}"; do
      n=$((i + 1))
      pid=$(record_lines "$dir" sentinel | awk -v nm="r$n" '$2 == nm { print $3 }' | tail -n 1)
      echo "NODE${n}_ADDR=${SE_IPS[i]}:${SENTINEL_DATA_PORTS[i]}"
      echo "NODE${n}_IP=${SE_IPS[i]}"
      echo "NODE${n}_PORT=${SENTINEL_DATA_PORTS[i]}"
      echo "NODE${n}_ROLE=${SE_ROLE[i]}"
      echo "NODE${n}_CLOUD=$(cloud_of "${SE_IPS[i]}")"
      echo "NODE${n}_GROUP=group${SE_GROUP[i]}"
      echo "NODE${n}_PID=$pid"
      echo "NODE${n}_LOG=$dir/sentinel/r$n/redis.log"
    done
    echo "SENTINEL_COUNT=${#SE_SENTINEL_IPS[@]}"
    for j in "${!SE_SENTINEL_IPS[@]}"; do
      n=$((j + 1))
      pid=$(record_lines "$dir" sentinel | awk -v nm="s$n" '$2 == nm { print $3 }' | tail -n 1)
      kind=$(cloud_of "${SE_SENTINEL_IPS[j]}")
      echo "SENTINEL${n}_ADDR=${SE_SENTINEL_IPS[j]}:${SENTINEL_PORTS[j]}"
      echo "SENTINEL${n}_CLOUD=$kind"
      echo "SENTINEL${n}_PID=$pid"
      echo "SENTINEL${n}_LOG=$dir/sentinel/s$n/sentinel.log"
    done
    echo "PIDS=$(pids_of "$dir" sentinel)"
  } >"$env"
  mv "$env" "$dir/sentinel.env"
  START_KIND=""
  log "sentinel setup ready; sentinels $sentinels; env: $dir/sentinel.env"
  echo "$dir/sentinel.env"
}

# ---------------------------------------------------------------------------- stop/status

# none_alive — true when no pid of the caller's `live` array is alive; sets the
# caller's `left` to the survivors (bash dynamic scoping).
none_alive() {
  local p
  left=()
  for p in "${live[@]}"; do
    if pid_alive "$p"; then left+=("$p"); fi
  done
  ((${#left[@]} == 0))
}

# stop_kind DIR [KIND] — SIGTERM every recorded live process, SIGKILL after STOP_TIMEOUT.
stop_kind() {
  local dir=$1 kind=${2:-} k name pid ip port
  local -a live=() left=()
  STOPPED=0
  while read -r k name pid ip port; do
    if proc_matches "$pid" "$ip" "$port"; then
      live+=("$pid")
      kill -TERM "$pid" 2>/dev/null || true
    fi
  done < <(record_lines "$dir" "$kind")
  STOPPED=${#live[@]}
  ((${#live[@]})) || return 0
  if wait_for "$STOP_TIMEOUT" "processes to exit after SIGTERM" none_alive; then
    return 0
  fi
  printf '%s: SIGKILL to pids still alive after %ss: %s\n' "$PROG" "$STOP_TIMEOUT" "${left[*]}" >&2
  kill -KILL "${left[@]}" 2>/dev/null || true
  if ! wait_for 5 "processes to exit after SIGKILL" none_alive; then
    printf '%s: error: pids survived SIGKILL: %s\n' "$PROG" "${left[*]}" >&2
    return 1
  fi
}

cmd_stop() {
  (($# == 1)) || usage
  local dir=$1
  T0_MS=$(now_ms)
  if [[ ! -d $dir ]]; then
    log "nothing to stop: $dir does not exist"
    return 0
  fi
  local n
  n=$(record_lines "$dir" | wc -l)
  stop_kind "$dir"
  log "stopped ${STOPPED} running of ${n} recorded processes in $dir (the others had exited)"
}

cmd_status() {
  (($# == 1)) || usage
  local dir=$1 k name pid ip port state role any=0 running=0
  while read -r k name pid ip port; do
    any=1
    if proc_matches "$pid" "$ip" "$port"; then
      running=$((running + 1))
      role=$(rcli "$ip" "$port" ROLE | head -n 1) || role="?"
      state="running role=${role:-?}"
    else
      state="stopped"
    fi
    printf '%-9s %-10s %-18s cloud=%s pid=%-8s %s\n' "$k" "$name" "$ip:$port" "$(cloud_of "$ip")" "$pid" "$state"
  done < <(record_lines "$dir")
  if ((any == 0)); then
    echo "nothing recorded in $dir"
  else
    echo "$running running"
  fi
}

main() {
  (($# >= 1)) || usage
  local cmd=$1
  shift
  case $cmd in
    single) cmd_single "$@" ;;
    cluster) cmd_cluster "$@" ;;
    sentinel) cmd_sentinel "$@" ;;
    stop) cmd_stop "$@" ;;
    status) cmd_status "$@" ;;
    -h | --help | help) usage ;;
    *) usage ;;
  esac
}

main "$@"
