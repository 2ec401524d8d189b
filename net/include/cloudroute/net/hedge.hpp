// Hedged reads: when a read's node has not answered within a
// delay, the same read goes to the next candidate in the read order too and
// the first answer wins (hedged_read.cpp runs a single-key read's hedge,
// fan_out.cpp a fan-out leg's: the open reads of a node's share; see
// docs/architecture.md, "Hedged reads"). This file holds the parts that need
// no server: the options, each node's recent latency (for the adaptive
// delay), the delay itself, and the budget that bounds the extra reads.
//
// Thread-safety: RecentLatency and HedgeBudget are relaxed atomics, safe
// from any thread; HedgeOptions and HedgeDelayUs are plain values and a pure
// function.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "cloudroute/core/status.hpp"

namespace cloudroute {
namespace net {

enum class HedgeMode : uint8_t {
  kOff,       // never hedge (the default)
  kFixed,     // hedge after delay_ms
  kAdaptive,  // hedge after the node's recent latency percentile (floor min_delay_ms)
};

struct HedgeOptions {
  HedgeMode mode = HedgeMode::kOff;
  uint32_t delay_ms = 20;        // kFixed: the delay; kAdaptive: until the node has samples
  uint32_t min_delay_ms = 2;     // kAdaptive: the delay is never shorter
  double percentile = 99.0;      // kAdaptive: of the node's recent round trips, in (0, 100]
  uint32_t budget_percent = 10;  // hedges at most this share of reads (plus a burst)
};

// A node whose read lost this many hedges in a row (the next candidate
// answered first, it said nothing) is set aside like a node that timed out:
// a stalled node stops costing a hedge delay on every read.
constexpr uint32_t kHedgeLossesBeforeSetAside = 3;

// A node's recent round trips in 32 buckets, each about 1.41x wider than the
// last (50 us .. 2.3 s, then one unbounded bucket). Recent: every
// kRecentWindow samples, every count is halved, so old samples fade (a
// concurrent Add may be lost in the halving: this is a statistic).
class RecentLatency {
 public:
  static constexpr int kBuckets = 33;
  static constexpr uint64_t kRecentWindow = 1024;
  static constexpr uint64_t kMinSamples = 64;  // fewer: Quantile() has no answer

  void Add(uint64_t us);
  // The upper bound (us) of the bucket holding the p-th percentile of the
  // recent samples; false while there are fewer than kMinSamples.
  bool Quantile(double p, uint32_t *us) const;
  // The upper bound (us) of bucket b (the last, unbounded one: twice the one before).
  static uint32_t BoundUs(int b);

 private:
  std::atomic<uint64_t> buckets_[kBuckets] = {};
  std::atomic<uint64_t> added_{0};
};

// How long a read sent to a node waits before it is hedged, in
// microseconds. REQUIRES: o.mode != kOff.
uint32_t HedgeDelayUs(const HedgeOptions &o, const RecentLatency &node_latency);

// Until when a hedged read waits for a new connection to its node, started
// at start_ns, with the hedge delay delay_ns: a handshake takes a few round
// trips, and an adaptive delay (a round trip's p99) would give up on healthy
// dials, so a new connection gets at least delay_ms.
int64_t HedgeDialUntil(const HedgeOptions &o, int64_t start_ns, int64_t delay_ns);
// What a read whose new connection was not ready by then fails with (the
// dial goes on; nothing was sent, so the read moves on at no extra cost).
Status DialNotReady(const std::string &address);

// At most percent hedges per 100 reads, with a burst of kBurst: every read
// earns percent/100 of a hedge (up to kBurst banked), every hedge spends
// one. It starts full, so a stall right after start is covered too. A
// fan-out counts legs, not reads: each hedgeable leg earns, each hedged leg
// spends one (whatever the number of its reads).
class HedgeBudget {
 public:
  static constexpr int64_t kBurst = 10;

  explicit HedgeBudget(uint32_t percent)
      : percent_(percent), balance_(static_cast<int64_t>(kBurst) * 100) {}
  void OnRead();
  // Spends one hedge; false (nothing spent) when the budget is used up.
  bool TryTake();

 private:
  const uint32_t percent_;
  std::atomic<int64_t> balance_;  // in hundredths of a hedge
};

}  // namespace net
}  // namespace cloudroute
