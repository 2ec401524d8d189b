// Zone discovery against real Valkey clusters (scripts/redis-harness.sh run
// with valkey-server; cloud A = 127.0.1.x, cloud B = 127.0.2.x); the reads
// must stay in the client's zone, as the nodes count them (INFO commandstats).
//
// Zones.*  Valkey 8.0: each node reports its availability zone only in INFO
//          server (neither CLUSTER SHARDS nor HELLO), so the client must ask.
//          The client's locality comes from the zone map alone — no CIDR rule.
// Zones9.* Valkey 9.1: the zones come with the topology (CLUSTER SHARDS, and
//          CLUSTER SLOTS metadata for a user CLUSTER SHARDS is refused to),
//          and the client names its zone only (client_zone): no table, no
//          rule. Nodes of zone az-a are LOCAL, of az-b SAME_REGION.
//
// CR_TEST_CLUSTER_ENV names the harness's cluster.env.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "cloudroute.h"
#include "common/wait_until.hpp"
#include "harness_env.hpp"

namespace zones_test {

using crtest::CliLine;

uint64_t StrlenCalls(const std::string &addr) {
  return crtest::CommandCalls(CliLine(addr, "INFO commandstats"), "strlen");
}

// 300 keys written, then read with STRLEN through c: every read is served
// in cloud A (zone az-a) as the nodes count them (INFO commandstats), and the
// client counts every read as LOCAL.
void ExpectReadsInCloudA(std::map<std::string, std::string> &env, cr_client *c,
                         const std::string &prefix) {
  const int nodes = std::atoi(env["NODE_COUNT"].c_str());
  auto node = [&](int n, const char *f) { return env["NODE" + std::to_string(n) + "_" + f]; };
  std::vector<std::string> keys;
  for (int i = 0; i < 300; ++i) keys.push_back(prefix + std::to_string(i));
  for (const std::string &k : keys)
    ASSERT_EQ(cr_client_cmd_set(c, k.data(), k.size(), "vv", 2, 0), CR_OK) << cr_last_error();
  std::vector<uint64_t> before(nodes + 1);
  for (int n = 1; n <= nodes; ++n) before[n] = StrlenCalls(node(n, "ADDR"));
  for (const std::string &k : keys) {
    const void *argv[2] = {"STRLEN", k.data()};
    const size_t lens[2] = {6, k.size()};
    cr_reply *r = nullptr;
    ASSERT_EQ(cr_client_command(&r, c, CR_ACCESS_READ, 1, 2, argv, lens), CR_OK) << cr_last_error();
    cr_reply_free(r);
  }
  uint64_t in_a = 0;
  for (int n = 1; n <= nodes; ++n) {
    const uint64_t d = StrlenCalls(node(n, "ADDR")) - before[n];
    if (node(n, "CLOUD") == "A")
      in_a += d;
    else
      EXPECT_EQ(d, 0u) << "zone az-b node " << node(n, "ADDR") << " served " << d << " reads";
  }
  EXPECT_EQ(in_a, keys.size());
  cr_client_stats st = CR_CLIENT_STATS_INIT;
  ASSERT_EQ(cr_client_get_stats(&st, c), CR_OK);
  EXPECT_EQ(st.reads_by_tier[CR_TIER_LOCAL], st.reads);
}

TEST(Zones, ReadsStayInTheClientsZoneFromReportedZonesAlone) {
  std::map<std::string, std::string> env = crtest::LoadHarnessEnv();
  ASSERT_FALSE(env["SEEDS"].empty()) << "CR_TEST_CLUSTER_ENV does not name a cluster.env";
  const int nodes = std::atoi(env["NODE_COUNT"].c_str());
  auto node = [&](int n, const char *f) { return env["NODE" + std::to_string(n) + "_" + f]; };
  for (int n = 1; n <= nodes; ++n) {
    const std::string zone = node(n, "CLOUD") == "A" ? "az-a" : "az-b";
    ASSERT_EQ(CliLine(node(n, "ADDR"), "CONFIG SET availability-zone " + zone), "OK")
        << node(n, "ADDR");
    ASSERT_NE(CliLine(node(n, "ADDR"), "INFO server").find("availability_zone:" + zone),
              std::string::npos);
  }
  // Valkey 8.0: the zone is in INFO only (so this test exercises that source).
  EXPECT_EQ(CliLine(node(1, "ADDR"), "CLUSTER SHARDS").find("availability"), std::string::npos);

  cr_config *cfg = nullptr;
  ASSERT_EQ(cr_config_new(&cfg), CR_OK);
  ASSERT_EQ(cr_config_set_client_location(cfg, "cloud-x/region-1/az-a"), CR_OK);
  ASSERT_EQ(cr_config_add_zone(cfg, "az-a", "cloud-x/region-1/az-a"), CR_OK);
  ASSERT_EQ(cr_config_add_zone(cfg, "az-b", "cloud-y/region-2/az-b"), CR_OK);
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  cr_client *c = nullptr;
  ASSERT_EQ(cr_client_new(&c, cfg, &o, node(1, "ADDR").c_str()), CR_OK) << cr_last_error();
  cr_config_free(cfg);
  cr_router *router = nullptr;
  router = cr_client_get_router(c);
  ASSERT_NE(router, nullptr);

  // Every shard's first candidate is in the client's zone, known from the
  // zone each node reported about itself, before any read.
  for (uint32_t slot : {0u, 8000u, 16000u}) {
    cr_candidate cands[16];
    for (auto &x : cands) x.struct_size = sizeof x;
    size_t count = 0;
    ASSERT_EQ(cr_router_candidates_slot(cands, 16, &count, router, slot), CR_OK);
    ASSERT_EQ(count, 3u);
    EXPECT_EQ(cands[0].tier, CR_TIER_LOCAL) << "slot " << slot;
    EXPECT_EQ(std::string(cands[0].host).rfind("127.0.1.", 0), 0u) << cands[0].host;
    for (size_t i = 0; i < count; ++i) {
      const bool in_a = std::string(cands[i].host).rfind("127.0.1.", 0) == 0;
      EXPECT_EQ(cands[i].tier, in_a ? CR_TIER_LOCAL : CR_TIER_OTHER_CLOUD) << cands[i].host;
    }
  }

  ASSERT_NO_FATAL_FAILURE(ExpectReadsInCloudA(env, c, "zone:"));
  cr_client_stats st = CR_CLIENT_STATS_INIT;
  ASSERT_EQ(cr_client_get_stats(&st, c), CR_OK);
  std::printf("ZONES source=info reads=%llu local=%llu connections=%llu\n",
              (unsigned long long)st.reads, (unsigned long long)st.reads_by_tier[CR_TIER_LOCAL],
              (unsigned long long)st.connections);
  cr_client_free(c);
}

// ---- Valkey 9.1 -----------------------------------------------------------

// Every node in cloud A says az-a, in cloud B az-b; returns once every node's
// CLUSTER SHARDS carries all of them (the zones spread by the cluster bus).
void SetZones(std::map<std::string, std::string> &env) {
  const int nodes = std::atoi(env["NODE_COUNT"].c_str());
  for (int n = 1; n <= nodes; ++n) {
    const std::string addr = env["NODE" + std::to_string(n) + "_ADDR"];
    const std::string zone = env["NODE" + std::to_string(n) + "_CLOUD"] == "A" ? "az-a" : "az-b";
    ASSERT_EQ(CliLine(addr, "CONFIG SET availability-zone " + zone), "OK") << addr;
  }
  auto count = [](const std::string &text, const std::string &what) {
    size_t c = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++c;
    return static_cast<int>(c);
  };
  for (int n = 1; n <= nodes; ++n) {
    const std::string addr = env["NODE" + std::to_string(n) + "_ADDR"];
    ASSERT_TRUE(crtest::WaitUntil(
        [&] {
          const std::string shards = CliLine(addr, "CLUSTER SHARDS");
          return count(shards, "az-a") + count(shards, "az-b") == nodes;
        },
        std::chrono::seconds(15)))
        << addr << " does not report every node's zone: " << CliLine(addr, "CLUSTER SHARDS");
  }
}

// The client's topology gives every node the zone of its cloud; its
// candidates are LOCAL in az-a and SAME_REGION in az-b, local first; the
// explain names the source; 300 reads all land in az-a.
void ExpectTiersFromTheServersZones(std::map<std::string, std::string> &env, cr_client *c) {
  const int nodes = std::atoi(env["NODE_COUNT"].c_str());
  cr_router *router = cr_client_get_router(c);
  ASSERT_NE(router, nullptr);
  cr_snapshot *snap = nullptr;
  ASSERT_EQ(cr_router_get_snapshot(&snap, router), CR_OK);
  cr_topology *topo = cr_snapshot_get_topology(snap);
  ASSERT_EQ(cr_topology_get_node_count(topo), static_cast<size_t>(nodes));
  for (size_t i = 0; i < cr_topology_get_node_count(topo); ++i) {
    cr_node_info info = CR_NODE_INFO_INIT;
    ASSERT_EQ(cr_topology_get_node(&info, topo, i), CR_OK);
    const bool in_a = std::string(info.host).rfind("127.0.1.", 0) == 0;
    EXPECT_STREQ(info.zone, in_a ? "az-a" : "az-b") << info.host << ":" << info.port;
  }
  cr_topology_free(topo);
  cr_snapshot_free(snap);
  for (uint32_t slot : {0u, 8000u, 16000u}) {
    cr_candidate cands[16];
    for (auto &x : cands) x.struct_size = sizeof x;
    size_t count = 0;
    ASSERT_EQ(cr_router_candidates_slot(cands, 16, &count, router, static_cast<uint16_t>(slot)),
              CR_OK);
    ASSERT_EQ(count, 3u);
    EXPECT_EQ(cands[0].tier, CR_TIER_LOCAL) << "slot " << slot;
    for (size_t i = 0; i < count; ++i) {
      const bool in_a = std::string(cands[i].host).rfind("127.0.1.", 0) == 0;
      EXPECT_EQ(cands[i].tier, in_a ? CR_TIER_LOCAL : CR_TIER_SAME_REGION)
          << cands[i].host << ":" << cands[i].port;
    }
  }
  const std::string k = "zone9:explain";
  char buf[4096];
  size_t needed = 0;
  ASSERT_EQ(cr_router_explain(buf, sizeof buf, &needed, router, k.data(), k.size()), CR_OK);
  EXPECT_NE(std::string(buf).find("from=server zone az-a (the client zone)"), std::string::npos)
      << buf;
  EXPECT_NE(std::string(buf).find("from=server zone az-b (not the client zone az-a)"),
            std::string::npos)
      << buf;

  ASSERT_NO_FATAL_FAILURE(ExpectReadsInCloudA(env, c, "zone9:"));
  cr_client_stats st = CR_CLIENT_STATS_INIT;
  ASSERT_EQ(cr_client_get_stats(&st, c), CR_OK);
  std::printf("ZONES9 reads=%llu local=%llu\n", (unsigned long long)st.reads,
              (unsigned long long)st.reads_by_tier[CR_TIER_LOCAL]);
}

cr_client *ClientInZoneA(const std::string &seed, const char *username, const char *password) {
  cr_config *cfg = nullptr;
  EXPECT_EQ(cr_config_new(&cfg), CR_OK);
  EXPECT_EQ(cr_config_set_client_zone(cfg, "az-a"), CR_OK);  // nothing else
  cr_router_options ro = CR_ROUTER_OPTIONS_INIT;
  ro.policy = CR_POLICY_LOCAL_REPLICAS_FIRST;
  EXPECT_EQ(cr_config_set_router_options(cfg, &ro), CR_OK);
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  o.username = username;
  o.password = password;
  cr_client *c = nullptr;
  EXPECT_EQ(cr_client_new(&c, cfg, &o, seed.c_str()), CR_OK) << cr_last_error();
  cr_config_free(cfg);
  return c;
}

TEST(Zones9, ClientZoneAloneGivesTiersFromClusterShards) {
  std::map<std::string, std::string> env = crtest::LoadHarnessEnv();
  ASSERT_FALSE(env["SEEDS"].empty()) << "CR_TEST_CLUSTER_ENV does not name a cluster.env";
  ASSERT_NO_FATAL_FAILURE(SetZones(env));
  EXPECT_NE(CliLine(env["NODE1_ADDR"], "CLUSTER SHARDS").find("availability-zone"),
            std::string::npos);
  cr_client *c = ClientInZoneA(env["NODE1_ADDR"], nullptr, nullptr);
  ASSERT_NE(c, nullptr);
  ExpectTiersFromTheServersZones(env, c);
  cr_client_free(c);
}

// A user that may not run CLUSTER SHARDS: the client reads CLUSTER SLOTS,
// whose per-node metadata carries the zones (the answering node's included,
// or learned from its HELLO when a server leaves it out).
TEST(Zones9, ClientZoneAloneGivesTiersFromClusterSlots) {
  std::map<std::string, std::string> env = crtest::LoadHarnessEnv();
  ASSERT_FALSE(env["SEEDS"].empty()) << "CR_TEST_CLUSTER_ENV does not name a cluster.env";
  ASSERT_NO_FATAL_FAILURE(SetZones(env));
  const int nodes = std::atoi(env["NODE_COUNT"].c_str());
  for (int n = 1; n <= nodes; ++n) {
    ASSERT_EQ(CliLine(env["NODE" + std::to_string(n) + "_ADDR"],
                      "ACL SETUSER zones9 on '>zones9-pass' '~*' '&*' +@all '-cluster|shards'"),
              "OK");
  }
  EXPECT_NE(CliLine(env["NODE1_ADDR"],
                    "--user zones9 --pass zones9-pass --no-auth-warning CLUSTER SHARDS")
                .find("NOPERM"),
            std::string::npos);
  EXPECT_NE(CliLine(env["NODE1_ADDR"], "CLUSTER SLOTS").find("availability-zone"),
            std::string::npos);
  cr_client *c = ClientInZoneA(env["NODE1_ADDR"], "zones9", "zones9-pass");
  ASSERT_NE(c, nullptr);
  ExpectTiersFromTheServersZones(env, c);
  cr_client_free(c);
  for (int n = 1; n <= nodes; ++n)
    CliLine(env["NODE" + std::to_string(n) + "_ADDR"], "ACL DELUSER zones9");
}

}  // namespace zones_test
