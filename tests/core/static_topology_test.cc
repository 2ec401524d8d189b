#include <gtest/gtest.h>

#include "cloudroute/core/topology.hpp"
#include "test_util.hpp"

namespace cloudroute {
namespace static_topology_test {

TEST(StaticTopology, SingleShardOwnsEverySlot) {
  auto t = ParseStaticTopology(
      "# one master, two replicas\nshard master=10.0.0.1:6379 "
      "replicas=10.1.0.1:6379,[fd00::1]:6379\n");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ((*t)->shards.size(), 1u);
  EXPECT_EQ((*t)->nodes.size(), 3u);
  EXPECT_EQ((*t)->nodes[2].host(), "fd00::1");
  EXPECT_EQ((*t)->nodes[2].address(), "[fd00::1]:6379");
  EXPECT_EQ((*t)->ShardOfSlot(16383), 0);
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
  EXPECT_EQ((*u)->ShardOfSlot(9000), 0);
  EXPECT_EQ((*u)->ShardOfSlot(9001), 1);
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

TEST(StaticTopology, ContradictionsAndNonHostsAreRefusedByName) {
  struct Case {
    const char *file;
    const char *needle;
  };
  const Case cases[] = {
      {"repeated-master.txt", "line 1: 'master' is given twice"},
      {"repeated-slots.txt", "line 1: 'slots' is given twice"},
      {"same-master-on-two-lines.txt", "master 10.0.0.1:6379 is on lines 1 and 2"},
      {"id-bypass-master-listed-as-replica.txt",
       "line 2: address 10.0.0.1:6379 is given to two nodes: master 'a' and replica (no id)"},
      {"id-bypass-replica-at-its-masters-address.txt",
       "line 1: address 10.0.0.1:6379 is given to two nodes: master 'a' and replica (no id)"},
      {"control-byte-in-host.txt", "'\\x1b[31mred:6379' (the host is neither"},
      {"carriage-return-in-host.txt", "'redis\\x0d1:6379'"},
      {"bracketed-not-an-ip.txt", "'[not-an-ip]:6379' (brackets hold an IPv6 literal)"},
      {"bad-ipv4-host.txt", "'10.0.0.256:6379'"},
      {"trailing-dot-host.txt", "'redis.example.:6379'"},
      {"control-byte-in-id.txt", "id 'a\\x07b'"},
      {"nul-in-host.txt", "NUL byte"},
  };
  for (const Case &c : cases) {
    const std::string text = crtest::Regression("static_topology", c.file);
    ASSERT_FALSE(text.empty()) << c.file;
    auto t = ParseStaticTopology(text);
    ASSERT_FALSE(t.ok()) << c.file;
    EXPECT_EQ(t.status().code(), Code::kParse);
    EXPECT_NE(t.status().message().find(c.needle), std::string::npos)
        << c.file << " → " << t.status().message();
  }
}

TEST(StaticTopology, HostnamesAndIpv6StillParse) {
  auto t = ParseStaticTopology(
      "shard master=redis-0.redis.svc:6379 replicas=[fd00::2]:6379,10.0.0.3:6379 id=a\n");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ((*t)->nodes.size(), 3u);
  EXPECT_EQ((*t)->nodes[1].host(), "fd00::2");
}

}  // namespace static_topology_test
}  // namespace cloudroute
