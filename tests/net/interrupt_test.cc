// cr_thread_set_interrupt_check: a call waiting for a reply that never comes
// (a scripted node that leaves GET unanswered) asks the thread's check about
// every 50 ms and, once it answers nonzero, fails at once with CR_ECONN. On a
// pooled connection (shared_connections 0) the connection is closed (the node
// sees it go), the node is not counted as failed, and the next call works on
// a new connection; on a shared connection only the call's request is
// abandoned (its reply would be read and dropped; the connection serves the
// others). Without a check the same call waits for its whole timeout.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>

#include "cloudroute.h"
#include "common/wait_until.hpp"
#include "fake_server.hpp"

namespace interrupt_test {

using fake::Bulk;

class Interrupt : public ::testing::Test {
 protected:
  // A cluster node that answers everything but a GET of "stall".
  Interrupt()
      : server_([this](const std::string &req) -> std::string {
          if (req.find(Bulk("stall")) != std::string::npos) return "";
          return node_(req);
        }) {}

  cr_client *Start(uint32_t timeout_ms, uint32_t shared_connections = 0) {
    cr_client_options o = CR_CLIENT_OPTIONS_INIT;
    for (uint32_t &t : o.command_timeout_ms) t = timeout_ms;
    o.refresh_interval_ms = 0;
    o.shared_connections = shared_connections;
    const std::string seed = "127.0.0.1:" + std::to_string(server_.port());
    cr_client *c = nullptr;
    EXPECT_EQ(cr_client_new(&c, nullptr, &o, seed.c_str()), CR_OK) << cr_last_error();
    return c;
  }

  std::function<std::string(const std::string &)> node_ = fake::ClusterNode([this] {
    return "*1\r\n*3\r\n:0\r\n:16383\r\n*3\r\n" + Bulk("127.0.0.1") + ":" +
           std::to_string(server_.port()) + "\r\n" + Bulk(std::string(40, 'a'));
  });
  FakeServer server_;
};

int AfterThreeAsks(void *payload) { return ++*static_cast<std::atomic<int> *>(payload) >= 3; }

// A GET of "stall" (never answered) under a check that asks to stop at its
// third call: CR_ECONN, "interrupted by the caller", in about 3 slices of
// 50 ms, not the 10 s timeout.
void ExpectInterruptedGet(cr_client *c) {
  std::atomic<int> asked{0};
  ASSERT_EQ(cr_thread_set_interrupt_check(&AfterThreeAsks, &asked), CR_OK);
  cr_reply *r = nullptr;
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(cr_client_cmd_get(&r, c, "stall", 5), CR_ECONN);
  const auto waited = std::chrono::steady_clock::now() - t0;
  const std::string why = cr_last_error();
  ASSERT_EQ(cr_thread_set_interrupt_check(nullptr, nullptr), CR_OK);
  EXPECT_EQ(r, nullptr);
  EXPECT_NE(why.find("interrupted by the caller"), std::string::npos) << why;
  EXPECT_GE(asked.load(), 3);
  EXPECT_LT(waited, std::chrono::seconds(2));
}

TEST_F(Interrupt, ACheckEndsTheWaitAndClosesTheConnection) {
  cr_client *c = Start(10000);
  ASSERT_NE(c, nullptr);
  cr_reply *r = nullptr;
  ASSERT_EQ(cr_client_cmd_get(&r, c, "k", 1), CR_OK) << cr_last_error();  // pooled, answered
  cr_reply_free(r);
  const int closed_before = server_.closed();
  cr_client_stats st0 = CR_CLIENT_STATS_INIT;
  ASSERT_EQ(cr_client_get_stats(&st0, c), CR_OK);

  ExpectInterruptedGet(c);
  // The connection is closed, never reused; the node was not marked.
  EXPECT_TRUE(crtest::WaitUntil([&] { return server_.closed() > closed_before; },
                                std::chrono::seconds(10)));
  cr_client_stats st = CR_CLIENT_STATS_INIT;
  ASSERT_EQ(cr_client_get_stats(&st, c), CR_OK);
  EXPECT_EQ(st.conn_errors, st0.conn_errors);
  EXPECT_EQ(st.timeouts, st0.timeouts);
  ASSERT_EQ(cr_client_cmd_get(&r, c, "k", 1), CR_OK) << cr_last_error();
  size_t len = 0;
  EXPECT_EQ(std::string(cr_reply_get_string(r, &len)), "v");
  cr_reply_free(r);
  cr_client_free(c);
}

TEST_F(Interrupt, ACheckEndsTheWaitOfASharedConnectionsRequest) {
  cr_client *c = Start(10000, 2);
  ASSERT_NE(c, nullptr);
  cr_reply *r = nullptr;
  ASSERT_EQ(cr_client_cmd_get(&r, c, "k", 1), CR_OK) << cr_last_error();  // shared, answered
  cr_reply_free(r);
  const int closed_before = server_.closed();
  cr_client_stats st0 = CR_CLIENT_STATS_INIT;
  ASSERT_EQ(cr_client_get_stats(&st0, c), CR_OK);

  ExpectInterruptedGet(c);
  // Only the request was abandoned: the connection stays open, the node unmarked.
  EXPECT_EQ(server_.closed(), closed_before);
  cr_client_stats st = CR_CLIENT_STATS_INIT;
  ASSERT_EQ(cr_client_get_stats(&st, c), CR_OK);
  EXPECT_EQ(st.conn_errors, st0.conn_errors);
  EXPECT_EQ(st.timeouts, st0.timeouts);
  EXPECT_EQ(st.poisoned, st0.poisoned);
  cr_client_free(c);
}

TEST_F(Interrupt, WithoutACheckTheCallWaitsItsTimeout) {
  cr_client *c = Start(300);
  ASSERT_NE(c, nullptr);
  cr_reply *r = nullptr;
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(cr_client_cmd_get(&r, c, "stall", 5), CR_ETIMEOUT) << cr_last_error();
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(290));
  cr_client_free(c);
}

}  // namespace interrupt_test
