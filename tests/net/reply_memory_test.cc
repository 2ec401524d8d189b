// Memory bounded for real: hostile replies against the reply caps, measured
// as the peak RSS of this process (VmHWM), which must stay under 4x the cap
// each test sets. The high-water mark counts everything this process ever
// held, so ctest runs each test in a process of its own (tests/net/
// CMakeLists.txt); run together, every test still keeps to the same bound.
// The peers are tests/net/fake_server.hpp servers streaming a small filler
// (their own memory stays small), on loopback.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cloudroute/net/connection.hpp"
#include "cloudroute/net/errors.hpp"
#include "fake_server.hpp"

namespace cloudroute {
namespace net {
namespace {

using Clock = std::chrono::steady_clock;
constexpr uint64_t kMiB = 1u << 20;

// The process's peak resident set, in bytes (VmHWM in /proc/self/status).
uint64_t PeakRss() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, 6, "VmHWM:") == 0) return std::stoull(line.substr(6)) * 1024;
  }
  ADD_FAILURE() << "no VmHWM in /proc/self/status";
  return 0;
}

double Seconds(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Sends one command on a new connection to srv and reads its reply, which
// must be refused: the refusal, after *took seconds; the connection is closed.
Status Refused(const FakeServer &srv, const ConnectOptions &o, double *took) {
  auto c = Connection::Open("127.0.0.1", srv.port(), o, 1000);
  if (!c.ok()) return c.status();
  const auto t0 = Clock::now();
  auto r = (*c)->Command({"GET", "k"}, 30000);
  *took = Seconds(t0);
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE((*c)->broken());
  return r.ok() ? Error(Code::kInvalid, "accepted") : r.status();
}

// Prints the measurement and checks the peak RSS against 4x the cap.
void ExpectPeakUnder(const char *what, double took, uint64_t cap) {
  const uint64_t peak = PeakRss();
  std::printf("%s: refused after %.2f s, peak RSS %.1f MiB (cap %llu MiB)\n", what, took,
              static_cast<double>(peak) / kMiB, static_cast<unsigned long long>(cap / kMiB));
  EXPECT_LT(peak, 4 * cap) << what;
}

ConnectOptions Capped(uint64_t cap) {
  ConnectOptions o;
  o.connect_timeout_ms = 1000;
  o.limits = DefaultReplyLimits();
  o.limits.max_total_bytes = cap;
  o.reply_budget = std::make_shared<ReplyBudget>(ClientBudgetFor(o.limits));
  return o;
}

TEST(ReplyMemory, SixteenMillionIntegersAreRefusedWithinTheCap) {
  constexpr uint64_t kCap = 64 * kMiB;
  // 16 M integers, 64 MiB on the wire: the array header, then ":1\r\n" in
  // 4 KiB pieces. The element count is allowed (max_elements 2^24); what the
  // tree costs is not.
  std::string filler;
  for (int i = 0; i < 1024; ++i) filler += ":1\r\n";
  FakeServer srv(Always("*16777216\r\n"), filler, 16384);
  ConnectOptions o = Capped(kCap);
  double took = 0;
  const Status s = Refused(srv, o, &took);
  EXPECT_EQ(s.code(), Code::kLimit);
  EXPECT_NE(s.message().find("127.0.0.1:" + std::to_string(srv.port()) +
                             ": reply refused: the reply would need more than its cap "
                             "of 67108864 bytes (max_reply_bytes)"),
            std::string::npos)
      << s.message();
  EXPECT_EQ(o.reply_budget->used(), 0u);
  ExpectPeakUnder("16 M integers", took, kCap);
  EXPECT_LT(took, 20.0);
}

TEST(ReplyMemory, StreamedTwoGiBStringIsRefusedEarly) {
  constexpr uint64_t kCap = 64 * kMiB;
  // A 2 GiB bulk string streamed in 64 KiB pieces. The string cap is out of
  // the way: the reply's cap, which counts the read buffer, must refuse it.
  ConnectOptions o = Capped(kCap);
  o.limits.max_bulk_len = 4ull << 30;
  FakeServer srv(Always("$2147483648\r\n"), std::string(65536, 'x'), 32768);
  double took = 0;
  const Status s = Refused(srv, o, &took);
  EXPECT_EQ(s.code(), Code::kLimit);
  EXPECT_NE(s.message().find("cap of 67108864 bytes (max_reply_bytes)"), std::string::npos)
      << s.message();
  EXPECT_EQ(o.reply_budget->used(), 0u);
  ExpectPeakUnder("2 GiB string", took, kCap);
  EXPECT_LT(took, 10.0);  // reading all 2 GiB would take far longer
}

TEST(ReplyMemory, ConnectionsOfOneClientShareOneBudget) {
  // Six connections of one client each read a 2 GiB string at once. Each
  // reply's own cap (60 MiB) would let them hold 360 MiB together; the
  // client's budget (64 MiB) refuses them first.
  constexpr uint64_t kBudget = 64 * kMiB;
  constexpr int kConns = 6;
  auto budget = std::make_shared<ReplyBudget>(kBudget);
  std::vector<std::unique_ptr<FakeServer>> servers;
  std::vector<std::unique_ptr<Connection>> conns;
  for (int i = 0; i < kConns; ++i) {
    servers.push_back(
        std::make_unique<FakeServer>(Always("$2147483648\r\n"), std::string(65536, 'x'), 32768));
    ConnectOptions o = Capped(60 * kMiB);
    o.limits.max_bulk_len = 4ull << 30;
    o.reply_budget = budget;
    auto c = Connection::Open("127.0.0.1", servers.back()->port(), o, 1000);
    ASSERT_TRUE(c.ok()) << c.status().message();
    conns.push_back(std::move(*c));
  }
  std::vector<std::string> errors(kConns);
  std::vector<std::thread> threads;
  const auto t0 = Clock::now();
  for (int i = 0; i < kConns; ++i) {
    threads.emplace_back([&, i] {
      auto r = conns[i]->Command({"GET", "k"}, 30000);
      errors[i] = r.ok() ? "accepted" : r.status().message();
      conns[i].reset();  // closed at once, as the pool drops a broken one
    });
  }
  for (std::thread &t : threads) t.join();
  const double took = Seconds(t0);
  int by_budget = 0;
  for (const std::string &e : errors) {
    EXPECT_NE(e.find("reply refused"), std::string::npos) << e;
    if (e.find("budget of 67108864 bytes") != std::string::npos) ++by_budget;
  }
  EXPECT_GE(by_budget, 1);
  EXPECT_EQ(budget->used(), 0u);
  std::printf("%d by the budget\n", by_budget);
  ExpectPeakUnder("6 x 2 GiB strings under one budget", took, kBudget);
  EXPECT_LT(took, 20.0);
}

}  // namespace
}  // namespace net
}  // namespace cloudroute
