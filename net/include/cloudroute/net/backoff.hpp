// Backoff for retries of TRYAGAIN / CLUSTERDOWN / LOADING: exponential from
// base_ms, capped, with "equal jitter" (half fixed, half random) so clients
// that failed together do not retry together.
//
// Thread-safety: pure function.
#pragma once

#include <algorithm>
#include <cstdint>

namespace cloudroute {
namespace net {

// attempt 0 waits in [base/2, base], attempt n in [d/2, d] with
// d = min(cap, base * 2^n). random is any 64-bit value.
inline uint32_t BackoffMs(uint32_t attempt, uint32_t base_ms, uint32_t cap_ms, uint64_t random) {
  const uint64_t shifted = attempt >= 31 ? UINT64_MAX : static_cast<uint64_t>(base_ms) << attempt;
  const uint64_t d = std::min<uint64_t>(cap_ms, shifted);
  const uint64_t half = d / 2;
  return static_cast<uint32_t>(d - half + (half == 0 ? 0 : random % (half + 1)));
}

}  // namespace net
}  // namespace cloudroute
