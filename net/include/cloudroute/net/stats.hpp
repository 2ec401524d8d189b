// Client-wide routing statistics: where reads were served (by locality
// tier), fallbacks, redirects, retries, errors, refreshes.
//
// Thread-safety: relaxed atomic counters, updated from any thread; a
// Snapshot() is a consistent-enough copy for monitoring (not a transaction).
#pragma once

#include <atomic>
#include <cstdint>

namespace cloudroute {
namespace net {

constexpr int kTierCount = 5;  // Tier::kLocal .. Tier::kUnknown

// Upper bounds (microseconds) of the latency histogram's buckets; a last,
// unbounded bucket follows. From a same-zone round trip to a cross-cloud
// timeout.
constexpr uint32_t kLatencyBoundsUs[] = {100,   250,   500,    1000,   2500,   5000,   10000,
                                         25000, 50000, 100000, 250000, 500000, 1000000};
constexpr int kLatencyBuckets = sizeof kLatencyBoundsUs / sizeof kLatencyBoundsUs[0] + 1;

struct LatencyValues {
  uint64_t buckets[kLatencyBuckets] = {};  // per bucket (not cumulative)
  uint64_t count = 0;
  uint64_t sum_us = 0;
};

// Round-trip latencies of one node: a count per bucket and the sum.
// Thread-safety: relaxed atomics, from any thread.
class LatencyHistogram {
 public:
  void Add(uint64_t us);
  LatencyValues Snapshot() const;

 private:
  std::atomic<uint64_t> buckets_[kLatencyBuckets] = {};
  std::atomic<uint64_t> sum_us_{0};
};

struct StatsValues {
  uint64_t reads = 0;  // read commands a node answered
  uint64_t reads_by_tier[kTierCount] = {};
  uint64_t writes = 0;     // write commands a master answered
  uint64_t fallbacks = 0;  // reads served by a later candidate after an earlier one failed
  uint64_t moved = 0;
  uint64_t ask = 0;
  uint64_t retries = 0;  // TRYAGAIN / CLUSTERDOWN / LOADING retries
  uint64_t conn_errors = 0;
  uint64_t timeouts = 0;
  uint64_t server_errors = 0;  // error replies returned to the caller
  uint64_t refreshes = 0;      // successful topology refreshes
  uint64_t refresh_failures = 0;
  uint64_t connections = 0;    // connections dialed
  uint64_t hedges = 0;         // hedged reads: a read also sent to the next candidate
  uint64_t hedges_won = 0;     // ... that the next candidate answered first
  uint64_t hedges_denied = 0;  // reads past their hedge delay that the budget did not allow
  uint64_t poisoned = 0;       // connections closed because replies stopped matching requests
};

class Stats {
 public:
  void Add(std::atomic<uint64_t> Stats::*field, uint64_t n = 1) {
    (this->*field).fetch_add(n, std::memory_order_relaxed);
  }
  void AddRead(int tier) {
    reads.fetch_add(1, std::memory_order_relaxed);
    if (tier >= 0 && tier < kTierCount) by_tier[tier].fetch_add(1, std::memory_order_relaxed);
  }
  StatsValues Snapshot() const;

  std::atomic<uint64_t> reads{0}, writes{0}, fallbacks{0}, moved{0}, ask{0}, retries{0},
      conn_errors{0}, timeouts{0}, server_errors{0}, refreshes{0}, refresh_failures{0},
      connections{0}, hedges{0}, hedges_won{0}, hedges_denied{0}, poisoned{0};
  std::atomic<uint64_t> by_tier[kTierCount] = {};
};

}  // namespace net
}  // namespace cloudroute
