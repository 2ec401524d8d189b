#!/usr/bin/env bash
# Runs the demo on ports 7901.. and checks what it claims.
set -euo pipefail
script=$1 cli=$2
out=$(CLOUDROUTE_CLI=$cli DEMO_BASE_PORT=7901 DEMO_REQUESTS=60 "$script" 2>&1) || {
  echo "$out"; echo "demo.sh failed" >&2; exit 1; }
echo "$out"
passed=0 failed=0
check() {  # description, grep pattern
  if grep -qE "$2" <<<"$out"; then passed=$((passed + 1)); echo "ok   - $1"
  else failed=$((failed + 1)); echo "FAIL - $1"; fi
}
check "cloud-aware reads are all served in cloud A" 'local-replicas-first \(libcloudroute\).* 100\.0% +0$'
check "the median request is faster than with master reads" 'median request [0-9.]+x faster'
check "no request failed through the failover and the killed replica" '^failed requests: 0, failed probe writes: 0'
check "the failed-over master is now the write node (cloud A)" 'harness:shard2:2: w=127\.0\.1\.6:7906'
check "the killed replica is shown down" '127\.0\.1\.2:7902\(down\)'
echo "$passed passed, $failed failed"
((failed == 0))
