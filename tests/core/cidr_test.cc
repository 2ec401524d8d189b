#include "cloudroute/core/cidr.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>

namespace cloudroute {
namespace cidr_test {

bool In(const char *cidr, const char *ip) {
  auto c = Cidr::Parse(cidr);
  EXPECT_TRUE(c.ok()) << cidr;
  IpAddress a;
  EXPECT_TRUE(ParseIp(ip, &a)) << ip;
  return c->Contains(a);
}

TEST(Cidr, V4) {
  EXPECT_TRUE(In("10.0.0.0/24", "10.0.0.255"));
  EXPECT_FALSE(In("10.0.0.0/24", "10.0.1.0"));
  EXPECT_TRUE(In("192.1.0.0/24", "192.1.0.7"));
  EXPECT_TRUE(In("0.0.0.0/0", "8.8.8.8"));
  EXPECT_TRUE(In("127.0.1.5", "127.0.1.5"));
  EXPECT_FALSE(In("127.0.1.5", "127.0.1.6"));
  EXPECT_TRUE(In("10.0.0.7/20", "10.0.15.1"));  // host bits ignored
  EXPECT_FALSE(In("10.0.0.7/20", "10.0.16.1"));
  EXPECT_TRUE(In("172.16.0.0/12", "172.31.255.255"));
}

// Dotted quads are read without inet_pton when they are plain; the result
// must be inet_pton's, for every spelling it refuses too.
TEST(Cidr, ParseIpAgreesWithInetPton) {
  const char *good[] = {"0.0.0.0", "255.255.255.255", "127.2.3.250", "10.0.0.1", "1.20.100.9"};
  for (const char *g : good) {
    IpAddress a;
    ASSERT_TRUE(ParseIp(g, &a)) << g;
    EXPECT_FALSE(a.v6) << g;
    unsigned char want[4];
    ASSERT_EQ(inet_pton(AF_INET, g, want), 1) << g;
    for (int i = 0; i < 4; ++i) EXPECT_EQ(a.bytes[i], want[i]) << g;
  }
  const char *bad[] = {"",         "1.2.3",      "1.2.3.4.5", "1.2.3.256", "01.2.3.4",
                       "1.2.3.04", "1..3.4",     ".1.2.3",    "1.2.3.4.",  "1.2.3.-4",
                       "1.2.3.4 ", "1000.2.3.4", "1.2.3.4x",  "0x1.2.3.4"};
  for (const char *b : bad) {
    IpAddress a;
    EXPECT_FALSE(ParseIp(b, &a)) << b;
  }
  IpAddress a;
  EXPECT_TRUE(ParseIp("::ffff:1.2.3.4", &a));  // still inet_pton's, as IPv6
  EXPECT_TRUE(a.v6);
}

TEST(Cidr, V6AndFamiliesNeverMix) {
  EXPECT_TRUE(In("fd00::/8", "fd12:3456::1"));
  EXPECT_FALSE(In("fd00::/8", "fe80::1"));
  EXPECT_TRUE(In("2001:db8::/33", "2001:db8:7fff::1"));
  EXPECT_FALSE(In("2001:db8::/33", "2001:db8:8000::1"));
  EXPECT_FALSE(In("0.0.0.0/0", "::1"));
  EXPECT_FALSE(In("::/0", "127.0.0.1"));
}

TEST(Cidr, Errors) {
  const char *bad[] = {"",        "10.0.0.0/33", "10.0.0/24",   "10.0.0.0/",    "10.0.0.0/x",
                       "host/24", "::/129",      "10.0.0.0/-1", "10.0.0.0/0024"};
  for (const char *b : bad) {
    auto c = Cidr::Parse(b);
    EXPECT_FALSE(c.ok()) << b;
    if (!c.ok()) {
      EXPECT_EQ(c.status().code(), Code::kParse);
      EXPECT_NE(c.status().message().find("bad CIDR"), std::string::npos);
    }
  }
}

}  // namespace cidr_test
}  // namespace cloudroute
