// TopologyBuilder's conflict checks and the host rules shared by every
// parser, the static format and the configuration's addresses (remaps and
// node locations go through ParseHostPort).
#include <gtest/gtest.h>

#include "cloudroute/core/topology.hpp"

namespace cloudroute {
namespace topology_test {

NodeSpec Spec(const std::string &host, uint16_t port, const std::string &id = "") {
  NodeSpec n;
  n.host = host;
  n.port = port;
  n.id = id;
  return n;
}

TEST(Host, IpLiteralsAndRfc1123Names) {
  for (const char *ok : {"10.0.0.1", "::1", "fd00::1:2", "redis", "redis-0.redis.svc.cluster.local",
                         "a1.b2", "0a", "xn--bcher-kva.example"}) {
    EXPECT_TRUE(IsValidHost(ok)) << ok;
  }
  const std::string label63(63, 'a'), label64(64, 'a');
  EXPECT_TRUE(IsValidHost(label63 + ".example"));
  EXPECT_FALSE(IsValidHost(label64 + ".example"));
  std::string long_name;
  while (long_name.size() < 250) long_name += label63.substr(0, 9) + ".";
  long_name += "abcd";  // 254 bytes
  EXPECT_FALSE(IsValidHost(long_name));
  for (const char *bad :
       {"", ".", "a.", ".a", "a..b", "-a", "a-", "a-.b", "a_b", "a b", "[::1]", "[not-an-ip]",
        "10.0.0.256", "1.2.3", "fe80::1%eth0", "a:b", "a\r\nb", "\x1b[31m", "caf\xc3\xa9"}) {
    EXPECT_FALSE(IsValidHost(bad)) << bad;
  }
  EXPECT_FALSE(IsValidHost(std::string_view("10.0.0.1\0x", 10)));
  EXPECT_FALSE(IsValidHost(std::string_view("redis\0x", 7)));
}

TEST(Host, NodeIdsArePrintableWithoutSpaces) {
  EXPECT_TRUE(IsValidNodeId("07c37dfeb235213a872192d90877d0cd55635b91"));
  EXPECT_TRUE(IsValidNodeId("orders"));
  EXPECT_FALSE(IsValidNodeId(""));
  EXPECT_FALSE(IsValidNodeId("a b"));
  EXPECT_FALSE(IsValidNodeId(std::string_view("a\0b", 3)));
  EXPECT_FALSE(IsValidNodeId("a\nb"));
  EXPECT_FALSE(IsValidNodeId(std::string(257, 'a')));
}

TEST(Host, QuoteEscapesWhatATerminalWouldObey) {
  EXPECT_EQ(Quote("a\r\n\x1b[0m\\"), "'a\\x0d\\x0a\\x1b[0m\\x5c'");
  EXPECT_EQ(Quote(std::string(100, 'x')), "'" + std::string(64, 'x') + "...'");
}

TEST(HostPort, RemapAndLocationAddressesAreValidated) {
  std::string host;
  uint16_t port = 0;
  ASSERT_TRUE(ParseHostPort("[fd00::1]:7000", &host, &port).ok());
  EXPECT_EQ(host, "fd00::1");
  ASSERT_TRUE(ParseHostPort("redis-0.svc:7000", &host, &port).ok());
  for (const char *bad :
       {"[not-an-ip]:1", "[10.0.0.1]:1", "a b:1", "a\r\n:1", "10.0.0.256:1", "a.:1", "a_b:1"}) {
    Status s = ParseHostPort(bad, &host, &port);
    ASSERT_FALSE(s.ok()) << bad;
    EXPECT_EQ(s.code(), Code::kParse);
  }
  Status s = ParseHostPort(std::string_view("10.0.0.1\0x:1", 12), &host, &port);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'10.0.0.1\\x00x:1'"), std::string::npos) << s.message();
}

TEST(Builder, OneAddressIsOneNode) {
  TopologyBuilder b;
  auto s0 = b.AddShard(Spec("10.0.0.1", 7000, "m1"));
  ASSERT_TRUE(s0.ok());
  // The same node again (another range of its shard) is the same shard.
  auto again = b.AddShard(Spec("10.0.0.1", 7000, "m1"));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *s0);
  Status r = b.AddReplica(*s0, Spec("10.0.0.1", 7000, "r1"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.message(),
            "address 10.0.0.1:7000 is given to two nodes: master 'm1' and replica 'r1'");
  auto moved = b.AddShard(Spec("10.0.0.2", 7000, "m1"));
  ASSERT_FALSE(moved.ok());
  EXPECT_EQ(moved.status().message(), "node id 'm1' at 10.0.0.1:7000 and 10.0.0.2:7000");
}

TEST(Builder, RefusesTheNodeASnapshotCouldNotIndex) {
  // A snapshot indexes nodes in 16 bits with 0xFFFF meaning none: 65534
  // nodes are the most a topology holds, and the reply that names one more
  // is refused here, not at install.
  TopologyBuilder b;
  auto s0 = b.AddShard(Spec("10.0.0.1", 7000));
  ASSERT_TRUE(s0.ok());
  for (uint32_t i = 1; i < 65534; ++i) {
    const std::string host = "10.1." + std::to_string(i / 256) + "." + std::to_string(i % 256);
    ASSERT_TRUE(b.AddReplica(*s0, Spec(host, 7000)).ok()) << i;
  }
  Status over = b.AddReplica(*s0, Spec("10.2.0.1", 7000));
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.code(), Code::kLimit);
  EXPECT_EQ(over.message(), "more than 65534 nodes");
  auto t = b.Build();
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ((*t)->nodes.size(), 65534u);
}

TEST(Builder, UnknownEndpointsMayShareAPort) {
  // "?" is not an address: two nodes whose endpoints are unknown are two nodes.
  TopologyBuilder b;
  auto s0 = b.AddShard(Spec("10.0.0.1", 7000, "m1"));
  ASSERT_TRUE(s0.ok());
  ASSERT_TRUE(b.AddReplica(*s0, Spec("?", 7000, "r1")).ok());
  ASSERT_TRUE(b.AddReplica(*s0, Spec("?", 7000, "r2")).ok());
  auto t = b.Build();
  ASSERT_TRUE(t.ok());
  EXPECT_EQ((*t)->shards[0].replicas.size(), 2u);
}

TEST(Builder, RefusesHostsAndIdsThatAreNot) {
  TopologyBuilder b;
  EXPECT_FALSE(b.AddShard(Spec("a b", 7000)).ok());
  EXPECT_FALSE(b.AddShard(Spec("10.0.0.1", 7000, "m\x01")).ok());
  NodeSpec bad_ip = Spec("redis-0", 7000, "m");
  bad_ip.ip = "redis-0";
  auto r = b.AddShard(bad_ip);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("node ip 'redis-0' is not an IP address"), std::string::npos);
}

// Slots are kept as runs: each maximal stretch of one shard, sorted, gaps
// left out; ShardOfSlot and the per-slot table agree on every slot.
TEST(Builder, SlotRunsAreMaximalSortedAndAgreeWithTheTable) {
  TopologyBuilder b;
  auto a = b.AddShard(Spec("10.0.0.1", 7000, "a"));
  auto c = b.AddShard(Spec("10.0.0.2", 7000, "c"));
  ASSERT_TRUE(a.ok() && c.ok());
  ASSERT_TRUE(b.AddRange(*a, 0, 99).ok());
  ASSERT_TRUE(b.AddRange(*c, 100, 199).ok());  // adjacent, another shard: two runs
  ASSERT_TRUE(b.AddRange(*a, 300, 300).ok());  // a gap before, one slot
  ASSERT_TRUE(b.AddRange(*a, 301, 400).ok());  // merged with the slot before
  ASSERT_TRUE(b.AddRange(*c, 16383, 16383).ok());
  auto t = b.Build();
  ASSERT_TRUE(t.ok()) << t.status().message();
  const Topology &topo = **t;
  ASSERT_EQ(topo.slot_runs.size(), 4u);
  EXPECT_EQ(topo.slot_runs[0].start, 0);
  EXPECT_EQ(topo.slot_runs[0].end, 99);
  EXPECT_EQ(topo.slot_runs[1].start, 100);
  EXPECT_EQ(topo.slot_runs[1].end, 199);
  EXPECT_EQ(topo.slot_runs[2].start, 300);
  EXPECT_EQ(topo.slot_runs[2].end, 400);
  EXPECT_EQ(topo.slot_runs[3].start, 16383);
  EXPECT_EQ(topo.ShardOfSlot(0), *a);
  EXPECT_EQ(topo.ShardOfSlot(99), *a);
  EXPECT_EQ(topo.ShardOfSlot(100), *c);
  EXPECT_EQ(topo.ShardOfSlot(200), kNoShard);
  EXPECT_EQ(topo.ShardOfSlot(299), kNoShard);
  EXPECT_EQ(topo.ShardOfSlot(300), *a);
  EXPECT_EQ(topo.ShardOfSlot(401), kNoShard);
  EXPECT_EQ(topo.ShardOfSlot(16382), kNoShard);
  EXPECT_EQ(topo.ShardOfSlot(16383), *c);
  std::array<uint16_t, kSlotCount> table;
  topo.FillSlotTable(&table);
  for (uint32_t slot = 0; slot < kSlotCount; ++slot) {
    ASSERT_EQ(table[slot], topo.ShardOfSlot(slot)) << slot;
  }
  // A topology without slots (none served) has no runs.
  Topology none;
  EXPECT_EQ(none.ShardOfSlot(0), kNoShard);
  none.FillSlotTable(&table);
  EXPECT_EQ(table[5000], kNoShard);
}

}  // namespace topology_test
}  // namespace cloudroute
