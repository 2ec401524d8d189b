// The cross-language golden vectors (tests/vectors/*.json), run through the
// C API — the same entry points every binding calls.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cloudroute.h"
#include "common/source_dir.hpp"

namespace vectors_test {

using nlohmann::json;

json Load(const std::string &name) {
  std::ifstream f(crtest::SourcePath("tests/vectors/" + name));
  EXPECT_TRUE(f.good()) << name;
  return json::parse(f);
}

std::string Unhex(const std::string &h) {
  std::string out;
  for (size_t i = 0; i + 1 < h.size(); i += 2)
    out.push_back(static_cast<char>(std::stoi(h.substr(i, 2), nullptr, 16)));
  return out;
}

std::string ReadFile(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(Vectors, KeyslotMatchesRedisServer) {
  json v = Load("keyslot.json");
  ASSERT_GT(v["cases"].size(), 100u);
  std::vector<std::string> keys;
  for (const json &c : v["cases"]) {
    const std::string key = Unhex(c["key_hex"]);
    EXPECT_EQ(cr_keyslot(key.data(), key.size()), c["slot"].get<int>()) << c["key_hex"];
    keys.push_back(key);
  }
  std::vector<const void *> ptrs;
  std::vector<size_t> lens;
  for (const std::string &k : keys) {
    ptrs.push_back(k.data());
    lens.push_back(k.size());
  }
  std::vector<uint16_t> slots(keys.size());
  ASSERT_EQ(cr_keyslot_batch(slots.data(), ptrs.data(), lens.data(), keys.size()), CR_OK);
  for (size_t i = 0; i < keys.size(); ++i) EXPECT_EQ(slots[i], v["cases"][i]["slot"].get<int>());
}

std::string Addr(const char *host, uint16_t port) {
  return std::string(host) + ":" + std::to_string(port);
}

TEST(Vectors, RoutingCandidateOrder) {
  json v = Load("routing.json");
  ASSERT_GT(v["cases"].size(), 0u);
  for (const json &c : v["cases"]) {
    SCOPED_TRACE(c["name"].get<std::string>());
    const std::string bytes = ReadFile(crtest::SourcePath(c["reply_file"].get<std::string>()));
    cr_topology *t = nullptr;
    const cr_topology_format kind = c["reply_kind"] == "cluster-shards"
                                        ? CR_TOPOLOGY_FORMAT_CLUSTER_SHARDS
                                        : CR_TOPOLOGY_FORMAT_CLUSTER_SLOTS;
    ASSERT_EQ(cr_topology_parse(&t, bytes.data(), bytes.size(), kind, nullptr), CR_OK)
        << cr_last_error();
    cr_config *cfg = nullptr;
    ASSERT_EQ(cr_config_new(&cfg), CR_OK);
    const json &conf = c["config"];
    if (conf.contains("client_location")) {
      ASSERT_EQ(
          cr_config_set_client_location(cfg, conf["client_location"].get<std::string>().c_str()),
          CR_OK);
    }
    for (const json &cidr : conf.value("local_cidrs", json::array())) {
      ASSERT_EQ(cr_config_add_local_cidr(cfg, cidr.get<std::string>().c_str()), CR_OK);
    }
    for (const json &rule : conf.value("location_rules", json::array())) {
      ASSERT_EQ(cr_config_add_location_rule(cfg, rule[0].get<std::string>().c_str(),
                                            rule[1].get<std::string>().c_str()),
                CR_OK);
    }
    cr_router_options o = CR_ROUTER_OPTIONS_INIT;
    ASSERT_EQ(cr_policy_from_name(&o.policy, conf["policy"].get<std::string>().c_str()), CR_OK);
    ASSERT_EQ(cr_config_set_router_options(cfg, &o), CR_OK);
    cr_router *r = nullptr;
    ASSERT_EQ(cr_router_new(&r, cfg), CR_OK);
    ASSERT_EQ(cr_router_update(r, t), CR_OK);
    for (const json &k : c["keys"]) {
      const std::string key = k["key"];
      SCOPED_TRACE(key);
      EXPECT_EQ(cr_keyslot(key.data(), key.size()), k["slot"].get<int>());
      cr_route w = CR_ROUTE_INIT;
      ASSERT_EQ(cr_router_route_write(&w, r, key.data(), key.size()), CR_OK);
      EXPECT_EQ(Addr(w.host, w.port), k["write"].get<std::string>());
      cr_candidate cand[16];
      for (auto &x : cand) x.struct_size = sizeof(cr_candidate);
      size_t n = 0;
      ASSERT_EQ(cr_router_candidates(cand, 16, &n, r, key.data(), key.size()), CR_OK);
      std::vector<std::string> got;
      for (size_t i = 0; i < n; ++i) got.push_back(Addr(cand[i].host, cand[i].port));
      EXPECT_EQ(got, k["read"].get<std::vector<std::string>>());
    }
    cr_router_free(r);
    cr_config_free(cfg);
    cr_topology_free(t);
  }
}

}  // namespace vectors_test
