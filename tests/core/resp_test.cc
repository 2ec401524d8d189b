#include "cloudroute/core/resp.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <random>

namespace cloudroute {
namespace resp_test {

Result<RespValue> P(const std::string &s, RespLimits lim = RespLimits()) {
  return ParseResp(s, lim);
}

TEST(Resp, Resp2Types) {
  using namespace std::string_literals;
  auto v = P("*5\r\n+OK\r\n-ERR x\r\n:-42\r\n$3\r\na\0b\r\n$-1\r\n"s);
  ASSERT_TRUE(v.ok()) << v.status().message();
  ASSERT_EQ(v->elements.size(), 5u);
  EXPECT_EQ(v->elements[0].type, RespType::kSimpleString);
  EXPECT_EQ(v->elements[1].type, RespType::kError);
  EXPECT_EQ(v->elements[2].integer, -42);
  EXPECT_EQ(v->elements[3].str, std::string("a\0b", 3));
  EXPECT_EQ(v->elements[4].type, RespType::kNull);
}

TEST(Resp, Resp3Types) {
  auto v =
      P("*7\r\n%1\r\n+k\r\n:1\r\n~1\r\n_\r\n#t\r\n,3.14\r\n(123456789012345678901234567890\r\n="
        "8\r\ntxt:abcd\r\n!3\r\nBAD\r\n");
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(v->elements[0].type, RespType::kMap);
  EXPECT_EQ(v->elements[0].elements.size(), 2u);
  EXPECT_EQ(v->elements[1].type, RespType::kArray);
  EXPECT_EQ(v->elements[1].elements[0].type, RespType::kNull);
  EXPECT_EQ(v->elements[2].integer, 1);
  EXPECT_EQ(v->elements[3].str, "3.14");
  EXPECT_EQ(v->elements[4].type, RespType::kBigNumber);
  EXPECT_EQ(v->elements[5].str, "abcd");
  EXPECT_EQ(v->elements[6].type, RespType::kError);
}

TEST(Resp, AttributesAreSkipped) {
  auto v = P("|1\r\n+ttl\r\n:3\r\n:7\r\n");
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(v->integer, 7);
}

TEST(Resp, HostileCountFailsFastAndSmall) {
  // hiredis 0.14 allocates ~2 GB for this 12-byte reply.
  const auto t0 = std::chrono::steady_clock::now();
  auto v = P("*268435456\r\n");
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
          .count();
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), Code::kLimit);
  EXPECT_NE(v.status().message().find("exceeds the cap"), std::string::npos);
  EXPECT_LT(ms, 100);
}

TEST(Resp, CountWithinCapButBytesMissingIsIncomplete) {
  auto v = P("*1000000\r\n:1\r\n");
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), Code::kIncomplete);
}

TEST(Resp, HugeBulkLengthIsRefused) {
  auto v = P("$9223372036854775807\r\n");
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), Code::kLimit);
  auto w = P("$9223372036854775808\r\n");
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().code(), Code::kParse);
}

TEST(Resp, TotalSizeCap) {
  RespLimits lim;
  lim.max_total_bytes = 10;
  auto v = P("$20\r\n01234567890123456789\r\n", lim);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), Code::kLimit);
}

TEST(Resp, DepthCap) {
  std::string deep;
  for (int i = 0; i < 20; ++i) deep += "*1\r\n";
  deep += ":1\r\n";
  auto v = P(deep);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), Code::kLimit);
  EXPECT_NE(v.status().message().find("nesting"), std::string::npos);
}

TEST(Resp, IntegersHaveOneSpelling) {
  for (const char *b : {":+6379\r\n", "$+2\r\nab\r\n", "*+1\r\n:1\r\n", "$-0\r\n\r\n", ":-0\r\n",
                        ":007\r\n", "*01\r\n:1\r\n"}) {
    auto v = P(b);
    ASSERT_FALSE(v.ok()) << b;
    EXPECT_EQ(v.status().code(), Code::kParse) << b;
    EXPECT_NE(v.status().message().find("sign or leading zero"), std::string::npos)
        << v.status().message();
  }
  auto zero = P(":0\r\n");
  ASSERT_TRUE(zero.ok());
  auto neg = P(":-12\r\n");
  ASSERT_TRUE(neg.ok());
  EXPECT_EQ(neg->integer, -12);
}

TEST(Resp, KeepsTheWireTypeOfMergedKinds) {
  auto v = P("*4\r\n~1\r\n:1\r\n>1\r\n:1\r\n=7\r\ntxt:abc\r\n+s\r\n");
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(v->wire, '*');
  EXPECT_EQ(v->elements[0].wire, '~');
  EXPECT_EQ(v->elements[1].wire, '>');
  EXPECT_EQ(v->elements[2].wire, '=');
  EXPECT_EQ(v->elements[2].type, RespType::kBulkString);
  EXPECT_EQ(v->elements[3].wire, '+');
}

TEST(Resp, DepthHasAHardBound) {
  RespLimits lim;
  lim.max_depth = kRespMaxDepthBound + 1;
  auto v = P(":1\r\n", lim);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), Code::kInvalid);
  lim.max_depth = kRespMaxDepthBound;
  std::string deep;
  for (int i = 0; i < 4000; ++i) deep += "*1\r\n";
  deep += ":1\r\n";
  v = P(deep, lim);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), Code::kLimit);
}

TEST(Resp, PerDepthCaps) {
  RespLimits lim;
  lim.max_elements_at_depth[2] = 2;
  EXPECT_TRUE(P("*3\r\n*2\r\n:1\r\n:2\r\n:3\r\n:4\r\n", lim).ok());
  auto v = P("*1\r\n*3\r\n:1\r\n:2\r\n:3\r\n", lim);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), Code::kLimit);
  EXPECT_NE(v.status().message().find("3 elements at depth 2"), std::string::npos)
      << v.status().message();
}

TEST(Resp, MalformedInputs) {
  const char *bad[] = {"?\r\n",   ":12x\r\n",     ":\r\n",        "$3\r\nabcd\r\n",
                       "*-2\r\n", "$-5\r\n",      "+ok\rX",       "#x\r\n",
                       "_x\r\n",  ":1\r\n:2\r\n", "=2\r\nab\r\n", ":99999999999999999999\r\n"};
  for (const char *b : bad) {
    auto v = P(b);
    EXPECT_FALSE(v.ok()) << b;
    if (!v.ok()) {
      EXPECT_TRUE(v.status().code() == Code::kParse || v.status().code() == Code::kLimit) << b;
      EXPECT_NE(v.status().message().find("at byte"), std::string::npos) << v.status().message();
    }
  }
}

TEST(Resp, TruncatedEverywhereIsIncompleteNeverACrash) {
  const std::string full = "*3\r\n$5\r\nhello\r\n*2\r\n:1\r\n%1\r\n+a\r\n:2\r\n+end\r\n";
  ASSERT_TRUE(P(full).ok());
  for (size_t n = 0; n < full.size(); ++n) {
    auto v = P(full.substr(0, n));
    ASSERT_FALSE(v.ok()) << n;
    EXPECT_EQ(v.status().code(), Code::kIncomplete) << n << " " << v.status().message();
  }
}

// Mutated replies either parse or fail with one of the documented codes and a
// message that says at which byte; the mutations reach both outcomes.
TEST(Resp, RandomMutationsParseOrFailCleanly) {
  const std::string seed =
      "*2\r\n*4\r\n:0\r\n:5460\r\n*3\r\n$9\r\n127.0.0.1\r\n:7000\r\n$2\r\nid\r\n%1\r\n+x\r\n~1\r\n_"
      "\r\n";
  std::mt19937 rng(42);
  int ok = 0;
  int failed = 0;
  for (int i = 0; i < 50000; ++i) {
    std::string s = seed;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const size_t at = rng() % s.size();
      switch (rng() % 3) {
        case 0:
          s[at] = static_cast<char>(rng());
          break;
        case 1:
          s.erase(at, 1);
          break;
        default:
          s.insert(at, 1, "*$:%~_\r\n9-"[rng() % 11]);
      }
      if (s.empty()) s = "x";
    }
    auto v = P(s);
    if (v.ok()) {
      ++ok;
      continue;
    }
    ++failed;
    const Code c = v.status().code();
    ASSERT_TRUE(c == Code::kParse || c == Code::kLimit || c == Code::kIncomplete)
        << static_cast<int>(c) << ": " << v.status().message();
    ASSERT_NE(v.status().message().find("at byte"), std::string::npos) << v.status().message();
  }
  EXPECT_GT(ok, 0);
  EXPECT_GT(failed, 0);
}

}  // namespace resp_test
}  // namespace cloudroute
