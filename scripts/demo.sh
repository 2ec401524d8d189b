#!/usr/bin/env bash
# The main job, for now: build the cloudroute CLI and route keys on a
# two-cloud topology shipped in the repo (a saved CLUSTER SLOTS reply:
# 3 shards, nodes on 127.0.1.x = cloud A "aws" and 127.0.2.x = cloud B "gcp").
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
cmake --preset default >/dev/null
cmake --build --preset default --target cloudroute_cli -j "$(nproc)" >/dev/null
cli=build/default/tools/cloudroute
reply=examples/two-clouds.cluster-slots.resp
loc=(--client-location aws/us-east-1/use1-az1 --local-cidr 127.0.1.0/24
     --location-rule 127.0.2.0/24=gcp/us-central1)

echo "\$ cloudroute keyslot user:1000 '{user:1000}:cart'"
"$cli" keyslot user:1000 '{user:1000}:cart'
echo
echo "\$ cloudroute topology --cluster-slots $reply ${loc[*]}"
"$cli" topology --cluster-slots "$reply" "${loc[@]}"
echo
echo "\$ cloudroute route --cluster-slots $reply ${loc[*]} --explain user:1000 order:77"
"$cli" route --cluster-slots "$reply" "${loc[@]}" --explain user:1000 order:77
echo
echo "\$ cloudroute route --json --policy local-replicas-first ... user:1000 order:77 session:9"
"$cli" route --json --cluster-slots "$reply" "${loc[@]}" --policy local-replicas-first user:1000 order:77 session:9
