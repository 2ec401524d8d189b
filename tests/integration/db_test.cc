// The db option against real servers: every new connection sends SELECT db
// in its handshake.
//
//   Db.Valkey9*  a Valkey 9.1 cluster started with cluster-databases 16
//                (CR_TEST_CLUSTER_ENV): keys written with db=2 read back with
//                db=2, from masters and from replicas, are in database 2 as
//                the servers count them and absent from database 0; they stay
//                reachable after the client's connections are killed and
//                after a failover (new connections, same database).
//   Db.Redis7*   a redis 7 cluster (database 0 only): a client with db=2
//                fails its start with the server's reply to SELECT.
//   Db.Sentinel* Sentinel groups (CR_TEST_SENTINEL_ENV): the same with db=2.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "cloudroute.h"
#include "common/wait_until.hpp"
#include "harness_env.hpp"

namespace db_test {

using crtest::CliLine;

cr_client *NewClient(const std::string &seeds, uint32_t db, cr_policy policy) {
  cr_config *cfg = nullptr;
  EXPECT_EQ(cr_config_new(&cfg), CR_OK);
  cr_router_options ro = CR_ROUTER_OPTIONS_INIT;
  ro.policy = policy;
  EXPECT_EQ(cr_config_set_router_options(cfg, &ro), CR_OK);
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  o.db = db;
  o.refresh_min_gap_ms = 100;
  cr_client *c = nullptr;
  const cr_status s = cr_client_new(&c, cfg, &o, seeds.c_str());
  EXPECT_EQ(s, CR_OK) << cr_last_error();
  cr_config_free(cfg);
  return c;
}

// GET through c: the value, or "(nil)"; "(error)" with the message on failure.
std::string Get(cr_client *c, const std::string &key) {
  cr_reply *r = nullptr;
  if (cr_client_cmd_get(&r, c, key.data(), key.size()) != CR_OK)
    return std::string("(error) ") + cr_last_error();
  std::string out = "(nil)";
  if (cr_reply_get_type(r) == CR_REPLY_TYPE_STRING) {
    size_t len = 0;
    const char *s = cr_reply_get_string(r, &len);
    out.assign(s, len);
  }
  cr_reply_free(r);
  return out;
}

// The master serving key, as the client routes its writes.
std::string MasterOf(cr_client *c, const std::string &key) {
  cr_router *router = cr_client_get_router(c);
  cr_route route = CR_ROUTE_INIT;
  EXPECT_EQ(cr_router_route_write(&route, router, key.data(), key.size()), CR_OK);
  return std::string(route.host) + ":" + std::to_string(route.port);
}

TEST(Db, Valkey9KeysLiveInTheirDatabaseAcrossReconnectsAndAFailover) {
  std::map<std::string, std::string> env = crtest::LoadHarnessEnv();
  ASSERT_FALSE(env["SEEDS"].empty()) << "CR_TEST_CLUSTER_ENV does not name a cluster.env";
  cr_client *c2 = NewClient(env["SEEDS"], 2, CR_POLICY_MASTER);
  cr_client *c0 = NewClient(env["SEEDS"], 0, CR_POLICY_MASTER);
  cr_client *replicas2 = NewClient(env["SEEDS"], 2, CR_POLICY_REPLICA_ONLY);
  ASSERT_NE(c2, nullptr);
  ASSERT_NE(c0, nullptr);
  ASSERT_NE(replicas2, nullptr);

  std::vector<std::string> keys;
  for (int i = 0; i < 60; ++i) keys.push_back("db2:" + std::to_string(i));
  for (const std::string &k : keys) {
    ASSERT_EQ(cr_client_cmd_set(c2, k.data(), k.size(), ("v" + k).data(), k.size() + 1, 0), CR_OK)
        << cr_last_error();
  }
  for (const std::string &k : keys) {
    EXPECT_EQ(Get(c2, k), "v" + k);
    EXPECT_EQ(Get(c0, k), "(nil)") << k << " is visible in database 0";
    // As the server counts it: in database 2 of the key's master, not in 0.
    const std::string master = MasterOf(c2, k);
    EXPECT_EQ(CliLine(master, "-n 2 GET " + k), "v" + k);
    EXPECT_EQ(CliLine(master, "-n 0 EXISTS " + k), "0");
  }
  // Replicas (READONLY and SELECT on the same connections).
  for (const std::string &k : keys) {
    EXPECT_TRUE(
        crtest::WaitUntil([&] { return Get(replicas2, k) == "v" + k; }, std::chrono::seconds(5)))
        << k << ": " << Get(replicas2, k);
  }

  // Every connection of every client killed: the new ones select database 2 again.
  const int nodes = std::atoi(env["NODE_COUNT"].c_str());
  for (int n = 1; n <= nodes; ++n) {
    CliLine(env["NODE" + std::to_string(n) + "_ADDR"], "CLIENT KILL TYPE normal SKIPME yes");
  }
  for (const std::string &k : keys) {
    EXPECT_TRUE(crtest::WaitUntil([&] { return Get(c2, k) == "v" + k; }, std::chrono::seconds(5)))
        << k << " after CLIENT KILL: " << Get(c2, k);
  }

  // A failover of shard 1 into its cloud-A replica: writes follow the MOVED
  // to a master the client never wrote to, on a new connection.
  const std::string old_master = env["SHARD1_MASTER"];
  const std::string promoted = env["NODE2_ADDR"];  // shard 1's replica in cloud A
  ASSERT_EQ(CliLine(promoted, "CLUSTER FAILOVER"), "OK");
  ASSERT_TRUE(crtest::WaitUntil(
      [&] {
        return CliLine(promoted, "ROLE").rfind("master", 0) == 0 &&
               CliLine(old_master, "ROLE").rfind("slave", 0) == 0;
      },
      std::chrono::seconds(20)))
      << "the failover did not complete";
  const std::string key = "{" + env["SHARD1_KEY"] + "}:db2";  // shard 1's slot
  ASSERT_TRUE(crtest::WaitUntil(
      [&] { return cr_client_cmd_set(c2, key.data(), key.size(), "after", 5, 0) == CR_OK; },
      std::chrono::seconds(10)))
      << cr_last_error();
  EXPECT_EQ(Get(c2, key), "after");
  EXPECT_EQ(CliLine(promoted, "-n 2 GET " + key), "after");
  EXPECT_EQ(CliLine(promoted, "-n 0 EXISTS " + key), "0");
  for (const std::string &k : keys) EXPECT_EQ(Get(c2, k), "v" + k);

  // Put the layout back for the tests after this one.
  ASSERT_EQ(CliLine(old_master, "CLUSTER FAILOVER"), "OK");
  EXPECT_TRUE(crtest::WaitUntil(
      [&] {
        return CliLine(old_master, "ROLE").rfind("master", 0) == 0 &&
               CliLine(promoted, "ROLE").rfind("slave", 0) == 0;
      },
      std::chrono::seconds(20)));
  cr_client_free(c2);
  cr_client_free(c0);
  cr_client_free(replicas2);
}

TEST(Db, Redis7ClusterRefusesADatabaseOtherThanZero) {
  std::map<std::string, std::string> env = crtest::LoadHarnessEnv();
  ASSERT_FALSE(env["SEEDS"].empty()) << "CR_TEST_CLUSTER_ENV does not name a cluster.env";
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  o.db = 2;
  cr_client *c = nullptr;
  EXPECT_EQ(cr_client_new(&c, nullptr, &o, env["SEEDS"].c_str()), CR_EREDIS);
  EXPECT_EQ(c, nullptr);
  const std::string why = cr_last_error();
  EXPECT_NE(why.find("SELECT 2 refused: ERR SELECT is not allowed in cluster mode"),
            std::string::npos)
      << why;
  // db 0 sends no SELECT: the same cluster serves it.
  o.db = 0;
  ASSERT_EQ(cr_client_new(&c, nullptr, &o, env["SEEDS"].c_str()), CR_OK) << cr_last_error();
  cr_client_free(c);
}

TEST(Db, SentinelGroupsServeTheirDatabase) {
  std::map<std::string, std::string> env = crtest::LoadHarnessEnv("CR_TEST_SENTINEL_ENV");
  ASSERT_FALSE(env["SENTINELS"].empty()) << "CR_TEST_SENTINEL_ENV does not name a sentinel.env";
  cr_ring *ring = nullptr;
  cr_ring_options ro = CR_RING_OPTIONS_INIT;
  ASSERT_EQ(cr_ring_new(&ring, &ro), CR_OK);
  ASSERT_EQ(cr_ring_add_shard(ring, "group0", 1), CR_OK);
  ASSERT_EQ(cr_ring_add_shard(ring, "group1", 1), CR_OK);
  ASSERT_EQ(cr_ring_build(ring), CR_OK);
  const char *names[] = {"group0", "group1"};
  auto open = [&](uint32_t db) {
    cr_sentinel_options o = CR_SENTINEL_OPTIONS_INIT;
    o.db = db;
    cr_sentinel_client *c = nullptr;
    EXPECT_EQ(cr_sentinel_client_new(&c, nullptr, &o, ring, names, 2, env["SENTINELS"].c_str()),
              CR_OK)
        << cr_last_error();
    return c;
  };
  cr_sentinel_client *s2 = open(2), *s0 = open(0);
  cr_ring_free(ring);
  ASSERT_NE(s2, nullptr);
  ASSERT_NE(s0, nullptr);
  auto run = [](cr_sentinel_client *c, cr_access access, std::vector<std::string> args) {
    std::vector<const void *> argv;
    std::vector<size_t> lens;
    for (const std::string &a : args) {
      argv.push_back(a.data());
      lens.push_back(a.size());
    }
    cr_reply *r = nullptr;
    if (cr_sentinel_client_command(&r, c, access, 1, args.size(), argv.data(), lens.data()) !=
        CR_OK)
      return std::string("(error) ") + cr_last_error();
    std::string out = "(nil)";
    if (cr_reply_get_type(r) == CR_REPLY_TYPE_STRING ||
        cr_reply_get_type(r) == CR_REPLY_TYPE_STATUS) {
      size_t len = 0;
      const char *s = cr_reply_get_string(r, &len);
      out.assign(s, len);
    }
    cr_reply_free(r);
    return out;
  };
  for (int i = 0; i < 40; ++i) {
    const std::string k = "sdb2:" + std::to_string(i);
    ASSERT_EQ(run(s2, CR_ACCESS_WRITE, {"SET", k, "v" + k}), "OK");
    EXPECT_EQ(run(s2, CR_ACCESS_WRITE, {"GET", k}), "v" + k);
    EXPECT_EQ(run(s0, CR_ACCESS_WRITE, {"GET", k}), "(nil)") << k << " is visible in database 0";
  }
  // Replicas serve database 2 too (asynchronous replication: poll).
  const std::string k = "sdb2:0";
  EXPECT_TRUE(crtest::WaitUntil(
      [&] {
        return run(s2, CR_ACCESS_READ, {"GET", k}) == "v" + k;
      },
      std::chrono::seconds(5)));
  cr_sentinel_client_free(s2);
  cr_sentinel_client_free(s0);
}

}  // namespace db_test
