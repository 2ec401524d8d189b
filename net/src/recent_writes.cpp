// Read-your-writes across calls: per-slot deadlines (see recent_writes.hpp).
#include "cloudroute/net/recent_writes.hpp"

#include "cloudroute/core/keyslot.hpp"
#include "cloudroute/net/deadline.hpp"

namespace cloudroute {
namespace net {

RecentWrites::RecentWrites(uint32_t window_ms) : window_ns_(MsToNs(window_ms)) {
  if (window_ns_ == 0) return;
  until_ns_ = std::make_unique<std::atomic<int64_t>[]>(kSlotCount);
  for (uint32_t i = 0; i < kSlotCount; ++i) until_ns_[i].store(0, std::memory_order_relaxed);
}

void RecentWrites::NoteWrite(uint16_t slot) {
  if (window_ns_ == 0 || slot >= kSlotCount) return;
  const int64_t until = SteadyNowNs() + window_ns_;
  std::atomic<int64_t> &cell = until_ns_[slot];
  // Only ever later: a slow write finishing after a newer one keeps the later deadline.
  int64_t cur = cell.load(std::memory_order_relaxed);
  while (cur < until && !cell.compare_exchange_weak(cur, until, std::memory_order_relaxed)) {
  }
}

bool RecentWrites::MasterOnlySlow(uint16_t slot) const {
  return slot < kSlotCount && SteadyNowNs() < until_ns_[slot].load(std::memory_order_relaxed);
}

}  // namespace net
}  // namespace cloudroute
