// Client statistics (see stats.hpp).
#include "cloudroute/net/stats.hpp"

namespace cloudroute {
namespace net {

void LatencyHistogram::Add(uint64_t us) {
  int b = 0;
  while (b < kLatencyBuckets - 1 && us > kLatencyBoundsUs[b]) ++b;
  buckets_[b].fetch_add(1, std::memory_order_relaxed);
  sum_us_.fetch_add(us, std::memory_order_relaxed);
}

LatencyValues LatencyHistogram::Snapshot() const {
  LatencyValues v;
  for (int b = 0; b < kLatencyBuckets; ++b) {
    v.buckets[b] = buckets_[b].load(std::memory_order_relaxed);
    v.count += v.buckets[b];
  }
  v.sum_us = sum_us_.load(std::memory_order_relaxed);
  return v;
}

StatsValues Stats::Snapshot() const {
  StatsValues v;
  auto get = [](const std::atomic<uint64_t> &a) { return a.load(std::memory_order_relaxed); };
  v.reads = get(reads);
  for (int i = 0; i < kTierCount; ++i) v.reads_by_tier[i] = get(by_tier[i]);
  v.writes = get(writes);
  v.fallbacks = get(fallbacks);
  v.moved = get(moved);
  v.ask = get(ask);
  v.retries = get(retries);
  v.conn_errors = get(conn_errors);
  v.timeouts = get(timeouts);
  v.server_errors = get(server_errors);
  v.refreshes = get(refreshes);
  v.refresh_failures = get(refresh_failures);
  v.connections = get(connections);
  v.hedges = get(hedges);
  v.hedges_won = get(hedges_won);
  v.hedges_denied = get(hedges_denied);
  v.poisoned = get(poisoned);
  return v;
}

}  // namespace net
}  // namespace cloudroute
