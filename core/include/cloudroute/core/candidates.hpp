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

// The topo_node of a candidate known only from a redirect (or a shard
// group's): no topology node. A topology has fewer nodes (TopologyBuilder).
constexpr uint16_t kNoTopoNode = 0xFFFF;

// 24 bytes: a topology's node indices and a set's ranks fit 16 bits.
struct Candidate {
  NodeEntry *node;
  uint16_t topo_node;  // index in the topology, kNoTopoNode for a redirect-only node
  Role role;
  Tier tier;
  uint16_t rank;  // its rank's index (65535 for any beyond, in a set of that many ranks)
  bool lagging = false;
  uint32_t weight;
  uint32_t rtt_us;  // as measured when the set was built
};
static_assert(sizeof(Candidate) == 24, "a candidate is three words");

struct CandidateRank {
  uint32_t end;     // exclusive end in `list` of the rank
  uint64_t weight;  // sum of the weights of the rank's candidates
};

// A set's candidates and its ranks in one block (the candidates, then the
// ranks), 16 bytes in the set: two vectors cost 48 bytes of the set and two
// allocations, and pushed the set past one cache line. Copies are deep.
// Candidates and ranks are plain values (trivially copyable).
class CandidateList {
 public:
  CandidateList() = default;
  CandidateList(const CandidateList &o) { Reset(o.data_, o.n_, o.r_, o.ranks()); }
  CandidateList &operator=(const CandidateList &o) {
    if (this != &o) Reset(o.data_, o.n_, o.r_, o.ranks());
    return *this;
  }
  CandidateList(CandidateList &&o) noexcept : data_(o.data_), n_(o.n_), r_(o.r_) {
    o.data_ = nullptr;
    o.n_ = o.r_ = 0;
  }
  CandidateList &operator=(CandidateList &&o) noexcept {
    if (this != &o) {
      Free();
      data_ = o.data_;
      n_ = o.n_;
      r_ = o.r_;
      o.data_ = nullptr;
      o.n_ = o.r_ = 0;
    }
    return *this;
  }
  ~CandidateList() { Free(); }

  // The list becomes a copy of c[0, n) (c may point into this list) with
  // room for `rank_count` ranks, copied from `ranks` when not null, else
  // zero. REQUIRES: n and rank_count below 2^32.
  void Reset(const Candidate *c, size_t n, size_t rank_count, const CandidateRank *ranks = nullptr);

  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  Candidate *data() { return data_; }
  const Candidate *data() const { return data_; }
  Candidate &operator[](size_t i) { return data_[i]; }
  const Candidate &operator[](size_t i) const { return data_[i]; }
  Candidate *begin() { return data_; }
  Candidate *end() { return data_ + n_; }
  const Candidate *begin() const { return data_; }
  const Candidate *end() const { return data_ + n_; }
  const Candidate &front() const { return data_[0]; }
  const Candidate &back() const { return data_[n_ - 1]; }

  // The ranks, after the candidates in the same block.
  CandidateRank *ranks() { return reinterpret_cast<CandidateRank *>(data_ + n_); }
  const CandidateRank *ranks() const { return reinterpret_cast<const CandidateRank *>(data_ + n_); }
  size_t rank_count() const { return r_; }

 private:
  void Free();

  Candidate *data_ = nullptr;  // null when empty with no ranks
  uint32_t n_ = 0;
  uint32_t r_ = 0;
};

// A read-only view of a set's ranks.
struct CandidateRanks {
  const CandidateRank *p;
  size_t n;
  size_t size() const { return n; }
  bool empty() const { return n == 0; }
  const CandidateRank &operator[](size_t i) const { return p[i]; }
  const CandidateRank *begin() const { return p; }
  const CandidateRank *end() const { return p + n; }
  const CandidateRank &front() const { return p[0]; }
  const CandidateRank &back() const { return p[n - 1]; }
};

// The round-robin ticket of a candidate set: every read of the set under
// round-robin selection takes the next one. Mutable state in an immutable
// set; a copied set starts from the original's position.
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

// The candidate set of a shard, on one cache line: the list (its
// candidates and ranks in one block, so a read loads the block's first line
// for both), the master, and the round-robin ticket. The sets of a
// 100-shard snapshot do not all stay in L1; one line a set instead of two
// is also 64 KB less at 1000 shards. The ticket is written only under
// round-robin selection, by every read of the set, which loads this line
// anyway: sharing it costs those reads nothing a second line would not.
struct alignas(64) CandidateSet {
  CandidateList list;           // in order; equal rank are adjacent
  NodeEntry *master = nullptr;  // nullptr when the master's endpoint is unknown
  uint32_t master_topo = kNoNode;
  Tier master_tier = Tier::kUnknown;
  Selection selection = Selection::kRandom;  // kRoundRobin: reads take `ticket`
  // Kept by whoever built the set (the snapshot's topology, the registry
  // entry of a redirect target, a shard-group snapshot), NUL-terminated.
  std::string_view shard_id;
  RoundRobinTicket ticket;

  // One per rank, in order (AssignRanks sets them).
  CandidateRanks ranks() const { return CandidateRanks{list.ranks(), list.rank_count()}; }
};
static_assert(sizeof(CandidateSet) == 64, "a candidate set is one cache line");

// Groups adjacent candidates with equal keys into ranks (keys[i] is
// list[i]'s sort key; the list is sorted by it): sets each candidate's rank
// and each rank's end and weight.
void AssignRanks(CandidateSet *set, const std::vector<uint64_t> &keys);
void AssignRanks(CandidateSet *set, const uint64_t *keys);
// The same for a list given apart: the set's list becomes list[0, n), with
// its ranks, in one allocation.
void AssignRanks(CandidateSet *set, const Candidate *list, size_t n, const uint64_t *keys);

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
