// SnapshotCell's writer side and the process-wide resource its fast path
// needs besides ThreadSlot(): the expedited membarrier.
#include "cloudroute/core/snapshot_cell.hpp"

#include <sched.h>

#if defined(__linux__)
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace cloudroute {
namespace snapshot_cell_internal {

namespace {

#if defined(__linux__) && defined(__NR_membarrier)
long Membarrier(int cmd) { return syscall(__NR_membarrier, cmd, 0, 0); }
#endif

}  // namespace

// ThreadSanitizer models atomics and locks, not membarrier(2): it cannot know
// that the writer's fence orders a reader's relaxed slot stores before the
// reader's pointer load, so the fast path would look like a race on every
// snapshot a writer frees (and on a reader's entry counter the writer only
// compares). A TSan build therefore says "no fence" and every reader takes the
// fallback counters, whose seq_cst read-modify-writes TSan does understand.
// That fallback is production code too (a thread beyond kSlots, a kernel
// without membarrier), so TSan still checks a real path and hides no race.
#if defined(__SANITIZE_THREAD__)
#define CR_THREAD_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CR_THREAD_SANITIZER 1
#endif
#endif

bool AsymmetricFenceAvailable() {
#if defined(CR_THREAD_SANITIZER)
  return false;
#elif defined(__linux__) && defined(__NR_membarrier)
  static const bool ok = [] {
    const long cmds = Membarrier(MEMBARRIER_CMD_QUERY);
    if (cmds < 0 || (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) == 0) return false;
    return Membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
  }();
  return ok;
#else
  return false;
#endif
}

void AsymmetricFence() {
#if defined(__linux__) && defined(__NR_membarrier)
  Membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED);
#endif
}

}  // namespace snapshot_cell_internal

void SnapshotCell::Publish(std::shared_ptr<const Snapshot> next) {
  ptr_.store(next.get(), std::memory_order_seq_cst);
  std::shared_ptr<const Snapshot> old = std::move(owner_);
  owner_ = std::move(next);
  if (asymmetric_) {
    snapshot_cell_internal::AsymmetricFence();
    for (unsigned i = 0; i < kSlots; ++i) {
      Slot &s = slots_[i];
      if (s.depth.load(std::memory_order_acquire) == 0) continue;
      const uint32_t entries = s.entries.load(std::memory_order_acquire);
      while (s.depth.load(std::memory_order_acquire) != 0 &&
             s.entries.load(std::memory_order_acquire) == entries) {
        sched_yield();
      }
    }
  }
  for (int phase = 0; phase < 2; ++phase) {
    const unsigned drained = epoch_.load(std::memory_order_seq_cst) & 1u;
    epoch_.fetch_add(1, std::memory_order_seq_cst);
    for (unsigned s = 0; s < kStripes; ++s) {
      while (readers_[drained][s].n.load(std::memory_order_seq_cst) != 0) {
        sched_yield();
      }
    }
  }
  old.reset();
}

}  // namespace cloudroute
