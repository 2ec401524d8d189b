// A topology reply the library cannot trust is refused, never half-installed:
// through the C API, a live client whose only node starts answering CLUSTER
// SLOTS with a hostile reply (a NUL inside the host, which the message shows escaped) fails that
// refresh with CR_EPARSE naming the node, counts it in refresh_failures and keeps routing on the
// last good snapshot; the next good reply is installed again. A client whose every seed answers so
// does not start, and says why. The peer is a scripted server (tests/net/fake_server.hpp): no real
// server sends such bytes.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include "cloudroute.h"
#include "fake_server.hpp"

namespace refused_topology_test {

class HostileTopology : public ::testing::Test {
 protected:
  // Answers CLUSTER SHARDS with an error (as Redis 6 does, so the client
  // falls back to CLUSTER SLOTS), CLUSTER SLOTS with the good or the hostile
  // reply, INFO with an empty section, anything else with +OK.
  HostileTopology()
      : server_(fake::ClusterNode([this] {
          ++slots_asked_;
          return fake::OneNodeSlots(port(),
                                    hostile_ ? std::string("127.0.0.1\0evil", 14) : "127.0.0.1");
        })) {}

  uint16_t port() const { return server_.port(); }
  std::string seed() const { return "127.0.0.1:" + std::to_string(port()); }

  std::atomic<bool> hostile_{false};
  std::atomic<int> slots_asked_{0};
  FakeServer server_;
};

TEST_F(HostileTopology, RefusedReplyIsAFailedRefreshAndTheLastSnapshotStays) {
  cr_client *c = nullptr;
  ASSERT_EQ(cr_client_new(&c, nullptr, nullptr, seed().c_str()), CR_OK) << cr_last_error();
  cr_router *r = cr_client_get_router(c);
  cr_route before = CR_ROUTE_INIT;
  ASSERT_EQ(cr_router_route_write(&before, r, "k", 1), CR_OK);
  EXPECT_STREQ(before.host, "127.0.0.1");
  cr_client_stats st0 = CR_CLIENT_STATS_INIT;
  ASSERT_EQ(cr_client_get_stats(&st0, c), CR_OK);

  hostile_ = true;
  const int asked = slots_asked_;
  EXPECT_EQ(cr_client_refresh(c), CR_EPARSE);
  const std::string why = cr_last_error();
  EXPECT_NE(why.find(seed()), std::string::npos) << why;
  EXPECT_NE(why.find("127.0.0.1\\x00evil' is neither an IP address nor a hostname"),
            std::string::npos)
      << why;
  EXPECT_GT(slots_asked_.load(), asked);

  cr_client_stats st1 = CR_CLIENT_STATS_INIT;
  ASSERT_EQ(cr_client_get_stats(&st1, c), CR_OK);
  EXPECT_EQ(st1.refresh_failures, st0.refresh_failures + 1);
  EXPECT_EQ(st1.refreshes, st0.refreshes);
  cr_route after = CR_ROUTE_INIT;
  ASSERT_EQ(cr_router_route_write(&after, r, "k", 1), CR_OK) << cr_last_error();
  EXPECT_STREQ(after.host, "127.0.0.1");
  EXPECT_EQ(after.node_handle, before.node_handle);

  hostile_ = false;
  EXPECT_EQ(cr_client_refresh(c), CR_OK) << cr_last_error();
  cr_client_stats st2 = CR_CLIENT_STATS_INIT;
  ASSERT_EQ(cr_client_get_stats(&st2, c), CR_OK);
  EXPECT_EQ(st2.refreshes, st1.refreshes + 1);
  cr_client_free(c);
}

TEST_F(HostileTopology, ClientDoesNotStartOnARefusedReplyAndSaysWhy) {
  hostile_ = true;
  cr_client *c = nullptr;
  EXPECT_EQ(cr_client_new(&c, nullptr, nullptr, seed().c_str()), CR_EPARSE);
  EXPECT_EQ(c, nullptr);
  const std::string why = cr_last_error();
  EXPECT_NE(why.find(seed()), std::string::npos) << why;
  EXPECT_NE(why.find("127.0.0.1\\x00evil' is neither an IP address nor a hostname"),
            std::string::npos)
      << why;
}

}  // namespace refused_topology_test
