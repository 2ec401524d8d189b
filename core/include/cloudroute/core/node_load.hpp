// NodeLoad: what load-aware selection (Selection::kLeastLoaded) reads of a
// node — the requests in flight to it and a recent round-trip latency — and
// the rule that compares two nodes by them.
//
// The live client feeds it: every request to a node holds a LoadMark while
// it is in flight (single-key commands, each leg of a fan-out, hedges; an
// asynchronous single-key call's first attempt, on the engine thread, is
// sampled but not counted in flight), and every round trip the node
// answers is a latency sample (AddSample). A
// router used for routing only (the C API's cr_router_route_read) has no
// feed: every node reads as idle and unmeasured, so the choice is the
// weighted random draw.
//
// Cost rule (LoadCheaper): a node's cost is (in flight + 1) × its latency,
// the latency floored at kLoadFloorUs so loopback-sized differences (tens of
// microseconds of noise) count as equal; the second node of a pair wins
// only when its cost is below 4/5 of the first's, so near-equal nodes split
// the tier by their draw (the first drawn keeps the tie) instead of the one
// that happened to measure faster taking all of it. A latency not sampled
// within kLoadStaleNs counts as unknown — a node that lost its share is
// tried again and measured afresh — and when either latency is unknown only
// the in-flight counts are compared.
//
// Thread-safety: relaxed atomics from any thread; no lock, no allocation.
// The counters are statistics: a pick made on a value a moment old is fine.
#pragma once

#include <atomic>
#include <cstdint>

namespace cloudroute {

// A sample older than this is no longer the node's latency (see above).
constexpr int64_t kLoadStaleNs = 1000 * 1000 * 1000;
// Latencies below this compare as this (see above).
constexpr uint32_t kLoadFloorUs = 100;

// Every request writes it: it sits on a node entry's second cache line,
// beside the address and pin count, which a routed read never loads — not
// on the first (health), and not on a line of its own (64 more bytes per
// node would break the retained-memory budget of large topologies).
struct NodeLoad {
  std::atomic<uint32_t> inflight{0};
  std::atomic<uint32_t> latency_us{0};  // EWMA (weight 1/8) of round trips; 0 = none
  std::atomic<int64_t> sampled_ns{0};   // clock of the last sample; 0 = none

  // A round trip of `us` microseconds that ended at now_ns (the registry's
  // clock). A sample after a stale one replaces it: what the node did a
  // while ago says little about now (a recovered node is not held to its
  // old latency for dozens of samples).
  void AddSample(uint32_t us, int64_t now_ns) {
    const uint32_t old = latency_us.load(std::memory_order_relaxed);
    const int64_t last = sampled_ns.load(std::memory_order_relaxed);
    const bool fresh = old != 0 && last != 0 && now_ns - last < kLoadStaleNs;
    const uint32_t v = fresh ? static_cast<uint32_t>((7ull * old + us) / 8) : us;
    latency_us.store(v > 0 ? v : 1, std::memory_order_relaxed);
    sampled_ns.store(now_ns != 0 ? now_ns : 1, std::memory_order_relaxed);
  }
  // Forgets the latency (a registry slot reused for another address). The
  // in-flight count stays: requests still running on the old address end
  // their marks on this slot, so the count stays balanced.
  void ForgetLatency() {
    latency_us.store(0, std::memory_order_relaxed);
    sampled_ns.store(0, std::memory_order_relaxed);
  }
};

// One request in flight to a node, from construction to End() or
// destruction. Movable (a fan-out's legs live in a container), not copyable.
class LoadMark {
 public:
  LoadMark() = default;
  explicit LoadMark(NodeLoad *load) : load_(load) {
    if (load_ != nullptr) load_->inflight.fetch_add(1, std::memory_order_relaxed);
  }
  LoadMark(LoadMark &&o) noexcept : load_(o.load_) { o.load_ = nullptr; }
  LoadMark &operator=(LoadMark &&o) noexcept {
    if (this != &o) {
      End();
      load_ = o.load_;
      o.load_ = nullptr;
    }
    return *this;
  }
  LoadMark(const LoadMark &) = delete;
  LoadMark &operator=(const LoadMark &) = delete;
  ~LoadMark() { End(); }

  // The request is no longer in flight (idempotent).
  void End() {
    if (load_ != nullptr) load_->inflight.fetch_sub(1, std::memory_order_relaxed);
    load_ = nullptr;
  }

 private:
  NodeLoad *load_ = nullptr;
};

// What LoadCheaper compares of one node, read once.
struct LoadView {
  uint32_t inflight;
  uint32_t latency_us;  // 0 = unknown (never sampled, or stale)
};

inline LoadView ViewLoad(const NodeLoad &l, int64_t now_ns) {
  LoadView v{l.inflight.load(std::memory_order_relaxed),
             l.latency_us.load(std::memory_order_relaxed)};
  const int64_t at = l.sampled_ns.load(std::memory_order_relaxed);
  if (v.latency_us != 0 && (at == 0 || now_ns - at >= kLoadStaleNs)) v.latency_us = 0;
  return v;
}

// Whether `second` is clearly cheaper than `first` (the rule above); false
// on a tie, so the first drawn keeps it.
inline bool LoadCheaper(const LoadView &second, const LoadView &first) {
  uint64_t a = uint64_t{first.inflight} + 1, b = uint64_t{second.inflight} + 1;
  if (first.latency_us != 0 && second.latency_us != 0) {
    a *= first.latency_us > kLoadFloorUs ? first.latency_us : kLoadFloorUs;
    b *= second.latency_us > kLoadFloorUs ? second.latency_us : kLoadFloorUs;
  }
  return b * 5 < a * 4;
}

}  // namespace cloudroute
