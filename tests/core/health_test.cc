#include "cloudroute/core/health.hpp"

#include <gtest/gtest.h>

namespace cloudroute {
namespace health_test {

int64_t g_now = 1000;
int64_t FakeNow() { return g_now; }

TEST(Health, BreakerOpensAfterThresholdAndProbesOnce) {
  HealthConfig cfg{3, 100};
  NodeHealth h;
  g_now = 1000;
  EXPECT_TRUE(h.Admit(&FakeNow, cfg));
  h.Failure(g_now, cfg);
  h.Failure(g_now, cfg);
  EXPECT_EQ(h.State(g_now), HealthState::kUp);
  h.Failure(g_now, cfg);
  EXPECT_EQ(h.State(g_now), HealthState::kDown);
  EXPECT_FALSE(h.Admit(&FakeNow, cfg));
  g_now += 99 * 1000000;
  EXPECT_FALSE(h.Admit(&FakeNow, cfg));
  g_now += 2 * 1000000;
  EXPECT_EQ(h.State(g_now), HealthState::kProbe);
  EXPECT_TRUE(h.Admit(&FakeNow, cfg));   // the probe
  EXPECT_FALSE(h.Admit(&FakeNow, cfg));  // only one
  h.Failure(g_now, cfg);                 // probe failed: open again
  EXPECT_EQ(h.State(g_now), HealthState::kDown);
  g_now += 101 * 1000000;
  EXPECT_TRUE(h.Admit(&FakeNow, cfg));
  h.Success();
  EXPECT_EQ(h.State(g_now), HealthState::kUp);
  EXPECT_EQ(h.consecutive_failures(), 0u);
  EXPECT_TRUE(h.Admit(&FakeNow, cfg));
}

TEST(Health, SetAsideOpensAtOnceWhateverTheThreshold) {
  HealthConfig cfg{3, 100};
  NodeHealth h;
  g_now = 5000;
  EXPECT_FALSE(h.open());
  h.SetAside(g_now, cfg);  // one timeout, threshold 3: open all the same
  EXPECT_TRUE(h.open());
  EXPECT_EQ(h.State(g_now), HealthState::kDown);
  EXPECT_EQ(h.consecutive_failures(), 1u);
  EXPECT_FALSE(h.Admit(&FakeNow, cfg));
  g_now += 101 * 1000000;
  EXPECT_TRUE(h.Admit(&FakeNow, cfg));  // the probe, after the cool-down
  h.SetAside(g_now, cfg);               // timed out again: a whole cool-down more
  EXPECT_EQ(h.State(g_now), HealthState::kDown);
  g_now += 99 * 1000000;
  EXPECT_FALSE(h.Admit(&FakeNow, cfg));
  g_now += 2 * 1000000;
  EXPECT_TRUE(h.Admit(&FakeNow, cfg));
  h.Success();
  EXPECT_FALSE(h.open());
  EXPECT_EQ(h.consecutive_failures(), 0u);
}

TEST(Health, SuccessResetsTheCount) {
  HealthConfig cfg{2, 100};
  NodeHealth h;
  h.Failure(0, cfg);
  h.Success();
  h.Failure(0, cfg);
  EXPECT_EQ(h.State(0), HealthState::kUp);
}

}  // namespace health_test
}  // namespace cloudroute
