// Read policies: how a shard's nodes are ranked for reads. Writes always go
// to the master whatever the policy.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string_view>

#include "cloudroute/core/locality.hpp"
#include "cloudroute/core/topology.hpp"

namespace cloudroute {

enum class Policy : uint8_t {
  kMaster = 0,              // the master only (Jedis default)
  kPreferReplica = 1,       // replicas by tier, then the master
  kLocal = 2,               // per tier, nearest first: master, then replicas
  kLocalReplicasFirst = 3,  // per tier, nearest first: replicas, then master
  kNearest = 4,             // by measured RTT in bands of `margin`; unmeasured last
  kLocalSpread = 5,         // per tier, nearest first: master and replicas share the tier by weight
  kReplicaOnly = 6,         // replicas only, nearest tier first; never the master
};
constexpr int kPolicyCount = 7;

// How a read picks among the candidates of one rank (equal rank key).
enum class Selection : uint8_t {
  kRandom = 0,      // weighted random: each read draws from the router's random streams
  kRoundRobin = 1,  // steady weighted round-robin: exact shares over every cycle of reads
  // two weighted random draws, the less loaded of the two (node_load.hpp):
  // a slow or busy node loses share, and near-equal ones share the rank
  kLeastLoaded = 2,
};
constexpr int kSelectionCount = 3;

const char *SelectionName(Selection s);
// Case-insensitive; '_' and '-' are the same. false when unknown.
bool SelectionFromName(std::string_view name, Selection *out);

const char *PolicyName(Policy p);
// Case-insensitive; '_' and '-' are the same. false when unknown.
bool PolicyFromName(std::string_view name, Policy *out);

// What a policy needs to know about a node to rank it.
struct RankInput {
  Role role;
  Tier tier;
  uint32_t rtt_us;  // 0 = not measured
};

// A sort key: nodes with equal keys share a rank (and load, by weight).
// For kNearest, `band` is the node's RTT band (see candidates.cpp).
uint64_t RankKey(Policy p, const RankInput &in, uint32_t band);

// Whether the policy reads from this node at all.
inline bool PolicyAdmits(Policy p, Role role) {
  if (p == Policy::kMaster) return role == Role::kMaster;
  if (p == Policy::kReplicaOnly) return role == Role::kReplica;
  return true;
}

}  // namespace cloudroute
