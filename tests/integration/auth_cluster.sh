#!/usr/bin/env bash
# A harness cluster (scripts/redis-harness.sh) whose nodes require PASSWORD
# (requirepass, and masterauth for their replication); the harness's own
# redis-cli calls authenticate through REDISCLI_AUTH. Stop it with
# `redis-harness.sh stop DIR` (it signals recorded PIDs, no AUTH needed).
#   auth_cluster.sh DIR BASE_PORT PASSWORD
set -euo pipefail
[[ $# -eq 3 ]] || { echo "usage: auth_cluster.sh DIR BASE_PORT PASSWORD" >&2; exit 2; }
HARNESS_EXTRA_CONF=$(printf 'requirepass %s\nmasterauth %s' "$3" "$3") REDISCLI_AUTH=$3 \
  exec "$(dirname "$0")/../../scripts/redis-harness.sh" cluster "$1" "$2"
