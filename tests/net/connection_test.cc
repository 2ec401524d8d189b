// The capped hiredis reader and the connection, against scripted in-test
// servers on 127.0.0.1: replies are framed into trees, hostile replies are
// refused before they cost memory or time, deadlines hold, the handshake
// never leaks the password.
#include "cloudroute/net/connection.hpp"

#include <gtest/gtest.h>

#include <memory>

#include <chrono>

#include "cloudroute/net/errors.hpp"
#include "fake_server.hpp"

namespace cloudroute {
namespace net {
namespace {

using Clock = std::chrono::steady_clock;

int64_t MsSince(Clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
}

// Parses complete "*N $len arg" commands off req and answers each: PING ->
// +PONG, ECHO x -> $x, AUTH -> -WRONGPASS, anything else -> +OK.
std::string MiniRedis(const std::string &req) {
  std::string out;
  size_t pos = 0;
  for (;;) {
    size_t p = pos;
    if (p >= req.size() || req[p] != '*') break;
    size_t eol = req.find("\r\n", p);
    if (eol == std::string::npos) break;
    const int n = std::atoi(req.c_str() + p + 1);
    p = eol + 2;
    std::vector<std::string> args;
    bool complete = true;
    for (int i = 0; i < n; ++i) {
      eol = req.find("\r\n", p);
      if (eol == std::string::npos) {
        complete = false;
        break;
      }
      const size_t len = static_cast<size_t>(std::atol(req.c_str() + p + 1));
      p = eol + 2;
      if (p + len + 2 > req.size()) {
        complete = false;
        break;
      }
      args.push_back(req.substr(p, len));
      p += len + 2;
    }
    if (!complete) break;
    pos = p;
    if (args[0] == "PING")
      out += "+PONG\r\n";
    else if (args[0] == "ECHO")
      out += "$" + std::to_string(args[1].size()) + "\r\n" + args[1] + "\r\n";
    else if (args[0] == "AUTH")
      out += "-WRONGPASS invalid username-password pair or user is disabled.\r\n";
    else
      out += "+OK\r\n";
  }
  return pos == req.size() ? out : std::string();  // wait for the rest
}

ConnectOptions Opts() {
  ConnectOptions o;
  o.connect_timeout_ms = 1000;
  return o;
}

TEST(Connection, FramesANestedReply) {
  FakeServer srv(Always("*4\r\n$3\r\nfoo\r\n:42\r\n*2\r\n$-1\r\n-ERR x y\r\n+OK\r\n"));
  auto c = Connection::Open("127.0.0.1", srv.port(), Opts(), 1000);
  ASSERT_TRUE(c.ok()) << c.status().message();
  auto r = (*c)->Command({"GET", "k"}, 1000);
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Reply &v = **r;
  ASSERT_EQ(v.type, RespType::kArray);
  ASSERT_EQ(v.elements.size(), 4u);
  EXPECT_EQ(v.elements[0]->str, "foo");
  EXPECT_EQ(v.elements[1]->integer, 42);
  ASSERT_EQ(v.elements[2]->elements.size(), 2u);
  EXPECT_EQ(v.elements[2]->elements[0]->type, RespType::kNull);
  EXPECT_TRUE(v.elements[2]->elements[1]->is_error());
  EXPECT_EQ(ErrorPrefix(*v.elements[2]->elements[1]), "ERR");
  EXPECT_EQ(v.elements[3]->type, RespType::kSimpleString);
  EXPECT_FALSE((*c)->broken());
}

TEST(Connection, PipelinesManyCommandsInOneRoundTrip) {
  FakeServer srv(MiniRedis);
  auto c = Connection::Open("127.0.0.1", srv.port(), Opts(), 1000);
  ASSERT_TRUE(c.ok()) << c.status().message();
  std::vector<Args> cmds;
  for (int i = 0; i < 100; ++i) cmds.push_back({"ECHO", std::string("v\0", 2) + std::to_string(i)});
  std::vector<const Args *> ptrs;
  for (const Args &a : cmds) ptrs.push_back(&a);
  std::vector<ReplyPtr> replies;
  ASSERT_TRUE((*c)->Pipeline(ptrs, 2000, &replies).ok());
  ASSERT_EQ(replies.size(), 100u);
  for (int i = 0; i < 100; ++i)
    EXPECT_EQ(replies[i]->str, std::string("v\0", 2) + std::to_string(i));
}

TEST(ReaderCaps, HugeArrayCountIsRefusedWithoutAllocating) {
  // hiredis's default reader would calloc 2 GiB of pointers for this header.
  FakeServer srv(Always("*268435456\r\n"));
  auto c = Connection::Open("127.0.0.1", srv.port(), Opts(), 1000);
  ASSERT_TRUE(c.ok());
  const auto t0 = Clock::now();
  auto r = (*c)->Command({"GET", "k"}, 2000);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kLimit);
  EXPECT_NE(r.status().message().find("268435456"), std::string::npos) << r.status().message();
  EXPECT_LT(MsSince(t0), 500);
  EXPECT_TRUE((*c)->broken());
  EXPECT_FALSE((*c)->Command({"PING"}, 100).ok());  // broken for good
}

TEST(ReaderCaps, LongBulkStringIsRefusedWhileArriving) {
  ConnectOptions o = Opts();
  o.limits.max_bulk_len = 1024;
  // Declares ~2 GB and streams 4 MiB of it: refused long before the end.
  FakeServer srv(Always("$2000000000\r\n"), std::string(65536, 'x'), 64);
  auto c = Connection::Open("127.0.0.1", srv.port(), o, 1000);
  ASSERT_TRUE(c.ok());
  auto r = (*c)->Command({"GET", "k"}, 5000);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kLimit);
  EXPECT_NE(r.status().message().find("1024"), std::string::npos) << r.status().message();
}

TEST(ReaderCaps, CompleteStringOverTheCapIsRefused) {
  ConnectOptions o = Opts();
  o.limits.max_bulk_len = 4;
  FakeServer srv(Always("$5\r\nhello\r\n"));
  auto c = Connection::Open("127.0.0.1", srv.port(), o, 1000);
  ASSERT_TRUE(c.ok());
  auto r = (*c)->Command({"GET", "k"}, 1000);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kLimit);
}

TEST(ReaderCaps, DeepNestingIsRefused) {
  ConnectOptions o = Opts();
  o.limits.max_depth = 3;
  FakeServer srv(Always("*1\r\n*1\r\n*1\r\n*1\r\n:1\r\n"));
  auto c = Connection::Open("127.0.0.1", srv.port(), o, 1000);
  ASSERT_TRUE(c.ok());
  auto r = (*c)->Command({"GET", "k"}, 1000);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kLimit);
  EXPECT_NE(r.status().message().find("nesting"), std::string::npos);
}

TEST(ReaderCaps, TotalReplySizeIsCapped) {
  ConnectOptions o = Opts();
  o.limits.max_total_bytes = 1000;
  std::string reply = "*100\r\n";
  for (int i = 0; i < 100; ++i) reply += "$20\r\n" + std::string(20, 'a') + "\r\n";
  FakeServer srv(Always(reply));
  auto c = Connection::Open("127.0.0.1", srv.port(), o, 1000);
  ASSERT_TRUE(c.ok());
  auto r = (*c)->Command({"GET", "k"}, 1000);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kLimit);
}

TEST(ReaderCaps, ElementCountAtTheCapIsAccepted) {
  ConnectOptions o = Opts();
  o.limits.max_elements = 3;
  FakeServer srv(Always("*3\r\n:1\r\n:2\r\n:3\r\n"));
  auto c = Connection::Open("127.0.0.1", srv.port(), o, 1000);
  ASSERT_TRUE(c.ok());
  auto r = (*c)->Command({"GET", "k"}, 1000);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)->elements.size(), 3u);
}

TEST(Connection, MalformedReplyIsAProtocolError) {
  FakeServer srv(Always("?what\r\n"));
  auto c = Connection::Open("127.0.0.1", srv.port(), Opts(), 1000);
  ASSERT_TRUE(c.ok());
  auto r = (*c)->Command({"GET", "k"}, 1000);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kParse);
}

TEST(Connection, SilentServerTimesOutAtTheDeadline) {
  FakeServer srv([](const std::string &) { return std::string(); });
  auto c = Connection::Open("127.0.0.1", srv.port(), Opts(), 1000);
  ASSERT_TRUE(c.ok());
  const auto t0 = Clock::now();
  auto r = (*c)->Command({"GET", "k"}, 200);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), kTimeout);
  const int64_t ms = MsSince(t0);
  EXPECT_GE(ms, 190);
  EXPECT_LT(ms, 1000);
}

TEST(Connection, RefusedConnectionIsAConnectionError) {
  uint16_t port = 0;
  {
    FakeServer srv(MiniRedis);
    port = srv.port();
  }  // closed: nothing listens there now
  auto c = Connection::Open("127.0.0.1", port, Opts(), 1000);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), kConnError);
  EXPECT_NE(c.status().message().find("127.0.0.1:"), std::string::npos);
}

TEST(Connection, ServerClosingIsAConnectionError) {
  auto srv = std::make_unique<FakeServer>(Always("+OK\r\n"));
  auto c = Connection::Open("127.0.0.1", srv->port(), Opts(), 1000);
  ASSERT_TRUE(c.ok());
  srv.reset();  // the server goes away and closes every connection it had
  auto r = (*c)->Command({"PING"}, 1000);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), kConnError) << r.status().message();
}

TEST(Connection, RefusedAuthNeverShowsThePassword) {
  FakeServer srv(MiniRedis);
  ConnectOptions o = Opts();
  o.username = "app";
  o.password = "s3cret-pw";
  o.client_name = "cr-test";
  o.readonly = true;
  auto c = Connection::Open("127.0.0.1", srv.port(), o, 1000);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), kServerError);
  EXPECT_NE(c.status().message().find("WRONGPASS"), std::string::npos);
  EXPECT_EQ(c.status().message().find("s3cret"), std::string::npos);
}

TEST(Connection, HandshakeRunsSetnameAndReadonly) {
  FakeServer srv(MiniRedis);
  ConnectOptions o = Opts();
  o.client_name = "cr-test";
  o.readonly = true;
  auto c = Connection::Open("127.0.0.1", srv.port(), o, 1000);
  ASSERT_TRUE(c.ok()) << c.status().message();
  auto r = (*c)->Command({"PING"}, 1000);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)->str, "PONG");
}

}  // namespace
}  // namespace net
}  // namespace cloudroute
