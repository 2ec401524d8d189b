// Replays every saved bad input under tests/fuzz/regressions/<target>/
// through its parser: each must be refused with a status, never accepted and
// never a crash. Files added later (by the fuzzers) are picked up unchanged.
#include <gtest/gtest.h>

#include <dirent.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cloudroute/core/cluster_reply.hpp"
#include "test_util.hpp"

namespace cloudroute {
namespace {

std::vector<std::string> Files(const std::string &target) {
  std::vector<std::string> names;
  DIR *d = opendir((std::string(CR_REGRESSIONS_DIR) + "/" + target).c_str());
  if (d == nullptr) return names;
  while (dirent *e = readdir(d)) {
    if (e->d_name[0] != '.') names.emplace_back(e->d_name);
  }
  closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

template <typename Parse>
void ReplayAll(const std::string &target, Parse parse) {
  const std::vector<std::string> names = Files(target);
  ASSERT_FALSE(names.empty()) << "no regression inputs for " << target;
  for (const std::string &name : names) {
    const std::string bytes = crtest::Regression(target, name);
    auto t = parse(bytes);
    EXPECT_FALSE(t.ok()) << target << "/" << name << " was accepted";
    if (!t.ok()) {
      EXPECT_FALSE(t.status().message().empty()) << target << "/" << name;
    }
  }
}

TEST(Regressions, ClusterSlots) {
  ReplayAll("cluster_slots",
            [](const std::string &b) { return ParseClusterSlots(b, ClusterReplyOptions()); });
}

TEST(Regressions, ClusterShards) {
  ReplayAll("cluster_shards",
            [](const std::string &b) { return ParseClusterShards(b, ClusterReplyOptions()); });
}

TEST(Regressions, StaticTopology) {
  ReplayAll("static_topology", [](const std::string &b) { return ParseStaticTopology(b); });
}

}  // namespace
}  // namespace cloudroute
