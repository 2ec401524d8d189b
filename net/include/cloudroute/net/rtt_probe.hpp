// Round-trip times for NEAREST: publishing the measured ones to the router
// and measuring the nodes that get no traffic.
//
// Every command's round trip feeds its node's EWMA (NodeCounters). About
// once a second the refresher thread publishes the EWMAs that changed by
// more than 10% (Router::SetRtt; each publication rebuilds the NEAREST
// order), and PINGs — on a pooled connection, bounded by the node's tier
// timeout, at most kPingsPerTick nodes — each node that has an idle
// connection but no sample for idle_ping_ms (0: never), so NEAREST keeps
// fresh RTTs for nodes without traffic. A node is never dialed for a PING.
//
// Thread-safety: both run on the refresher thread only.
#pragma once

#include "cloudroute/net/client_context.hpp"
#include "cloudroute/net/node_pools.hpp"

namespace cloudroute {
namespace net {

void PublishRtt(ClientContext *ctx, NodePools *pools);
void PingIdle(ClientContext *ctx, NodePools *pools);

}  // namespace net
}  // namespace cloudroute
