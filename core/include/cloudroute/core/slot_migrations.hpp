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

#include <array>
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
  // Slots 64w to 64w + 63's marks: bit (slot & 63). REQUIRES: w < kSlotCount / 64
  uint64_t MarkedWord(size_t w) const { return bits_[w].load(std::memory_order_relaxed); }
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

// RecentMoves: the slots whose owner changed a moment ago — a MOVED
// followed, or an installed topology naming another master for the slot.
//
// Why it matters: a slot's new owner serves it once its master holds the
// keys, not its replicas (Valkey's atomic slot migration hands the slots
// over without waiting for the target's replicas; the legacy MIGRATE path
// deletes at the source once the target master has a key), so for a moment
// a replica of the new owner answers nil for a key that exists. The engine
// confirms such a nil at the slot's master while the move is recent; reads
// that find a value, and every read of a slot that did not move, go where
// the policy sends them.
//
// "Recent" is at least kWindowMs and at most twice that: two generations of
// one bit per slot (4 KiB), each covering one window of the clock.
//
// Thread-safety: Recent() is lock-free and allocation-free for any thread;
// Mark() takes an internal mutex (it runs on redirects and topology
// installs only). A Recent() racing a Mark() may miss that mark (the nil is
// then returned, as before this existed) but never reports a slot that was
// not marked in the last two windows.
class RecentMoves {
 public:
  static constexpr uint32_t kWindowMs = 2000;

  // clock: nullptr = SteadyNowNs.
  explicit RecentMoves(ClockFn clock_fn = nullptr);
  RecentMoves(const RecentMoves &) = delete;
  RecentMoves &operator=(const RecentMoves &) = delete;

  // REQUIRES: slot < kSlotCount
  void Mark(uint16_t slot);
  // Every slot whose bit is set: bit (slot & 63) of words[slot >> 6].
  void Mark(const std::array<uint64_t, kSlotCount / 64> &words);
  bool Recent(uint16_t slot) const;

 private:
  struct Generation {
    std::atomic<int64_t> window{-1};  // the window its bits belong to
    std::atomic<uint64_t> bits[kSlotCount / 64] = {};
  };
  int64_t WindowNow() const { return clock_() / (int64_t{kWindowMs} * 1000000); }
  // REQUIRES: mu_ held. The generation of the current window, emptied
  // first when it still holds a window two back.
  Generation &CurrentLocked();

  const ClockFn clock_;
  std::mutex mu_;  // serializes Mark
  Generation gen_[2];
};

}  // namespace cloudroute
