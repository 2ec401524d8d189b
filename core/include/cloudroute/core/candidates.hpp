// Candidate sets: for each shard, the ordered list of nodes that may serve a
// read, grouped into ranks. Built once per topology change (never per slot,
// never per key) and shared by every slot of the shard.
//
// Thread-safety: immutable once built.
#pragma once

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

struct CandidateSet {
  std::string shard_id;
  NodeEntry *master = nullptr;  // nullptr when the master's endpoint is unknown
  uint32_t master_topo = kNoNode;
  Tier master_tier = Tier::kUnknown;
  std::vector<Candidate> list;         // in order; equal rank are adjacent
  std::vector<uint32_t> group_end;     // exclusive end in `list` of each rank
  std::vector<uint64_t> group_weight;  // sum of weights of each rank
};

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
};

CandidateSet BuildCandidates(const Topology &t, uint32_t shard, const std::vector<NodeFacts> &facts,
                             const CandidateOptions &opts);

// A shard known only from a MOVED redirect: the target is its master and
// only candidate until the next refresh.
CandidateSet RedirectCandidates(NodeEntry *master);

// The same set with its master moved to the front, alone in the first rank
// (the rest keep their order and ranks after it): the candidates of a slot
// being migrated, whose source replicas answer nil for keys already moved
// while the master answers ASK. A copy of `set` when its master is not
// among the candidates.
CandidateSet MasterFirstCandidates(const CandidateSet &set);

}  // namespace cloudroute
