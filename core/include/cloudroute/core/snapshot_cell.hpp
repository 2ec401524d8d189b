// SnapshotCell: publishes immutable snapshots to lock-free readers.
//
// Readers announce themselves on a striped counter of the current epoch,
// load the pointer, use it, and leave — two uncontended atomic increments on
// a cache line their thread mostly owns, no lock, no reference-count traffic
// on the snapshot. A writer swaps the pointer, then, for each epoch in turn,
// points new readers at the other epoch and waits until every stripe of the
// old one has been seen at zero; only then is the old snapshot released. A
// reader that announced itself before the swap is therefore always waited
// for, and a reader that announced itself after it can only see the new
// snapshot. Writers are serialized by the caller.
//
// Thread-safety: Read() from any thread; Publish() from one thread at a time.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>

#include "cloudroute/core/snapshot.hpp"

namespace cloudroute {

class SnapshotCell {
 public:
  static constexpr unsigned kStripes = 16;

  class Guard {
   public:
    Guard(const Guard &) = delete;
    Guard &operator=(const Guard &) = delete;
    Guard(Guard &&o) noexcept : counter_(o.counter_), snap_(o.snap_) { o.counter_ = nullptr; }
    ~Guard() {
      if (counter_ != nullptr) counter_->fetch_sub(1, std::memory_order_release);
    }
    const Snapshot *get() const { return snap_; }  // nullptr before the first Publish

   private:
    friend class SnapshotCell;
    Guard(std::atomic<int64_t> *c, const Snapshot *s) : counter_(c), snap_(s) {}
    std::atomic<int64_t> *counter_;
    const Snapshot *snap_;
  };

  SnapshotCell() = default;
  SnapshotCell(const SnapshotCell &) = delete;
  SnapshotCell &operator=(const SnapshotCell &) = delete;

  Guard Read() const {
    const unsigned e = epoch_.load(std::memory_order_seq_cst) & 1u;
    std::atomic<int64_t> *c = &readers_[e][Stripe()].n;
    c->fetch_add(1, std::memory_order_seq_cst);
    return Guard(c, ptr_.load(std::memory_order_seq_cst));
  }

  // A counted reference to the current snapshot (for callers that keep it).
  std::shared_ptr<const Snapshot> Acquire() const {
    Guard g = Read();
    return g.get() == nullptr ? nullptr : g.get()->shared_from_this();
  }

  // Swaps in `next` and waits out every reader of the previous one.
  void Publish(std::shared_ptr<const Snapshot> next) {
    ptr_.store(next.get(), std::memory_order_seq_cst);
    std::shared_ptr<const Snapshot> old = std::move(owner_);
    owner_ = std::move(next);
    for (int phase = 0; phase < 2; ++phase) {
      const unsigned drained = epoch_.load(std::memory_order_seq_cst) & 1u;
      epoch_.fetch_add(1, std::memory_order_seq_cst);
      for (unsigned s = 0; s < kStripes; ++s) {
        while (readers_[drained][s].n.load(std::memory_order_seq_cst) != 0) {
          std::this_thread::yield();
        }
      }
    }
    old.reset();
  }

 private:
  struct alignas(64) Counter {
    std::atomic<int64_t> n{0};
  };

  // Threads take stripes round-robin (two threads never share one until
  // there are more than kStripes). Constant-initialised thread_local: one
  // TLS access and no init guard per read (two __tls_get_addr calls per read
  // in libcloudroute.so before).
  static unsigned Stripe() {
    static thread_local unsigned stripe = 0;  // 0 = unassigned, else 1 + index
    if (stripe == 0) stripe = 1 + next_stripe_.fetch_add(1, std::memory_order_relaxed) % kStripes;
    return stripe - 1;
  }
  static inline std::atomic<unsigned> next_stripe_{0};

  std::atomic<const Snapshot *> ptr_{nullptr};
  std::atomic<unsigned> epoch_{0};
  mutable Counter readers_[2][kStripes];
  std::shared_ptr<const Snapshot> owner_;
};

}  // namespace cloudroute
