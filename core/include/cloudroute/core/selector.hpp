// Selector: picks the node that serves a read from a shard's candidate set.
//
// Ranks are tried in order. Inside a rank, a weighted choice picks the first
// node to try; when it is down, the rest of the rank is polled round-robin
// from there (the getWorkInstance + round-robin loop of the Sentinel shard
// design). Then the next rank. A node skipped by its breaker is never chosen
// unless its half-open probe is due.
//
// The weighted choice is random (Selection::kRandom), steady round-robin
// (Selection::kRoundRobin, see RoundRobinStart): over every cycle of W reads
// of a set (W = the rank's total weight) each node starts exactly `weight`
// of them, interleaved, with no random streaks — or load-aware
// (Selection::kLeastLoaded, see LeastLoadedStart): the less loaded of two
// weighted random draws.
//
// Thread-safety: lock-free; allocation-free.
#pragma once

#include "cloudroute/core/candidates.hpp"
#include "cloudroute/core/node_registry.hpp"

namespace cloudroute {

// A uniform value in [0, bound) from a 64-bit random value: the high half of
// the 128-bit product (Lemire), not `r % bound` — a 64-bit division costs
// more than the rest of a routing decision.
__extension__ typedef unsigned __int128 Uint128;  // GCC and Clang, every 64-bit target
inline uint64_t ScaleRandom(uint64_t r, uint64_t bound) {
  return static_cast<uint64_t>((static_cast<Uint128>(r) * bound) >> 64);
}

// The weighted random start of a rank of n > 1 candidates from list[begin]
// (uniform when the rank's weights are all 0): the high half of r * weight
// picks a point x, and the start is how many prefix sums of the weights are
// <= x — the node the subtract-and-compare walk picked, with a fixed trip
// count and no branch on the random value (which mispredicted half the time).
inline uint32_t RandomStart(const CandidateSet &set, const CandidateRank &rank, uint32_t begin,
                            uint32_t n, uint64_t r) {
  const uint64_t total = rank.weight;
  if (total == 0) return static_cast<uint32_t>(ScaleRandom(r, n));
  const uint64_t x = ScaleRandom(r, total);
  uint64_t cum = 0;
  uint32_t start = 0;
  for (uint32_t j = 0; j + 1 < n; ++j) {
    cum += set.list[begin + j].weight;
    start += static_cast<uint32_t>(x >= cum);
  }
  return start;
}

// The round-robin start of read number `ticket` (interleaved weighted
// round-robin): a cycle of W = the rank's total weight reads is played in
// rounds — round k visits, in list order, every node whose weight is above
// k — so each node starts exactly `weight` reads per cycle and equal nodes
// alternate. The round of position x is found by binary search on
// C(k) = sum of min(weight, k), the positions before round k.
uint32_t RoundRobinStart(const CandidateSet &set, const CandidateRank &rank, uint32_t begin,
                         uint32_t n, uint64_t ticket);

// The load-aware start of a rank of n > 1 candidates from list[begin]: a
// first draw as RandomStart(r1), a second among the rank's other candidates
// by their weights (r2; uniform when they weigh 0 together while the rank
// weighs 0 too; none when only the first weighs anything), and the second
// only when it is clearly less loaded (LoadCheaper, node_load.hpp: in
// flight × recent latency, latencies older than kLoadStaleNs unknown at
// now_ns). Two draws, not the whole rank: a node that is merely the
// fastest of equals is not sent everything, and a slow one still loses
// every pair it is drawn into. Breakers are the poll's business, as for
// the other selections.
uint32_t LeastLoadedStart(const CandidateSet &set, const CandidateRank &rank, uint32_t begin,
                          uint32_t n, uint64_t r1, uint64_t r2, int64_t now_ns);

// Visits the set's candidates in the order a read polls them — rank by rank;
// inside a rank, from a weighted start, then round-robin over the rest of the
// rank — until visit(candidate) returns true; returns that candidate, or
// nullptr. start(rank, begin, n) gives the start in [0, n) of a rank of
// n > 1 candidates from list[begin]; it is called once per such rank, so a
// caller that replays the same draws gets the same order.
// Always inlined: out of line, the call and its six callee-saved registers
// were a tenth of a routed read's instructions.
template <typename Start, typename Visit>
__attribute__((always_inline)) inline const Candidate *VisitInPollOrder(const CandidateSet &set,
                                                                        Start &&start_of,
                                                                        Visit &&visit) {
  uint32_t begin = 0;
  for (const CandidateRank &rank : set.ranks()) {
    const uint32_t end = rank.end;
    const uint32_t n = end - begin;
    uint32_t i = n > 1 ? start_of(rank, begin, n) : 0;
    for (uint32_t k = 0; k < n; ++k) {
      const Candidate &c = set.list[begin + i];
      if (visit(c)) return &c;
      if (++i == n) i = 0;
    }
    begin = end;
  }
  return nullptr;
}

// VisitInPollOrder with the set's selection: the router's random streams
// (two draws and a clock read per rank under least-loaded), or the set's
// next round-robin ticket (one per read).
template <typename Visit>
__attribute__((always_inline)) inline const Candidate *VisitReadOrder(const CandidateSet &set,
                                                                      NodeRegistry &reg,
                                                                      Visit &&visit) {
  if (__builtin_expect(set.selection == Selection::kLeastLoaded, 0)) {
    return VisitInPollOrder(
        set,
        [&set, &reg](const CandidateRank &rank, uint32_t begin, uint32_t n) {
          const uint64_t r1 = reg.NextRandom();
          const uint64_t r2 = reg.NextRandom();
          return LeastLoadedStart(set, rank, begin, n, r1, r2, reg.clock()());
        },
        visit);
  }
  if (__builtin_expect(set.selection == Selection::kRoundRobin, 0)) {
    const uint64_t ticket = set.ticket.Take();
    return VisitInPollOrder(
        set,
        [&set, ticket](const CandidateRank &rank, uint32_t begin, uint32_t n) {
          return RoundRobinStart(set, rank, begin, n, ticket);
        },
        visit);
  }
  return VisitInPollOrder(
      set,
      [&set, &reg](const CandidateRank &rank, uint32_t begin, uint32_t n) {
        return RandomStart(set, rank, begin, n, reg.NextRandom());
      },
      visit);
}

inline const Candidate *SelectCandidate(const CandidateSet &set, NodeRegistry &reg) {
  return VisitReadOrder(set, reg, [&reg](const Candidate &c) {
    return c.node->health.Admit(reg.clock(), reg.health_config());
  });
}

}  // namespace cloudroute
