// Slot migrations: finding them on refresh, not only by meeting an ASK.
//
// Redis keeps a slot's MIGRATING state on the source master alone: CLUSTER
// NODES asked of that master shows "[slot->-<target id>]" on its own
// ("myself") line (Redis 7.0; replicas and the other masters show nothing,
// CLUSTER SHARDS/SLOTS show nothing). So on each refresh every master is
// asked CLUSTER NODES — one small reply each, all in flight at once on
// pooled connections, bounded by one refresh timeout. Its markers
// (core/cluster_nodes_text.hpp) mark the slots migrating in the router
// (their reads go to the master); the rest of the slots of a master that
// answered are cleared, unless an ASK re-armed them after the scan began. A
// master that does not answer in time leaves its slots' marks as they were
// (the marks' TTL bounds them).
//
// Thread-safety: runs on the refreshing thread (under the client's refresh
// mutex); uses the pools like any caller.
#pragma once

#include "cloudroute/core/topology.hpp"
#include "cloudroute/net/client_context.hpp"
#include "cloudroute/net/node_pools.hpp"

namespace cloudroute {
namespace net {

void ScanMigrations(ClientContext *ctx, NodePools *pools, const Topology &t);

}  // namespace net
}  // namespace cloudroute
