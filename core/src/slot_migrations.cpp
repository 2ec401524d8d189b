#include "cloudroute/core/slot_migrations.hpp"

namespace cloudroute {

SlotMigrations::SlotMigrations(ClockFn clock_fn, uint32_t ttl_ms)
    : clock_(clock_fn != nullptr ? clock_fn : &SteadyNowNs),
      ttl_ns_(static_cast<int64_t>(ttl_ms != 0 ? ttl_ms : kDefaultTtlMs) * 1000000) {}

bool SlotMigrations::Mark(uint16_t slot) {
  std::lock_guard<std::mutex> lock(mu_);
  const bool fresh = !Active(slot);  // an expired mark is no mark
  // The time first: a reader that sees the flag sees a fresh arm time (or an
  // older one, which only makes it consult the clock against a stale bound
  // once; the next read sees the new one).
  armed_ns_[slot].store(clock_(), std::memory_order_relaxed);
  bits_[slot >> 6].fetch_or(uint64_t{1} << (slot & 63), std::memory_order_release);
  return fresh;
}

bool SlotMigrations::Clear(uint16_t slot) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!Marked(slot)) return false;
  bits_[slot >> 6].fetch_and(~(uint64_t{1} << (slot & 63)), std::memory_order_relaxed);
  return true;
}

bool SlotMigrations::Sync(const SlotSet &scanned, const SlotSet &migrating, int64_t started_ns) {
  std::lock_guard<std::mutex> lock(mu_);
  const int64_t now = clock_();
  bool changed = false;
  for (uint32_t s = 0; s < kSlotCount; ++s) {
    const uint64_t bit = uint64_t{1} << (s & 63);
    if (migrating[s]) {
      changed |= !Active(static_cast<uint16_t>(s));
      armed_ns_[s].store(now, std::memory_order_relaxed);
      bits_[s >> 6].fetch_or(bit, std::memory_order_release);
      continue;
    }
    if (!Marked(static_cast<uint16_t>(s))) continue;
    const int64_t armed = armed_ns_[s].load(std::memory_order_relaxed);
    if (now - armed >= ttl_ns_ || (scanned[s] && armed < started_ns)) {
      bits_[s >> 6].fetch_and(~bit, std::memory_order_relaxed);
      changed = true;
    }
  }
  return changed;
}

}  // namespace cloudroute
