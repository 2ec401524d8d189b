// Hedged reads: recent latency, delay, budget (see hedge.hpp).
#include "cloudroute/net/hedge.hpp"

#include <algorithm>
#include <cmath>

#include "cloudroute/net/deadline.hpp"
#include "cloudroute/net/errors.hpp"

namespace cloudroute {
namespace net {

uint32_t RecentLatency::BoundUs(int b) {
  // 50 us * 2^(b/2); the last bucket has no bound: twice the one before.
  if (b >= kBuckets - 1) return 2 * BoundUs(kBuckets - 2);
  return static_cast<uint32_t>(std::lround(50.0 * std::pow(2.0, b / 2.0)));
}

namespace {

// The bounds, computed once.
struct Bounds {
  uint32_t us[RecentLatency::kBuckets];
  Bounds() {
    for (int b = 0; b < RecentLatency::kBuckets; ++b) us[b] = RecentLatency::BoundUs(b);
  }
};

const Bounds &TheBounds() {
  static const Bounds bounds;
  return bounds;
}

}  // namespace

void RecentLatency::Add(uint64_t us) {
  const Bounds &bounds = TheBounds();
  int b = 0;
  while (b < kBuckets - 1 && us > bounds.us[b]) ++b;
  buckets_[b].fetch_add(1, std::memory_order_relaxed);
  if ((added_.fetch_add(1, std::memory_order_relaxed) + 1) % kRecentWindow == 0) {
    for (auto &bucket : buckets_) {
      bucket.store(bucket.load(std::memory_order_relaxed) / 2, std::memory_order_relaxed);
    }
  }
}

bool RecentLatency::Quantile(double p, uint32_t *us) const {
  uint64_t counts[kBuckets];
  uint64_t total = 0;
  for (int b = 0; b < kBuckets; ++b) {
    counts[b] = buckets_[b].load(std::memory_order_relaxed);
    total += counts[b];
  }
  if (total < kMinSamples) return false;
  const double want =
      std::ceil(static_cast<double>(total) * std::min(std::max(p, 0.0), 100.0) / 100.0);
  const uint64_t rank = std::max<uint64_t>(static_cast<uint64_t>(want), 1);
  uint64_t seen = 0;
  for (int b = 0; b < kBuckets; ++b) {
    seen += counts[b];
    if (seen >= rank) {
      *us = TheBounds().us[b];
      return true;
    }
  }
  *us = TheBounds().us[kBuckets - 1];
  return true;
}

uint32_t HedgeDelayUs(const HedgeOptions &o, const RecentLatency &node_latency) {
  const uint32_t fixed_us = o.delay_ms * 1000u;
  if (o.mode != HedgeMode::kAdaptive) return fixed_us;
  uint32_t q = 0;
  if (!node_latency.Quantile(o.percentile, &q)) return fixed_us;
  return std::max(q, o.min_delay_ms * 1000u);
}

int64_t HedgeDialUntil(const HedgeOptions &o, int64_t start_ns, int64_t delay_ns) {
  return std::max(start_ns + delay_ns, DeadlineAfter(o.delay_ms, start_ns));
}

Status DialNotReady(const std::string &address) {
  return Error(kTimeout, address +
                             ": a new connection was not ready within the hedge delay "
                             "(the dial goes on)");
}

void HedgeBudget::OnRead() {
  const int64_t cap = kBurst * 100;
  int64_t cur = balance_.load(std::memory_order_relaxed);
  while (cur < cap) {
    const int64_t next = std::min<int64_t>(cur + percent_, cap);
    if (balance_.compare_exchange_weak(cur, next, std::memory_order_relaxed)) return;
  }
}

bool HedgeBudget::TryTake() {
  int64_t cur = balance_.load(std::memory_order_relaxed);
  while (cur >= 100) {
    if (balance_.compare_exchange_weak(cur, cur - 100, std::memory_order_relaxed)) return true;
  }
  return false;
}

}  // namespace net
}  // namespace cloudroute
