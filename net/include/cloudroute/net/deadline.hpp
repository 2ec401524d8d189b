// Deadlines on the steady clock: the one place where the net layer turns
// millisecond timeouts into instants and instants back into time left.
// Instants are SteadyNowNs() nanoseconds (core/health.hpp), the clock every
// deadline, RTT sample and pool timestamp uses; callers that read the clock
// themselves pass now_ns.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>

#include "cloudroute/core/health.hpp"

namespace cloudroute {
namespace net {

constexpr int64_t kNsPerMs = 1000000;

constexpr int64_t MsToNs(uint32_t ms) { return static_cast<int64_t>(ms) * kNsPerMs; }

// The instant ms after now_ns.
inline int64_t DeadlineAfter(uint32_t ms, int64_t now_ns = SteadyNowNs()) {
  return now_ns + MsToNs(ms);
}

// Whole milliseconds left before deadline_ns, rounded up (a wait of that
// long does not end before the deadline), capped at UINT32_MAX; 0 once it
// passed.
inline uint32_t MsLeft(int64_t deadline_ns, int64_t now_ns = SteadyNowNs()) {
  const int64_t left_ns = deadline_ns - now_ns;
  if (left_ns <= 0) return 0;
  const int64_t ms = (left_ns + kNsPerMs - 1) / kNsPerMs;
  return ms > static_cast<int64_t>(UINT32_MAX) ? UINT32_MAX : static_cast<uint32_t>(ms);
}

}  // namespace net
}  // namespace cloudroute
