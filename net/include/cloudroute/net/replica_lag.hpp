// Replicas that should not be read: bounding stale reads, and refusing
// replicas with no data at all.
//
// Lag: on each refresh, when a bound is configured, every master is asked
// INFO replication (parsed by core/info_text.hpp). Its master_repl_offset
// and, per replica, the replica's acknowledged offset, state and seconds
// since the last ack tell how far behind each replica is; a replica past
// either bound (or not listed as online) is marked lagging in the router,
// which reads it only after every other candidate. A master that does not
// answer leaves its replicas' marks as they were (the next refresh asks
// again); one that refuses INFO (an ACL user without it) does too, with a
// "replica lag unknown" warning carrying the server's reason. No-op when
// both bounds are 0.
//
// Readiness: on each new connection, a replica that holds no replicated
// data yet (a restarted, empty replica whose sync has not started or
// finished) would answer nil for every key; refusing the connection makes
// reads move on to the next candidate. Masters and synced replicas pass.
//
// Thread-safety: CheckReplicaLag runs on the refreshing thread;
// CheckReplicaReady on whichever thread dials (the connection is its own).
#pragma once

#include <cstdint>

#include "cloudroute/core/topology.hpp"
#include "cloudroute/net/client_context.hpp"
#include "cloudroute/net/node_pools.hpp"

namespace cloudroute {
namespace net {

void CheckReplicaLag(ClientContext *ctx, NodePools *pools, const Topology &t);

// kConnError with the reason when the connection is to a replica without
// data; OK otherwise (also when the reply is not INFO text we understand).
Status CheckReplicaReady(Connection *conn, uint32_t timeout_ms);

}  // namespace net
}  // namespace cloudroute
