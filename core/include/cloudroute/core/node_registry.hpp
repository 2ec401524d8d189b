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
#include "cloudroute/core/random_streams.hpp"
#include "cloudroute/core/status.hpp"

namespace cloudroute {

// What a routed read touches (health) and what the C API returns of it
// (handle, port, host's pointer) share the first cache line: the entries of a
// large cluster do not all stay in L1, and two lines per read cost one miss.
struct alignas(64) NodeEntry {
  NodeHealth health;
  std::atomic<uint32_t> rtt_us{0};  // 0 = not measured
  uint32_t handle = 0;
  uint16_t port = 0;
  std::string host;
  std::string address;  // "host:port"
};

class NodeRegistry {
 public:
  NodeRegistry(HealthConfig health, ClockFn clock, uint64_t seed);
  ~NodeRegistry();
  NodeRegistry(const NodeRegistry &) = delete;
  NodeRegistry &operator=(const NodeRegistry &) = delete;

  Result<NodeEntry *> Intern(const std::string &host, uint16_t port);
  NodeEntry *Find(const std::string &address) const;
  NodeEntry *Get(uint32_t handle) const {
    if (handle >= size_.load(std::memory_order_acquire)) return nullptr;
    return &chunks_[handle / kChunk].load(std::memory_order_acquire)[handle % kChunk];
  }
  uint32_t size() const { return size_.load(std::memory_order_acquire); }

  const HealthConfig &health_config() const { return health_; }
  ClockFn clock() const { return clock_; }
  // A well-mixed 64-bit random value from this registry's streams (see
  // RandomStreams): the registry is the router's (or the shard-group
  // table's), so its seed reproduces that router's choices.
  uint64_t NextRandom() { return random_.Next(); }

 private:
  static constexpr uint32_t kChunk = 256;
  static constexpr uint32_t kMaxChunks = 4096;

  const HealthConfig health_;
  const ClockFn clock_;
  RandomStreams random_;
  mutable std::mutex mu_;  // Intern/Find; Find is logically const
  std::unordered_map<std::string, uint32_t> by_address_;
  std::atomic<NodeEntry *> chunks_[kMaxChunks];
  std::atomic<uint32_t> size_{0};
};

}  // namespace cloudroute
