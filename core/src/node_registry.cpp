#include "cloudroute/core/node_registry.hpp"

#include "cloudroute/core/topology.hpp"

namespace cloudroute {

NodeRegistry::NodeRegistry(HealthConfig health, ClockFn clock_fn, uint64_t seed)
    : health_(health),
      clock_(clock_fn != nullptr ? clock_fn : &SteadyNowNs),
      id_(next_id_.fetch_add(1, std::memory_order_relaxed)),
      rng_(seed) {
  for (auto &c : chunks_) c.store(nullptr, std::memory_order_relaxed);
}

NodeRegistry::~NodeRegistry() {
  for (auto &c : chunks_) delete[] c.load(std::memory_order_relaxed);
}

Result<NodeEntry *> NodeRegistry::Intern(const std::string &host, uint16_t port) {
  const std::string address = FormatAddress(host, port);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_address_.find(address);
  if (it != by_address_.end()) return Get(it->second);
  const uint32_t handle = size_.load(std::memory_order_relaxed);
  if (handle >= kChunk * kMaxChunks) return Error(Code::kLimit, "more than 1048576 distinct nodes");
  NodeEntry *chunk = chunks_[handle / kChunk].load(std::memory_order_relaxed);
  if (chunk == nullptr) {
    chunk = new NodeEntry[kChunk];
    chunks_[handle / kChunk].store(chunk, std::memory_order_release);
  }
  NodeEntry *e = &chunk[handle % kChunk];
  e->host = host;
  e->port = port;
  e->address = address;
  e->handle = handle;
  by_address_.emplace(address, handle);
  size_.store(handle + 1, std::memory_order_release);
  return e;
}

NodeEntry *NodeRegistry::Find(const std::string &address) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_address_.find(address);
  return it == by_address_.end() ? nullptr : Get(it->second);
}

}  // namespace cloudroute
