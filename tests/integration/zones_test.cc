// Zone discovery against a real Valkey 8.0 cluster (scripts/redis-harness.sh
// run with valkey-server; cloud A = 127.0.1.x, cloud B = 127.0.2.x). Each node
// reports its availability zone only in INFO server (Valkey 8.0 sends it in
// neither CLUSTER SHARDS nor HELLO), so the client must ask. The client's
// locality comes from the zone map alone — no CIDR rule — and its reads must
// stay in its own zone, as the nodes count them (INFO commandstats).
//
// CR_TEST_CLUSTER_ENV names the harness's cluster.env.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "cloudroute.h"
#include "harness_env.hpp"

namespace {

std::string Cli(const std::string &addr, const std::string &args) {
  const size_t colon = addr.rfind(':');
  return crtest::CommandOutput("timeout 10 redis-cli -h " + addr.substr(0, colon) + " -p " +
                               addr.substr(colon + 1) + " " + args + " 2>&1");
}

uint64_t StrlenCalls(const std::string &addr) {
  const std::string info = Cli(addr, "INFO commandstats");
  const size_t at = info.find("cmdstat_strlen:calls=");
  return at == std::string::npos ? 0 : std::strtoull(info.c_str() + at + 21, nullptr, 10);
}

TEST(Zones, ReadsStayInTheClientsZoneFromReportedZonesAlone) {
  std::map<std::string, std::string> env = crtest::LoadHarnessEnv();
  ASSERT_FALSE(env["SEEDS"].empty()) << "CR_TEST_CLUSTER_ENV does not name a cluster.env";
  const int nodes = std::atoi(env["NODE_COUNT"].c_str());
  auto node = [&](int n, const char *f) { return env["NODE" + std::to_string(n) + "_" + f]; };
  for (int n = 1; n <= nodes; ++n) {
    const std::string zone = node(n, "CLOUD") == "A" ? "az-a" : "az-b";
    ASSERT_EQ(Cli(node(n, "ADDR"), "CONFIG SET availability-zone " + zone), "OK")
        << node(n, "ADDR");
    ASSERT_NE(Cli(node(n, "ADDR"), "INFO server").find("availability_zone:" + zone),
              std::string::npos);
  }
  // Valkey 8.0: the zone is in INFO only (so this test exercises that source).
  EXPECT_EQ(Cli(node(1, "ADDR"), "CLUSTER SHARDS").find("availability"), std::string::npos);

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

  std::vector<std::string> keys;
  for (int i = 0; i < 300; ++i) keys.push_back("zone:" + std::to_string(i));
  for (const std::string &k : keys)
    ASSERT_EQ(cr_client_cmd_set(c, k.data(), k.size(), "vv", 2, 0), CR_OK);
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
  std::printf("ZONES source=info reads=%llu local=%llu connections=%llu\n",
              (unsigned long long)st.reads, (unsigned long long)st.reads_by_tier[CR_TIER_LOCAL],
              (unsigned long long)st.connections);
  cr_client_free(c);
}

}  // namespace
