#include <gtest/gtest.h>

#include "cloudroute/core/cluster_reply.hpp"
#include "common/source_dir.hpp"
#include "test_util.hpp"

namespace cloudroute {
namespace cluster_slots_test {

using crtest::Node;
using crtest::R;

Result<std::shared_ptr<const Topology>> Parse(const R &r, const std::string &default_host = "") {
  ClusterReplyOptions o;
  o.default_host = default_host;
  return ParseClusterSlots(r.Encode(), o);
}

TEST(ClusterSlots, NonContiguousRangesOutOfOrderMergeIntoOneShard) {
  R m1 = Node("10.0.0.1", 7000, "m1"), r1 = Node("10.0.1.1", 7001, "r1");
  R m2 = Node("10.0.0.2", 7000, "m2");
  auto t =
      Parse(R{R{4078, 5460, m1, r1}, R{5461, 16383, m2}, R{0, 3096, m1, r1}, R{3097, 4077, m2}});
  ASSERT_TRUE(t.ok()) << t.status().message();
  const Topology &topo = **t;
  ASSERT_EQ(topo.shards.size(), 2u);
  ASSERT_EQ(topo.nodes.size(), 3u);
  const TopoShard &s0 = topo.shards[topo.ShardOfSlot(0)];
  EXPECT_EQ(s0.id, "m1");
  ASSERT_EQ(s0.ranges.size(), 2u);
  EXPECT_EQ(s0.ranges[0].start, 0);
  EXPECT_EQ(s0.ranges[0].end, 3096);
  EXPECT_EQ(s0.ranges[1].start, 4078);
  EXPECT_EQ(s0.ranges[1].end, 5460);
  EXPECT_EQ(s0.replicas.size(), 1u);  // listed twice, kept once
  EXPECT_EQ(topo.ShardOfSlot(4077), topo.ShardOfSlot(3097));
  EXPECT_NE(topo.ShardOfSlot(4077), topo.ShardOfSlot(4078));
}

TEST(ClusterSlots, AdjacentRangesMerge) {
  R m = Node("10.0.0.1", 7000, "m");
  auto t = Parse(R{R{0, 99, m}, R{100, 16383, m}});
  ASSERT_TRUE(t.ok());
  EXPECT_EQ((*t)->shards[0].ranges.size(), 1u);
}

TEST(ClusterSlots, UncoveredSlotsStayUncovered) {
  auto t = Parse(R::Arr({R{0, 100, Node("10.0.0.1", 7000, "m")}}));
  ASSERT_TRUE(t.ok());
  EXPECT_EQ((*t)->ShardOfSlot(100), 0);
  EXPECT_EQ((*t)->ShardOfSlot(101), kNoShard);
  EXPECT_EQ((*t)->ShardOfSlot(16383), kNoShard);
}

TEST(ClusterSlots, EmptyHostMeansTheAskedAddressAndQuestionMarkIsUnknown) {
  auto t = Parse(R::Arr({R{0, 16383, Node("", 7000, "m"), Node("?", 7001, "r")}}), "10.9.9.9");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ((*t)->nodes[0].host(), "10.9.9.9");
  EXPECT_EQ((*t)->nodes[1].host(), "?");
  EXPECT_FALSE((*t)->nodes[1].endpoint_known());
  auto u = Parse(R::Arr({R{0, 16383, Node("", 7000, "m")}}));
  ASSERT_TRUE(u.ok());
  EXPECT_FALSE((*u)->nodes[0].endpoint_known());
}

TEST(ClusterSlots, NullEndpointIsTheAskedAddress) {
  auto t = Parse(R::Arr({R{0, 16383, R{R::Null(), 7000, "m"}}}), "10.9.9.9");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ((*t)->nodes[0].host(), "10.9.9.9");
}

TEST(ClusterSlots, MetadataGivesIpHostnameAndZone) {
  // Redis 7 with cluster-preferred-endpoint-type hostname: endpoint is the
  // hostname, metadata carries the ip; Valkey 9.1 adds availability-zone.
  R node{"redis-0.a.example", 7000, "m", R{"ip", "10.0.0.1", "availability-zone", "use1-az1"}};
  auto t = Parse(R::Arr({R{0, 16383, node}}));
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ((*t)->nodes[0].host(), "redis-0.a.example");
  EXPECT_EQ((*t)->nodes[0].ip(), "10.0.0.1");
  EXPECT_EQ((*t)->nodes[0].zone(), "use1-az1");
  R unknown{"?", 7000, "m", R{"ip", "10.0.0.1"}};
  auto u = Parse(R::Arr({R{0, 16383, unknown}}));
  ASSERT_TRUE(u.ok());
  EXPECT_EQ((*u)->nodes[0].host(), "10.0.0.1");
}

TEST(ClusterSlots, Resp3MetadataMap) {
  const std::string reply =
      "*1\r\n*3\r\n:0\r\n:16383\r\n*4\r\n$8\r\n10.0.0.1\r\n:7000\r\n$1\r\nm\r\n%1\r\n$"
      "8\r\nhostname\r\n$4\r\nhost\r\n";
  ClusterReplyOptions o;
  auto t = ParseClusterSlots(reply, o);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ((*t)->nodes[0].host(), "10.0.0.1");
}

TEST(ClusterSlots, NoIdsUseAddressAsShardIdentity) {
  auto t = Parse(R{R{0, 100, R{"10.0.0.1", 7000}}, R{101, 16383, R{"10.0.0.1", 7000}}});
  ASSERT_TRUE(t.ok());
  ASSERT_EQ((*t)->shards.size(), 1u);
  EXPECT_EQ((*t)->shards[0].id, "10.0.0.1:7000");
}

TEST(ClusterSlots, Errors) {
  struct Case {
    R reply;
    const char *needle;
    bool contradiction;  // well formed but self-contradictory: asking again may help
  };
  const Case cases[] = {
      {R::Arr({R{0, 16384, Node("a", 1, "m")}}), "outside 0-16383", false},
      {R::Arr({R{-1, 5, Node("a", 1, "m")}}), "outside 0-16383", false},
      {R::Arr({R{10, 5, Node("a", 1, "m")}}), "invalid slot range", false},
      {R::Arr({R{0, 5, Node("a", 70000, "m")}}), "port 70000", false},
      {R::Arr({R{0, 5}}), "not an array", false},
      {R{R{0, 10, Node("a", 1, "m")}, R{5, 20, Node("b", 1, "n")}}, "claimed by shards", true},
      {R{R{0, 10, Node("a", 1, "m"), Node("b", 1, "r")}, R{11, 20, Node("b", 1, "r")}},
       "both master and replica", true},
      {R{R{0, 10, Node("a", 1, "m"), Node("c", 1, "r")},
         R{11, 20, Node("b", 1, "n"), Node("c", 1, "r")}},
       "two masters", true},
      {R{"x"}, "not an array", false},
      {R::Arr({R{"zero", 5, Node("a", 1, "m")}}), "not an integer", false},
  };
  for (const Case &c : cases) {
    auto t = Parse(c.reply);
    ASSERT_FALSE(t.ok()) << c.needle;
    EXPECT_EQ(t.status().code(), Code::kParse) << t.status().message();
    EXPECT_NE(t.status().message().find(c.needle), std::string::npos) << t.status().message();
    EXPECT_EQ(t.status().contradiction(), c.contradiction) << t.status().message();
  }
  ClusterReplyOptions o;
  auto e = ParseClusterSlots("-ERR This instance has cluster support disabled\r\n", o);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("cluster support disabled"), std::string::npos);
}

// Replies that were accepted and then routed wrongly; the bytes
// live in tests/fuzz/regressions/cluster_slots/ for the fuzzers to replay.
TEST(ClusterSlots, ContradictoryOrMalformedRepliesAreRefusedByName) {
  struct Case {
    const char *file;
    const char *needle;
  };
  const Case cases[] = {
      {"nul-in-endpoint.resp", "endpoint '10.0.0.1\\x00a' is neither an IP address nor a hostname"},
      {"nul-in-node-id.resp", "node id 'm1\\x00x'"},
      {"nul-in-metadata-ip.resp", "ip '10.0.0.1\\x00x' is not an IP address"},
      {"nul-in-metadata-hostname.resp", "hostname 'redis-1\\x00x'"},
      {"crlf-in-endpoint.resp", "endpoint '10.0.0.1\\x0d\\x0arouted to attacker'"},
      {"space-in-endpoint.resp", "endpoint 'redis 1'"},
      {"control-byte-in-endpoint.resp", "endpoint '\\x1b[31mredis'"},
      {"bracketed-not-an-ip-endpoint.resp", "endpoint '[not-an-ip]'"},
      {"trailing-dot-endpoint.resp", "endpoint 'redis.example.'"},
      {"bad-ipv4-endpoint.resp", "endpoint '10.0.0.256'"},
      {"master-listed-as-replica-of-another-shard.resp",
       "address 10.0.0.1:7000 is given to two nodes: master 'm1' and replica 'r9'"},
      {"replica-at-its-masters-address.resp",
       "address 10.0.0.1:7000 is given to two nodes: master 'm1' and replica 'r1'"},
      {"two-masters-at-one-address.resp",
       "address 10.0.0.1:7000 is given to two nodes: master 'm1' and master 'm2'"},
      {"node-id-at-two-addresses.resp", "node id 'r1' at 10.0.0.3:7000 and 10.0.0.3:7001"},
      {"plus-sign-port.resp", "'+7000'"},
      {"plus-sign-bulk-length.resp", "'+8'"},
      {"plus-sign-array-count.resp", "'+1'"},
      {"leading-zero-port.resp", "'07000'"},
      {"negative-zero-bulk-length.resp", "'-0'"},
      {"simple-string-port.resp", "port is a simple string"},
      {"verbatim-string-port.resp", "port is a verbatim string"},
      {"bulk-string-slot.resp", "slot is a bulk string"},
      {"simple-string-slot.resp", "slot is a simple string"},
      {"resp3-push-as-reply.resp", "reply is a push"},
      {"resp3-set-as-reply.resp", "reply is a set"},
      {"port-zero.resp", "port 0 is outside 1-65535"},
      {"nesting-4000-levels.resp", "nesting deeper than 6"},
      {"arrays-of-resp3-nulls.resp", "slot is a null"},
  };
  for (const Case &c : cases) {
    const std::string bytes = crtest::Regression("cluster_slots", c.file);
    ASSERT_FALSE(bytes.empty()) << c.file;
    auto t = ParseClusterSlots(bytes, ClusterReplyOptions());
    ASSERT_FALSE(t.ok()) << c.file;
    EXPECT_NE(t.status().message().find(c.needle), std::string::npos)
        << c.file << " → " << t.status().message();
  }
}

TEST(ClusterSlots, RealHostsStillParse) {
  // A hostname, an IPv6 literal, a bulk-string port (some proxies send one),
  // and one master listed with the same replica in two entries.
  R m = R{"redis-0.redis.svc.cluster.local", "7000", "m"};
  R r = Node("fd00::1", 7001, "r");
  auto t = Parse(R{R{0, 100, m, r}, R{101, 16383, m, r}});
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ((*t)->nodes.size(), 2u);
  EXPECT_EQ((*t)->nodes[0].host(), "redis-0.redis.svc.cluster.local");
  EXPECT_EQ((*t)->nodes[0].port, 7000);
  EXPECT_EQ((*t)->nodes[1].address(), "[fd00::1]:7001");
}

TEST(ClusterSlots, EmptyReplyIsAnEmptyTopology) {
  auto t = Parse(R::Arr({}));
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE((*t)->shards.empty());
  EXPECT_EQ((*t)->ShardOfSlot(0), kNoShard);
}

TEST(ClusterSlots, SavedExampleParses) {
  FILE *f = std::fopen(crtest::SourcePath("examples/two-clouds.cluster-slots.resp").c_str(), "rb");
  ASSERT_NE(f, nullptr);
  std::string bytes;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) bytes.append(buf, n);
  std::fclose(f);
  auto t = ParseClusterSlots(bytes, ClusterReplyOptions());
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ((*t)->shards.size(), 3u);
  for (uint32_t s = 0; s < kSlotCount; ++s) ASSERT_NE((*t)->ShardOfSlot(s), kNoShard) << s;
}

}  // namespace cluster_slots_test
}  // namespace cloudroute
