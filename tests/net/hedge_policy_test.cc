// Hedged reads without a server: a node's recent latency percentile, the
// delay it gives, and the budget that bounds the extra reads (hedge.hpp).
#include "cloudroute/net/hedge.hpp"

#include <gtest/gtest.h>

namespace cloudroute {
namespace net {
namespace hedge_policy_test {

TEST(RecentLatency, BucketsGrowBySqrtTwoFrom50Us) {
  EXPECT_EQ(RecentLatency::BoundUs(0), 50u);
  EXPECT_EQ(RecentLatency::BoundUs(2), 100u);
  EXPECT_EQ(RecentLatency::BoundUs(6), 400u);
  EXPECT_EQ(RecentLatency::BoundUs(20), 51200u);
  for (int b = 1; b < RecentLatency::kBuckets; ++b) {
    EXPECT_GT(RecentLatency::BoundUs(b), RecentLatency::BoundUs(b - 1)) << b;
  }
}

TEST(RecentLatency, NoAnswerUntilEnoughSamples) {
  RecentLatency l;
  uint32_t us = 0;
  for (uint64_t i = 0; i + 1 < RecentLatency::kMinSamples; ++i) l.Add(300);
  EXPECT_FALSE(l.Quantile(99, &us));
  l.Add(300);
  ASSERT_TRUE(l.Quantile(99, &us));
  EXPECT_EQ(us, 400u);  // 300 us falls in the (283, 400] bucket
}

TEST(RecentLatency, PercentileSeparatesTheSlowTail) {
  RecentLatency l;
  for (int i = 0; i < 1000; ++i) l.Add(300);
  for (int i = 0; i < 10; ++i) l.Add(40000);  // 1% at 40 ms
  uint32_t us = 0;
  ASSERT_TRUE(l.Quantile(99.0, &us));
  EXPECT_EQ(us, 400u);  // rank 1000 of 1010: still the fast bucket
  ASSERT_TRUE(l.Quantile(99.5, &us));
  EXPECT_EQ(us, 51200u);  // rank 1005: the 40 ms bucket
  ASSERT_TRUE(l.Quantile(100, &us));
  EXPECT_EQ(us, 51200u);
}

TEST(RecentLatency, OldSamplesFade) {
  RecentLatency l;
  for (int i = 0; i < 200; ++i) l.Add(40000);
  uint32_t us = 0;
  ASSERT_TRUE(l.Quantile(50, &us));
  EXPECT_EQ(us, 51200u);
  // Each window of fast round trips halves the slow count: after eight,
  // none of the 200 is left.
  for (uint64_t i = 0; i < 8 * RecentLatency::kRecentWindow; ++i) l.Add(300);
  ASSERT_TRUE(l.Quantile(99, &us));
  EXPECT_EQ(us, 400u);
}

TEST(HedgeDelay, FixedIgnoresTheNode) {
  HedgeOptions o;
  o.mode = HedgeMode::kFixed;
  o.delay_ms = 20;
  RecentLatency slow;
  for (int i = 0; i < 100; ++i) slow.Add(900000);
  EXPECT_EQ(HedgeDelayUs(o, slow), 20000u);
}

TEST(HedgeDelay, AdaptiveUsesThePercentileWithAFloor) {
  HedgeOptions o;
  o.mode = HedgeMode::kAdaptive;
  o.delay_ms = 20;
  o.min_delay_ms = 2;
  o.percentile = 99;
  RecentLatency l;
  EXPECT_EQ(HedgeDelayUs(o, l), 20000u);  // no samples yet: the fixed delay
  for (int i = 0; i < 100; ++i) l.Add(300);
  EXPECT_EQ(HedgeDelayUs(o, l), 2000u);  // p99 = 400 us, under the floor
  for (int i = 0; i < 100; ++i) l.Add(9000);
  EXPECT_EQ(HedgeDelayUs(o, l), 9051u);  // p99 in the (6400, 9051] bucket
  o.min_delay_ms = 30;
  EXPECT_EQ(HedgeDelayUs(o, l), 30000u);
}

TEST(HedgeBudget, StartsWithABurstThenEarnsPercentOfReads) {
  HedgeBudget b(10);
  for (int i = 0; i < HedgeBudget::kBurst; ++i) EXPECT_TRUE(b.TryTake()) << i;
  EXPECT_FALSE(b.TryTake());
  for (int i = 0; i < 9; ++i) b.OnRead();
  EXPECT_FALSE(b.TryTake());  // 0.9 of a hedge
  b.OnRead();
  EXPECT_TRUE(b.TryTake());
  EXPECT_FALSE(b.TryTake());
}

TEST(HedgeBudget, BanksAtMostTheBurst) {
  HedgeBudget b(100);
  for (int i = 0; i < 1000; ++i) b.OnRead();
  int taken = 0;
  while (b.TryTake()) ++taken;
  EXPECT_EQ(taken, HedgeBudget::kBurst);
}

TEST(HedgeBudget, OverManyReadsHedgesStayNearThePercent) {
  HedgeBudget b(5);
  int taken = 0;
  for (int i = 0; i < 10000; ++i) {
    b.OnRead();
    if (b.TryTake()) ++taken;  // every read wants a hedge: a slow cluster
  }
  // 5% of 10000 reads and the burst (the first read's share finds it full).
  EXPECT_NEAR(taken, HedgeBudget::kBurst + 500, 1);
}

}  // namespace hedge_policy_test
}  // namespace net
}  // namespace cloudroute
