// What a node's answer means (Classify, ParseRedirect): no server needed.
#include "cloudroute/net/outcome.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cloudroute/core/topology.hpp"

namespace cloudroute {
namespace net {
namespace outcome_test {

#define ASSERT_OK(expr)                     \
  do {                                      \
    const Status st_ = (expr);              \
    ASSERT_TRUE(st_.ok()) << st_.message(); \
  } while (0)

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
  ASSERT_OK(ParseRedirect("MOVED 3999 127.0.0.1:6381", "from", &slot, &host, &port));
  EXPECT_EQ(slot, 3999);
  EXPECT_EQ(host, "127.0.0.1");
  EXPECT_EQ(port, 6381);
  ASSERT_OK(ParseRedirect("ASK 0 :6382", "from", &slot, &host, &port));  // empty: the sender
  EXPECT_EQ(host, "from");
  EXPECT_EQ(slot, 0);
  ASSERT_OK(ParseRedirect("MOVED 16383 ?:6383", "from", &slot, &host, &port));
  EXPECT_EQ(host, "from");
  EXPECT_EQ(slot, 16383);
  ASSERT_OK(ParseRedirect("MOVED 1 [::1]:6384", "from", &slot, &host, &port));
  EXPECT_EQ(host, "::1");
  EXPECT_EQ(port, 6384);
  ASSERT_OK(ParseRedirect("MOVED 2 node-3.example:65535", "from", &slot, &host, &port));
  EXPECT_EQ(host, "node-3.example");
  EXPECT_EQ(port, 65535);
}

TEST(ParseRedirect, RefusesEveryMalformedTargetWithTheTextEscaped) {
  struct Case {
    std::string text;
    std::string shown;  // what the message must contain
  };
  const std::vector<Case> cases = {
      {"MOVED", "no slot"},
      {"MOVED 3999", "no target"},
      {"MOVED 3999 nocolon", "want host:port"},
      {"MOVED 16384 h:1", "0-16383"},
      {"MOVED -1 h:1", "0-16383"},
      {"MOVED +1 h:1", "0-16383"},
      {"MOVED 0x10 h:1", "0-16383"},
      {"MOVED 000001 h:1", "0-16383"},
      {"MOVED  1 h:1", "0-16383"},  // two spaces: an empty slot
      {"MOVED 1 h:0", "port out of range"},
      {"MOVED 1 h:65536", "port out of range"},
      {"MOVED 1 h:x", "bad port"},
      {"MOVED 1 h:", "bad port"},
      {"MOVED 1 h:-1", "bad port"},
      {"MOVED 1 h:1 extra", "bad port"},
      {"ASK 1 :0", "1-65535"},
      {"ASK 1 :99999", "1-65535"},
      {"ASK 1 ?:x", "1-65535"},
      {"ASK 1 :", "1-65535"},
      {"MOVED 1 [::1:9902", "want [v6]:port"},
      {"MOVED 1 ::1]:9902", "1-65535"},  // an empty host, then ":1]:9902"
      {"MOVED 1 [::1]]:9902", "want [v6]:port"},
      {"MOVED 1 [[::1]:9902", "brackets hold an IPv6 literal"},
      {"MOVED 1 [10.0.0.1]:9902", "brackets hold an IPv6 literal"},
      {"MOVED 1 []:9902", "brackets hold an IPv6 literal"},
      {"MOVED 1 ::1:9902", "1-65535"},
      {"MOVED 1 fe80::1:9902", "put IPv6 hosts in brackets"},
      {std::string("MOVED 1 evil\0host:9902", 22), "evil\\x00host"},
      {"MOVED 1 evil\rhost:9902", "evil\\x0dhost"},
      {"MOVED 1 evil\nhost:9902", "evil\\x0ahost"},
      {"MOVED 1 evil\x1bhost:9902", "evil\\x1bhost"},
      {"MOVED 1 evil\x7fhost:9902", "evil\\x7fhost"},
      {"MOVED 1 evil host:9902", "neither an IP address"},  // the target: "evil host:9902"
      {"MOVED 1 h\xc3\xa9:9902", "h\\xc3\\xa9"},
      {"MOVED 1 :9902x", "1-65535"},
      {"MOVED 1 -h:1", "neither an IP address nor a hostname"},
      {"MOVED 1 10.0.0.256:1", "neither an IP address nor a hostname"},
      {"MOVEDX 1 h:1", "not a MOVED or ASK redirect"},
  };
  for (const Case &c : cases) {
    uint16_t slot = 7, port = 7;
    std::string host = "unchanged";
    Status s = ParseRedirect(c.text, "from", &slot, &host, &port);
    ASSERT_FALSE(s.ok()) << Quote(c.text);
    EXPECT_EQ(s.code(), Code::kParse) << Quote(c.text);
    // The whole text, escaped, and the reason.
    EXPECT_NE(s.message().find("refused redirect " + Quote(c.text)), std::string::npos)
        << s.message();
    EXPECT_NE(s.message().find(c.shown), std::string::npos) << s.message();
    // Nothing is printed raw: every byte of the message is printable ASCII.
    for (char ch : s.message()) {
      EXPECT_TRUE(ch >= 0x20 && ch < 0x7f) << s.message();
    }
    EXPECT_EQ(host, "unchanged");
    EXPECT_EQ(slot, 7);
    EXPECT_EQ(port, 7);
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
  // A redirect that does not parse is the sender's protocol error, never
  // followed, for reads and writes alike.
  for (Access access : {Access::kRead, Access::kWrite}) {
    o = Classify(Make(RespType::kError, std::string("MOVED 1 [::1:99\0", 16)), &n, access);
    EXPECT_EQ(o.kind, OutcomeKind::kNodeFailed);
    EXPECT_EQ(o.status.code(), Code::kParse);
    EXPECT_EQ(o.status.message(),
              "10.0.0.9:7009: refused redirect 'MOVED 1 [::1:99\\x00': bad address "
              "'[::1:99\\x00' (want [v6]:port)");
    EXPECT_TRUE(o.host.empty());
  }
  o = Classify(Make(RespType::kError, "WRONGTYPE Operation against a key"), &n, Access::kRead);
  EXPECT_EQ(o.kind, OutcomeKind::kErrorReply);
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

}  // namespace outcome_test
}  // namespace net
}  // namespace cloudroute
