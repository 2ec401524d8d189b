// SnapshotCell: publishes immutable snapshots to lock-free readers.
//
// Fast path (Linux with membarrier(2), for the first kSlots threads of the
// process): every thread owns a slot in each cell (its ThreadSlot() index);
// entering a read is two plain stores to that slot (depth 0→1 and a bumped
// entry count), leaving is one. No locked instruction, nothing shared is written. The writer pays
// instead: it swaps the pointer, calls membarrier(MEMBARRIER_CMD_PRIVATE_
// EXPEDITED) — which makes every running thread pass a full memory barrier,
// so a reader's slot store that preceded its (old) pointer load is visible —
// then waits, for each slot inside a read, until it leaves or starts a new
// read (which can only see the new pointer). This is the asymmetric-fence
// scheme of userspace RCU.
//
// Fallback (no membarrier, or a thread beyond kSlots): readers announce
// themselves on a striped counter of the current epoch (two locked
// increments); the writer flips the epoch and waits each epoch's stripes
// down to zero, twice, so it never starves.
//
// Under ThreadSanitizer every reader takes the fallback (see
// AsymmetricFenceAvailable): TSan cannot see the ordering membarrier gives.
//
// Thread-safety: Read() from any thread; Publish() from one thread at a time
// (the router serializes writers). A thread must not nest Read() on the same
// cell.
#pragma once

#include <atomic>
#include <cassert>
#include <cstdint>
#include <memory>

#include "cloudroute/core/snapshot.hpp"
#include "cloudroute/core/thread_slot.hpp"

namespace cloudroute {

namespace snapshot_cell_internal {
// Registers the process for expedited membarrier once; true when usable.
bool AsymmetricFenceAvailable();
// Makes every running thread of the process execute a full memory barrier.
void AsymmetricFence();
}  // namespace snapshot_cell_internal

class SnapshotCell {
 public:
  static constexpr unsigned kSlots = kThreadSlots;
  static constexpr unsigned kStripes = 16;

 private:
  struct alignas(64) Slot {
    std::atomic<uint32_t> depth{0};    // 1 while the owning thread reads
    std::atomic<uint32_t> entries{0};  // bumped on every entry
  };
  struct alignas(64) Counter {
    std::atomic<int64_t> n{0};
  };

 public:
  class Guard {
   public:
    Guard(const Guard &) = delete;
    Guard &operator=(const Guard &) = delete;
    Guard(Guard &&o) noexcept : slot_(o.slot_), counter_(o.counter_), snap_(o.snap_) {
      o.slot_ = nullptr;
      o.counter_ = nullptr;
    }
    ~Guard() {
      if (slot_ != nullptr) slot_->depth.store(0, std::memory_order_release);
      if (counter_ != nullptr) counter_->fetch_sub(1, std::memory_order_release);
    }
    const Snapshot *get() const { return snap_; }  // nullptr before the first Publish

   private:
    friend class SnapshotCell;
    Guard(Slot *s, std::atomic<int64_t> *c, const Snapshot *p) : slot_(s), counter_(c), snap_(p) {}
    Slot *slot_;
    std::atomic<int64_t> *counter_;
    const Snapshot *snap_;
  };

  SnapshotCell() : asymmetric_(snapshot_cell_internal::AsymmetricFenceAvailable()) {}
  SnapshotCell(const SnapshotCell &) = delete;
  SnapshotCell &operator=(const SnapshotCell &) = delete;

  Guard Read() const {
    const int i = asymmetric_ ? ThreadSlot() : -1;
    if (i >= 0) {
      Slot *s = Enter(i);
      return Guard(s, static_cast<std::atomic<int64_t> *>(nullptr),
                   ptr_.load(std::memory_order_acquire));
    }
    return ReadCounted();
  }

  // Runs f(const Snapshot *) inside a read and returns what f returns: the
  // protocol of Read(), with the kind of read known where it is used. On
  // the fast path leaving is one store and nothing is tested (f is
  // inlined into both paths). This is what the routing calls use: a Guard that may be
  // either kind costs them two tests and a larger frame on every call.
  template <typename F>
  auto With(F &&f) const {
    const int i = asymmetric_ ? ThreadSlot() : -1;
    if (__builtin_expect(i >= 0, 1)) {
      const SlotExit exit{Enter(i)};
      return f(ptr_.load(std::memory_order_acquire));
    }
    const Guard g = ReadCounted();
    return f(g.get());
  }

  // A counted reference to the current snapshot (for callers that keep it).
  std::shared_ptr<const Snapshot> Acquire() const {
    Guard g = Read();
    return g.get() == nullptr ? nullptr : g.get()->shared_from_this();
  }

  // Swaps in `next` and waits out every reader of the previous one.
  void Publish(std::shared_ptr<const Snapshot> next);

 private:
  // Enters a read on slot i (the calling thread's ThreadSlot()).
  Slot *Enter(int i) const {
    Slot *s = &slots_[i];
    // The one precondition of the fast path: the writer waits for a slot
    // to leave its read, so a nested read on one thread would let the
    // outer read's snapshot be freed under it.
    assert(s->depth.load(std::memory_order_relaxed) == 0 &&
           "nested SnapshotCell::Read() on one thread");
    s->entries.store(s->entries.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    s->depth.store(1, std::memory_order_relaxed);
    // Keeps the compiler from hoisting the pointer load above the stores;
    // the CPU-level ordering is the writer's membarrier.
    std::atomic_signal_fence(std::memory_order_seq_cst);
    return s;
  }
  struct SlotExit {
    Slot *s;
    SlotExit(const SlotExit &) = delete;
    SlotExit &operator=(const SlotExit &) = delete;
    ~SlotExit() { s->depth.store(0, std::memory_order_release); }
  };
  // The fallback read: a locked increment of the current epoch's stripe.
  Guard ReadCounted() const {
    const unsigned e = epoch_.load(std::memory_order_seq_cst) & 1u;
    std::atomic<int64_t> *c = &readers_[e][Stripe()].n;
    c->fetch_add(1, std::memory_order_seq_cst);
    return Guard(nullptr, c, ptr_.load(std::memory_order_seq_cst));
  }

  // Threads take stripes round-robin (two threads never share one until
  // there are more than kStripes).
  static unsigned Stripe() {
    // initial-exec, as ThreadSlot's index: no __tls_get_addr call inside the .so.
    static __thread unsigned stripe __attribute__((tls_model("initial-exec"))) =
        0;  // 0 = unassigned, else 1 + index
    if (stripe == 0) stripe = 1 + next_stripe_.fetch_add(1, std::memory_order_relaxed) % kStripes;
    return stripe - 1;
  }
  static inline std::atomic<unsigned> next_stripe_{0};

  const bool asymmetric_;
  std::atomic<const Snapshot *> ptr_{nullptr};
  mutable Slot slots_[kSlots];
  std::atomic<unsigned> epoch_{0};
  mutable Counter readers_[2][kStripes];
  std::shared_ptr<const Snapshot> owner_;
};

}  // namespace cloudroute
