// NodeRegistry: every address a router has ever seen, with state that must
// outlive topology snapshots — health, measured RTT — under a stable handle.
//
// Entries are never moved or freed while the registry lives (it is shared by
// the router and every snapshot), so routing results can hand out pointers
// and handles with no per-call allocation or copying.
//
// Thread-safety: Get()/size() are lock-free for any thread; Intern()/Find()
// take an internal mutex (they run on topology updates and redirects only).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "cloudroute/core/health.hpp"
#include "cloudroute/core/status.hpp"

namespace cloudroute {

struct NodeEntry {
  std::string host;
  std::string address;  // "host:port"
  uint16_t port = 0;
  uint32_t handle = 0;
  NodeHealth health;
  std::atomic<uint32_t> rtt_us{0};  // 0 = not measured
};

class NodeRegistry {
 public:
  NodeRegistry(HealthConfig health, ClockFn clock, uint64_t seed);
  ~NodeRegistry();
  NodeRegistry(const NodeRegistry &) = delete;
  NodeRegistry &operator=(const NodeRegistry &) = delete;

  Result<NodeEntry *> Intern(const std::string &host, uint16_t port);
  NodeEntry *Find(const std::string &address);
  NodeEntry *Get(uint32_t handle) const {
    if (handle >= size_.load(std::memory_order_acquire)) return nullptr;
    return &chunks_[handle / kChunk].load(std::memory_order_acquire)[handle % kChunk];
  }
  uint32_t size() const { return size_.load(std::memory_order_acquire); }

  const HealthConfig &health_config() const { return health_; }
  ClockFn clock() const { return clock_; }
  // A well-mixed 64-bit random value: splitmix64 over a per-thread counter,
  // seeded from this registry's sequence when the thread first draws from
  // this registry (id_ tells registries apart and is never reused; a thread
  // that alternates registries reseeds at each switch). So a router's seed
  // reproduces its choices even when one thread drives several routers. A
  // shared atomic counter here made every read a locked RMW on one cache line
  // that all reader threads write (reads did not scale past one core).
  uint64_t NextRandom() {
    struct Stream {
      uint64_t owner = 0;  // id_ of the registry the state was seeded from
      uint64_t state = 0;
    };
    static thread_local Stream t;  // constant-initialised: no TLS guard
    if (t.owner != id_) {
      t.owner = id_;
      t.state = rng_.fetch_add(0x9E3779B97F4A7C15ull, std::memory_order_relaxed) | 1;
    }
    uint64_t z = (t.state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

 private:
  static constexpr uint32_t kChunk = 256;
  static constexpr uint32_t kMaxChunks = 4096;

  static inline std::atomic<uint64_t> next_id_{1};

  const HealthConfig health_;
  const ClockFn clock_;
  const uint64_t id_;
  std::atomic<uint64_t> rng_;
  std::mutex mu_;
  std::unordered_map<std::string, uint32_t> by_address_;
  std::atomic<NodeEntry *> chunks_[kMaxChunks];
  std::atomic<uint32_t> size_{0};
};

}  // namespace cloudroute
