// NodeRegistry: the addresses a router serves or served recently, with state
// that must outlive topology snapshots — health, measured RTT — under a
// handle.
//
// Lifecycle. Whoever keeps entries (a snapshot, the router's previous
// topology, its recent ASK targets) holds a pin on each (NodePins). Reclaim()
// — the router calls it after each topology update, under its writer mutex —
// frees every entry no one pins: its address is forgotten, its strings
// released, its slot reused later. Entries never move and their memory is
// never returned while the registry lives, so a pointer read from a pinned
// snapshot stays a NodeEntry; once reclaimed it may describe another address.
//
// Handles: the low kIndexBits bits are the entry's slot, the high bits a
// generation bumped every time the slot is reclaimed, so a handle that
// outlived its node is refused by Get()/Pin() instead of naming the slot's
// next node. A freed slot is reused only once kReuseAfter other slots are
// free (first freed, first reused): a stale handle can alias a new node only
// after 4095 × kReuseAfter reclaims (4 193 280) while the caller kept it. The
// first handle of a slot is its index, so a registry that never reclaims
// hands out 0, 1, 2, …
//
// Thread-safety: Get()/Pin()/size() are lock-free for any thread;
// Intern()/InternAll()/Find()/FindHandle()/Reclaim() take an internal mutex (they run on
// topology updates and redirects only). A pin's first holder (0 → 1) must
// hold the owner's writer lock that also serializes Reclaim() (the router's);
// later holders need only hold a pin already (see NodePins).
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "cloudroute/core/hash_index.hpp"
#include "cloudroute/core/health.hpp"
#include "cloudroute/core/node_load.hpp"
#include "cloudroute/core/random_streams.hpp"
#include "cloudroute/core/status.hpp"

namespace cloudroute {

struct Topology;

// What a routed read touches (health) and what the C API returns of it
// (handle, port, host's pointer) share the first cache line: the entries of a
// large cluster do not all stay in L1, and two lines per read cost one miss.
// The pin count sits on the second line, which readers never load, with
// the load that load-aware selection reads (and every request writes):
// only that selection loads the line, and it fills what was padding.
struct alignas(64) NodeEntry {
  NodeHealth health;
  std::atomic<uint32_t> rtt_us{0};  // 0 = not measured
  // Changes only when the entry is reclaimed (then kFreeHandle) or reused.
  std::atomic<uint32_t> handle{0};
  uint16_t port = 0;
  std::string host;
  std::string address;  // "host:port"
  std::atomic<uint32_t> pins{0};
  uint16_t generation = 0;  // guarded by the registry's mutex
  NodeLoad load;
};
static_assert(sizeof(NodeEntry) <= 128, "a node entry is two cache lines");

// A set of pins, released on destruction. REQUIRES for Add(e): e was just
// interned or found under the writer lock that serializes Reclaim(), or is
// pinned by someone else for the duration of the call.
class NodePins {
 public:
  NodePins() = default;
  NodePins(const NodePins &) = delete;
  NodePins &operator=(const NodePins &) = delete;
  NodePins(NodePins &&o) noexcept : nodes_(std::move(o.nodes_)) { o.nodes_.clear(); }
  NodePins &operator=(NodePins &&o) noexcept;
  ~NodePins() { Clear(); }

  void Reserve(size_t n) { nodes_.reserve(n); }
  void Add(NodeEntry *e);
  // Pins every entry `other` pins (once more).
  void AddAll(const NodePins &other);
  bool Contains(const NodeEntry *e) const;
  void Clear();
  size_t size() const { return nodes_.size(); }

 private:
  std::vector<NodeEntry *> nodes_;
};

class NodeRegistry {
 public:
  static constexpr uint32_t kIndexBits = 20;
  static constexpr uint32_t kIndexMask = (1u << kIndexBits) - 1;
  // Generations run 0 … 4094, so no handle equals kFreeHandle.
  static constexpr uint32_t kGenerations = (1u << (32 - kIndexBits)) - 1;
  static constexpr uint32_t kFreeHandle = 0xFFFFFFFFu;
  static constexpr size_t kReuseAfter = 1024;

  NodeRegistry(HealthConfig health, ClockFn clock, uint64_t seed);
  ~NodeRegistry();
  NodeRegistry(const NodeRegistry &) = delete;
  NodeRegistry &operator=(const NodeRegistry &) = delete;

  Result<NodeEntry *> Intern(std::string_view host, uint16_t port);
  // Interns every node of `t` with a known endpoint in one pass under one
  // lock, the index grown once for them: out[i] is node i's entry, nullptr
  // for a node whose endpoint is unknown. out has room for t.nodes.size().
  Status InternAll(const Topology &t, NodeEntry **out);
  NodeEntry *Find(const std::string &address) const;
  // The handle of address, read under the mutex (a Find() result's handle
  // could change once the call returned); false when the address is unknown.
  bool FindHandle(const std::string &address, uint32_t *out) const;
  // The entry a handle names, nullptr for one never given or reclaimed since.
  // The entry may be reclaimed right after: use Pin() unless the caller's
  // own pins (or the router's writer lock) keep it.
  NodeEntry *Get(uint32_t handle) const {
    const uint32_t i = handle & kIndexMask;
    if (i >= size_.load(std::memory_order_acquire)) return nullptr;
    NodeEntry *e = Slot(chunks_[ChunkOf(i)].load(std::memory_order_acquire), i);
    return e->handle.load(std::memory_order_acquire) == handle ? e : nullptr;
  }
  // Get() plus a pin, so the entry cannot be reclaimed until Unpin(e); false
  // for an unknown or stale handle, or a node no one pins (about to go).
  NodeEntry *Pin(uint32_t handle) const;
  static void Unpin(NodeEntry *e) { e->pins.fetch_sub(1, std::memory_order_release); }

  // Frees every live entry no one pins; returns how many it freed.
  // REQUIRES: the owner's writer lock (no pin may go 0 → 1 meanwhile).
  size_t Reclaim();

  // Slots ever allocated (live, free and quarantined): the registry's size.
  uint32_t size() const { return size_.load(std::memory_order_acquire); }
  // Addresses with a live entry.
  size_t live() const;

  const HealthConfig &health_config() const { return health_; }
  ClockFn clock() const { return clock_; }
  // A well-mixed 64-bit random value from this registry's streams (see
  // RandomStreams): the registry is the router's (or the shard-group
  // table's), so its seed reproduces that router's choices.
  uint64_t NextRandom() { return random_.Next(); }

 private:
  // Slots live in chunks that never move: the first holds kFirstChunk, each
  // next one doubles up to kChunk, then every chunk holds kChunk. A small
  // cluster so costs a few KB of entries instead of one 32 KB block, a large
  // one a block of kChunk at a time.
  static constexpr uint32_t kFirstChunk = 16;
  static constexpr uint32_t kChunk = 256;
  static constexpr uint32_t kGrowingChunks = 5;  // 16, 16, 32, 64, 128: the first 256
  static constexpr uint32_t kMaxChunks = kGrowingChunks + (kIndexMask + 1 - kChunk) / kChunk;
  static_assert(kFirstChunk << (kGrowingChunks - 1) == kChunk, "the growing chunks fill kChunk");

  // The chunk of slot i, where it starts and how many slots it holds.
  static uint32_t ChunkOf(uint32_t i) {
    if (i >= kChunk) return kGrowingChunks - 1 + i / kChunk;
    if (i < kFirstChunk) return 0;
    uint32_t c = 0;
    for (uint32_t v = i / kFirstChunk; v != 0; v >>= 1) ++c;  // 1 + floor(log2(i / 16))
    return c;
  }
  static uint32_t ChunkStart(uint32_t c) {
    if (c >= kGrowingChunks) return (c - kGrowingChunks + 1) * kChunk;
    return c == 0 ? 0 : kFirstChunk << (c - 1);
  }
  static uint32_t ChunkSize(uint32_t c) {
    return c >= kGrowingChunks ? kChunk : c == 0 ? kFirstChunk : kFirstChunk << (c - 1);
  }
  static NodeEntry *Slot(NodeEntry *chunk, uint32_t i) {
    return &chunk[i - ChunkStart(ChunkOf(i))];
  }

  // REQUIRES: mu_ held. A free slot once enough are free, else a new one
  // (kFreeHandle when the registry is full).
  uint32_t TakeSlotLocked();
  // REQUIRES: mu_ held. The entry of host:port, made if new; nullptr when
  // the registry is full.
  NodeEntry *InternLocked(std::string_view host, uint16_t port);
  // REQUIRES: mu_ held, i < size_.
  NodeEntry *EntryLocked(uint32_t i) const;
  // REQUIRES: mu_ held. The slot index of address, or HashIndex::kNone.
  uint32_t FindLocked(const std::string &address) const;

  const HealthConfig health_;
  const ClockFn clock_;
  RandomStreams random_;
  mutable std::mutex mu_;  // Intern/Find/Reclaim; Find is logically const
  // Slot indices of live entries, by address; lives as long as the router
  // and is asked mostly for addresses it holds, so filled to 3/4.
  HashIndex by_address_{HashIndex::Fill::kThreeQuarters};
  std::deque<uint32_t> free_;  // reclaimed slots, oldest first
  std::atomic<NodeEntry *> chunks_[kMaxChunks];
  std::atomic<uint32_t> size_{0};
};

}  // namespace cloudroute
