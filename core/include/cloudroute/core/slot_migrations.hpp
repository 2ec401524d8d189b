// SlotMigrations: the slots being migrated away from their owner right now
// (CLUSTER SETSLOT <slot> MIGRATING on its master, keys moving with MIGRATE).
//
// Why it matters: the source master answers ASK for a key already moved, but
// its replicas know nothing of the migration (Redis keeps MIGRATING state on
// the master only) and answer nil for it — a silent wrong read under any
// replica-first policy. So a read of a migrating slot goes to the master.
//
// Evidence that marks a slot: an ASK for it (a read or a write), or the
// "myself" line of CLUSTER NODES on its master carrying "[slot->-nodeid]"
// (Redis 7.0 prints it there only: not on replicas, not on other masters;
// the importing master shows "[slot-<-nodeid]"). Evidence that clears it: a
// MOVED for it, or a refresh scan of its master that no longer lists it and
// started after the mark was last armed. Every mark also expires ttl after it
// was last armed, so none sticks forever.
//
// Thread-safety: Marked()/Active() are lock-free and allocation-free for any
// thread; Marked() is one relaxed load (of a bitmap word). Writers (Mark, Clear, Sync) take an
// internal mutex; they run on redirects and refreshes only.
#pragma once

#include <atomic>
#include <bitset>
#include <cstdint>
#include <mutex>

#include "cloudroute/core/health.hpp"
#include "cloudroute/core/keyslot.hpp"

namespace cloudroute {

using SlotSet = std::bitset<kSlotCount>;

class SlotMigrations {
 public:
  static constexpr uint32_t kDefaultTtlMs = 60000;

  // clock: nullptr = SteadyNowNs. ttl_ms 0 = kDefaultTtlMs.
  explicit SlotMigrations(ClockFn clock_fn = nullptr, uint32_t ttl_ms = 0);
  SlotMigrations(const SlotMigrations &) = delete;
  SlotMigrations &operator=(const SlotMigrations &) = delete;

  // The hot-path test: false means "not migrating", for sure.
  // REQUIRES: slot < kSlotCount
  bool Marked(uint16_t slot) const {
    return (bits_[slot >> 6].load(std::memory_order_relaxed) >> (slot & 63)) & 1u;
  }
  // Marked and not expired (reads the clock only when marked).
  bool Active(uint16_t slot) const {
    return Marked(slot) && clock_() - armed_ns_[slot].load(std::memory_order_relaxed) < ttl_ns_;
  }

  // (Re-)arms the mark of slot; true when it was not active. Clear drops
  // it; true when it was marked. REQUIRES: slot < kSlotCount
  bool Mark(uint16_t slot);
  bool Clear(uint16_t slot);
  // Applies a refresh scan started at started_ns (this object's clock): every
  // slot in `migrating` is marked; every other slot in `scanned` (its master
  // answered) is cleared unless its mark was armed at or after started_ns (an
  // ASK newer than the scan wins). Expired marks are dropped everywhere.
  // True when any slot's mark appeared or went.
  bool Sync(const SlotSet &scanned, const SlotSet &migrating, int64_t started_ns);

  ClockFn clock() const { return clock_; }

 private:
  const ClockFn clock_;
  const int64_t ttl_ns_;
  std::mutex mu_;  // serializes writers
  // One bit per slot (2 KiB: routing's cache footprint barely grows); the arm
  // times are read only for a marked slot.
  std::atomic<uint64_t> bits_[kSlotCount / 64] = {};
  std::atomic<int64_t> armed_ns_[kSlotCount] = {};
};

}  // namespace cloudroute
