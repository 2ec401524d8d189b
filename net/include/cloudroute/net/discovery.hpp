// Discovery: read a cluster's topology from a list of seed nodes.
//
// Each seed in turn is asked CLUSTER SHARDS (Redis >= 7) and, when it refuses
// that, CLUSTER SLOTS; the first answer that parses is the topology. A seed
// that cannot be reached, times out or answers garbage is skipped. Endpoints
// a node reports as empty mean the seed's own host.
//
// A reply that contradicts itself (two masters for a shard: Status::
// contradiction) is refused like garbage, never installed. But it is what a
// cluster's nodes say for a moment while they disagree — about 0.5 s after a
// failback on Valkey 8 and 9 — so when some seed answered so and every other
// one failed only for a passing reason (unreachable, timed out, LOADING,
// CLUSTERDOWN, TRYAGAIN, MASTERDOWN), every seed is asked again after a short
// backoff (kSettleBackoffBaseMs doubling to kSettleBackoffCapMs, jittered)
// while settle_ms lasts. A hard failure (AUTH or ACL refused, cluster support
// disabled, a malformed reply, a limit) at any seed ends it at once.
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

constexpr uint32_t kSettleBackoffBaseMs = 50;
constexpr uint32_t kSettleBackoffCapMs = 250;

// The first topology a seed answers with, asking every seed again while they
// disagree for at most settle_ms (0: once). Errors: kParse with
// Status::contradiction() when the seeds still disagreed — "no seed answered
// with a consistent topology", each seed and why, and how many times over how
// many ms every seed was asked; otherwise the last seed's error (kConnError,
// kTimeout, kServerError, kParse, kLimit), its message naming every seed that
// was tried and why it failed; kConnError when this thread's interrupt check
// (interrupt.hpp) ended a wait to ask again. *rounds (when not null) gets
// how many times the seeds were asked (1: no disagreement was waited out).
Result<std::shared_ptr<const Topology>> Discover(const std::vector<Seed> &seeds,
                                                 const ConnectOptions &opts, uint32_t timeout_ms,
                                                 uint32_t settle_ms, uint32_t *rounds = nullptr);

}  // namespace net
}  // namespace cloudroute
