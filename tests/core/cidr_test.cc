#include "cloudroute/core/cidr.hpp"

#include <gtest/gtest.h>

namespace cloudroute {
namespace {

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

}  // namespace
}  // namespace cloudroute
