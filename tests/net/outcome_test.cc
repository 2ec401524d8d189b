// What a node's answer means (Classify, ParseRedirect): no server needed.
#include "cloudroute/net/outcome.hpp"

#include <gtest/gtest.h>

#include <string>

namespace cloudroute {
namespace net {
namespace {

ReplyPtr Make(RespType type, const std::string &text) {
  auto r = std::make_unique<Reply>();
  r->type = type;
  r->str = text;
  return r;
}

// The node that answered (NodeEntry holds atomics: filled in place).
struct Answering {
  Answering() {
    node.host = "10.0.0.9";
    node.port = 7009;
    node.address = "10.0.0.9:7009";
  }
  NodeEntry node;
};

TEST(ParseRedirect, HostsPortsAndSlots) {
  uint16_t slot = 0, port = 0;
  std::string host;
  ASSERT_TRUE(ParseRedirect("MOVED 3999 127.0.0.1:6381", "from", &slot, &host, &port));
  EXPECT_EQ(slot, 3999);
  EXPECT_EQ(host, "127.0.0.1");
  EXPECT_EQ(port, 6381);
  ASSERT_TRUE(ParseRedirect("ASK 0 :6382", "from", &slot, &host, &port));  // empty: the sender
  EXPECT_EQ(host, "from");
  EXPECT_EQ(slot, 0);
  ASSERT_TRUE(ParseRedirect("MOVED 16383 ?:6383", "from", &slot, &host, &port));
  EXPECT_EQ(host, "from");
  EXPECT_EQ(slot, 16383);
  ASSERT_TRUE(ParseRedirect("MOVED 1 [::1]:6384", "from", &slot, &host, &port));
  EXPECT_EQ(host, "::1");
  EXPECT_EQ(port, 6384);
  ASSERT_TRUE(ParseRedirect("MOVED 2 node-3.example:65535", "from", &slot, &host, &port));
  EXPECT_EQ(host, "node-3.example");
  EXPECT_EQ(port, 65535);
}

TEST(ParseRedirect, RefusesWhatDoesNotParse) {
  uint16_t slot = 0, port = 0;
  std::string host;
  for (const char *bad : {"MOVED", "MOVED 3999", "MOVED 3999 nocolon", "MOVED 16384 h:1",
                          "MOVED -1 h:1", "MOVED 1 h:0", "MOVED 1 h:65536", "MOVED 1 h:x"}) {
    EXPECT_FALSE(ParseRedirect(bad, "from", &slot, &host, &port)) << bad;
  }
}

TEST(Classify, Kinds) {
  const Answering a;
  const NodeEntry &n = a.node;
  Outcome o = Classify(Make(RespType::kBulkString, "v"), &n, Access::kRead);
  EXPECT_EQ(o.kind, OutcomeKind::kDone);
  ASSERT_NE(o.reply, nullptr);
  EXPECT_EQ(o.reply->str, "v");

  o = Classify(Make(RespType::kError, "MOVED 12 10.0.0.1:7001"), &n, Access::kWrite);
  EXPECT_EQ(o.kind, OutcomeKind::kMoved);
  EXPECT_EQ(o.slot, 12);
  EXPECT_EQ(o.host, "10.0.0.1");
  EXPECT_EQ(o.port, 7001);

  o = Classify(Make(RespType::kError, "ASK 12 :7002"), &n, Access::kRead);
  EXPECT_EQ(o.kind, OutcomeKind::kAsk);
  EXPECT_EQ(o.host, "10.0.0.9");  // the node that answered
  EXPECT_EQ(o.port, 7002);

  EXPECT_EQ(Classify(Make(RespType::kError, "TRYAGAIN Multiple keys"), &n, Access::kRead).kind,
            OutcomeKind::kRetry);
  EXPECT_EQ(
      Classify(Make(RespType::kError, "CLUSTERDOWN The cluster is down"), &n, Access::kWrite).kind,
      OutcomeKind::kRetry);
  // A redirect that does not parse is an error reply like any other.
  EXPECT_EQ(Classify(Make(RespType::kError, "MOVED garbage"), &n, Access::kRead).kind,
            OutcomeKind::kServerError);
  o = Classify(Make(RespType::kError, "WRONGTYPE Operation against a key"), &n, Access::kRead);
  EXPECT_EQ(o.kind, OutcomeKind::kServerError);
  EXPECT_EQ(o.reply->str, "WRONGTYPE Operation against a key");
}

TEST(Classify, LoadingMovesAReadOnAndMakesAWriteWait) {
  const Answering a;
  const NodeEntry &n = a.node;
  for (const char *text :
       {"LOADING Redis is loading the dataset in memory", "MASTERDOWN Link with MASTER is down"}) {
    Outcome read = Classify(Make(RespType::kError, text), &n, Access::kRead);
    EXPECT_EQ(read.kind, OutcomeKind::kNodeFailed) << text;
    EXPECT_EQ(read.status.code(), Code::kServerError);
    EXPECT_EQ(read.status.message(), std::string("10.0.0.9:7009: ") + text);
    EXPECT_EQ(Classify(Make(RespType::kError, text), &n, Access::kWrite).kind, OutcomeKind::kRetry)
        << text;
  }
}

}  // namespace
}  // namespace net
}  // namespace cloudroute
