// ThreadSlot: a small dense index per thread, so an object can keep private
// per-thread state (a reader slot, a random stream) in a plain array instead
// of thread-local storage it cannot own.
//
// The first kThreadSlots threads that ask get an index in [0, kThreadSlots);
// later ones get -1 and must use a shared fallback. A thread gives its index
// back when it exits, and the next thread to ask reuses it (last freed,
// first reused), so long-running processes that churn threads never run out.
// Indexes are handed out in the order threads first ask: a process whose
// threads ask in the same order gets the same indexes in every run.
//
// Thread-safety: ThreadSlot() from any thread; the index is the calling
// thread's until it exits. The fast path is one load of a thread-local int
// with the initial-exec TLS model: inside libcloudroute.so that is a load
// relative to the thread pointer, not a call to __tls_get_addr (4 bytes of
// static TLS, which a dlopen()ed library may use).
#pragma once

namespace cloudroute {

constexpr int kThreadSlots = 128;

namespace thread_slot_internal {
// -2: not asked yet; -1: none was free; else the index.
extern __thread int t_slot __attribute__((tls_model("initial-exec")));
// Takes an index for the calling thread (once; -1 when none is free).
int TakeThreadSlot() noexcept;
}  // namespace thread_slot_internal

// The calling thread's index in [0, kThreadSlots), or -1 when none is free.
inline int ThreadSlot() noexcept {
  const int s = thread_slot_internal::t_slot;
  return s != -2 ? s : thread_slot_internal::TakeThreadSlot();
}

}  // namespace cloudroute
