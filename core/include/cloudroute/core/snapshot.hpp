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
#include <unordered_set>
#include <vector>

#include "cloudroute/core/candidates.hpp"
#include "cloudroute/core/locality.hpp"
#include "cloudroute/core/node_registry.hpp"
#include "cloudroute/core/read_policy.hpp"
#include "cloudroute/core/selector.hpp"
#include "cloudroute/core/slot_migrations.hpp"
#include "cloudroute/core/topology.hpp"

namespace cloudroute {

struct RouterConfig {
  LocalityConfig locality;
  std::unordered_map<std::string, uint32_t> weights;  // "host:port" or node id
  // Where the net layer dials a node: announced "host:port" → (host, port).
  std::unordered_map<std::string, std::pair<std::string, uint16_t>> connect_via;
  Policy policy = Policy::kLocal;
  uint32_t nearest_margin_us = 1000;
  Selection selection = Selection::kRandom;
  HealthConfig health;
  uint64_t seed = 0;
  uint32_t migration_ttl_ms = 0;  // see SlotMigrations; 0 = its default
  // Free the registry entries of nodes gone from the current and previous
  // topology on each update (see NodeRegistry). The live client reclaims
  // too: its net layer pins every node it uses (net/node_pools.hpp).
  bool reclaim_nodes = true;
};

// The seed of a router's node registry (its weighted picks): the configured
// seed, or one that differs per router and per run when none is set.
uint64_t RegistrySeed(const RouterConfig &cfg);

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
  // Shared with the router (and every other snapshot of it): the live marks
  // and their TTLs. Never null.
  std::shared_ptr<const SlotMigrations> migrations;
  std::vector<CandidateSet> sets;  // one per topology shard, then redirect-only shards
  // Per slot: the index into sets, or kNoShard. A slot marked migrating (see
  // SlotMigrations) when the snapshot was built points at its shard's
  // master-first copy (MasterFirstCandidates; one per shard, appended after
  // the others), so routing needs no test of its own: a per-read check of a
  // flag (a bitmap load, or a bit in this table) cost 5-15% in the
  // route_read benchmarks, mostly from the register pressure of the extra
  // branch in the inlined loop.
  std::array<uint16_t, kSlotCount> slot_to_set;
  // Where each topology node is, for explain: the distinct placements, and
  // per node an index into them (a cluster's nodes share a few placements;
  // one each would cost ~136 bytes a node). A topology has fewer than
  // 65535 nodes (TopologyBuilder's limit), so two bytes an index.
  std::vector<Placement> places;
  std::vector<uint16_t> place_of;
  const Placement &placement(uint32_t topo_node) const { return places[place_of[topo_node]]; }
  // Every registry entry the sets name: none is reclaimed while this lives.
  NodePins pins;
  uint64_t generation = 0;
  Policy policy = Policy::kLocal;
  uint32_t nearest_margin_us = 1000;

  // A read of a slot being migrated goes to the master when it is admitted
  // (replicas answer nil for keys already moved; the master answers ASK),
  // else to the other candidates in order (lesson 6: reads degrade); its
  // Route::shard is then the index of the master-first copy.
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
  // The live mark (not only as of this snapshot's build).
  bool SlotMigrating(uint16_t slot) const { return migrations->Active(slot); }
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
  const std::unordered_set<std::string> *lagging = nullptr;  // replica addresses read last
  const std::vector<MovedPatch> *moved = nullptr;
  std::shared_ptr<const SlotMigrations> migrations;  // nullptr: none marked, ever
  uint64_t generation = 0;
};

Result<std::shared_ptr<const Snapshot>> BuildSnapshot(const SnapshotInputs &in);

}  // namespace cloudroute
