// A log handler may call back into the client whose event it receives:
// through the C API, cr_client_refresh from a handler of that client's own
// refresh (on the caller's thread and on the refresher thread) is refused
// with CR_EINVAL instead of waiting for itself, as it is from a handler on a
// caller's thread while the refresher's refresh waits for a handler; and
// cr_client_free from a
// handler on the refresher thread frees the client once the handler has
// returned instead of joining the refresher from inside it (which aborted the
// process: "Resource deadlock avoided"). The peer is a scripted cluster node
// (tests/net/fake_server.hpp).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>

#include "cloudroute.h"
#include "common/wait_until.hpp"
#include "fake_server.hpp"

namespace log_handler_reentry_test {

using fake::Bulk;

// What the handler does and saw; shared with the test's thread.
struct Probe {
  // Cross-thread: the refresher's "refresh started" handler holds its refresh
  // until the test thread's "MOVED redirect" handler has asked for one.
  std::atomic<bool> hold_refresh{false};
  std::atomic<bool> refresher_holding{false};
  std::atomic<bool> asked_from_moved{false};
  std::atomic<int> moved_refresh_status{1};
  cr_client *client = nullptr;
  std::thread::id test_thread;
  std::atomic<bool> refresh_from_handler{false};  // "refresh started": cr_client_refresh
  std::atomic<bool> free_from_refresher{false};   // "refresh done" off the test thread: free
  std::atomic<int> refused_here{0};               // refusals on the test's thread
  std::atomic<int> refused_elsewhere{0};          // ... on another (the refresher's)
  std::atomic<bool> freed{false};
  std::mutex mu;
  std::string refusal;  // under mu
};

void Handler(cr_log_level, const char *message, const cr_log_field *, size_t, void *payload) {
  Probe *p = static_cast<Probe *>(payload);
  const bool here = std::this_thread::get_id() == p->test_thread;
  if (!here && p->hold_refresh && std::string(message) == "refresh started") {
    p->hold_refresh = false;
    p->refresher_holding = true;
    // Bounded: without the fix the test thread waits for this refresh.
    crtest::WaitUntil([p] { return p->asked_from_moved.load(); }, std::chrono::seconds(5));
    p->refresher_holding = false;
  }
  if (here && p->refresher_holding && !p->asked_from_moved &&
      std::string(message) == "MOVED redirect") {
    p->moved_refresh_status = cr_client_refresh(p->client);
    p->asked_from_moved = true;
  }
  if (p->refresh_from_handler && std::string(message) == "refresh started") {
    if (cr_client_refresh(p->client) == CR_EINVAL) {
      {
        std::lock_guard<std::mutex> lock(p->mu);
        p->refusal = cr_last_error();
      }
      ++(here ? p->refused_here : p->refused_elsewhere);
    }
  }
  if (p->free_from_refresher && !here && std::string(message) == "refresh done") {
    p->free_from_refresher = false;  // once: the client is gone after this
    cr_client_free(p->client);
    p->freed = true;
  }
}

class LogHandlerReentry : public ::testing::Test {
 protected:
  // A cluster node that answers a GET of "moved" with MOVED to itself.
  LogHandlerReentry()
      : server_([this](const std::string &req) -> std::string {
          size_t used = 0;
          std::string out;
          for (const auto &argv : fake::Commands(req, &used)) {
            if (argv.size() == 2 && argv[1] == "moved") {
              out += "-MOVED 1 127.0.0.1:" + std::to_string(server_.port()) + "\r\n";
            } else {
              out += node_(fake::Command(argv));
            }
          }
          return out;
        }) {
    probe_.test_thread = std::this_thread::get_id();
  }

  // A client refreshing every 50 ms whose debug events go to Handler.
  cr_client *Start() {
    cr_config *cfg = nullptr;
    EXPECT_EQ(cr_config_new(&cfg), CR_OK);
    EXPECT_EQ(cr_config_set_log_callback(cfg, CR_LOG_LEVEL_DEBUG, &Handler, &probe_), CR_OK);
    cr_client_options o = CR_CLIENT_OPTIONS_INIT;
    o.refresh_interval_ms = 50;
    const std::string seed = "127.0.0.1:" + std::to_string(server_.port());
    cr_client *c = nullptr;
    EXPECT_EQ(cr_client_new(&c, cfg, &o, seed.c_str()), CR_OK) << cr_last_error();
    cr_config_free(cfg);
    probe_.client = c;
    return c;
  }

  std::function<std::string(const std::string &)> node_ =
      fake::ClusterNode([this] { return fake::OneNodeSlots(server_.port()); });
  FakeServer server_;
  Probe probe_;
};

TEST_F(LogHandlerReentry, RefreshFromAHandlerOfTheSameRefreshIsRefused) {
  cr_client *c = Start();
  ASSERT_NE(c, nullptr);
  probe_.refresh_from_handler = true;
  // On the caller's thread: the outer refresh goes on and succeeds.
  EXPECT_EQ(cr_client_refresh(c), CR_OK) << cr_last_error();
  EXPECT_EQ(probe_.refused_here.load(), 1);
  // On the refresher's thread, as the periodic refresh starts.
  EXPECT_TRUE(crtest::WaitUntil([&] { return probe_.refused_elsewhere.load() >= 1; },
                                std::chrono::seconds(10)));
  probe_.refresh_from_handler = false;
  {
    std::lock_guard<std::mutex> lock(probe_.mu);
    EXPECT_NE(probe_.refusal.find("log handler"), std::string::npos) << probe_.refusal;
  }
  // Outside a handler a refresh still runs.
  EXPECT_EQ(cr_client_refresh(c), CR_OK) << cr_last_error();
  cr_client_free(c);
}

// A handler on a caller's thread does not wait for a refresh another thread
// runs either: that refresh may be waiting for a handler (a logging
// framework's lock the asking handler holds), here for the asking one.
TEST_F(LogHandlerReentry, RefreshFromAHandlerWhileAnotherThreadRefreshesIsRefused) {
  cr_client *c = Start();
  ASSERT_NE(c, nullptr);
  probe_.hold_refresh = true;
  ASSERT_TRUE(
      crtest::WaitUntil([&] { return probe_.refresher_holding.load(); }, std::chrono::seconds(10)));
  cr_reply *r = nullptr;
  EXPECT_NE(cr_client_cmd_get(&r, c, "moved", 5), CR_OK);  // MOVED to itself, until the limit
  EXPECT_TRUE(probe_.asked_from_moved.load());
  EXPECT_EQ(probe_.moved_refresh_status.load(), CR_EINVAL);
  cr_client_free(c);
}

TEST_F(LogHandlerReentry, FreeFromAHandlerOnTheRefresherThreadFreesAfterTheHandler) {
  cr_client *c = Start();
  ASSERT_NE(c, nullptr);
  cr_reply *r = nullptr;  // a pooled connection, which only the free closes
  ASSERT_EQ(cr_client_cmd_get(&r, c, "k", 1), CR_OK) << cr_last_error();
  cr_reply_free(r);
  probe_.free_from_refresher = true;
  ASSERT_TRUE(crtest::WaitUntil([&] { return probe_.freed.load(); }, std::chrono::seconds(10)));
  // Every connection the client had is closed: it was freed, not leaked.
  EXPECT_TRUE(crtest::WaitUntil(
      [&] { return server_.accepted() > 0 && server_.closed() == server_.accepted(); },
      std::chrono::seconds(10)))
      << server_.closed() << " of " << server_.accepted() << " connections closed";
}

}  // namespace log_handler_reentry_test
