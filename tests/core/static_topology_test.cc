#include <gtest/gtest.h>

#include "cloudroute/core/topology.hpp"

namespace cloudroute {
namespace {

TEST(StaticTopology, SingleShardOwnsEverySlot) {
  auto t = ParseStaticTopology(
      "# one master, two replicas\nshard master=10.0.0.1:6379 "
      "replicas=10.1.0.1:6379,[fd00::1]:6379\n");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ((*t)->shards.size(), 1u);
  EXPECT_EQ((*t)->nodes.size(), 3u);
  EXPECT_EQ((*t)->nodes[2].host, "fd00::1");
  EXPECT_EQ((*t)->nodes[2].address(), "[fd00::1]:6379");
  EXPECT_EQ((*t)->slot_to_shard[16383], 0);
}

TEST(StaticTopology, SeveralShardsWithIds) {
  auto t = ParseStaticTopology(
      "shard id=a slots=0-8191 master=10.0.0.1:6379\r\n"
      "shard id=b slots=8192-16383,  master=10.0.0.2:6379\n");
  EXPECT_FALSE(t.ok());  // empty range item after the comma
  auto u = ParseStaticTopology(
      "shard id=a slots=0-8191,9000 master=10.0.0.1:6379\n"
      "shard\tid=b slots=8192-8999,9001-16383 master=10.0.0.2:6379  # trailing comment\n");
  ASSERT_TRUE(u.ok()) << u.status().message();
  EXPECT_EQ((*u)->shards[0].id, "a");
  EXPECT_EQ((*u)->slot_to_shard[9000], 0);
  EXPECT_EQ((*u)->slot_to_shard[9001], 1);
}

TEST(StaticTopology, ErrorsNameTheLine) {
  struct Case {
    const char *text;
    const char *needle;
  };
  const Case cases[] = {
      {"", "no shard lines"},
      {"# nothing\n", "no shard lines"},
      {"node master=a:1\n", "line 1: expected 'shard'"},
      {"shard slots=0-10\n", "line 1: shard has no master"},
      {"\nshard master=a\n", "line 2: bad address"},
      {"shard master=a:0\n", "port out of range"},
      {"shard master=a:99999\n", "port out of range"},
      {"shard master=::1:6379\n", "brackets"},
      {"shard master=a:1 color=red\n", "unknown key 'color'"},
      {"shard slots=5-1 master=a:1\n", "bad slot range"},
      {"shard slots=0-16384 master=a:1\n", "bad slot range"},
      {"shard master=a:1\nshard master=b:1\n", "has no slots="},
      {"shard id=x slots=0-1 master=a:1\nshard id=x slots=2-3 master=b:1\n", "duplicate shard id"},
      {"shard slots=0-10 master=a:1\nshard slots=5-20 master=b:1\n", "claimed by shards"},
  };
  for (const Case &c : cases) {
    auto t = ParseStaticTopology(c.text);
    ASSERT_FALSE(t.ok()) << c.text;
    EXPECT_EQ(t.status().code(), Code::kParse);
    EXPECT_NE(t.status().message().find(c.needle), std::string::npos)
        << c.text << " → " << t.status().message();
  }
  auto nul = ParseStaticTopology(std::string_view("shard master=a:1\0", 17));
  ASSERT_FALSE(nul.ok());
  EXPECT_NE(nul.status().message().find("NUL"), std::string::npos);
}

}  // namespace
}  // namespace cloudroute
