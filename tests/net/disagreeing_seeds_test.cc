// A client started while the cluster's nodes disagree — for about 0.5 s after a failback Valkey's
// nodes answer CLUSTER SHARDS with two masters for a shard — asks its seeds again and starts once
// they agree; one whose seeds keep disagreeing fails when its start budget (connect timeout plus
// the unknown tier's command timeout) is spent, saying so; a seed that fails for a reason asking
// again cannot change (NOAUTH, cluster support disabled) ends the start at once. A refresh that
// meets the disagreement keeps the last good topology, warns once and asks again after the min gap
// instead of a whole interval. The seeds are scripted servers (tests/net/fake_server.hpp)
// answering CLUSTER SHARDS themselves.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <vector>

#include "cloudroute.h"
#include "common/wait_until.hpp"
#include "fake_server.hpp"

namespace disagreeing_seeds_test {

using Clock = std::chrono::steady_clock;

int64_t MsSince(Clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
}

// One CLUSTER SHARDS node entry (a RESP2 flat map) at 127.0.0.1:port.
std::string ShardsNode(char id, uint16_t port, const char *role) {
  using fake::Bulk;
  return "*12\r\n" + Bulk("id") + Bulk(std::string(40, id)) + Bulk("port") + ":" +
         std::to_string(port) + "\r\n" + Bulk("ip") + Bulk("127.0.0.1") + Bulk("endpoint") +
         Bulk("127.0.0.1") + Bulk("role") + Bulk(role) + Bulk("health") + Bulk("online");
}

// Two nodes, one shard owning every slot: a master and its replica, or — while the nodes
// disagree — two masters.
std::string OneShard(uint16_t a, uint16_t b, bool two_masters) {
  using fake::Bulk;
  return "*1\r\n*4\r\n" + Bulk("slots") + "*2\r\n:0\r\n:16383\r\n" + Bulk("nodes") + "*2\r\n" +
         ShardsNode('a', a, "master") + ShardsNode('b', b, two_masters ? "master" : "replica");
}

// A cluster node that answers CLUSTER SHARDS with shards(), GET with "v", INFO with an empty
// section, PING as Redis does (a shared connection's marker is echoed) and anything else with
// +OK; or, when refuse is not empty, every command with it.
std::function<std::string(const std::string &)> Node(std::function<std::string()> shards,
                                                     std::string refuse = "") {
  return [shards, refuse](const std::string &req) {
    size_t used = 0;
    std::string out;
    for (const auto &argv : fake::Commands(req, &used)) {
      const std::string cmd = argv.empty() ? "" : argv[0];
      if (!refuse.empty())
        out += refuse;
      else if (cmd == "CLUSTER")
        out += shards();
      else if (cmd == "GET")
        out += fake::Bulk("v");
      else if (cmd == "INFO")
        out += fake::Bulk("# Server\r\n");
      else if (cmd == "PING")
        out += argv.size() == 2 ? fake::Bulk(argv[1]) : std::string("+PONG\r\n");
      else
        out += "+OK\r\n";
    }
    return out;
  };
}

// Two seeds whose CLUSTER SHARDS shows two masters while disagree_ is set and disagree_ms_ have not
// passed since the fixture was made, then a master and its replica.
class DisagreeingSeeds : public ::testing::Test {
 protected:
  std::string Shards() {
    ++asked_;
    const bool two = disagree_.load() && MsSince(t0_) < disagree_ms_.load();
    return OneShard(a_.port(), b_.port(), two);
  }
  std::string Seeds(const FakeServer &x, const FakeServer &y) const {
    return "127.0.0.1:" + std::to_string(x.port()) + ",127.0.0.1:" + std::to_string(y.port());
  }

  Clock::time_point t0_ = Clock::now();
  std::atomic<int64_t> disagree_ms_{INT64_MAX};
  std::atomic<bool> disagree_{true};
  std::atomic<int> asked_{0};
  FakeServer a_{Node([this] { return Shards(); })};
  FakeServer b_{Node([this] { return Shards(); })};
};

// What the client logged, as "level message" lines.
struct LogCapture {
  static void Fn(cr_log_level level, const char *message, const cr_log_field *, size_t,
                 void *payload) {
    auto *self = static_cast<LogCapture *>(payload);
    std::lock_guard<std::mutex> l(self->mu);
    self->lines.push_back(std::string(cr_log_level_name(level)) + " " + message);
  }
  int Count(const std::string &line) {
    std::lock_guard<std::mutex> l(mu);
    int n = 0;
    for (const std::string &s : lines) n += s == line ? 1 : 0;
    return n;
  }
  std::mutex mu;
  std::vector<std::string> lines;
};

// Budget: connect 300 ms + command 300 ms = 600 ms of asking again.
cr_client_options ShortBudget() {
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  o.connect_timeout_ms = 300;
  for (uint32_t &t : o.command_timeout_ms) t = 300;
  return o;
}

TEST_F(DisagreeingSeeds, StartWaitsOutAMomentOfDisagreement) {
  disagree_ms_ = 400;
  LogCapture log;
  cr_config *cfg = nullptr;
  ASSERT_EQ(cr_config_new(&cfg), CR_OK);
  ASSERT_EQ(cr_config_set_log_callback(cfg, CR_LOG_LEVEL_INFO, &LogCapture::Fn, &log), CR_OK);
  cr_client *c = nullptr;
  ASSERT_EQ(cr_client_new(&c, cfg, nullptr, Seeds(a_, b_).c_str()), CR_OK) << cr_last_error();
  cr_config_free(cfg);
  EXPECT_GE(MsSince(t0_), 400);
  EXPECT_GT(asked_.load(), 2) << "the seeds were not asked again";
  EXPECT_EQ(log.Count("info seeds disagreed, asked again"), 1);
  EXPECT_EQ(log.Count("warn refresh failed"), 0);
  // It routes on the consistent view and serves: the write to the master, a read.
  cr_route w = CR_ROUTE_INIT;
  ASSERT_EQ(cr_router_route_write(&w, cr_client_get_router(c), "k", 1), CR_OK);
  EXPECT_EQ(w.port, a_.port());
  cr_reply *r = nullptr;
  ASSERT_EQ(cr_client_cmd_get(&r, c, "k", 1), CR_OK) << cr_last_error();
  size_t len = 0;
  const char *v = cr_reply_get_string(r, &len);
  EXPECT_EQ(std::string(v, len), "v");
  cr_reply_free(r);
  EXPECT_EQ(cr_client_cmd_set(c, "k", 1, "x", 1, 0), CR_OK) << cr_last_error();
  cr_client_free(c);
}

TEST_F(DisagreeingSeeds, StartFailsOnceItsBudgetIsSpentAndSaysWhy) {
  const cr_client_options o = ShortBudget();
  cr_client *c = nullptr;
  const auto t0 = Clock::now();
  EXPECT_EQ(cr_client_new(&c, nullptr, &o, Seeds(a_, b_).c_str()), CR_EPARSE);
  const int64_t ms = MsSince(t0);
  EXPECT_EQ(c, nullptr);
  // The budget is 600 ms; the last wait ends before it (at most 250 ms early).
  EXPECT_GE(ms, 600 - 250);
  EXPECT_LT(ms, 600 + 1000);
  const std::string why = cr_last_error();
  EXPECT_NE(why.find("no seed answered with a consistent topology"), std::string::npos) << why;
  EXPECT_NE(why.find("during a failover"), std::string::npos) << why;
  EXPECT_NE(why.find("127.0.0.1:" + std::to_string(a_.port()) +
                     ": CLUSTER SHARDS shard 0: two "
                     "masters"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("127.0.0.1:" + std::to_string(b_.port()) +
                     ": CLUSTER SHARDS shard 0: two "
                     "masters"),
            std::string::npos)
      << why;
  EXPECT_NE(why.find("every seed was asked "), std::string::npos) << why;
  EXPECT_NE(why.find(" times over "), std::string::npos) << why;
}

// The calling thread's interrupt check (a binding's signal handling) ends a start that waits to
// ask disagreeing seeds again, well before the default 3 s budget is spent.
std::atomic<int64_t> g_interrupt_after_ms{0};
Clock::time_point g_interrupt_t0;
int InterruptAfter(void *) {
  return MsSince(g_interrupt_t0) >= g_interrupt_after_ms.load() ? 1 : 0;
}

TEST_F(DisagreeingSeeds, InterruptCheckEndsTheWait) {
  g_interrupt_t0 = Clock::now();
  g_interrupt_after_ms = 150;
  ASSERT_EQ(cr_thread_set_interrupt_check(&InterruptAfter, nullptr), CR_OK);
  cr_client *c = nullptr;
  EXPECT_EQ(cr_client_new(&c, nullptr, nullptr, Seeds(a_, b_).c_str()), CR_ECONN);
  const int64_t ms = MsSince(g_interrupt_t0);
  ASSERT_EQ(cr_thread_set_interrupt_check(nullptr, nullptr), CR_OK);
  EXPECT_EQ(c, nullptr);
  EXPECT_GE(ms, 150);
  EXPECT_LT(ms, 1000);
  const std::string why = cr_last_error();
  EXPECT_NE(why.find("interrupted by the caller"), std::string::npos) << why;
}

// A seed that answers with an error asking again cannot change ends the start at once, even
// while another seed disagrees with itself: well within the default 3 s budget.
TEST_F(DisagreeingSeeds, HardErrorAtASeedFailsFast) {
  struct Case {
    const char *refuse;
    cr_status status;
    const char *needle;
  };
  const Case cases[] = {
      {"-NOAUTH Authentication required.\r\n", CR_EREDIS, "NOAUTH Authentication required"},
      {"-ERR This instance has cluster support disabled\r\n", CR_EREDIS,
       "cluster support disabled"},
  };
  for (const Case &k : cases) {
    FakeServer hard(Node([] { return std::string(); }, k.refuse));
    cr_client *c = nullptr;
    const int asked = asked_.load();
    const auto t0 = Clock::now();
    EXPECT_EQ(cr_client_new(&c, nullptr, nullptr, Seeds(a_, hard).c_str()), k.status) << k.needle;
    EXPECT_LT(MsSince(t0), 1000) << k.needle;
    EXPECT_EQ(c, nullptr);
    EXPECT_EQ(asked_.load(), asked + 1) << "the seeds were asked again: " << k.needle;
    const std::string why = cr_last_error();
    EXPECT_NE(why.find("no seed answered with a topology"), std::string::npos) << why;
    EXPECT_NE(why.find("two masters"), std::string::npos) << why;
    EXPECT_NE(why.find(k.needle), std::string::npos) << why;
  }
}

TEST_F(DisagreeingSeeds, RefreshKeepsTheLastTopologyAndAsksAgainSoon) {
  disagree_ = false;
  LogCapture log;
  cr_config *cfg = nullptr;
  ASSERT_EQ(cr_config_new(&cfg), CR_OK);
  ASSERT_EQ(cr_config_set_log_callback(cfg, CR_LOG_LEVEL_DEBUG, &LogCapture::Fn, &log), CR_OK);
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  o.refresh_interval_ms = 600000;  // only a triggered refresh can come within the test
  o.refresh_min_gap_ms = 100;
  cr_client *c = nullptr;
  ASSERT_EQ(cr_client_new(&c, cfg, &o, Seeds(a_, b_).c_str()), CR_OK) << cr_last_error();
  cr_config_free(cfg);
  cr_router *router = cr_client_get_router(c);
  cr_route before = CR_ROUTE_INIT;
  ASSERT_EQ(cr_router_route_write(&before, router, "k", 1), CR_OK);
  auto stats = [c] {
    cr_client_stats st = CR_CLIENT_STATS_INIT;
    EXPECT_EQ(cr_client_get_stats(&st, c), CR_OK);
    return st;
  };
  const cr_client_stats st0 = stats();

  disagree_ = true;
  EXPECT_EQ(cr_client_refresh(c), CR_EPARSE);
  const std::string why = cr_last_error();
  EXPECT_NE(why.find("two masters"), std::string::npos) << why;
  cr_route during = CR_ROUTE_INIT;
  ASSERT_EQ(cr_router_route_write(&during, router, "k", 1), CR_OK);
  EXPECT_EQ(during.node_handle, before.node_handle);
  EXPECT_EQ(during.port, a_.port());
  EXPECT_EQ(stats().refresh_failures, st0.refresh_failures + 1);
  // The refresher asks again after the min gap (the interval is 10 minutes), more than once while
  // the disagreement lasts; only the first failure of the run is a warning. (A failure is
  // counted before it is logged: the wait is for both.)
  ASSERT_TRUE(crtest::WaitUntil(
      [&] {
        return stats().refresh_failures >= st0.refresh_failures + 3 &&
               log.Count("debug refresh failed") >= 2;
      },
      std::chrono::seconds(5)))
      << "no refresh came soon after the refused one: "
      << stats().refresh_failures - st0.refresh_failures << " more failures, "
      << log.Count("debug refresh failed") << " logged at debug";
  EXPECT_EQ(log.Count("warn refresh failed"), 1);
  cr_reply *r = nullptr;
  ASSERT_EQ(cr_client_cmd_get(&r, c, "k", 1), CR_OK) << cr_last_error();
  cr_reply_free(r);

  disagree_ = false;
  ASSERT_TRUE(
      crtest::WaitUntil([&] { return stats().refreshes > st0.refreshes; }, std::chrono::seconds(5)))
      << "the consistent topology was not read again";
  EXPECT_TRUE(crtest::WaitUntil([&] { return log.Count("info topology consistent again") == 1; },
                                std::chrono::seconds(5)));
  cr_client_free(c);
}

}  // namespace disagreeing_seeds_test
