// ACL users with restricted permissions (redis-server 7, ACL SETUSER on
// every node of the password cluster of secrets_test.cc):
// - without CLUSTER SHARDS, discovery falls back to CLUSTER SLOTS;
// - without either, the client fails with a message naming both refusals
//   and the server's NOPERM text (which names the command);
// - without INFO, the client works (zones, readiness and lag checks are
//   skipped) and the skipped lag check is a warning naming the refusal.
#include <gtest/gtest.h>

#include <string>

#include "cloudroute.h"
#include "harness_env.hpp"
#include "secrets_capture.hpp"

namespace acl_test {

constexpr const char *kUserPassword = "Acl-user-pw-44";

class Acl : public ::testing::Test {
 protected:
  void SetUp() override {
    env_ = crtest::LoadHarnessEnv();
    if (env_.empty() || crtest::ClusterPassword().empty()) GTEST_SKIP() << "run through ctest";
  }
  void TearDown() override {
    for (const std::string &u : users_) AllNodes("ACL DELUSER " + u);
  }
  void AllNodes(const std::string &args) { ASSERT_EQ(crtest::AdminAll(env_, args), ""); }
  // A user with every permission but `minus` (ACL rules, e.g. "-info").
  void User(const std::string &name, const std::string &minus) {
    users_.push_back(name);
    AllNodes("ACL SETUSER " + name + " reset on '>" + kUserPassword + "' '~*' '&*' +@all " + minus);
  }
  cr_status NewClient(cr_client **out, const std::string &user, cr_config *cfg,
                      cr_client_options o = CR_CLIENT_OPTIONS_INIT) {
    o.username = user.c_str();
    o.password = kUserPassword;
    return cr_client_new(out, cfg, &o, env_["SEEDS"].c_str());
  }
  // calls= of a command in INFO commandstats of the first seed.
  long Calls(const std::string &command) {
    const std::string seed = env_["NODE1_ADDR"];
    return static_cast<long>(crtest::CommandCalls(
        crtest::Admin(seed, crtest::ClusterPassword(), "INFO commandstats"), command));
  }

  std::map<std::string, std::string> env_;
  std::vector<std::string> users_;
};

TEST_F(Acl, WithoutClusterShardsDiscoveryUsesClusterSlots) {
  User("noshards", "'-cluster|shards'");
  const long slots_before = Calls("cluster|slots");
  cr_client *c = nullptr;
  ASSERT_EQ(NewClient(&c, "noshards", nullptr), CR_OK) << cr_last_error();
  EXPECT_GT(Calls("cluster|slots"), slots_before);
  EXPECT_EQ(cr_client_cmd_set(c, "acl:k", 5, "v", 1, 0), CR_OK) << cr_last_error();
  cr_reply *r = nullptr;
  EXPECT_EQ(cr_client_cmd_get(&r, c, "acl:k", 5), CR_OK) << cr_last_error();
  cr_reply_free(r);
  EXPECT_EQ(cr_client_refresh(c), CR_OK) << cr_last_error();
  cr_client_free(c);
}

TEST_F(Acl, WithoutEitherTopologyCommandTheErrorNamesBoth) {
  User("notopology", "'-cluster|shards' '-cluster|slots'");
  cr_client *c = nullptr;
  EXPECT_EQ(NewClient(&c, "notopology", nullptr), CR_EREDIS);
  const std::string why = cr_last_error();
  EXPECT_NE(why.find("CLUSTER SHARDS refused"), std::string::npos) << why;
  EXPECT_NE(why.find("CLUSTER SLOTS refused"), std::string::npos) << why;
  EXPECT_NE(why.find("NOPERM"), std::string::npos) << why;
  EXPECT_NE(why.find("cluster|slots"), std::string::npos) << why;
  cr_client_free(c);
}

TEST_F(Acl, WithoutInfoTheClientWorksAndSaysWhatItSkipped) {
  User("noinfo", "-info");
  cr_config *cfg = nullptr;
  ASSERT_EQ(cr_config_new(&cfg), CR_OK);
  crtest::Capture log;
  ASSERT_EQ(cr_config_set_log_callback(cfg, CR_LOG_LEVEL_WARN, crtest::Capture::OnLog, &log),
            CR_OK);
  ASSERT_EQ(cr_config_add_local_cidr(cfg, "127.0.1.0/24"), CR_OK);
  // Zones matter (the zone probe asks INFO server), replicas are read first
  // (the readiness check asks INFO replication) and a lag bound is set.
  ASSERT_EQ(cr_config_add_zone(cfg, "use1-az1", "aws/us-east-1/use1-az1"), CR_OK);
  cr_router_options ro = CR_ROUTER_OPTIONS_INIT;
  ro.policy = CR_POLICY_PREFER_REPLICA;
  ASSERT_EQ(cr_config_set_router_options(cfg, &ro), CR_OK);
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  o.replica_max_lag_bytes = 1 << 20;
  cr_client *c = nullptr;
  ASSERT_EQ(NewClient(&c, "noinfo", cfg, o), CR_OK) << cr_last_error();
  cr_config_free(cfg);
  for (int i = 0; i < 30; ++i) {
    const std::string key = "acl:info:" + std::to_string(i);
    ASSERT_EQ(cr_client_cmd_set(c, key.data(), key.size(), "v", 1, 0), CR_OK) << cr_last_error();
    cr_reply *r = nullptr;
    ASSERT_EQ(cr_client_cmd_get(&r, c, key.data(), key.size()), CR_OK) << cr_last_error();
    cr_reply_free(r);
  }
  cr_client_stats st = CR_CLIENT_STATS_INIT;
  ASSERT_EQ(cr_client_get_stats(&st, c), CR_OK);
  EXPECT_EQ(st.reads, 30u);
  EXPECT_EQ(st.server_errors, 0u);
  EXPECT_EQ(cr_client_refresh(c), CR_OK) << cr_last_error();
  cr_client_free(c);
  const std::string text = log.text();
  EXPECT_NE(text.find("replica lag unknown: INFO replication refused"), std::string::npos) << text;
  EXPECT_NE(text.find("NOPERM"), std::string::npos) << text;
  EXPECT_NE(text.find("'info'"), std::string::npos) << text;
}

}  // namespace acl_test
