#include "cloudroute/core/node_registry.hpp"

#include <algorithm>

#include "cloudroute/core/topology.hpp"

namespace cloudroute {

NodePins &NodePins::operator=(NodePins &&o) noexcept {
  if (this != &o) {
    Clear();
    nodes_ = std::move(o.nodes_);
    o.nodes_.clear();
  }
  return *this;
}

void NodePins::Add(NodeEntry *e) {
  nodes_.push_back(e);  // first: a failed push_back leaves no pin behind
  e->pins.fetch_add(1, std::memory_order_relaxed);
}

void NodePins::AddAll(const NodePins &other) {
  nodes_.reserve(nodes_.size() + other.nodes_.size());
  for (NodeEntry *e : other.nodes_) Add(e);
}

bool NodePins::Contains(const NodeEntry *e) const {
  return std::find(nodes_.begin(), nodes_.end(), e) != nodes_.end();
}

void NodePins::Clear() {
  for (NodeEntry *e : nodes_) NodeRegistry::Unpin(e);
  nodes_.clear();
}

NodeRegistry::NodeRegistry(HealthConfig health, ClockFn clock_fn, uint64_t seed)
    : health_(health), clock_(clock_fn != nullptr ? clock_fn : &SteadyNowNs), random_(seed) {
  for (auto &c : chunks_) c.store(nullptr, std::memory_order_relaxed);
}

NodeRegistry::~NodeRegistry() {
  for (auto &c : chunks_) delete[] c.load(std::memory_order_relaxed);
}

uint32_t NodeRegistry::TakeSlotLocked() {
  if (free_.size() > kReuseAfter) {
    const uint32_t i = free_.front();
    free_.pop_front();
    return i;
  }
  const uint32_t i = size_.load(std::memory_order_relaxed);
  if (i > kIndexMask) {
    if (free_.empty()) return kFreeHandle;
    const uint32_t oldest = free_.front();  // full: reuse sooner rather than fail
    free_.pop_front();
    return oldest;
  }
  NodeEntry *chunk = chunks_[i / kChunk].load(std::memory_order_relaxed);
  if (chunk == nullptr) {
    chunk = new NodeEntry[kChunk];
    chunks_[i / kChunk].store(chunk, std::memory_order_release);
  }
  chunk[i % kChunk].handle.store(kFreeHandle, std::memory_order_relaxed);
  size_.store(i + 1, std::memory_order_release);
  return i;
}

Result<NodeEntry *> NodeRegistry::Intern(const std::string &host, uint16_t port) {
  std::string address = FormatAddress(host, port);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_address_.find(address);
  if (it != by_address_.end()) {
    return &chunks_[it->second / kChunk].load(std::memory_order_relaxed)[it->second % kChunk];
  }
  std::string host_copy = host;  // allocated before a slot is taken
  const uint32_t i = TakeSlotLocked();
  if (i == kFreeHandle) return Error(Code::kLimit, "more than 1048576 live nodes");
  // Out of memory here loses the slot (its handle stays free), never more.
  by_address_.emplace(address, i);
  NodeEntry *e = &chunks_[i / kChunk].load(std::memory_order_relaxed)[i % kChunk];
  e->host.swap(host_copy);
  e->port = port;
  e->address = std::move(address);
  e->handle.store((static_cast<uint32_t>(e->generation) << kIndexBits) | i,
                  std::memory_order_release);
  return e;
}

NodeEntry *NodeRegistry::Find(const std::string &address) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_address_.find(address);
  if (it == by_address_.end()) return nullptr;
  return &chunks_[it->second / kChunk].load(std::memory_order_relaxed)[it->second % kChunk];
}

bool NodeRegistry::FindHandle(const std::string &address, uint32_t *out) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_address_.find(address);
  if (it == by_address_.end()) return false;
  *out =
      chunks_[it->second / kChunk].load(std::memory_order_relaxed)[it->second % kChunk].handle.load(
          std::memory_order_relaxed);
  return true;
}

NodeEntry *NodeRegistry::Pin(uint32_t handle) const {
  NodeEntry *e = Get(handle);
  if (e == nullptr) return nullptr;
  // Only from a count above zero: 0 → 1 belongs to the writer (see the
  // class comment), so a node Reclaim() found unpinned stays unpinned.
  uint32_t p = e->pins.load(std::memory_order_relaxed);
  do {
    if (p == 0) return nullptr;
  } while (!e->pins.compare_exchange_weak(p, p + 1, std::memory_order_acquire,
                                          std::memory_order_relaxed));
  // Pinned now; the slot may have been reclaimed and reused in between.
  if (e->handle.load(std::memory_order_acquire) != handle) {
    Unpin(e);
    return nullptr;
  }
  return e;
}

size_t NodeRegistry::Reclaim() {
  std::lock_guard<std::mutex> lock(mu_);
  size_t freed = 0;
  for (auto it = by_address_.begin(); it != by_address_.end();) {
    const uint32_t i = it->second;
    NodeEntry *e = &chunks_[i / kChunk].load(std::memory_order_relaxed)[i % kChunk];
    if (e->pins.load(std::memory_order_acquire) != 0) {
      ++it;
      continue;
    }
    // Stale handles fail from here on; a reused slot gets the next generation.
    e->handle.store(kFreeHandle, std::memory_order_release);
    e->generation = static_cast<uint16_t>((e->generation + 1) % kGenerations);
    e->health.Reset();
    e->rtt_us.store(0, std::memory_order_relaxed);
    e->port = 0;
    std::string().swap(e->host);
    std::string().swap(e->address);
    free_.push_back(i);
    it = by_address_.erase(it);
    ++freed;
  }
  return freed;
}

size_t NodeRegistry::live() const {
  std::lock_guard<std::mutex> lock(mu_);
  return by_address_.size();
}

}  // namespace cloudroute
