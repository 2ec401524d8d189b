// Snapshot: everything routing needs, derived from one topology and one
// configuration — the candidate set of every shard and the slot table —
// frozen. A new topology, RTT, zone or MOVED patch makes a new snapshot; a
// snapshot never changes.
//
// Thread-safety: immutable; routing on it is lock-free and allocation-free
// (health and RTT live in the shared NodeRegistry).
#pragma once

#include <array>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "cloudroute/core/candidates.hpp"
#include "cloudroute/core/locality.hpp"
#include "cloudroute/core/node_registry.hpp"
#include "cloudroute/core/read_policy.hpp"
#include "cloudroute/core/selector.hpp"
#include "cloudroute/core/topology.hpp"

namespace cloudroute {

struct RouterConfig {
  LocalityConfig locality;
  std::unordered_map<std::string, uint32_t> weights;  // "host:port" or node id
  // Where the net layer dials a node: announced "host:port" → (host, port).
  std::unordered_map<std::string, std::pair<std::string, uint16_t>> connect_via;
  Policy policy = Policy::kLocal;
  uint32_t nearest_margin_us = 1000;
  HealthConfig health;
  uint64_t seed = 0;
};

struct Route {
  uint16_t slot = 0;
  uint32_t shard = 0;
  NodeEntry *node = nullptr;
  Role role = Role::kMaster;
  Tier tier = Tier::kUnknown;
};

struct MovedPatch {
  uint16_t slot;
  NodeEntry *target;
};

class Snapshot : public std::enable_shared_from_this<Snapshot> {
 public:
  std::shared_ptr<const Topology> topology;
  std::shared_ptr<NodeRegistry> registry;
  std::vector<CandidateSet> sets;  // one per topology shard, then redirect-only shards
  std::array<uint16_t, kSlotCount> slot_to_set;
  std::vector<Placement> placements;  // per topology node, for explain
  uint64_t generation = 0;
  Policy policy = Policy::kLocal;
  uint32_t nearest_margin_us = 1000;

  // REQUIRES: slot < kSlotCount
  Code RouteRead(uint16_t slot, Route *out) const;
  Code RouteWrite(uint16_t slot, Route *out) const;
  // nullptr when no shard serves the slot.
  const CandidateSet *SetForSlot(uint16_t slot) const {
    const uint16_t s = slot_to_set[slot];
    return s == kNoShard ? nullptr : &sets[s];
  }
  // One line per candidate: position, address, role, tier, rank, weight,
  // health, and where its locality came from.
  std::string Explain(uint16_t slot) const;
};

inline Code Snapshot::RouteRead(uint16_t slot, Route *out) const {
  const uint16_t s = slot_to_set[slot];
  if (s == kNoShard) return Code::kSlotUncovered;
  const Candidate *c = SelectCandidate(sets[s], *registry);
  if (c == nullptr) return Code::kUnavailable;
  out->slot = slot;
  out->shard = s;
  out->node = c->node;
  out->role = c->role;
  out->tier = c->tier;
  return Code::kOk;
}

inline Code Snapshot::RouteWrite(uint16_t slot, Route *out) const {
  const uint16_t s = slot_to_set[slot];
  if (s == kNoShard) return Code::kSlotUncovered;
  const CandidateSet &set = sets[s];
  if (set.master == nullptr) return Code::kUnavailable;
  out->slot = slot;
  out->shard = s;
  out->node = set.master;
  out->role = Role::kMaster;
  out->tier = set.master_tier;
  return Code::kOk;
}

struct SnapshotInputs {
  std::shared_ptr<const Topology> topology;
  const RouterConfig *config = nullptr;
  std::shared_ptr<NodeRegistry> registry;
  const std::unordered_map<std::string, std::string> *zone_overrides = nullptr;  // address → zone
  const std::vector<MovedPatch> *moved = nullptr;
  uint64_t generation = 0;
};

Result<std::shared_ptr<const Snapshot>> BuildSnapshot(const SnapshotInputs &in);

}  // namespace cloudroute
