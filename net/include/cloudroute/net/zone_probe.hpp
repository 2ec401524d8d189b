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

class ZoneProbe {
 public:
  explicit ZoneProbe(ClientContext *ctx) : ctx_(ctx) {}

  // The locality configuration can use a reported zone at all.
  bool ZonesMatter() const;
  // On a new connection to host:port (the node's identity). A failed round
  // trip leaves the connection broken: the caller refuses it.
  void Probe(const std::string &host, uint16_t port, Connection *conn, uint32_t timeout_ms);
  // Dials the online nodes of the current topology that have no zone and
  // were never probed (dialing is the probe; the connections stay pooled).
  void LearnZones(NodePools *pools);

 private:
  ClientContext *const ctx_;
  std::mutex mu_;
  std::unordered_map<uint32_t, bool> dialed_;  // node handle -> a probe was attempted
};

}  // namespace net
}  // namespace cloudroute
