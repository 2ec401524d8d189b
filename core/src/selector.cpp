// Round-robin and load-aware starts (see selector.hpp).
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

// REQUIRES: n > 1 (see selector.hpp).
uint32_t LeastLoadedStart(const CandidateSet &set, const CandidateRank &rank, uint32_t begin,
                          uint32_t n, uint64_t r1, uint64_t r2, int64_t now_ns) {
  const Candidate *c = &set.list[begin];
  const uint32_t first = RandomStart(set, rank, begin, n, r1);
  uint32_t second = 0;
  const uint64_t rest = rank.weight - c[first].weight;
  if (rank.weight == 0) {
    second = static_cast<uint32_t>(ScaleRandom(r2, n - 1));
    second += static_cast<uint32_t>(second >= first);
  } else if (rest == 0) {
    return first;  // the others weigh nothing: they are never a start
  } else {
    uint64_t x = ScaleRandom(r2, rest);
    for (uint32_t j = 0; j < n; ++j) {
      if (j == first) continue;
      if (x < c[j].weight) {
        second = j;
        break;
      }
      x -= c[j].weight;
    }
  }
  const LoadView a = ViewLoad(c[first].node->load, now_ns);
  const LoadView b = ViewLoad(c[second].node->load, now_ns);
  return LoadCheaper(b, a) ? second : first;
}

}  // namespace cloudroute
