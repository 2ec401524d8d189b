// RandomStreams: the random numbers that pick among equal candidates, owned
// by one router (or one shard-group table), so its seed reproduces its
// choices whatever else the thread does.
//
// Each thread with a ThreadSlot() index draws from its own splitmix64 stream,
// kept in this object's array at that index on a cache line of its own: a
// draw is a load, an add and a store to a line no other thread writes — no
// locked instruction, no allocation, no sharing (a shared atomic counter
// here made every read a locked RMW on one line that every reader writes,
// and reads stopped scaling past one core). Stream i starts from
// SplitMix64(seed ^ (i + 1) * golden), so the streams are scattered over the
// 2^64 cycle instead of being shifted copies of one sequence. A thread with
// no index (more than kThreadSlots at once) draws from one shared stream
// with an atomic add.
//
// Reproducible: two objects with the same seed give one thread the same
// sequence, interleaved or not; a process whose threads take their indexes
// in the same order (see thread_slot.hpp) gets the same sequences in every
// run. Threads beyond kThreadSlots share a stream and are not reproducible.
//
// Thread-safety: Next() from any thread, lock-free and allocation-free.
#pragma once

#include <atomic>
#include <cstdint>

#include "cloudroute/core/thread_slot.hpp"

namespace cloudroute {

constexpr uint64_t kGoldenGamma = 0x9E3779B97F4A7C15ull;

// splitmix64's output function: a bijection that mixes every input bit into
// every output bit.
inline uint64_t SplitMix64Mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// The next value of the splitmix64 stream whose state is *state.
inline uint64_t SplitMix64Next(uint64_t *state) { return SplitMix64Mix(*state += kGoldenGamma); }

class RandomStreams {
 public:
  explicit RandomStreams(uint64_t seed);
  RandomStreams(const RandomStreams &) = delete;
  RandomStreams &operator=(const RandomStreams &) = delete;

  uint64_t Next() {
    const int i = ThreadSlot();
    if (i >= 0) return SplitMix64Next(&streams_[i].state);
    return SplitMix64Mix(shared_.fetch_add(kGoldenGamma, std::memory_order_relaxed) + kGoldenGamma);
  }

 private:
  // Written only by the thread holding the index; an index changes hands
  // under the slot pool's mutex, which orders the two threads' accesses.
  struct alignas(64) Stream {
    uint64_t state;
  };
  Stream streams_[kThreadSlots];
  alignas(64) std::atomic<uint64_t> shared_;
};

}  // namespace cloudroute
