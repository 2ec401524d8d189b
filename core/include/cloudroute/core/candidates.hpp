// Candidate sets: for each shard, the ordered list of nodes that may serve a
// read, grouped into ranks. Built once per topology change (never per slot,
// never per key) and shared by every slot of the shard.
//
// Thread-safety: immutable once built.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "cloudroute/core/locality.hpp"
#include "cloudroute/core/node_registry.hpp"
#include "cloudroute/core/read_policy.hpp"
#include "cloudroute/core/topology.hpp"

namespace cloudroute {

struct Candidate {
  NodeEntry *node;
  uint32_t topo_node;  // index in the topology, kNoNode for a redirect-only node
  Role role;
  Tier tier;
  uint32_t rank;
  uint32_t weight;
  uint32_t rtt_us;  // as measured when the set was built
  bool lagging = false;
};

struct CandidateRank {
  uint32_t end;     // exclusive end in `list` of the rank
  uint64_t weight;  // sum of the weights of the rank's candidates
};

// The round-robin ticket of a candidate set: every read of the set under
// round-robin selection takes the next one. Mutable state in an immutable
// set, so it lives off the set's first cache line; a copied set starts from
// the original's position.
struct RoundRobinTicket {
  mutable std::atomic<uint64_t> next{0};
  RoundRobinTicket() = default;
  RoundRobinTicket(const RoundRobinTicket &o) : next(o.next.load(std::memory_order_relaxed)) {}
  RoundRobinTicket &operator=(const RoundRobinTicket &o) {
    next.store(o.next.load(std::memory_order_relaxed), std::memory_order_relaxed);
    return *this;
  }
  uint64_t Take() const { return next.fetch_add(1, std::memory_order_relaxed); }
};

// What a routed read or write touches comes first, on one cache line (the
// sets of a 100-shard snapshot do not all stay in L1): the list, the ranks
// (one array, not two: one line less per read), the master.
struct alignas(64) CandidateSet {
  std::vector<Candidate> list;       // in order; equal rank are adjacent
  std::vector<CandidateRank> ranks;  // one per rank, in order
  NodeEntry *master = nullptr;       // nullptr when the master's endpoint is unknown
  uint32_t master_topo = kNoNode;
  Tier master_tier = Tier::kUnknown;
  Selection selection = Selection::kRandom;  // kRoundRobin: reads take `ticket`
  // Kept by whoever built the set (the snapshot's topology, the registry
  // entry of a redirect target, a shard-group snapshot), NUL-terminated.
  std::string_view shard_id;
  RoundRobinTicket ticket;
};

// Groups adjacent candidates with equal keys into ranks (keys[i] is
// list[i]'s sort key; the list is sorted by it): sets each candidate's rank
// and each rank's end and weight.
void AssignRanks(CandidateSet *set, const std::vector<uint64_t> &keys);
void AssignRanks(CandidateSet *set, const uint64_t *keys);

// Per topology node, what ranking needs; index-aligned with Topology::nodes.
struct NodeFacts {
  NodeEntry *entry;  // nullptr when the endpoint is unknown
  Tier tier;
  uint32_t weight;
  bool lagging = false;  // a replica too far behind its master: read last
};

struct CandidateOptions {
  Policy policy = Policy::kLocal;
  uint32_t nearest_margin_us = 1000;
  Selection selection = Selection::kRandom;
};

CandidateSet BuildCandidates(const Topology &t, uint32_t shard, const std::vector<NodeFacts> &facts,
                             const CandidateOptions &opts);

// A shard known only from a MOVED redirect: the target is its master and
// only candidate until the next refresh — none under a policy that never
// reads a master (its writes still go there).
CandidateSet RedirectCandidates(NodeEntry *master, const CandidateOptions &opts);

// The same set with its master moved to the front, alone in the first rank
// (the rest keep their order and ranks after it): the candidates of a slot
// being migrated, whose source replicas answer nil for keys already moved
// while the master answers ASK. A copy of `set` when its master is not
// among the candidates.
CandidateSet MasterFirstCandidates(const CandidateSet &set);

}  // namespace cloudroute
