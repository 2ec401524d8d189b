// Round-robin starts (see selector.hpp).
#include "cloudroute/core/selector.hpp"

#include <algorithm>

namespace cloudroute {

// REQUIRES: n > 1 (see selector.hpp).
uint32_t RoundRobinStart(const CandidateSet &set, const CandidateRank &rank, uint32_t begin,
                         uint32_t n, uint64_t ticket) {
  const Candidate *c = &set.list[begin];
  if (rank.weight == 0) return static_cast<uint32_t>(ticket % n);
  const uint64_t x = ticket % rank.weight;
  uint64_t top = 0;
  for (uint32_t i = 0; i < n; ++i) top = std::max<uint64_t>(top, c[i].weight);
  auto before = [&](uint64_t k) {  // positions in rounds 0 .. k-1
    uint64_t sum = 0;
    for (uint32_t i = 0; i < n; ++i) sum += std::min<uint64_t>(c[i].weight, k);
    return sum;
  };
  uint64_t lo = 0, hi = top - 1;  // the round: the largest k with before(k) <= x
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo + 1) / 2;
    if (before(mid) <= x)
      lo = mid;
    else
      hi = mid - 1;
  }
  uint64_t offset = x - before(lo);
  for (uint32_t i = 0; i < n; ++i) {
    if (c[i].weight > lo && offset-- == 0) return i;
  }
  return 0;  // unreachable: round lo holds x - before(lo) + 1 nodes or more
}

}  // namespace cloudroute
