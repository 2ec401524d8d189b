// Replays every saved bad input under tests/fuzz/regressions/<target>/
// through its parser: each must be refused with a status, never accepted and
// never a crash. Files added later (by the fuzzers) are picked up unchanged.
// The fuzzers' seeds (tests/fuzz/seeds/<target>/: real replies of
// redis-server 7 and Valkey 8, RESP2 and RESP3) must all be accepted.
#include <gtest/gtest.h>

#include <dirent.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cloudroute/core/cluster_reply.hpp"
#include "test_util.hpp"

namespace cloudroute {
namespace regressions_test {

const std::string kSeedsDir = crtest::SourcePath("tests/fuzz/seeds");

std::vector<std::string> Files(const std::string &dir) {
  std::vector<std::string> names;
  DIR *d = opendir(dir.c_str());
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
  const std::vector<std::string> names =
      Files(crtest::SourcePath("tests/fuzz/regressions/" + target));
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

template <typename Parse>
void AcceptAll(const std::string &target, Parse parse) {
  const std::vector<std::string> names = Files(kSeedsDir + "/" + target);
  ASSERT_FALSE(names.empty()) << "no seeds for " << target;
  for (const std::string &name : names) {
    auto t = parse(crtest::ReadFile(kSeedsDir + "/" + target + "/" + name));
    ASSERT_TRUE(t.ok()) << target << "/" << name << ": " << t.status().message();
    EXPECT_FALSE((*t)->shards.empty()) << target << "/" << name;
  }
}

TEST(Seeds, ClusterSlots) {
  AcceptAll("cluster_slots",
            [](const std::string &b) { return ParseClusterSlots(b, ClusterReplyOptions()); });
}

TEST(Seeds, ClusterShards) {
  AcceptAll("cluster_shards",
            [](const std::string &b) { return ParseClusterShards(b, ClusterReplyOptions()); });
}

TEST(Seeds, StaticTopology) {
  AcceptAll("static_topology", [](const std::string &b) { return ParseStaticTopology(b); });
}

}  // namespace regressions_test
}  // namespace cloudroute
