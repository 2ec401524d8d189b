// The refresher's timing, on instants the test chooses (RefreshSchedule),
// and the thread driven by an injected clock (Refresher): no test sleeps to
// let time pass.
#include "cloudroute/net/refresher.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

#include "cloudroute/net/deadline.hpp"

namespace cloudroute {
namespace net {
namespace refresher_test {

using Step = RefreshSchedule::Step;
constexpr int64_t kT0 = 1000 * kNsPerMs;  // any start instant
constexpr uint32_t kHour = 3600 * 1000;

int64_t Ms(int64_t ms) { return kT0 + ms * kNsPerMs; }

TEST(RefreshSchedule, PeriodicRefreshesAndTicks) {
  RefreshSchedule s(/*interval_ms=*/30000, /*min_gap_ms=*/1000, /*tick_ms=*/1000, kT0);
  int64_t wake = 0;
  EXPECT_EQ(s.Next(Ms(0), &wake), Step::kWait);
  EXPECT_EQ(wake, Ms(1000));  // the first tick
  EXPECT_EQ(s.Next(Ms(999), &wake), Step::kWait);
  EXPECT_EQ(s.Next(Ms(1000), &wake), Step::kTick);
  s.Ticked(Ms(1000));
  EXPECT_EQ(s.Next(Ms(1500), &wake), Step::kWait);
  EXPECT_EQ(wake, Ms(2000));
  s.Ticked(Ms(29500));
  EXPECT_EQ(s.Next(Ms(29999), &wake), Step::kWait);
  EXPECT_EQ(wake, Ms(30000));  // the refresh comes before the next tick
  EXPECT_EQ(s.Next(Ms(30000), &wake), Step::kRefresh);
  s.Refreshed(Ms(30200));  // it took 200 ms: the next is an interval after its end
  s.Ticked(Ms(59000));
  EXPECT_EQ(s.Next(Ms(60100), &wake), Step::kTick);
  s.Ticked(Ms(60100));
  EXPECT_EQ(s.Next(Ms(60150), &wake), Step::kWait);
  EXPECT_EQ(wake, Ms(60200));
  EXPECT_EQ(s.Next(Ms(60200), &wake), Step::kRefresh);
}

TEST(RefreshSchedule, NoIntervalMeansOnlyTriggeredRefreshes) {
  RefreshSchedule s(/*interval_ms=*/0, /*min_gap_ms=*/1000, /*tick_ms=*/kHour, kT0);
  int64_t wake = 0;
  EXPECT_EQ(s.Next(Ms(int64_t{10} * kHour - 1), &wake), Step::kTick);
  s.Ticked(Ms(int64_t{10} * kHour - 1));
  EXPECT_EQ(s.Next(Ms(int64_t{10} * kHour), &wake), Step::kWait);  // never a refresh
  EXPECT_TRUE(s.Trigger());
  EXPECT_EQ(s.Next(Ms(int64_t{10} * kHour), &wake), Step::kRefresh);  // the gap passed long ago
}

TEST(RefreshSchedule, TriggersAreRateLimited) {
  RefreshSchedule s(/*interval_ms=*/0, /*min_gap_ms=*/1000, /*tick_ms=*/kHour, kT0);
  int64_t wake = 0;
  EXPECT_TRUE(s.Trigger());
  EXPECT_EQ(s.Next(Ms(100), &wake), Step::kWait);
  EXPECT_EQ(wake, Ms(1000));  // one gap after the last refresh (the start)
  EXPECT_EQ(s.Next(Ms(1000), &wake), Step::kRefresh);
  s.Refreshed(Ms(1000));
  // A storm of triggers: one refresh, a gap after the last.
  EXPECT_TRUE(s.Trigger());
  for (int i = 0; i < 100; ++i) EXPECT_FALSE(s.Trigger());
  EXPECT_EQ(s.Next(Ms(1999), &wake), Step::kWait);
  EXPECT_EQ(wake, Ms(2000));
  EXPECT_EQ(s.Next(Ms(2000), &wake), Step::kRefresh);
  s.Refreshed(Ms(2000));
  EXPECT_EQ(s.Next(Ms(5000), &wake), Step::kWait);  // the storm is spent
  EXPECT_EQ(wake, Ms(kHour));
}

TEST(RefreshSchedule, ATriggerDuringARefreshCostsOneMore) {
  RefreshSchedule s(/*interval_ms=*/0, /*min_gap_ms=*/500, /*tick_ms=*/kHour, kT0);
  int64_t wake = 0;
  EXPECT_TRUE(s.Trigger());
  EXPECT_EQ(s.Next(Ms(600), &wake), Step::kRefresh);  // takes the trigger
  EXPECT_TRUE(s.Trigger());                           // while it runs
  EXPECT_FALSE(s.Trigger());
  s.Refreshed(Ms(900));
  EXPECT_EQ(s.Next(Ms(1399), &wake), Step::kWait);
  EXPECT_EQ(s.Next(Ms(1400), &wake), Step::kRefresh);
  s.Refreshed(Ms(1400));
  EXPECT_EQ(s.Next(Ms(10000), &wake), Step::kWait);
}

TEST(RefreshSchedule, ARefreshElsewherePushesThePeriodicOne) {
  RefreshSchedule s(/*interval_ms=*/30000, /*min_gap_ms=*/1000, /*tick_ms=*/kHour, kT0);
  int64_t wake = 0;
  s.Refreshed(Ms(20000));  // a synchronous refresh
  EXPECT_EQ(s.Next(Ms(30000), &wake), Step::kWait);
  EXPECT_EQ(wake, Ms(50000));
  EXPECT_EQ(s.Next(Ms(50000), &wake), Step::kRefresh);
}

// With jitter, every periodic interval lies within +-jitter of the nominal
// one, the draws spread over that band, and two schedules (two clients
// started together) draw different sequences.
TEST(RefreshSchedule, JitteredIntervalsSpreadWithinTheBand) {
  RefreshSchedule a(/*interval_ms=*/30000, /*min_gap_ms=*/1000, /*tick_ms=*/kHour, kT0,
                    /*jitter_pct=*/10, /*seed=*/1);
  RefreshSchedule b(/*interval_ms=*/30000, /*min_gap_ms=*/1000, /*tick_ms=*/kHour, kT0,
                    /*jitter_pct=*/10, /*seed=*/2);
  int64_t lo = INT64_MAX, hi = 0, now = kT0;
  int same = 0;
  for (int i = 0; i < 1000; ++i) {
    const int64_t d = a.current_interval_ns();
    EXPECT_GE(d, 27000 * kNsPerMs);
    EXPECT_LE(d, 33000 * kNsPerMs);
    lo = std::min(lo, d);
    hi = std::max(hi, d);
    if (d == b.current_interval_ns()) ++same;
    // Due exactly then, not before.
    int64_t wake = 0;
    EXPECT_EQ(a.Next(now + d - 1, &wake), RefreshSchedule::Step::kWait);
    EXPECT_EQ(a.Next(now + d, &wake), RefreshSchedule::Step::kRefresh);
    now += d;
    a.Refreshed(now);
    a.Ticked(now);  // keep the (hourly) tick from being due first
    b.Refreshed(now);
  }
  EXPECT_LT(lo, 27300 * kNsPerMs);  // the draws reach both ends of the band
  EXPECT_GT(hi, 32700 * kNsPerMs);
  EXPECT_LT(same, 5);
  // No jitter: exactly the interval, always.
  RefreshSchedule c(/*interval_ms=*/30000, /*min_gap_ms=*/1000, /*tick_ms=*/kHour, kT0);
  EXPECT_EQ(c.current_interval_ns(), 30000 * kNsPerMs);
}

TEST(RefreshSchedule, TicksAreAtLeastTenMilliseconds) {
  RefreshSchedule s(/*interval_ms=*/0, /*min_gap_ms=*/0, /*tick_ms=*/0, kT0);
  int64_t wake = 0;
  EXPECT_EQ(s.Next(Ms(0), &wake), Step::kWait);
  EXPECT_EQ(wake, Ms(10));
}

// The thread reads the injected clock: refreshes happen when the fake time
// says so, however little real time passes.
std::atomic<int64_t> g_fake_now{kT0};
int64_t FakeNow() { return g_fake_now.load(); }

bool WaitFor(const std::function<bool()> &done) {
  const auto limit = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!done()) {
    if (std::chrono::steady_clock::now() > limit) return false;
    std::this_thread::yield();
  }
  return true;
}

TEST(Refresher, FollowsTheInjectedClock) {
  g_fake_now = kT0;
  std::atomic<int> refreshes{0}, ticks{0};
  // Ticks every 10 ms (the floor): the thread re-reads the clock that often.
  Refresher r([&refreshes] { ++refreshes; }, [&ticks] { ++ticks; }, /*interval_ms=*/kHour,
              /*min_gap_ms=*/kHour, /*tick_ms=*/10, &FakeNow);
  r.Trigger();  // due a gap (an hour) after the start, by the fake clock
  g_fake_now = Ms(kHour);
  ASSERT_TRUE(WaitFor([&r] { return r.runs() == 1; }));
  EXPECT_EQ(refreshes.load(), 1);
  // The periodic one: an interval (+-10 % jitter) after the last, by the fake clock.
  g_fake_now = Ms(int64_t{kHour} + int64_t{kHour} * 11 / 10);
  ASSERT_TRUE(WaitFor([&r] { return r.runs() == 2; }));
  EXPECT_EQ(refreshes.load(), 2);
  EXPECT_GE(ticks.load(), 1);
}

TEST(Refresher, StopsPromptlyWhateverItWaitsFor) {
  const auto t0 = std::chrono::steady_clock::now();
  {
    Refresher r([] {}, [] {}, /*interval_ms=*/kHour, /*min_gap_ms=*/kHour, /*tick_ms=*/kHour);
    r.Trigger();
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
}

}  // namespace refresher_test
}  // namespace net
}  // namespace cloudroute
