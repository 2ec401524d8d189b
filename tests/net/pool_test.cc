// NodePool bounds and reuse, and backoff bounds. (The refresher's rate
// limit and schedule: refresher_test.cc, on an injected clock.)
#include "cloudroute/net/pool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "cloudroute/net/backoff.hpp"
#include "cloudroute/net/errors.hpp"
#include "fake_server.hpp"

namespace cloudroute {
namespace net {
namespace pool_test {

NodePool::Dialer DialTo(uint16_t port, std::atomic<int> *dials) {
  return [port, dials](uint32_t timeout_ms) {
    ++*dials;
    return Connection::Open("127.0.0.1", port, ConnectOptions(), timeout_ms);
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
    // A head start for the Acquire below, so that it waits (were it late, it
    // would take the idle connection: the test would pass without waiting).
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
  // The condition is age itself: past idle_ms (50), which a sleep of 80 ms
  // guarantees however loaded the machine (there is nothing to poll).
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
  {
    FakeServer gone(Always(""));
    port = gone.port();
  }
  std::atomic<int> dials{0};
  NodePool pool(DialTo(port, &dials), PoolOptions{1, 60000});
  EXPECT_EQ(pool.Acquire(100).status().code(), kConnError);
  EXPECT_EQ(pool.Acquire(100).status().code(), kConnError);  // not "pool full"
  EXPECT_EQ(pool.open(), 0u);
}

TEST(NodePool, ReserveHoldsASlotUntilItsDialEnds) {
  FakeServer srv(Always("+OK\r\n"));
  std::atomic<int> dials{0};
  NodePool pool(DialTo(srv.port(), &dials), PoolOptions{1, 60000});
  bool must_dial = false;
  auto slot = pool.Reserve(100, &must_dial);
  ASSERT_TRUE(slot.ok());
  EXPECT_TRUE(must_dial);
  EXPECT_EQ(*slot, nullptr);
  EXPECT_EQ(dials.load(), 0);  // nothing dialed yet
  EXPECT_EQ(pool.open(), 1u);
  EXPECT_EQ(pool.Reserve(50, &must_dial).status().code(), kTimeout);  // the slot is held
  auto c = pool.Dial(100);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(dials.load(), 1);
  pool.Release(std::move(*c));
  auto again = pool.Reserve(100, &must_dial);  // the idle one, no dial owed
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(must_dial);
  EXPECT_NE(*again, nullptr);
  pool.Release(std::move(*again));

  uint16_t port = 0;
  {
    FakeServer gone(Always(""));
    port = gone.port();
  }
  NodePool dead(DialTo(port, &dials), PoolOptions{1, 60000});
  ASSERT_TRUE(dead.Reserve(100, &must_dial).ok());
  EXPECT_EQ(dead.Dial(100).status().code(), kConnError);
  EXPECT_EQ(dead.open(), 0u);  // the failed dial gave its slot back
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

}  // namespace pool_test
}  // namespace net
}  // namespace cloudroute
