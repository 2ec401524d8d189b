// The live client's statistics as Prometheus text exposition (format 0.0.4):
// reads by tier (so the share that crossed clouds is one query away), writes,
// fallbacks, redirects, retries, timeouts, errors, refreshes, connections,
// and per node its reads, writes, errors, breaker state and a round-trip
// latency histogram.
//
// Thread-safety: a pure function of the values given.
#pragma once

#include <string>
#include <vector>

#include "cloudroute/net/node_pools.hpp"
#include "cloudroute/net/stats.hpp"

namespace cloudroute {
namespace net {

// `now_ns` (SteadyNowNs clock) decides whether each node's breaker is open.
std::string PrometheusText(const StatsValues &s, const std::vector<NodeStatsValues> &nodes,
                           int64_t now_ns);

}  // namespace net
}  // namespace cloudroute
