// NodePool bounds and reuse, backoff bounds, and the refresher's rate limit.
#include "cloudroute/net/pool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "cloudroute/net/backoff.hpp"
#include "cloudroute/net/errors.hpp"
#include "cloudroute/net/refresher.hpp"
#include "common/wait_until.hpp"
#include "fake_server.hpp"

namespace cloudroute {
namespace net {
namespace {

NodePool::Dialer DialTo(uint16_t port, std::atomic<int> *dials) {
  return [port, dials]() {
    ++*dials;
    return Connection::Open("127.0.0.1", port, ConnectOptions(), 1000);
  };
}

TEST(NodePool, ReusesIdleConnectionsAndBoundsTheirNumber) {
  FakeServer srv(Always("+OK\r\n"));
  std::atomic<int> dials{0};
  NodePool pool(DialTo(srv.port(), &dials), PoolOptions{2, 60000});
  auto a = pool.Acquire(100);
  auto b = pool.Acquire(100);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(pool.open(), 2u);
  const auto t0 = std::chrono::steady_clock::now();
  auto c = pool.Acquire(100);  // full: waits, then gives up
  EXPECT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), kTimeout);
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(90));
  pool.Release(std::move(*a));
  auto d = pool.Acquire(100);  // the released one, no new dial
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(dials.load(), 2);
  pool.Release(std::move(*b));
  pool.Release(std::move(*d));
  EXPECT_EQ(pool.idle(), 2u);
  EXPECT_EQ(pool.counters().connections.load(), 2u);
}

TEST(NodePool, WaiterGetsAConnectionReleasedByAnotherThread) {
  FakeServer srv(Always("+OK\r\n"));
  std::atomic<int> dials{0};
  NodePool pool(DialTo(srv.port(), &dials), PoolOptions{1, 60000});
  auto a = pool.Acquire(100);
  ASSERT_TRUE(a.ok());
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    pool.Release(std::move(*a));
  });
  auto b = pool.Acquire(2000);
  t.join();
  EXPECT_TRUE(b.ok());
  EXPECT_EQ(dials.load(), 1);
  pool.Release(std::move(*b));
}

TEST(NodePool, BrokenConnectionsAreDroppedAndIdleOnesEvicted) {
  FakeServer srv([](const std::string &) { return std::string(); });  // never answers
  std::atomic<int> dials{0};
  NodePool pool(DialTo(srv.port(), &dials), PoolOptions{4, 50});
  auto a = pool.Acquire(100);
  ASSERT_TRUE(a.ok());
  EXPECT_FALSE((*a)->Command({"PING"}, 20).ok());  // times out: broken
  pool.Release(std::move(*a));
  EXPECT_EQ(pool.open(), 0u);
  auto b = pool.Acquire(100);
  ASSERT_TRUE(b.ok());
  pool.Release(std::move(*b));
  EXPECT_EQ(pool.idle(), 1u);
  std::this_thread::sleep_for(std::chrono::milliseconds(80));
  auto c = pool.Acquire(100);  // the idle one is too old: closed, a new one dialed
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(dials.load(), 3);
  pool.Release(std::move(*c));
  pool.DropIdle();
  EXPECT_EQ(pool.open(), 0u);
}

TEST(NodePool, FailedDialFreesItsSlot) {
  uint16_t port = 0;
  { FakeServer gone(Always("")); port = gone.port(); }
  std::atomic<int> dials{0};
  NodePool pool(DialTo(port, &dials), PoolOptions{1, 60000});
  EXPECT_EQ(pool.Acquire(100).status().code(), kConnError);
  EXPECT_EQ(pool.Acquire(100).status().code(), kConnError);  // not "pool full"
  EXPECT_EQ(pool.open(), 0u);
}

TEST(Backoff, GrowsExponentiallyWithJitterUpToTheCap) {
  for (uint64_t r : {0ull, 1ull, 12345ull, ~0ull}) {
    EXPECT_GE(BackoffMs(0, 50, 1000, r), 25u);
    EXPECT_LE(BackoffMs(0, 50, 1000, r), 50u);
    EXPECT_GE(BackoffMs(2, 50, 1000, r), 100u);
    EXPECT_LE(BackoffMs(2, 50, 1000, r), 200u);
    EXPECT_LE(BackoffMs(10, 50, 1000, r), 1000u);
    EXPECT_GE(BackoffMs(10, 50, 1000, r), 500u);
    EXPECT_LE(BackoffMs(63, 50, 1000, r), 1000u);  // no overflow
  }
  EXPECT_EQ(BackoffMs(3, 0, 1000, 7), 0u);
}

TEST(Refresher, AStormOfTriggersCostsOneRefresh) {
  std::atomic<int> runs{0};
  Refresher r([&] { ++runs; }, nullptr, /*interval_ms=*/0, /*min_gap_ms=*/200, 50);
  for (int i = 0; i < 10000; ++i) r.Trigger();
  ASSERT_TRUE(crtest::WaitUntil([&] { return runs.load() >= 1; }, std::chrono::seconds(10)));
  // No second run may follow: give one past the 200 ms gap the chance to
  // (absence cannot be polled for; a slow machine can only hide a failure).
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(runs.load(), 1);
  r.Trigger();
  ASSERT_TRUE(crtest::WaitUntil([&] { return runs.load() >= 2; }, std::chrono::seconds(10)));
  EXPECT_EQ(runs.load(), 2);
}

TEST(Refresher, RunsPeriodicallyAndTicks) {
  std::atomic<int> runs{0}, ticks{0};
  const auto t0 = std::chrono::steady_clock::now();
  {
    Refresher r([&] { ++runs; }, [&] { ++ticks; }, /*interval_ms=*/100, 50, /*tick_ms=*/20);
    ASSERT_TRUE(crtest::WaitUntil([&] { return runs.load() >= 3 && ticks.load() >= 5; },
                                  std::chrono::seconds(10)))
        << runs.load() << " runs, " << ticks.load() << " ticks";
  }  // the destructor stops the thread promptly
  const long long ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
          .count();
  EXPECT_LE(runs.load(), ms / 100 + 1) << "more than one run per 100 ms interval in " << ms << " ms";
}

}  // namespace
}  // namespace net
}  // namespace cloudroute
