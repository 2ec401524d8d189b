#include "cloudroute/core/slot_migrations.hpp"

#include <cstdlib>
#include <string>

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

std::vector<uint16_t> SlotMigrations::ActiveSlots() const {
  std::vector<uint16_t> out;
  for (uint32_t s = 0; s < kSlotCount; ++s) {
    if (Active(static_cast<uint16_t>(s))) out.push_back(static_cast<uint16_t>(s));
  }
  return out;
}

std::vector<uint16_t> ParseMigratingSlots(std::string_view text) {
  std::vector<uint16_t> out;
  // One line per node; ours says "myself" in its flags (third field).
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(begin, end - begin);
    begin = end + 1;
    const size_t sp1 = line.find(' ');
    const size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
    const size_t sp3 = sp2 == std::string_view::npos ? sp2 : line.find(' ', sp2 + 1);
    if (sp3 == std::string_view::npos) continue;
    const std::string_view flags = line.substr(sp2 + 1, sp3 - sp2 - 1);
    if (flags.find("myself") == std::string_view::npos) continue;
    for (size_t at = line.find('[', sp3); at != std::string_view::npos;
         at = line.find('[', at + 1)) {
      const size_t close = line.find(']', at);
      if (close == std::string_view::npos) break;
      const std::string_view marker = line.substr(at + 1, close - at - 1);  // "123->-id"
      const size_t arrow = marker.find("->-");
      if (arrow == std::string_view::npos || arrow == 0 || arrow > 5) continue;
      uint32_t slot = 0;
      bool digits = true;
      for (size_t i = 0; i < arrow; ++i) {
        const char ch = marker[i];
        if (ch < '0' || ch > '9')
          digits = false;
        else
          slot = slot * 10 + static_cast<uint32_t>(ch - '0');
      }
      if (digits && slot < kSlotCount) out.push_back(static_cast<uint16_t>(slot));
    }
  }
  return out;
}

}  // namespace cloudroute
