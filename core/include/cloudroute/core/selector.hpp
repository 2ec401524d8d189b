// Selector: picks the node that serves a read from a shard's candidate set.
//
// Ranks are tried in order. Inside a rank, a weighted random choice picks the
// first node to try; when it is down, the rest of the rank is polled
// round-robin from there (the getWorkInstance + round-robin loop of the
// Sentinel shard design). Then the next rank. A node skipped by its breaker is
// never chosen unless its half-open probe is due.
//
// Thread-safety: lock-free; allocation-free.
#pragma once

#include "cloudroute/core/candidates.hpp"
#include "cloudroute/core/node_registry.hpp"

namespace cloudroute {

// Visits the set's candidates in the order a read polls them — rank by rank;
// inside a rank, from a weighted random start (uniform when the rank's
// weights are all 0), then round-robin over the rest of the rank — until
// visit(candidate) returns true; returns that candidate, or nullptr.
// random() is drawn once per rank of more than one candidate, so a caller
// that replays the same draws gets the same order.
// A uniform value in [0, bound) from a 64-bit random value: the high half of
// the 128-bit product (Lemire), not `r % bound` — a 64-bit division costs
// more than the rest of a routing decision.
__extension__ typedef unsigned __int128 Uint128;  // GCC and Clang, every 64-bit target
inline uint64_t ScaleRandom(uint64_t r, uint64_t bound) {
  return static_cast<uint64_t>((static_cast<Uint128>(r) * bound) >> 64);
}

// Always inlined: out of line, the call and its six callee-saved registers
// were a tenth of a routed read's instructions.
template <typename Random, typename Visit>
__attribute__((always_inline)) inline const Candidate *VisitInPollOrder(const CandidateSet &set,
                                                                        Random &&random,
                                                                        Visit &&visit) {
  uint32_t begin = 0;
  for (const CandidateRank &rank : set.ranks) {
    const uint32_t end = rank.end;
    const uint32_t n = end - begin;
    uint32_t start = 0;
    if (n > 1) {
      const uint64_t r = random();
      const uint64_t total = rank.weight;
      if (total == 0) {
        start = static_cast<uint32_t>(ScaleRandom(r, n));
      } else {
        // start = how many prefix sums of the weights are <= x: the same
        // node the subtract-and-compare walk picked, with a fixed trip count
        // and no branch on the random value (which mispredicted half the time).
        const uint64_t x = ScaleRandom(r, total);
        uint64_t cum = 0;
        for (uint32_t j = 0; j + 1 < n; ++j) {
          cum += set.list[begin + j].weight;
          start += static_cast<uint32_t>(x >= cum);
        }
      }
    }
    uint32_t i = start;
    for (uint32_t k = 0; k < n; ++k) {
      const Candidate &c = set.list[begin + i];
      if (visit(c)) return &c;
      if (++i == n) i = 0;
    }
    begin = end;
  }
  return nullptr;
}

inline const Candidate *SelectCandidate(const CandidateSet &set, NodeRegistry &reg) {
  return VisitInPollOrder(
      set, [&reg]() { return reg.NextRandom(); },
      [&reg](const Candidate &c) {
        return c.node->health.Admit(reg.clock(), reg.health_config());
      });
}

}  // namespace cloudroute
