#include "cloudroute/core/locality.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "cloudroute/core/topology.hpp"

namespace cloudroute {
namespace locality_test {

// Points n at a copy of host (and id, ip) kept by *text.
void SetText(TextArena *text, TopoNode *n, std::string_view host, std::string_view id = "",
             std::string_view ip = "") {
  ASSERT_TRUE(text->Put(n, id, host, ip, "").ok());
}

Location L(const char *s) {
  auto l = ParseLocation(s);
  EXPECT_TRUE(l.ok()) << s;
  return *l;
}

Tier T(const char *client, const char *node) {
  Placement p;
  p.location = L(node);
  return TierOf(L(client), p);
}

TEST(Location, Parse) {
  EXPECT_EQ(L("aws").cloud, "aws");
  EXPECT_EQ(L("aws/us-east-1").region, "us-east-1");
  EXPECT_EQ(L("aws/us-east-1/use1-az1").zone, "use1-az1");
  EXPECT_EQ(L("//use1-az1").zone, "use1-az1");
  EXPECT_EQ(L("//use1-az1").cloud, "");
  EXPECT_EQ(L("aws/us-east-1/use1-az1").ToString(), "aws/us-east-1/use1-az1");
  EXPECT_EQ(L("aws").ToString(), "aws/?/?");
  EXPECT_FALSE(ParseLocation("").ok());
  EXPECT_FALSE(ParseLocation("a/b/c/d").ok());
  EXPECT_FALSE(ParseLocation("//").ok());
  EXPECT_FALSE(ParseLocation(std::string_view("a\0b", 3)).ok());
}

// CR, LF, NUL or any control byte would split a log or protocol line: the
// text is refused as kInvalid, shown escaped.
TEST(Location, ControlCharactersAreRefused) {
  for (std::string_view bad : {std::string_view("aws/us-east-1\r\n"), std::string_view("a\0b", 3),
                               std::string_view("a\tb"), std::string_view("a\x7f")}) {
    auto r = ParseLocation(bad);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), Code::kInvalid);
    EXPECT_NE(r.status().message().find("contains a control character"), std::string::npos)
        << r.status().message();
  }
  EXPECT_NE(ParseLocation("aws\r\n").status().message().find("'aws\\x0d\\x0a'"), std::string::npos);
}

TEST(TextChecks, HostsAndPrintableText) {
  EXPECT_TRUE(CheckHost("10.9.9.9", "host").ok());
  EXPECT_TRUE(CheckHost("redis-1.example", "host").ok());
  EXPECT_TRUE(CheckHost("::1", "host").ok());
  const Status crlf = CheckHost("10.9.9.9\r\n", "host");
  EXPECT_EQ(crlf.code(), Code::kInvalid);
  EXPECT_EQ(crlf.message(), "host '10.9.9.9\\x0d\\x0a' is neither an IP address nor a hostname");
  EXPECT_EQ(CheckHost("", "seed host").code(), Code::kInvalid);
  EXPECT_TRUE(CheckPrintable("use1-az1", "zone").ok());
  EXPECT_EQ(CheckPrintable("az\n1", "zone").message(),
            "zone 'az\\x0a1' contains a control character (CR, LF, NUL, ...)");
}

TEST(Tier, FirstLevelThatDiffers) {
  EXPECT_EQ(T("aws/use1/a", "aws/use1/a"), Tier::kLocal);
  EXPECT_EQ(T("aws/use1/a", "aws/use1/b"), Tier::kSameRegion);
  EXPECT_EQ(T("aws/use1/a", "aws/use1"), Tier::kSameRegion);
  EXPECT_EQ(T("aws/use1/a", "aws/usw2/a"), Tier::kSameCloud);
  EXPECT_EQ(T("aws/use1/a", "aws"), Tier::kSameCloud);
  EXPECT_EQ(T("aws/use1/a", "gcp/use1/a"), Tier::kOtherCloud);
  EXPECT_EQ(T("aws/use1/a", "//b"), Tier::kUnknown);
  EXPECT_EQ(T("aws/use1/a", "//a"), Tier::kLocal);  // same zone name
  EXPECT_EQ(T("//a", "aws/use1/a"), Tier::kLocal);
  EXPECT_EQ(T("aws/use1/a", "gcp//a"), Tier::kOtherCloud);  // zone names clash across clouds
}

TEST(Locate, PrecedenceNodeMapOverServerZoneOverCidr) {
  LocalityConfig cfg;
  cfg.client = L("aws/use1/a");
  cfg.rules.push_back({*Cidr::Parse("10.0.0.0/8"), L("aws/use1"), false});
  cfg.rules.push_back({*Cidr::Parse("10.1.0.0/16"), L("gcp/usc1"), false});
  cfg.rules.push_back({*Cidr::Parse("10.2.0.0/16"), {}, true});
  cfg.by_zone["use1-b"] = L("aws/use1/b");
  cfg.by_node["10.0.0.9:6379"] = L("azure/eastus/1");
  cfg.by_node["node-id-7"] = L("aws/use1/a");

  TextArena text;
  TopoNode n;
  n.port = 6379;
  SetText(&text, &n, "10.0.0.1");
  Placement p = Locate(cfg, n, "");
  EXPECT_EQ(p.location.ToString(), "aws/use1/?");
  EXPECT_EQ(p.source, "cidr 10.0.0.0/8");
  EXPECT_EQ(TierOf(cfg.client, p), Tier::kSameRegion);

  SetText(&text, &n, "10.1.2.3");  // longest prefix wins
  p = Locate(cfg, n, "");
  EXPECT_EQ(p.location.cloud, "gcp");
  EXPECT_EQ(TierOf(cfg.client, p), Tier::kOtherCloud);

  SetText(&text, &n, "10.2.0.1");  // local CIDR
  p = Locate(cfg, n, "");
  EXPECT_TRUE(p.local);
  EXPECT_EQ(TierOf(cfg.client, p), Tier::kLocal);

  SetText(&text, &n, "10.0.0.1");  // server zone mapped through the zone map
  p = Locate(cfg, n, "use1-b");
  EXPECT_EQ(p.location.ToString(), "aws/use1/b");
  EXPECT_EQ(p.source, "server zone use1-b");

  p = Locate(cfg, n, "a");  // unmapped zone overrides only the zone level
  EXPECT_EQ(p.location.ToString(), "aws/use1/a");
  EXPECT_EQ(TierOf(cfg.client, p), Tier::kLocal);

  SetText(&text, &n, "10.0.0.9");  // exact node map beats everything
  p = Locate(cfg, n, "use1-b");
  EXPECT_EQ(p.location.cloud, "azure");

  SetText(&text, &n, "10.0.0.10", "node-id-7");
  p = Locate(cfg, n, "");
  EXPECT_EQ(TierOf(cfg.client, p), Tier::kLocal);
}

// client_zone: a reported zone equal to it is LOCAL, any other reported zone
// SAME_REGION, with no zone table and no client location; a zone-map entry,
// a node-map entry and a node that reports no zone keep the other rules.
TEST(Locate, ClientZoneNeedsNoTable) {
  LocalityConfig cfg;
  cfg.client_zone = "use1-az2";
  TextArena text;
  TopoNode n;
  SetText(&text, &n, "10.0.0.1");
  n.port = 6379;
  Placement p = Locate(cfg, n, "use1-az2");
  EXPECT_EQ(TierOf(cfg.client, p), Tier::kLocal);
  EXPECT_EQ(p.source, "server zone use1-az2 (the client zone)");
  EXPECT_EQ(p.location.ToString(), "?/?/use1-az2");
  p = Locate(cfg, n, "use1-az4");
  EXPECT_EQ(TierOf(cfg.client, p), Tier::kSameRegion);
  EXPECT_EQ(p.source, "server zone use1-az4 (not the client zone use1-az2)");
  p = Locate(cfg, n, "");  // no reported zone: nothing says where it is
  EXPECT_EQ(TierOf(cfg.client, p), Tier::kUnknown);

  // Without client_zone the same reply leaves the tier unknown (what a
  // GLIDE user met with client_location "use1-az2": a cloud of that name).
  LocalityConfig plain;
  plain.client = L("use1-az2");
  EXPECT_EQ(TierOf(plain.client, Locate(plain, n, "use1-az2")), Tier::kUnknown);

  // The zone map wins over the client zone's reading.
  cfg.client = L("aws/use1/use1-az2");
  cfg.by_zone["use1-az6"] = L("aws/usw2/usw2-az1");
  p = Locate(cfg, n, "use1-az6");
  EXPECT_FALSE(p.client_region);
  EXPECT_EQ(TierOf(cfg.client, p), Tier::kSameCloud);
  // The node map too.
  cfg.by_node["10.0.0.1:6379"] = L("gcp");
  p = Locate(cfg, n, "use1-az4");
  EXPECT_FALSE(p.client_region);
  EXPECT_FALSE(p.local);
  EXPECT_EQ(TierOf(cfg.client, p), Tier::kOtherCloud);
  p = Locate(cfg, n, "use1-az2");
  EXPECT_EQ(TierOf(cfg.client, p), Tier::kOtherCloud);
}

TEST(Locate, HostnamesUseTheReportedIpForCidr) {
  LocalityConfig cfg;
  cfg.rules.push_back({*Cidr::Parse("10.0.0.0/8"), {}, true});
  TextArena text;
  TopoNode n;
  SetText(&text, &n, "redis-0.example");
  n.port = 6379;
  EXPECT_FALSE(Locate(cfg, n, "").local);
  SetText(&text, &n, "redis-0.example", "", "10.3.3.3");
  EXPECT_TRUE(Locate(cfg, n, "").local);
}

// Locate() is LocateByRule() of MatchRule(): the longest matching prefix
// wins, the first of equal prefixes, the reported IP before the endpoint.
TEST(Locate, MatchRuleThenLocateByRuleIsLocate) {
  LocalityConfig cfg;
  cfg.client = L("aws/use1/a");
  cfg.rules.push_back({*Cidr::Parse("10.0.0.0/8"), L("gcp/usc1"), false});
  cfg.rules.push_back({*Cidr::Parse("10.1.0.0/16"), {}, true});
  cfg.rules.push_back({*Cidr::Parse("10.1.0.0/16"), L("azure"), false});
  TextArena text;
  TopoNode n;
  n.port = 6379;
  SetText(&text, &n, "10.1.2.3");
  EXPECT_EQ(MatchRule(cfg, n), 1u);
  SetText(&text, &n, "10.2.2.3");
  EXPECT_EQ(MatchRule(cfg, n), 0u);
  SetText(&text, &n, "192.168.1.1");
  EXPECT_EQ(MatchRule(cfg, n), kNoRule);
  SetText(&text, &n, "redis-0.example", "", "10.1.9.9");
  EXPECT_EQ(MatchRule(cfg, n), 1u);
  for (const char *host : {"10.1.2.3", "10.2.2.3", "192.168.1.1"}) {
    for (const char *zone : {"", "use1-az1"}) {
      SetText(&text, &n, host);
      const Placement a = Locate(cfg, n, zone);
      const Placement b = LocateByRule(cfg, n, MatchRule(cfg, n), zone);
      EXPECT_EQ(a.location.ToString(), b.location.ToString()) << host << " " << zone;
      EXPECT_EQ(a.source, b.source) << host << " " << zone;
      EXPECT_EQ(a.local, b.local) << host << " " << zone;
      EXPECT_EQ(a.client_region, b.client_region) << host << " " << zone;
    }
  }
  LocalityConfig none;
  EXPECT_EQ(MatchRule(none, n), kNoRule);
}

}  // namespace locality_test
}  // namespace cloudroute
