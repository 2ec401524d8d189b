#include <gtest/gtest.h>

#include "cloudroute/core/cluster_reply.hpp"
#include "test_util.hpp"

namespace cloudroute {
namespace cluster_shards_test {

using crtest::R;

R ShardNode(const std::string &id, const std::string &ip, int port, const std::string &role,
            const std::string &health = "online", const std::string &endpoint = "") {
  return R{"id",
           id,
           "port",
           port,
           "ip",
           ip,
           "endpoint",
           endpoint.empty() ? ip : endpoint,
           "role",
           role,
           "replication-offset",
           72156,
           "health",
           health};
}

Result<std::shared_ptr<const Topology>> Parse(const R &r) {
  return ParseClusterShards(r.Encode(), ClusterReplyOptions());
}

TEST(ClusterShards, Basic) {
  R reply{R{"slots", R{0, 3096, 4078, 5460}, "nodes",
            R{ShardNode("m1", "10.0.0.1", 7000, "master"),
              ShardNode("r1", "10.0.1.1", 7001, "replica")}},
          R{"slots", R{3097, 4077, 5461, 16383}, "nodes",
            R::Arr({ShardNode("m2", "10.0.0.2", 7000, "master")})}};
  auto t = Parse(reply);
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ((*t)->shards.size(), 2u);
  EXPECT_EQ((*t)->shards[0].ranges.size(), 2u);
  EXPECT_EQ((*t)->shards[0].replicas.size(), 1u);
  EXPECT_EQ((*t)->nodes[1].role, Role::kReplica);
  for (uint32_t s = 0; s < kSlotCount; ++s) ASSERT_NE((*t)->ShardOfSlot(s), kNoShard);
}

TEST(ClusterShards, HealthZoneTlsPortAndUnknownFields) {
  R node{"id",
         "r",
         "port",
         7001,
         "tls-port",
         17001,
         "ip",
         "10.0.0.2",
         "endpoint",
         "10.0.0.2",
         "role",
         "replica",
         "health",
         "loading",
         "availability-zone",
         "use1-az2",
         "future-field",
         R{1, 2}};
  R reply = R::Arr(
      {R{"slots", R{0, 16383}, "nodes", R{ShardNode("m", "10.0.0.1", 7000, "master"), node}}});
  auto t = Parse(reply);
  ASSERT_TRUE(t.ok()) << t.status().message();
  const TopoNode &n = (*t)->nodes[1];
  EXPECT_EQ(n.health, ReportedHealth::kLoading);
  EXPECT_EQ(n.zone(), "use1-az2");
  EXPECT_EQ(n.tls_port, 17001);
}

TEST(ClusterShards, FailedOldMasterDoesNotOwnTheShard) {
  R reply = R::Arr({R{"slots", R{0, 16383}, "nodes",
                      R{ShardNode("old", "10.0.0.1", 7000, "master", "failed"),
                        ShardNode("new", "10.0.0.2", 7000, "master", "online")}}});
  auto t = Parse(reply);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ((*t)->shards[0].id, "new");
}

TEST(ClusterShards, ContradictoryOrMalformedRepliesAreRefusedByName) {
  struct Case {
    const char *file;
    const char *needle;
    bool contradiction;  // well formed but self-contradictory: asking again may help
  };
  const Case cases[] = {
      {"nul-in-endpoint.resp", "endpoint 'redis-a\\x00x'", false},
      {"nul-in-node-id.resp", "node id 'm1\\x00x'", false},
      {"nul-in-ip.resp", "ip '10.0.0.1\\x00x' is not an IP address", false},
      {"nul-in-hostname.resp", "hostname 'redis-1\\x00x'", false},
      {"crlf-in-hostname.resp", "hostname 'redis-1\\x0d\\x0aINJECTED'", false},
      {"bracketed-not-an-ip-endpoint.resp", "endpoint '[not-an-ip]'", false},
      {"two-masters-in-one-shard.resp", "shard 0: two masters, 10.0.0.1:7000 and 10.0.0.2:7000",
       true},
      {"node-id-at-two-addresses.resp", "node id 'r1' at 10.0.0.3:7000 and 10.0.0.3:7001", true},
      {"master-listed-as-replica-of-another-shard.resp",
       "address 10.0.0.1:7000 is given to two nodes: master 'm1' and replica 'r9'", true},
      {"replica-at-its-masters-address.resp",
       "address 10.0.0.1:7000 is given to two nodes: master 'm1' and replica 'r1'", true},
      {"one-master-heads-two-shards.resp", "shard 1: master 10.0.0.1:7000 already heads shard 0",
       true},
      {"port-zero.resp", "port 0 is outside 1-65535", false},
      {"tls-port-zero.resp", "tls-port: port 0 is outside 1-65535", false},
      {"bulk-string-slot.resp", "slot is a bulk string", false},
      {"resp3-set-as-reply.resp", "reply is a set", false},
      {"resp3-push-as-reply.resp", "reply is a push", false},
      {"plus-sign-port.resp", "'+7000'", false},
  };
  for (const Case &c : cases) {
    const std::string bytes = crtest::Regression("cluster_shards", c.file);
    ASSERT_FALSE(bytes.empty()) << c.file;
    auto t = ParseClusterShards(bytes, ClusterReplyOptions());
    ASSERT_FALSE(t.ok()) << c.file;
    EXPECT_NE(t.status().message().find(c.needle), std::string::npos)
        << c.file << " → " << t.status().message();
    EXPECT_EQ(t.status().code(), Code::kParse) << c.file;
    EXPECT_EQ(t.status().contradiction(), c.contradiction) << c.file;
  }
}

TEST(ClusterShards, TwoFailedMastersAndNoHealthyOneAreRefused) {
  R reply = R::Arr({R{"slots", R{0, 16383}, "nodes",
                      R{ShardNode("a", "10.0.0.1", 7000, "master", "fail"),
                        ShardNode("b", "10.0.0.2", 7000, "master", "fail")}}});
  auto t = Parse(reply);
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("two masters"), std::string::npos) << t.status().message();
  EXPECT_TRUE(t.status().contradiction());
}

TEST(ClusterShards, ShardWithoutSlotsOrMaster) {
  R reply{R{"slots", R::Arr({}), "nodes", R::Arr({ShardNode("x", "10.0.0.9", 7000, "replica")})},
          R{"slots", R{0, 16383}, "nodes", R::Arr({ShardNode("m", "10.0.0.1", 7000, "master")})}};
  auto t = Parse(reply);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ((*t)->shards.size(), 1u);
}

TEST(ClusterShards, QuestionMarkEndpointFallsBackToIp) {
  R reply = R::Arr({R{"slots", R{0, 16383}, "nodes",
                      R::Arr({ShardNode("m", "10.0.0.1", 7000, "master", "online", "?")})}});
  auto t = Parse(reply);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ((*t)->nodes[0].host(), "10.0.0.1");
}

// A node's text is kept once in the topology: an ip equal to the endpoint
// is not stored twice, and every field still reads back, NUL-terminated.
TEST(ClusterShards, NodeTextReadsBack) {
  R zoned = ShardNode("r", "10.0.1.1", 7001, "replica", "online", "redis-1.example");
  zoned.a.push_back(R("availability-zone"));
  zoned.a.push_back(R("use1-az2"));
  R same = ShardNode("s", "10.0.2.1", 7002, "replica");
  same.a.push_back(R("availability-zone"));
  same.a.push_back(R("use1-az4"));
  R reply = R::Arr({R{"slots", R{0, 16383}, "nodes",
                      R{ShardNode("m", "10.0.0.1", 7000, "master"), zoned, same}}});
  auto t = Parse(reply);
  ASSERT_TRUE(t.ok()) << t.status().message();
  const TopoNode &m = (*t)->nodes[0], &r = (*t)->nodes[1], &s = (*t)->nodes[2];
  EXPECT_EQ(m.id(), "m");
  EXPECT_EQ(m.host(), "10.0.0.1");
  EXPECT_EQ(m.ip(), "10.0.0.1");
  EXPECT_EQ(m.zone(), "");
  EXPECT_STREQ(m.ip_c(), "10.0.0.1");
  EXPECT_STREQ(m.zone_c(), "");
  EXPECT_EQ(r.host(), "redis-1.example");
  EXPECT_EQ(r.ip(), "10.0.1.1");
  EXPECT_STREQ(r.zone_c(), "use1-az2");
  EXPECT_EQ(s.id(), "s");
  EXPECT_STREQ(s.host_c(), "10.0.2.1");
  EXPECT_STREQ(s.ip_c(), "10.0.2.1");
  EXPECT_EQ(s.zone(), "use1-az4");
  EXPECT_STREQ(s.zone_c(), "use1-az4");
  EXPECT_EQ((*t)->shards[0].id, "m");
  // A copy shares the text, which outlives the original.
  Topology copy = **t;
  t = Error(Code::kInternal, "dropped");
  EXPECT_EQ(copy.nodes[2].zone(), "use1-az4");
  EXPECT_EQ(copy.shards[0].id, "m");
}

TEST(ClusterShards, Resp3Maps) {
  const std::string reply =
      "*1\r\n%2\r\n$5\r\nslots\r\n*2\r\n:0\r\n:16383\r\n$5\r\nnodes\r\n*1\r\n%4\r\n$2\r\nid\r\n$"
      "1\r\nm\r\n"
      "$4\r\nport\r\n:7000\r\n$8\r\nendpoint\r\n$8\r\n10.0.0.1\r\n$4\r\nrole\r\n$6\r\nmaster\r\n";
  auto t = ParseClusterShards(reply, ClusterReplyOptions());
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ((*t)->nodes[0].address(), "10.0.0.1:7000");
}

TEST(ClusterShards, Errors) {
  struct Case {
    R reply;
    const char *needle;
  };
  const Case cases[] = {
      {R::Arr({R{"slots", R{0}, "nodes", R::Arr({})}}), "start/end pairs"},
      {R::Arr({R{"slots", R{0, 10}}}), "missing"},
      {R::Arr({R{"slots", R{0, 10}, "nodes", R::Arr({ShardNode("r", "10.0.0.1", 1, "replica")})}}),
       "no master"},
      {R::Arr({R{"slots", R{0, 10}, "nodes", R::Arr({R{"id", "m", "port", 1}})}}), "no role"},
      {R::Arr({R{"slots", R{0, 10}, "nodes", R::Arr({ShardNode("m", "10.0.0.1", 1, "boss")})}}),
       "unknown role"},
      {R::Arr(
           {R{"slots", R{0, 99999}, "nodes", R::Arr({ShardNode("m", "10.0.0.1", 1, "master")})}}),
       "outside 0-16383"},
      {R::Arr(
           {R{"slots", R{0, 10}, "nodes", R::Arr({R{"id", "m", "role", "master", "port", "x"}})}}),
       "not an integer"},
      {R::Arr(
           {R{"slots", R{0, 10}, "nodes", R::Arr({R{"id", R{1}, "role", "master", "port", 1}})}}),
       "field 'id'"},
  };
  for (const Case &c : cases) {
    auto t = Parse(c.reply);
    ASSERT_FALSE(t.ok()) << c.needle;
    EXPECT_NE(t.status().message().find(c.needle), std::string::npos) << t.status().message();
  }
}

}  // namespace cluster_shards_test
}  // namespace cloudroute
