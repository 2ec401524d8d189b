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

RecentMoves::RecentMoves(ClockFn clock_fn)
    : clock_(clock_fn != nullptr ? clock_fn : &SteadyNowNs) {}

RecentMoves::Generation &RecentMoves::CurrentLocked() {
  const int64_t w = WindowNow();
  Generation &g = gen_[static_cast<size_t>(w & 1)];
  if (g.window.load(std::memory_order_relaxed) != w) {
    // Two windows old: its marks are no longer recent.
    for (auto &bits : g.bits) bits.store(0, std::memory_order_relaxed);
    g.window.store(w, std::memory_order_release);
  }
  return g;
}

void RecentMoves::Mark(uint16_t slot) {
  std::lock_guard<std::mutex> lock(mu_);
  CurrentLocked().bits[slot >> 6].fetch_or(uint64_t{1} << (slot & 63), std::memory_order_release);
}

void RecentMoves::Mark(const std::array<uint64_t, kSlotCount / 64> &words) {
  std::lock_guard<std::mutex> lock(mu_);
  Generation &g = CurrentLocked();
  for (size_t w = 0; w < words.size(); ++w) {
    if (words[w] != 0) g.bits[w].fetch_or(words[w], std::memory_order_release);
  }
}

bool RecentMoves::Recent(uint16_t slot) const {
  // The bits first: a slot neither generation marks — nearly every read's —
  // costs two loads and no clock read. (A generation's bits stay until the
  // next Mark empties it, so a marked bit may be old: the windows decide.)
  bool marked = false;
  for (const Generation &g : gen_) {
    marked = marked || ((g.bits[slot >> 6].load(std::memory_order_acquire) >> (slot & 63)) & 1u);
  }
  if (!marked) return false;
  const int64_t w = WindowNow();
  for (int64_t back = 0; back < 2; ++back) {
    const Generation &g = gen_[static_cast<size_t>((w - back) & 1)];
    if (g.window.load(std::memory_order_acquire) != w - back) continue;
    if ((g.bits[slot >> 6].load(std::memory_order_acquire) >> (slot & 63)) & 1u) return true;
  }
  return false;
}

}  // namespace cloudroute
