// ThreadSlot's pool of free indexes (see thread_slot.hpp).
#include "cloudroute/core/thread_slot.hpp"

#include <mutex>
#include <new>
#include <vector>

namespace cloudroute {
namespace thread_slot_internal {

__thread int t_slot __attribute__((tls_model("initial-exec"))) = -2;

namespace {

struct SlotPool {
  SlotPool() { free.reserve(kThreadSlots); }  // returning a slot never allocates
  std::mutex mu;
  std::vector<int> free;
  int next = 0;
};

SlotPool &Pool() {
  // Built in static storage and never destroyed: threads may exit (and give
  // their slot back) after static destructors have run.
  alignas(SlotPool) static unsigned char storage[sizeof(SlotPool)];
  static SlotPool *pool = new (storage) SlotPool;
  return *pool;
}

struct SlotReturner {
  ~SlotReturner() {
    if (t_slot < 0) return;
    SlotPool &p = Pool();
    std::lock_guard<std::mutex> lock(p.mu);
    p.free.push_back(t_slot);
    t_slot = -1;
  }
};

// A thread that cannot get a slot (out of memory, all taken) gets -1.
int Take() noexcept try {
  SlotPool &p = Pool();
  int slot = -1;
  {
    std::lock_guard<std::mutex> lock(p.mu);
    if (!p.free.empty()) {
      slot = p.free.back();
      p.free.pop_back();
    } else if (p.next < kThreadSlots) {
      slot = p.next++;
    }
  }
  if (slot >= 0) {
    thread_local SlotReturner returner;
    (void)returner;
  }
  return slot;
} catch (...) {
  return -1;
}

}  // namespace

int TakeThreadSlot() noexcept {
  if (t_slot == -2) t_slot = Take();
  return t_slot;
}

}  // namespace thread_slot_internal
}  // namespace cloudroute
