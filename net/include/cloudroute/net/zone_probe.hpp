// ZoneProbe: learning a node's availability zone from the node itself.
//
// A node's zone comes from the cheapest source that has it — the topology
// reply (CLUSTER SHARDS/SLOTS metadata, free), else what the node says about
// itself on a new connection (HELLO's availability_zone, Valkey 8.1+, else
// INFO server's availability_zone, Valkey 8.0+: both asked in one pipelined
// round trip), else nothing (the static configuration decides). It is asked
// once per new connection, only when the locality configuration uses zones
// and the topology did not carry one, and fed to Router::SetNodeZone. After
// a refresh, read candidates the client has no connection to yet are dialed
// once (in parallel) so that their zones are known before a read needs the
// order; nodes are never re-asked on refresh.
//
// The probe is optional, and so is its cost: its round trip waits at most
// kZoneProbeTimeoutMs (or the dial's budget left, when shorter), never the
// command's tier timeout. A probe that fails — no answer in that time, an
// answer that is not RESP, a reply over the caps — leaves the node's zone
// unknown, logs one warning for the node (not one per connection) and marks
// the node so that its connections skip the probe for kZoneProbeRetryMs; the
// connection it broke is replaced by the pool's one re-dial (node_pools.hpp),
// so data commands never fail for it. An error reply (HELLO before Redis 6)
// or a reply without a zone is an answer, not a failure.
//
// Thread-safety: Probe runs on whichever thread dials (under no client
// lock); LearnZones on the refreshing thread. Both are safe together.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

#include "cloudroute/net/client_context.hpp"
#include "cloudroute/net/node_pools.hpp"

namespace cloudroute {
namespace net {

// The probe's own round-trip bound, and how long a node whose probe failed
// is not asked again.
constexpr uint32_t kZoneProbeTimeoutMs = 250;
constexpr int64_t kZoneProbeRetryMs = 5 * 60 * 1000;

class ZoneProbe {
 public:
  explicit ZoneProbe(ClientContext *ctx) : ctx_(ctx) {}

  // The locality configuration can use a reported zone at all.
  bool ZonesMatter() const;
  // On a new connection to host:port (the node's identity), within
  // min(timeout_ms, kZoneProbeTimeoutMs). A failed round trip leaves the
  // connection broken (the stream cannot be trusted after it): the caller
  // dials a fresh one, which this node's probe then skips.
  void Probe(const std::string &host, uint16_t port, Connection *conn, uint32_t timeout_ms);
  // Dials the online nodes of the current topology that have no zone and
  // were never probed (dialing is the probe; the connections stay pooled).
  void LearnZones(NodePools *pools);

 private:
  ClientContext *const ctx_;
  std::mutex mu_;
  std::unordered_map<uint32_t, bool> dialed_;  // node handle -> a probe was attempted
  // address -> when its probe last failed (SteadyNowNs); kept for the log:
  // a node is warned about once.
  std::unordered_map<std::string, int64_t> failed_;
};

}  // namespace net
}  // namespace cloudroute
