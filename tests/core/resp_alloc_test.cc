// Proves that parsing a reply takes memory within a small multiple of its
// size: the framer charges every vector and string it allocates against
// kRespMemoryPerInputByte × bytes read + kRespMemoryFloor, and cluster
// replies are framed with their shape's per-depth caps. Counted with the
// global allocation counter (bytes asked of operator new and malloc).
#include <gtest/gtest.h>

#include <string>

#include "alloc_counter.hpp"
#include "cloudroute/core/cluster_reply.hpp"

namespace cloudroute {
namespace {

using crtest::g_bytes;
using crtest::g_counting;

// Bytes allocated while parsing `reply` (the topology included, if accepted).
template <typename Parse>
long Measure(const std::string &reply, Parse parse, Status *status) {
  g_bytes = 0;
  g_counting = true;
  {
    auto t = parse(reply);
    *status = t.ok() ? Status::Ok() : t.status();
  }
  g_counting = false;
  return g_bytes.load();
}

long SlotsBytes(const std::string &reply, Status *s) {
  return Measure(
      reply, [](const std::string &r) { return ParseClusterSlots(r, ClusterReplyOptions()); }, s);
}

const long kBound = static_cast<long>(kRespMemoryFloor);

TEST(RespAlloc, SixMegabytesOfResp3NullsAreRefusedEarly) {
  // 2000 arrays of 1000 nulls: 6 MB that cost 24 bytes of tree per byte.
  std::string reply = "*2000\r\n";
  std::string inner = "*1000\r\n";
  for (int i = 0; i < 1000; ++i) inner += "_\r\n";
  for (int i = 0; i < 2000; ++i) reply += inner;
  ASSERT_GT(reply.size(), 6000000u);
  Status s;
  const long bytes = SlotsBytes(reply, &s);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Code::kLimit) << s.message();
  EXPECT_NE(s.message().find("bytes of memory after"), std::string::npos) << s.message();
  // Refused after a few hundred kilobytes of input, having taken less
  // memory than the input's own size.
  EXPECT_LT(bytes, static_cast<long>(reply.size())) << bytes;
}

TEST(RespAlloc, ShapeValidTinyNodesAreRefusedEarly) {
  // Entries of [0, 0, [null, 1] × 1000]: every node the smallest the shape
  // allows, 11 bytes that cost ~20 bytes of tree per byte.
  std::string entry = "*1003\r\n:0\r\n:0\r\n";
  for (int i = 0; i < 1001; ++i) entry += "*2\r\n_\r\n:1\r\n";
  std::string reply = "*500\r\n";
  for (int i = 0; i < 500; ++i) reply += entry;
  Status s;
  const long bytes = SlotsBytes(reply, &s);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Code::kLimit) << s.message();
  EXPECT_LT(bytes, static_cast<long>(reply.size())) << bytes;
}

TEST(RespAlloc, ShapeCapsRefuseWhatNoClusterSends) {
  Status s;
  // An entry with more replicas than the shape allows, and a node with 33 fields.
  std::string wide = "*1\r\n*2000\r\n";
  for (int i = 0; i < 2000; ++i) wide += ":0\r\n";
  SlotsBytes(wide, &s);
  EXPECT_NE(s.message().find("2000 elements at depth 2"), std::string::npos) << s.message();
  std::string fields = "*1\r\n*3\r\n:0\r\n:0\r\n*33\r\n";
  for (int i = 0; i < 33; ++i) fields += ":1\r\n";
  SlotsBytes(fields, &s);
  EXPECT_NE(s.message().find("33 elements at depth 3"), std::string::npos) << s.message();
}

// The largest real shape: every slot its own range (a cluster resharded one
// slot at a time), each with a master and two replicas carrying 40-byte ids
// and RESP3 metadata.
std::string FragmentedReply() {
  auto node = [](int n) {
    char id[41];
    std::snprintf(id, sizeof id, "%040d", n);
    const std::string host = "10.0." + std::to_string(n / 250) + "." + std::to_string(n % 250 + 1);
    return "*4\r\n$" + std::to_string(host.size()) + "\r\n" + host + "\r\n:7000\r\n$40\r\n" + id +
           "\r\n%1\r\n$8\r\nhostname\r\n$" + std::to_string(5 + std::to_string(n).size()) +
           "\r\nnode-" + std::to_string(n) + "\r\n";
  };
  std::string reply = "*16384\r\n";
  for (int slot = 0; slot < 16384; ++slot) {
    const int shard = slot % 100;
    reply += "*5\r\n:" + std::to_string(slot) + "\r\n:" + std::to_string(slot) + "\r\n" +
             node(shard * 3) + node(shard * 3 + 1) + node(shard * 3 + 2);
  }
  return reply;
}

TEST(RespAlloc, TheLargestRealReplyFitsTheRatio) {
  const std::string reply = FragmentedReply();
  Status s;
  const long bytes = SlotsBytes(reply, &s);
  ASSERT_TRUE(s.ok()) << s.message();
  const long n = static_cast<long>(reply.size());
  EXPECT_LE(bytes, static_cast<long>(kRespMemoryPerInputByte) * n + kBound)
      << bytes << " for " << n;
  std::printf("fragmented CLUSTER SLOTS: %ld bytes in, %ld bytes allocated (%.1f per byte)\n", n,
              bytes, static_cast<double>(bytes) / static_cast<double>(n));
}

}  // namespace
}  // namespace cloudroute
