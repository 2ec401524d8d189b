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

namespace {

// The host and port FormatAddress made `address` of; false for a text it
// cannot have made (no such address is in the registry).
bool SplitAddress(std::string_view address, std::string_view *host, uint16_t *port) {
  HostPortView split;
  if (!SplitHostPort(address, &split) || split.port.empty() || split.port.size() > 5) {
    return false;
  }
  // FormatAddress brackets exactly the hosts with a ':' in them (IPv6).
  if (split.bracketed && split.host.find(':') == std::string_view::npos) return false;
  uint32_t p = 0;
  for (const char c : split.port) {
    if (c < '0' || c > '9') return false;
    p = p * 10 + static_cast<uint32_t>(c - '0');
  }
  if (p > 0xFFFF) return false;
  *host = split.host;
  *port = static_cast<uint16_t>(p);
  return true;
}

}  // namespace

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
  const uint32_t c = ChunkOf(i);
  NodeEntry *chunk = chunks_[c].load(std::memory_order_relaxed);
  if (chunk == nullptr) {
    chunk = new NodeEntry[ChunkSize(c)];
    chunks_[c].store(chunk, std::memory_order_release);
  }
  Slot(chunk, i)->handle.store(kFreeHandle, std::memory_order_relaxed);
  size_.store(i + 1, std::memory_order_release);
  return i;
}

NodeEntry *NodeRegistry::EntryLocked(uint32_t i) const {
  return Slot(chunks_[ChunkOf(i)].load(std::memory_order_relaxed), i);
}

NodeEntry *NodeRegistry::InternLocked(std::string_view host, uint16_t port) {
  const uint64_t hash = HashBytes(host, port);
  const uint32_t found = by_address_.Find(hash, [&](uint32_t c) {
    const NodeEntry *e = EntryLocked(c);
    return e->port == port && e->host == host;
  });
  if (found != HashIndex::kNone) return EntryLocked(found);
  // A new node: its strings are allocated before a slot is taken.
  std::string address = FormatAddress(host, port);
  std::string host_copy(host);
  const uint32_t i = TakeSlotLocked();
  if (i == kFreeHandle) return nullptr;
  // Out of memory here loses the slot (its handle stays free), never more.
  by_address_.Insert(hash, i);
  NodeEntry *e = EntryLocked(i);
  e->host = std::move(host_copy);
  e->port = port;
  e->address = std::move(address);
  e->handle.store((static_cast<uint32_t>(e->generation) << kIndexBits) | i,
                  std::memory_order_release);
  return e;
}

Result<NodeEntry *> NodeRegistry::Intern(std::string_view host, uint16_t port) {
  std::lock_guard<std::mutex> lock(mu_);
  NodeEntry *e = InternLocked(host, port);
  if (e == nullptr) return Error(Code::kLimit, "more than 1048576 live nodes");
  return e;
}

Status NodeRegistry::InternAll(const Topology &t, NodeEntry **out) {
  std::lock_guard<std::mutex> lock(mu_);
  by_address_.Reserve(t.nodes.size());
  for (size_t i = 0; i < t.nodes.size(); ++i) {
    const TopoNode &n = t.nodes[i];
    out[i] = nullptr;
    if (!n.endpoint_known()) continue;
    out[i] = InternLocked(n.host(), n.port);
    if (out[i] == nullptr) return Error(Code::kLimit, "more than 1048576 live nodes");
  }
  return Status::Ok();
}

uint32_t NodeRegistry::FindLocked(const std::string &address) const {
  std::string_view host;
  uint16_t port = 0;
  if (!SplitAddress(address, &host, &port)) return HashIndex::kNone;
  return by_address_.Find(HashBytes(host, port),
                          [&](uint32_t c) { return EntryLocked(c)->address == address; });
}

NodeEntry *NodeRegistry::Find(const std::string &address) const {
  std::lock_guard<std::mutex> lock(mu_);
  const uint32_t i = FindLocked(address);
  return i == HashIndex::kNone ? nullptr : EntryLocked(i);
}

bool NodeRegistry::FindHandle(const std::string &address, uint32_t *out) const {
  std::lock_guard<std::mutex> lock(mu_);
  const uint32_t i = FindLocked(address);
  if (i == HashIndex::kNone) return false;
  *out = EntryLocked(i)->handle.load(std::memory_order_relaxed);
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
  const uint32_t slots = size_.load(std::memory_order_relaxed);
  for (uint32_t i = 0; i < slots; ++i) {
    NodeEntry *e = EntryLocked(i);
    // Live entries only: free and quarantined slots hold kFreeHandle.
    if (e->handle.load(std::memory_order_relaxed) == kFreeHandle ||
        e->pins.load(std::memory_order_acquire) != 0) {
      continue;
    }
    by_address_.Erase(HashBytes(e->host, e->port), i);
    // Stale handles fail from here on; a reused slot gets the next generation.
    e->handle.store(kFreeHandle, std::memory_order_release);
    e->generation = static_cast<uint16_t>((e->generation + 1) % kGenerations);
    e->health.Reset();
    e->rtt_us.store(0, std::memory_order_relaxed);
    e->load.ForgetLatency();
    e->port = 0;
    std::string().swap(e->host);
    std::string().swap(e->address);
    free_.push_back(i);
    ++freed;
  }
  return freed;
}

size_t NodeRegistry::live() const {
  std::lock_guard<std::mutex> lock(mu_);
  return by_address_.size();
}

}  // namespace cloudroute
