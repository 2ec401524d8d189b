// Discovery: read a cluster's topology from a list of seed nodes.
//
// Each seed in turn is asked CLUSTER SHARDS (Redis >= 7) and, when it refuses
// that, CLUSTER SLOTS; the first answer that parses is the topology. A seed
// that cannot be reached, times out or answers garbage is skipped. Endpoints
// a node reports as empty mean the seed's own host.
//
// Thread-safety: pure functions (each call opens its own connections).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cloudroute/core/topology.hpp"
#include "cloudroute/net/connection.hpp"

namespace cloudroute {
namespace net {

struct Seed {
  std::string host;
  uint16_t port = 0;
};

// "host:port[,host:port…]"; IPv6 hosts in brackets ("[::1]:7000").
// kInvalid with the offending entry when one does not parse.
Result<std::vector<Seed>> ParseSeeds(const std::string &text);

// The first topology a seed answers with. Errors: the last seed's error (kConnError, kTimeout,
// kServerError, kParse, kLimit), its message naming every seed that was tried and why it failed.
Result<std::shared_ptr<const Topology>> Discover(const std::vector<Seed> &seeds,
                                                 const ConnectOptions &opts, uint32_t timeout_ms);

}  // namespace net
}  // namespace cloudroute
