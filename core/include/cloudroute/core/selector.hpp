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

inline const Candidate *SelectCandidate(const CandidateSet &set, NodeRegistry &reg) {
  uint32_t begin = 0;
  for (size_t g = 0; g < set.group_end.size(); ++g) {
    const uint32_t end = set.group_end[g];
    const uint32_t n = end - begin;
    uint32_t start = 0;
    if (n > 1) {
      const uint64_t r = reg.NextRandom();
      const uint64_t total = set.group_weight[g];
      if (total == 0) {
        start = static_cast<uint32_t>(r % n);
      } else {
        uint64_t x = r % total;
        while (x >= set.list[begin + start].weight) x -= set.list[begin + start++].weight;
      }
    }
    for (uint32_t k = 0; k < n; ++k) {
      const Candidate &c = set.list[begin + (start + k) % n];
      if (c.node->health.Admit(reg.clock(), reg.health_config())) return &c;
    }
    begin = end;
  }
  return nullptr;
}

}  // namespace cloudroute
