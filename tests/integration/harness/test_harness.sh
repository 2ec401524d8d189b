#!/usr/bin/env bash
# test_harness.sh — self-test of scripts/redis-harness.sh and scripts/latency-proxy.py
# against real redis-server/redis-sentinel processes on loopback (127.0.0.0/8 only).
#
# Usage: tests/integration/harness/test_harness.sh
# Env:   HARNESS_TEST_BASE_PORT (default 7301). Ports used: BASE..BASE+8 and
#        BASE+20..BASE+28 (two clusters, plus their bus ports +10000), BASE+40..BASE+52
#        (sentinel setup), BASE+60 (single), BASE+61 (latency proxy), BASE+63 (valkey single).
#        HARNESS_TEST_KEEP=1 keeps the work directory (it is kept anyway on failure).
# Prints "ok"/"FAIL" per check and ends with the line "N passed, M failed";
# exits non-zero if any check failed.

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
HARNESS=$ROOT/scripts/redis-harness.sh
PROXY=$ROOT/scripts/latency-proxy.py
BASE=${HARNESS_TEST_BASE_PORT:-7301}
CL_BASE=$BASE
NC_BASE=$((BASE + 20))
SE_BASE=$((BASE + 40))
SINGLE_PORT=$((BASE + 60))
PROXY_PORT=$((BASE + 61))
PROXY_DELAY_MS=5

WORK=$(mktemp -d "${TMPDIR:-/tmp}/harness-test.XXXXXX")
CL_DIR=$WORK/cluster
NC_DIR=$WORK/noncontig
SE_DIR=$WORK/sentinel
SI_DIR=$WORK/single
PROXY_PID=""
PASSED=0
FAILED=0
SUMMARY_PRINTED=0
T0=$EPOCHREALTIME

elapsed() {
  local now=${EPOCHREALTIME//[.,]/} t0=${T0//[.,]/}
  printf '%d.%01d' $(((now - t0) / 1000000)) $(((now - t0) / 100000 % 10))
}

pass() {
  PASSED=$((PASSED + 1))
  printf 'ok   - [%ss] %s\n' "$(elapsed)" "$1"
}

failed() {
  FAILED=$((FAILED + 1))
  printf 'FAIL - [%ss] %s\n' "$(elapsed)" "$1"
}

# check DESCRIPTION CMD... — one test case; CMD's output is shown only on failure
# (and as "#" lines on success when VERBOSE_CHECK=1).
check() {
  local desc=$1 out
  shift
  if out=$("$@" 2>&1); then
    pass "$desc"
    if [[ ${VERBOSE_CHECK:-0} == 1 && -n $out ]]; then printf '#      %s\n' "${out//$'\n'/$'\n'#      }"; fi
  else
    failed "$desc"
    [[ -z $out ]] || printf '       | %s\n' "${out//$'\n'/$'\n'       | }"
  fi
}

rcli() {
  local addr=$1
  shift
  timeout 5 redis-cli -h "${addr%:*}" -p "${addr##*:}" --raw "$@"
}

# envget FILE KEY
envget() {
  sed -n "s/^$2=//p" "$1" 2>/dev/null | tail -n 1
}

all_pids() {
  local f
  for f in "$CL_DIR/cluster.env" "$NC_DIR/cluster.env" "$SE_DIR/sentinel.env" "$SI_DIR/single.env"; do
    [[ -f $f ]] && envget "$f" PIDS | tr ',' '\n'
  done
  if [[ -n $PROXY_PID ]]; then echo "$PROXY_PID"; fi
}

pid_running() { # alive and not a zombie waiting for init to reap it
  local state
  kill -0 "$1" 2>/dev/null || return 1
  state=$(awk '/^State:/ { print $2 }' "/proc/$1/status" 2>/dev/null) || return 1
  [[ -n $state && $state != Z && $state != X ]]
}

cleanup() {
  local rc=$?
  set +e
  if [[ -n $PROXY_PID ]] && pid_running "$PROXY_PID"; then kill "$PROXY_PID"; fi
  local d
  for d in "$CL_DIR" "$NC_DIR" "$SE_DIR" "$SI_DIR"; do
    [[ -d $d ]] && "$HARNESS" stop "$d" >/dev/null 2>&1
  done
  if ((FAILED > 0 || rc != 0)) || [[ ${HARNESS_TEST_KEEP:-0} == 1 ]]; then
    # after the summary line nothing more is printed: it must stay the last line
    [[ $SUMMARY_PRINTED == 1 ]] || echo "# work directory kept: $WORK"
  else
    rm -rf "$WORK"
  fi
  if [[ $SUMMARY_PRINTED != 1 ]]; then
    echo "$PASSED passed, $((FAILED > 0 ? FAILED : 1)) failed"
  fi
}
trap cleanup EXIT

# ---------------------------------------------------------------------------- checks

# Checks CLUSTER SHARDS of every node against the layout in cluster.env.
shards_match_env() {
  python3 - "$1" <<'PY'
import json, subprocess, sys
env = {}
for line in open(sys.argv[1]):
    line = line.strip()
    if line and not line.startswith("#"):
        k, _, v = line.partition("=")
        env[k] = v
cloud = lambda ip: {"127.0.1.": "A", "127.0.2.": "B"}.get(ip[:8], "?")
def ranges(text):
    return sorted(tuple(int(x) for x in r.split("-")) for r in text.split(","))
want = {}
for s in (1, 2, 3):
    want[env[f"SHARD{s}_MASTER"]] = (ranges(env[f"SHARD{s}_SLOTS"]), set(env[f"SHARD{s}_REPLICAS"].split(",")))
errors = []
for addr in env["SEEDS"].split(","):
    ip, port = addr.rsplit(":", 1)
    out = subprocess.run(["timeout", "5", "redis-cli", "-h", ip, "-p", port, "--json", "CLUSTER", "SHARDS"],
                         capture_output=True, text=True, check=True).stdout
    shards = json.loads(out)
    if len(shards) != 3:
        errors.append(f"{addr}: {len(shards)} shards")
        continue
    master_clouds = set()
    for sh in shards:
        nodes = sh["nodes"]
        if len(nodes) != 3:
            errors.append(f"{addr}: shard with {len(nodes)} nodes")
        if {n["health"] for n in nodes} != {"online"}:
            errors.append(f"{addr}: not all online: {[n['health'] for n in nodes]}")
        if {cloud(n["ip"]) for n in nodes} != {"A", "B"}:
            errors.append(f"{addr}: shard not spread over both clouds: {[n['ip'] for n in nodes]}")
        masters = [n for n in nodes if n["role"] == "master"]
        if len(masters) != 1:
            errors.append(f"{addr}: shard with {len(masters)} masters")
            continue
        m = f"{masters[0]['ip']}:{masters[0]['port']}"
        master_clouds.add(cloud(masters[0]["ip"]))
        got_ranges = sorted(zip(sh["slots"][0::2], sh["slots"][1::2]))
        reps = {f"{n['ip']}:{n['port']}" for n in nodes if n["role"] == "replica"}
        if m not in want:
            errors.append(f"{addr}: unexpected master {m}")
        elif (got_ranges, reps) != (want[m][0], want[m][1]):
            errors.append(f"{addr}: shard {m} has {got_ranges} {sorted(reps)}, want {want[m][0]} {sorted(want[m][1])}")
    if master_clouds != {"A", "B"}:
        errors.append(f"{addr}: masters only in clouds {master_clouds}")
print("\n".join(errors))
sys.exit(1 if errors else 0)
PY
}

replica_readonly_get() { # ADDR KEY VALUE
  local out
  out=$(printf 'READONLY\nGET %s\n' "$2" | timeout 5 redis-cli -h "${1%:*}" -p "${1##*:}" --raw)
  [[ $(tail -n 1 <<<"$out") == "$3" ]] || {
    echo "got: $out"
    return 1
  }
}

replica_redirects() { # ADDR KEY MASTER — without READONLY a replica answers MOVED <slot> MASTER
  local out
  out=$(rcli "$1" GET "$2")
  [[ $out == MOVED*" $3" ]] || {
    echo "got: $out"
    return 1
  }
}

no_loopback_default_addr() { # ADDR — CLUSTER NODES and INFO replication never show 127.0.0.1
  local out
  out=$(rcli "$1" CLUSTER NODES; rcli "$1" INFO replication)
  ! grep -n '127\.0\.0\.1' <<<"$out"
}

replication_ips_ok() { # MASTER_ADDR REPLICAS(comma)
  local out r ip port
  out=$(rcli "$1" INFO replication)
  for r in ${2//,/ }; do
    ip=${r%:*} port=${r##*:}
    grep -q "ip=$ip,port=$port,state=online" <<<"$out" || {
      echo "replica $r not online at master $1:"
      echo "$out"
      return 1
    }
  done
}

noncontig_master_has_two_ranges() { # ENV
  python3 - "$1" <<'PY'
import json, subprocess, sys
env = dict(l.strip().split("=", 1) for l in open(sys.argv[1]) if "=" in l and not l.startswith("#"))
ip, port = env["SEEDS"].split(",")[0].rsplit(":", 1)
slots = json.loads(subprocess.run(["timeout", "5", "redis-cli", "-h", ip, "-p", port, "-2", "--json",
                                   "CLUSTER", "SLOTS"], capture_output=True, text=True, check=True).stdout)
by_master, covered = {}, 0
for entry in slots:
    lo, hi, master = entry[0], entry[1], entry[2]
    by_master.setdefault(f"{master[0]}:{master[1]}", []).append((lo, hi))
    covered += hi - lo + 1
    if len(entry) - 2 != 3:
        print(f"range {lo}-{hi} lists {len(entry) - 2} nodes, want 3")
        sys.exit(1)
m1 = env["SHARD1_MASTER"]
print({k: sorted(v) for k, v in by_master.items()})
ok = (covered == 16384 and sorted(by_master.get(m1, [])) == [(0, 3096), (4078, 5460)]
      and any(len(v) >= 2 for v in by_master.values()))
sys.exit(0 if ok else 1)
PY
}

cluster_ok_on_all() { # ENV
  local a out
  for a in $(envget "$1" SEEDS | tr ',' ' '); do
    out=$(rcli "$a" CLUSTER INFO) || return 1
    [[ $out == *cluster_state:ok* ]] || {
      echo "$a: $(grep cluster_state <<<"$out")"
      return 1
    }
  done
}

# Kill the master of shard 2 (cloud B); a replica must take over within 20 s.
cluster_failover() { # ENV
  local env=$1 pid m reps deadline r role
  m=$(envget "$env" SHARD2_MASTER)
  reps=$(envget "$env" SHARD2_REPLICAS)
  pid=$(envget "$env" NODE4_PID)
  [[ $(envget "$env" NODE4_ADDR) == "$m" ]] || return 1
  kill -9 "$pid"
  deadline=$((SECONDS + 20))
  while ((SECONDS < deadline)); do
    for r in ${reps//,/ }; do
      role=$(rcli "$r" ROLE 2>/dev/null | head -n 1) || true
      if [[ $role == master ]]; then
        # the other nodes must agree too before we call it done
        if cluster_ok_on_all_but "$env" "$m"; then
          echo "promoted $r after $((20 - deadline + SECONDS)) s"
          return 0
        fi
      fi
    done
    sleep 0.2
  done
  echo "no replica of $m promoted within 20 s"
  return 1
}

cluster_ok_on_all_but() { # ENV DEAD_ADDR
  local a out
  for a in $(envget "$1" SEEDS | tr ',' ' '); do
    [[ $a == "$2" ]] && continue
    out=$(rcli "$a" CLUSTER INFO 2>/dev/null) || return 1
    [[ $out == *cluster_state:ok* ]] || return 1
  done
}

sentinels_agree() { # ENV GROUP WANT_ADDR
  local s out
  for s in $(envget "$1" SENTINELS | tr ',' ' '); do
    out=$(rcli "$s" SENTINEL get-master-addr-by-name "$2" | paste -sd:)
    [[ $out == "$3" ]] || {
      echo "sentinel $s says $2 is at '$out', want $3"
      return 1
    }
  done
}

sentinel_sees_replicas() { # ENV GROUPNUM
  local env=$1 g=$2 s got want
  want=$(envget "$env" "GROUP${g}_REPLICAS" | tr ',' '\n' | sort | paste -sd,)
  for s in $(envget "$env" SENTINELS | tr ',' ' '); do
    got=$(rcli "$s" SENTINEL REPLICAS "group$g" | awk 'NR % 2 == 1 { k = $0; next } k == "name"' | sort | paste -sd,)
    [[ $got == "$want" ]] || {
      echo "sentinel $s: replicas of group$g = '$got', want '$want'"
      return 1
    }
  done
}

sentinel_ckquorum() { # ENV
  local s g out
  for s in $(envget "$1" SENTINELS | tr ',' ' '); do
    for g in group0 group1; do
      out=$(rcli "$s" SENTINEL CKQUORUM "$g")
      [[ $out == "OK 3 usable Sentinels"* ]] || {
        echo "$s $g: $out"
        return 1
      }
    done
  done
}

# SENTINEL FAILOVER group1; every sentinel must report one of the old replicas within 20 s.
sentinel_failover() { # ENV
  local env=$1 old reps s deadline out t0=$SECONDS
  old=$(envget "$env" GROUP1_MASTER)
  reps=$(envget "$env" GROUP1_REPLICAS)
  s=$(envget "$env" SENTINELS | cut -d, -f1)
  out=$(rcli "$s" SENTINEL FAILOVER group1)
  [[ $out == OK ]] || {
    echo "SENTINEL FAILOVER: $out"
    return 1
  }
  deadline=$((SECONDS + 20))
  while ((SECONDS < deadline)); do
    local all=1 new="" a
    for a in $(envget "$env" SENTINELS | tr ',' ' '); do
      out=$(rcli "$a" SENTINEL get-master-addr-by-name group1 | paste -sd:)
      if [[ $out == "$old" || ,$reps, != *",$out,"* ]]; then
        all=0
        break
      fi
      new=$out
    done
    if ((all)) && [[ $(rcli "$new" ROLE | head -n 1) == master ]]; then
      echo "group1 master $old -> $new after ~$((SECONDS - t0)) s"
      return 0
    fi
    sleep 0.2
  done
  echo "failover of group1 did not complete within 20 s"
  return 1
}

keyslot_matches() { # ADDR KEY SLOT
  local out
  out=$(rcli "$1" CLUSTER KEYSLOT "$2")
  [[ $out == "$3" ]] || {
    echo "CLUSTER KEYSLOT $2 = $out, want $3"
    return 1
  }
}

fails_cleanly() { # CMD... — must exit non-zero
  if "$@"; then
    echo "unexpectedly succeeded: $*"
    return 1
  fi
  return 0
}

# Median PING round trip, direct vs through the proxy; asserts a lower bound only.
proxy_adds_delay() { # DIRECT_ADDR PROXY_ADDR DELAY_MS
  python3 - "$@" <<'PY'
import socket, statistics, sys, time
def median_rtt(addr, n=20):
    host, port = addr.rsplit(":", 1)
    s = socket.create_connection((host, int(port)), timeout=5)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    samples = []
    for _ in range(n):
        t = time.perf_counter()
        s.sendall(b"PING\r\n")
        buf = b""
        while not buf.endswith(b"\r\n"):
            chunk = s.recv(64)
            if not chunk:
                raise SystemExit("connection closed")
            buf += chunk
        samples.append((time.perf_counter() - t) * 1000)
        assert buf == b"+PONG\r\n", buf
    s.close()
    return statistics.median(samples)
direct, proxied = median_rtt(sys.argv[1]), median_rtt(sys.argv[2])
delay = float(sys.argv[3])
print(f"median PING rtt: direct {direct:.2f} ms, through proxy {proxied:.2f} ms (2 x {delay} ms added)")
sys.exit(0 if proxied - direct >= 2 * delay * 0.8 else 1)
PY
}

# Pipelined commands through the proxy come back complete and in order.
proxy_keeps_order() { # PROXY_ADDR
  python3 - "$1" <<'PY'
import socket, sys
host, port = sys.argv[1].rsplit(":", 1)
n = 3000
s = socket.create_connection((host, int(port)), timeout=10)
s.sendall(b"".join(b"ECHO %d\r\n" % i for i in range(n)))
want = b"".join(b"$%d\r\n%d\r\n" % (len(str(i)), i) for i in range(n))
got = b""
while len(got) < len(want):
    chunk = s.recv(65536)
    if not chunk:
        break
    got += chunk
s.shutdown(socket.SHUT_WR)
tail = s.recv(16)  # proxy forwards our EOF; redis closes; we get EOF back
s.close()
print(f"{len(got)} of {len(want)} bytes, equal={got == want}, eof={tail == b''}")
sys.exit(0 if got == want and tail == b"" else 1)
PY
}

nothing_left() {
  local p left=()
  for p in $(all_pids); do
    if pid_running "$p"; then left+=("$p"); fi
  done
  if ((${#left[@]})); then
    echo "still running: ${left[*]}"
    ps -o pid,stat,args -p "$(
      IFS=,
      echo "${left[*]}"
    )" || true
    return 1
  fi
}

ports_closed() {
  local a
  for a in "$@"; do
    # shellcheck disable=SC2016 # expanded by the inner bash
    if timeout 2 bash -c 'exec 3<>"/dev/tcp/${1%:*}/${1##*:}"' _ "$a" 2>/dev/null; then
      echo "$a still accepts connections"
      return 1
    fi
  done
}

# ---------------------------------------------------------------------------- run

echo "# work directory: $WORK (base port $BASE)"
if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null ||
  ! command -v python3 >/dev/null; then
  failed "redis-server, redis-cli and python3 are installed (apt-get install -y redis-server redis-tools redis-sentinel)"
  exit 1
fi
mkdir -p "$CL_DIR" "$NC_DIR" "$SE_DIR" "$SI_DIR"

# --- single
check "single: starts a cluster-enabled node on 127.0.0.1:$SINGLE_PORT" \
  "$HARNESS" single "$SI_DIR" "$SINGLE_PORT"
SINGLE=127.0.0.1:$SINGLE_PORT
check "single: CLUSTER KEYSLOT foo = 12182" keyslot_matches "$SINGLE" foo 12182
check "single: CLUSTER KEYSLOT 123456789 = 12739 (CRC16 check value)" keyslot_matches "$SINGLE" 123456789 12739
check "single: hash tag {user1000}.following = 3443" keyslot_matches "$SINGLE" '{user1000}.following' 3443
check "single: refuses a non-loopback address" fails_cleanly "$HARNESS" single "$WORK/bad" $((BASE + 62)) 10.1.2.3

# stop must find valkey-server processes too (their title says "valkey-server IP:PORT").
valkey_single_stops() { # DIR PORT
  local pid
  REDIS_SERVER=valkey-server REDIS_CLI=valkey-cli "$HARNESS" single "$1" "$2" || return 1
  pid=$(awk '$1 == "single" {print $3}' "$1/pids")
  pid_running "$pid" || { echo "valkey-server not running after start"; return 1; }
  "$HARNESS" stop "$1" 2>&1 | grep -q "stopped 1 running of 1" || return 1
  local _
  for _ in $(seq 50); do # it exits within 5 s
    pid_running "$pid" || return 0
    sleep 0.1
  done
  echo "valkey-server $pid still running 5 s after stop"
  return 1
}
if command -v valkey-server >/dev/null; then
  check "single: stop also stops valkey-server" valkey_single_stops "$WORK/valkey" $((BASE + 63))
fi

# --- two clusters at once (default and noncontiguous layout), different ports
"$HARNESS" cluster "$CL_DIR" "$CL_BASE" >"$WORK/cluster.out" 2>&1 &
cl_job=$!
NONCONTIGUOUS=1 "$HARNESS" cluster "$NC_DIR" "$NC_BASE" >"$WORK/noncontig.out" 2>&1 &
nc_job=$!
cl_rc=0 nc_rc=0
wait "$cl_job" || cl_rc=$?
wait "$nc_job" || nc_rc=$?
check "cluster: ready (base port $CL_BASE) — $(sed -n 's/.*\[\([0-9.]*s\)\] cluster ready.*/\1/p' "$WORK/cluster.out")" \
  bash -c "cat '$WORK/cluster.out'; exit $cl_rc"
check "cluster --noncontiguous: ready at the same time on other ports — $(sed -n 's/.*\[\([0-9.]*s\)\] cluster ready.*/\1/p' "$WORK/noncontig.out")" \
  bash -c "cat '$WORK/noncontig.out'; exit $nc_rc"

if ((cl_rc == 0)); then
  ENV=$CL_DIR/cluster.env
  check "cluster: env has 9 seeds, pids and ids" bash -c "
    set -a; . '$ENV'; set +a
    [[ \$(tr ',' '\n' <<<\"\$SEEDS\" | wc -l) == 9 && \$(tr ',' '\n' <<<\"\$PIDS\" | wc -l) == 9 ]] &&
    [[ \$NODE1_ADDR == 127.0.1.1:$CL_BASE && \$NODE1_ROLE == master && \$NODE1_CLOUD == A && \$NODE4_CLOUD == B ]] &&
    [[ \$SHARD2_MASTER_CLOUD == B && \$NODE9_ID =~ ^[0-9a-f]{40}$ ]]"
  check "cluster: CLUSTER SHARDS on every node: 3 shards x 3 nodes, both clouds, masters in A and B, layout = env" \
    shards_match_env "$ENV"
  check "cluster: cluster_state:ok on every node" cluster_ok_on_all "$ENV"
  check "cluster: no node is known by 127.0.0.1 (announce/bind-source-addr work)" \
    no_loopback_default_addr "$(envget "$ENV" NODE5_ADDR)"
  for s in 1 2 3; do
    key=$(envget "$ENV" "SHARD${s}_KEY")
    val=$(envget "$ENV" "SHARD${s}_VALUE")
    master=$(envget "$ENV" "SHARD${s}_MASTER")
    check "cluster: shard $s master $master lists its replicas by their own addresses" \
      replication_ips_ok "$master" "$(envget "$ENV" "SHARD${s}_REPLICAS")"
    for r in $(envget "$ENV" "SHARD${s}_REPLICAS" | tr ',' ' '); do
      check "cluster: shard $s replica $r answers READONLY GET $key" replica_readonly_get "$r" "$key" "$val"
    done
    check "cluster: shard $s replica without READONLY redirects to $master" \
      replica_redirects "$(envget "$ENV" "SHARD${s}_REPLICAS" | cut -d, -f1)" "$key" "$master"
  done
  check "cluster: status lists 9 running nodes" bash -c "'$HARNESS' status '$CL_DIR' | grep -qx '9 running'"
  check "cluster: a second start in the same DIR is refused while running" \
    fails_cleanly "$HARNESS" cluster "$CL_DIR" "$CL_BASE"
  VERBOSE_CHECK=1 check "cluster: killing shard 2's master (cloud B) fails over to a replica" cluster_failover "$ENV"
fi

if ((nc_rc == 0)); then
  ENV=$NC_DIR/cluster.env
  VERBOSE_CHECK=1 check "noncontiguous: shard 1 master owns 0-3096 and 4078-5460, all 16384 slots covered, 3 nodes per range" \
    noncontig_master_has_two_ranges "$ENV"
  check "noncontiguous: CLUSTER SHARDS layout = env" shards_match_env "$ENV"
  check "noncontiguous: shard 1 replica answers READONLY GET" replica_readonly_get \
    "$(envget "$ENV" SHARD1_REPLICAS | cut -d, -f2)" "$(envget "$ENV" SHARD1_KEY)" "$(envget "$ENV" SHARD1_VALUE)"
fi

# --- sentinel
se_rc=0
"$HARNESS" sentinel "$SE_DIR" "$SE_BASE" >"$WORK/sentinel.out" 2>&1 || se_rc=$?
check "sentinel: ready (base port $SE_BASE) — $(sed -n 's/.*\[\([0-9.]*s\)\] sentinel setup ready.*/\1/p' "$WORK/sentinel.out")" \
  bash -c "cat '$WORK/sentinel.out'; exit $se_rc"
if ((se_rc == 0)); then
  ENV=$SE_DIR/sentinel.env
  check "sentinel: every sentinel: get-master-addr-by-name group0 = $(envget "$ENV" GROUP0_MASTER)" \
    sentinels_agree "$ENV" group0 "$(envget "$ENV" GROUP0_MASTER)"
  check "sentinel: every sentinel: get-master-addr-by-name group1 = $(envget "$ENV" GROUP1_MASTER)" \
    sentinels_agree "$ENV" group1 "$(envget "$ENV" GROUP1_MASTER)"
  check "sentinel: every sentinel lists group0's replicas by their own addresses" sentinel_sees_replicas "$ENV" 0
  check "sentinel: every sentinel lists group1's replicas by their own addresses" sentinel_sees_replicas "$ENV" 1
  check "sentinel: CKQUORUM OK with 3 usable sentinels for both groups" sentinel_ckquorum "$ENV"
  VERBOSE_CHECK=1 check "sentinel: SENTINEL FAILOVER group1 completes and all sentinels follow" sentinel_failover "$ENV"
fi

# --- latency proxy (in front of the single node)
PROXY_ADDR=127.0.2.10:$PROXY_PORT
python3 "$PROXY" --listen "$PROXY_ADDR" --target "$SINGLE" --delay-ms "$PROXY_DELAY_MS" \
  >"$WORK/proxy.out" 2>&1 &
PROXY_PID=$!
proxy_ready() {
  local _
  for _ in $(seq 50); do
    grep -q '^latency-proxy ready' "$WORK/proxy.out" && return 0
    pid_running "$PROXY_PID" || break
    sleep 0.1
  done
  cat "$WORK/proxy.out"
  return 1
}
check "proxy: prints its ready line" proxy_ready
VERBOSE_CHECK=1 check "proxy: PING through it is >= 2 x ${PROXY_DELAY_MS} ms x 0.8 slower (median of 20)" \
  proxy_adds_delay "$SINGLE" "$PROXY_ADDR" "$PROXY_DELAY_MS"
check "proxy: 3000 pipelined commands come back in order, EOF forwarded" proxy_keeps_order "$PROXY_ADDR"
check "proxy: refuses a non-loopback target" \
  fails_cleanly python3 "$PROXY" --listen 127.0.0.1:0 --target 192.0.2.1:1
# SIGTERM the proxy from this shell (its parent), so that `wait` sees its exit status.
kill -TERM "$PROXY_PID"
for _ in $(seq 50); do
  pid_running "$PROXY_PID" || break
  sleep 0.1
done
if pid_running "$PROXY_PID"; then
  kill -KILL "$PROXY_PID"
  proxy_rc="still running 5 s after SIGTERM"
else
  proxy_rc=0
  wait "$PROXY_PID" || proxy_rc=$?
fi
exit_status_zero() {
  [[ $1 == 0 ]] || {
    echo "proxy exit status: $1"
    return 1
  }
}
check "proxy: exits 0 on SIGTERM" exit_status_zero "$proxy_rc"

# --- stop everything
stop_all() {
  local d
  for d in "$CL_DIR" "$NC_DIR" "$SE_DIR" "$SI_DIR"; do
    "$HARNESS" stop "$d" || return 1
  done
}
check "stop: stops every setup" stop_all
check "stop: no recorded PID is still running" nothing_left
mapfile -t ALL_ADDRS < <(sed -n 's/^[A-Z0-9_]*_ADDR=//p' "$CL_DIR/cluster.env" "$NC_DIR/cluster.env" \
  "$SE_DIR/sentinel.env" "$SI_DIR/single.env" 2>/dev/null)
check "stop: all ${#ALL_ADDRS[@]} server ports and the proxy port are closed" \
  ports_closed "${ALL_ADDRS[@]}" "$PROXY_ADDR"
check "stop: is idempotent" stop_all
check "status: reports nothing running" bash -c "'$HARNESS' status '$CL_DIR' | grep -qx '0 running'"

echo "# total $(elapsed) s"
if ((FAILED > 0)) || [[ ${HARNESS_TEST_KEEP:-0} == 1 ]]; then echo "# work directory kept: $WORK"; fi
SUMMARY_PRINTED=1
echo "$PASSED passed, $FAILED failed"
((FAILED == 0))
