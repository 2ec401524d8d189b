// The capped hiredis reader and the connection, against scripted in-test
// servers on 127.0.0.1: replies are framed into trees, hostile replies are
// refused before they cost memory or time, deadlines hold, the handshake
// never leaks the password.
#include "cloudroute/net/connection.hpp"

#include <gtest/gtest.h>
#include <hiredis/hiredis.h>
#include <malloc.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cloudroute/net/errors.hpp"
#include "common/sanitizers.hpp"
#include "fake_server.hpp"

namespace cloudroute {
namespace net {
namespace connection_test {

using crtest::kSanitized;

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

// Bytes the heap has handed out (the main arena, where this thread
// allocates, and mmapped blocks).
uint64_t HeapInUse() {
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

// Builds one reply from wire bytes with the capped reader; *charged gets
// what the reader charged for it, *heap what the heap grew by.
ReplyPtr Build(const std::string &wire, uint64_t *charged, uint64_t *heap) {
  ReaderState st;
  st.limits = DefaultReplyLimits();
  redisReader *reader = NewCappedReader(&st);
  EXPECT_NE(reader, nullptr);
  EXPECT_EQ(redisReaderFeed(reader, wire.data(), wire.size()), REDIS_OK);
  const uint64_t before = HeapInUse();
  void *obj = nullptr;
  EXPECT_EQ(redisReaderGetReply(reader, &obj), REDIS_OK) << st.limit_error;
  ReplyPtr r(static_cast<Reply *>(obj));
  *heap = HeapInUse() - before;
  *charged = st.bytes;
  EXPECT_EQ(st.bytes, r != nullptr ? ReplyTreeCost(*r) : 0);
  redisReaderFree(reader);
  return r;
}

TEST(ReaderCaps, TheChargeIsWhatTheTreeReallyCosts) {
  if (kSanitized) GTEST_SKIP() << "a sanitizer's allocator does not count the heap as malloc does";
  // Each shape of 100 000 elements: the charge covers the heap the tree took
  // (never less: the cap bounds memory) and is not far above it (a
  // documented cap means what it says).
  constexpr int kN = 100000;
  auto array = [&](const std::string &element) {
    std::string wire = "*" + std::to_string(kN) + "\r\n";
    for (int i = 0; i < kN; ++i) wire += element;
    return wire;
  };
  std::string nested = "*" + std::to_string(kN / 4) + "\r\n";
  for (int i = 0; i < kN / 4; ++i) nested += "*3\r\n:1\r\n$5\r\nhello\r\n$-1\r\n";
  const std::vector<std::pair<std::string, std::string>> shapes = {
      {"integers", array(":12345\r\n")},
      {"short strings", array("$10\r\n0123456789\r\n")},
      {"strings past the inline buffer", array("$100\r\n" + std::string(100, 'x') + "\r\n")},
      {"arrays of three", nested},
      {"one long string", "$1000000\r\n" + std::string(1000000, 'y') + "\r\n"},
  };
  for (const auto &[name, wire] : shapes) {
    uint64_t charged = 0, heap = 0;
    ReplyPtr r = Build(wire, &charged, &heap);
    ASSERT_NE(r, nullptr) << name;
    EXPECT_GE(charged, heap) << name;
    EXPECT_LE(charged, heap + heap * 3 / 10)
        << name << ": charged " << charged << ", heap " << heap;
    std::printf("%s: charged %llu bytes, the heap grew by %llu\n", name.c_str(),
                static_cast<unsigned long long>(charged), static_cast<unsigned long long>(heap));
  }
}

TEST(ReaderCaps, TheClientBudgetIsSharedAndGivenBack) {
  auto budget = std::make_shared<ReplyBudget>(3u << 20);
  {
    ReaderState a, b;
    a.budget = b.budget = budget;
    a.limits.max_total_bytes = b.limits.max_total_bytes = 8u << 20;
    ASSERT_TRUE(a.ChargeTree(2u << 20));
    EXPECT_GE(budget->used(), 2u << 20);
    // Within b's own cap, over what the client has left.
    EXPECT_FALSE(b.ChargeTree(2u << 20));
    EXPECT_NE(b.limit_error.find("budget of 3145728 bytes"), std::string::npos) << b.limit_error;
    a.Reset();  // a's reply was handed out: its charge goes back
    EXPECT_EQ(budget->used(), 0u);
    b.limit_error.clear();
    EXPECT_TRUE(b.ChargeTree(0));
    EXPECT_GE(budget->used(), 2u << 20);
    // The reply's own cap names itself.
    EXPECT_FALSE(a.ChargeTree(9u << 20));
    EXPECT_NE(a.limit_error.find("cap of 8388608 bytes (max_reply_bytes)"), std::string::npos)
        << a.limit_error;
  }
  EXPECT_EQ(budget->used(), 0u);  // closed connections hold nothing
  {
    // Near the cap a connection takes what it needs, not a whole step, and
    // gives it all back with its reply.
    auto tight = std::make_shared<ReplyBudget>(5u << 19);  // 2.5 MiB
    ReaderState a;
    a.budget = tight;
    a.limits.max_total_bytes = 8u << 20;
    ASSERT_TRUE(a.ChargeTree(9u << 18)) << a.limit_error;  // 2.25 MiB
    EXPECT_EQ(tight->used(), 9u << 18);
    a.Reset();
    EXPECT_EQ(tight->used(), 0u);
  }
}

TEST(ReaderCaps, AGrownReadBufferIsNotKeptByAnIdleConnection) {
  // A 4 MiB string, then small replies on the same connection: once the
  // string was handed out, the connection holds nothing of the budget.
  const std::string big = "$4194304\r\n" + std::string(4u << 20, 'z') + "\r\n";
  FakeServer srv([&](const std::string &req) {
    if (req.find("BIG") != std::string::npos) return big;
    return MiniRedis(req);
  });
  ConnectOptions o = Opts();
  o.reply_budget = std::make_shared<ReplyBudget>(64u << 20);
  auto c = Connection::Open("127.0.0.1", srv.port(), o, 1000);
  ASSERT_TRUE(c.ok());
  auto r = (*c)->Command({"BIG"}, 5000);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)->str.size(), 4u << 20);
  EXPECT_EQ(o.reply_budget->used(), 0u);
  auto p = (*c)->Command({"PING"}, 1000);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ((*p)->str, "PONG");
  c->reset();
  EXPECT_EQ(o.reply_budget->used(), 0u);
}

TEST(ReaderCaps, ABufferedStringCountsAgainstTheReplyCap) {
  // No string cap to speak of: the reply's own cap refuses the string while
  // it arrives (its buffer is what it costs), long before its end.
  ConnectOptions o = Opts();
  o.limits.max_bulk_len = 1ull << 40;
  o.limits.max_total_bytes = 4u << 20;
  FakeServer srv(Always("$2000000000\r\n"), std::string(65536, 'x'), 1024);
  auto c = Connection::Open("127.0.0.1", srv.port(), o, 1000);
  ASSERT_TRUE(c.ok());
  auto r = (*c)->Command({"GET", "k"}, 5000);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kLimit);
  EXPECT_NE(r.status().message().find("127.0.0.1:" + std::to_string(srv.port()) +
                                      ": reply refused: the reply would need more than its cap "
                                      "of 4194304 bytes (max_reply_bytes)"),
            std::string::npos)
      << r.status().message();
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

}  // namespace connection_test
}  // namespace net
}  // namespace cloudroute
