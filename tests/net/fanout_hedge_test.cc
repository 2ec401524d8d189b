// Hedged fan-out legs against two scripted nodes (tests/net/fake_server.hpp)
// through the C API: a master M and its replica R own every slot, and the
// client reads replicas first (CR_POLICY_PREFER_REPLICA), hedging after a
// fixed 20 ms. R answers the GETs of "a…" keys and stops answering on the
// first GET of a "b…" key of a request: a node that answers only part of a
// leg. Every value names the node that gave it ("R:<key>", "M:<key>").
//  - a pipeline of reads: the replies R gave stand, the rest of the leg is
//    hedged to M, every result is in place well before the local timeout,
//    one hedge sent and won, R's connection closed (its replies never came);
//  - a write in the pipeline goes to M once, and the read after it (same
//    slot: master-only) is never hedged: when M holds that read back, it
//    fails at the timeout, and R saw neither.
#include <gtest/gtest.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "cloudroute.h"
#include "common/wait_until.hpp"
#include "fake_server.hpp"

namespace fanout_hedge_test {

using fake::Bulk;

std::string Upper(std::string s) {
  for (char &c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

class FanOutHedge : public ::testing::Test {
 protected:
  FanOutHedge()
      : master_([this](const std::string &req) { return Answer(req, "M", &m_seen_); }),
        replica_([this](const std::string &req) { return Answer(req, "R", &r_seen_); }) {}

  std::string Slots() const {
    return "*1\r\n*4\r\n:0\r\n:16383\r\n*3\r\n" + Bulk("127.0.0.1") + ":" +
           std::to_string(master_.port()) + "\r\n" + Bulk(std::string(40, 'm')) + "*3\r\n" +
           Bulk("127.0.0.1") + ":" + std::to_string(replica_.port()) + "\r\n" +
           Bulk(std::string(40, 'r'));
  }

  // A node's answers to a request buffer; R stops at its first "b…" GET,
  // M (with hold_after_set_) at the first GET after a SET. Every command
  // answered is recorded in *seen.
  std::string Answer(const std::string &req, const std::string &name,
                     std::vector<std::string> *seen) {
    size_t used = 0;
    std::string out;
    bool set_seen = false;
    for (const auto &argv : fake::Commands(req, &used)) {
      const std::string cmd = argv.empty() ? "" : Upper(argv[0]);
      if (cmd == "CLUSTER" && argv.size() > 1 && Upper(argv[1]) == "SHARDS") {
        out += "-ERR unknown subcommand 'SHARDS'\r\n";
        continue;
      }
      if (cmd == "CLUSTER") {
        out += Slots();
        continue;
      }
      if (cmd == "INFO") {
        out += Bulk("# Server\r\n");
        continue;
      }
      if (cmd == "GET" && argv.size() == 2) {
        if (name == "R" && argv[1][0] == 'b') break;
        if (name == "M" && set_seen && hold_after_set_) break;
        out += Bulk(name + ":" + argv[1]);
      } else {
        set_seen = set_seen || cmd == "SET";
        out += "+OK\r\n";
      }
      std::lock_guard<std::mutex> lock(mu_);
      seen->push_back(cmd + " " + (argv.size() > 1 ? argv[1] : ""));
    }
    return out;
  }

  void SetUp() override {
    cr_config *cfg = nullptr;
    ASSERT_EQ(cr_config_new(&cfg), CR_OK);
    cr_router_options ro = CR_ROUTER_OPTIONS_INIT;
    ro.policy = CR_POLICY_PREFER_REPLICA;
    ASSERT_EQ(cr_config_set_router_options(cfg, &ro), CR_OK);
    cr_client_options o = CR_CLIENT_OPTIONS_INIT;
    o.refresh_interval_ms = 0;
    for (uint32_t &t : o.command_timeout_ms) t = 1000;
    o.hedge_mode = CR_HEDGE_MODE_FIXED;
    o.hedge_delay_ms = 20;
    const std::string seed = "127.0.0.1:" + std::to_string(master_.port());
    const cr_status s = cr_client_new(&c_, cfg, &o, seed.c_str());
    cr_config_free(cfg);
    ASSERT_EQ(s, CR_OK) << cr_last_error();
  }
  void TearDown() override { cr_client_free(c_); }

  // Until a read of key comes from R: R's pool then has a connection (a
  // first dial slower than the hedge delay would send the reads to M).
  bool ReplicaReady(const std::string &key) {
    return crtest::WaitUntil(
        [&] {
          cr_reply *r = nullptr;
          const char *v = cr_client_cmd_get(&r, c_, key.data(), key.size()) == CR_OK
                              ? cr_reply_get_string(r, nullptr)
                              : nullptr;
          const bool from_r = v != nullptr && v == "R:" + key;
          cr_reply_free(r);
          return from_r;
        },
        std::chrono::seconds(5));
  }

  // Queues argv (kept in args_: a pipeline borrows its arguments).
  cr_status Add(cr_pipeline *p, cr_access access, std::vector<std::string> argv) {
    std::vector<const void *> ptrs;
    std::vector<size_t> lens;
    for (std::string &a : argv) {
      args_.push_back(std::move(a));
      ptrs.push_back(args_.back().data());
      lens.push_back(args_.back().size());
    }
    return cr_pipeline_add(p, access, 1, ptrs.size(), ptrs.data(), lens.data());
  }

  // Runs p: each result as its string, or "ERR <status>".
  std::vector<std::string> Execute(cr_pipeline *p) {
    const size_t n = cr_pipeline_get_count(p);
    std::vector<cr_reply *> replies(n, nullptr);
    std::vector<cr_status> statuses(n, CR_OK);
    size_t needed = 0;
    cr_pipeline_execute(replies.data(), statuses.data(), n, &needed, p);
    std::vector<std::string> out;
    for (size_t i = 0; i < n; ++i) {
      const char *v = cr_reply_get_string(replies[i], nullptr);
      out.push_back(statuses[i] != CR_OK ? "ERR " + std::string(cr_status_str(statuses[i]))
                                         : std::string(v == nullptr ? "(nil)" : v));
      cr_reply_free(replies[i]);
    }
    return out;
  }

  cr_client_stats Stats() {
    cr_client_stats st = CR_CLIENT_STATS_INIT;
    EXPECT_EQ(cr_client_get_stats(&st, c_), CR_OK);
    return st;
  }

  bool Saw(const std::vector<std::string> &seen, const std::string &what) {
    std::lock_guard<std::mutex> lock(mu_);
    for (const std::string &s : seen) {
      if (s == what) return true;
    }
    return false;
  }

  std::deque<std::string> args_;
  std::mutex mu_;
  std::vector<std::string> m_seen_, r_seen_;
  std::atomic<bool> hold_after_set_{false};
  FakeServer master_, replica_;
  cr_client *c_ = nullptr;
};

TEST_F(FanOutHedge, ALegAnsweredInPartIsHedgedForTheRest) {
  ASSERT_TRUE(ReplicaReady("a0"));
  const cr_client_stats before = Stats();
  cr_pipeline *p = nullptr;
  ASSERT_EQ(cr_pipeline_new(&p, c_), CR_OK);
  for (const char *k : {"a1", "a2", "b1", "a3", "b2"}) Add(p, CR_ACCESS_READ, {"GET", k});
  const int replica_closed = replica_.closed();
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<std::string> got = Execute(p);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
          .count();
  cr_pipeline_free(p);
  EXPECT_EQ(got, (std::vector<std::string>{"R:a1", "R:a2", "M:b1", "M:a3", "M:b2"}));
  EXPECT_LT(ms, 500) << "the leg waited for its timeout (1 s) instead of hedging";
  const cr_client_stats st = Stats();
  EXPECT_EQ(st.hedges - before.hedges, 1u);
  EXPECT_EQ(st.hedges_won - before.hedges_won, 1u);
  EXPECT_FALSE(Saw(m_seen_, "GET a1")) << "a read R answered was sent again";
  // The losing connection still had replies due: closed, never pooled.
  EXPECT_TRUE(crtest::WaitUntil([&] { return replica_.closed() > replica_closed; },
                                std::chrono::seconds(5)));
}

TEST_F(FanOutHedge, AReadAfterAWriteOfItsSlotIsNeverHedged) {
  ASSERT_TRUE(ReplicaReady("a0"));
  hold_after_set_ = true;
  const cr_client_stats before = Stats();
  cr_pipeline *p = nullptr;
  ASSERT_EQ(cr_pipeline_new(&p, c_), CR_OK);
  Add(p, CR_ACCESS_READ, {"GET", "a1"});
  Add(p, CR_ACCESS_WRITE, {"SET", "a2", "x"});
  Add(p, CR_ACCESS_READ, {"GET", "a2"});
  const std::vector<std::string> got = Execute(p);
  cr_pipeline_free(p);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0], "R:a1");
  EXPECT_EQ(got[1], "OK");
  EXPECT_EQ(got[2], "ERR " + std::string(cr_status_str(CR_ETIMEOUT)));
  const cr_client_stats st = Stats();
  EXPECT_EQ(st.hedges, before.hedges);
  EXPECT_EQ(st.hedges_denied, before.hedges_denied);
  EXPECT_FALSE(Saw(r_seen_, "GET a2"));
  EXPECT_FALSE(Saw(r_seen_, "SET a2"));
}

}  // namespace fanout_hedge_test
