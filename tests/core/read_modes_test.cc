// Read modes: the local-spread and replica-only policies and steady weighted
// round-robin selection. Distributions are checked with fixed seeds (the
// router's streams are reproducible), so every bound is deterministic.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "cloudroute/core/cluster_reply.hpp"
#include "cloudroute/core/ring.hpp"
#include "cloudroute/core/router.hpp"
#include "cloudroute/core/shard_group.hpp"
#include "test_util.hpp"

namespace cloudroute {
namespace read_modes_test {

using crtest::Node;
using crtest::R;

// One shard over every slot: master and two replicas in the client's zone
// (127.0.1.0/24), one replica elsewhere.
std::shared_ptr<const Topology> LocalMasterTopo(bool with_replicas = true) {
  R shard = with_replicas ? R{0,
                              16383,
                              Node("127.0.1.1", 7001, "m"),
                              Node("127.0.1.2", 7002, "ra"),
                              Node("127.0.1.3", 7003, "rb"),
                              Node("127.0.2.1", 7101, "rc")}
                          : R{0, 16383, Node("127.0.1.1", 7001, "m")};
  auto t = ParseClusterSlots(R::Arr({shard}).Encode(), ClusterReplyOptions());
  EXPECT_TRUE(t.ok()) << t.status().message();
  return *t;
}

RouterConfig Cfg(Policy p, Selection sel = Selection::kRandom) {
  RouterConfig c;
  c.policy = p;
  c.selection = sel;
  c.locality.rules.push_back({*Cidr::Parse("127.0.1.0/24"), {}, true});  // 127.0.2.x: unknown
  c.health = HealthConfig{1, 1000};
  c.seed = 7;
  return c;
}

// Where n reads of one key went, in order.
std::vector<std::string> Reads(const Router &r, int n) {
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) {
    Route route;
    const Code c = r.RouteRead("k", 1, &route);
    out.push_back(c == Code::kOk ? route.node->address
                                 : "<code " + std::to_string(static_cast<int>(c)) + ">");
  }
  return out;
}

std::map<std::string, int> Count(const std::vector<std::string> &v) {
  std::map<std::string, int> m;
  for (const std::string &s : v) ++m[s];
  return m;
}

// Pearson's chi-square of observed counts against expected shares.
double ChiSquare(const std::map<std::string, int> &got, const std::map<std::string, double> &share,
                 int n) {
  double x2 = 0;
  for (const auto &[node, p] : share) {
    const double want = p * n;
    const auto it = got.find(node);
    const double d = (it == got.end() ? 0 : it->second) - want;
    x2 += d * d / want;
  }
  return x2;
}

TEST(ReadModes, NamesRoundTrip) {
  for (int i = 0; i < kPolicyCount; ++i) {
    Policy p;
    ASSERT_TRUE(PolicyFromName(PolicyName(static_cast<Policy>(i)), &p));
    EXPECT_EQ(static_cast<int>(p), i);
  }
  Policy p;
  EXPECT_TRUE(PolicyFromName("LOCAL_SPREAD", &p));
  EXPECT_EQ(p, Policy::kLocalSpread);
  EXPECT_TRUE(PolicyFromName("replica-only", &p));
  EXPECT_EQ(p, Policy::kReplicaOnly);
  Selection s;
  EXPECT_TRUE(SelectionFromName("Round_Robin", &s));
  EXPECT_EQ(s, Selection::kRoundRobin);
  EXPECT_STREQ(SelectionName(Selection::kRandom), "random");
  EXPECT_FALSE(SelectionFromName("roundrobin", &s));
  EXPECT_STREQ(SelectionName(static_cast<Selection>(9)), "?");
}

TEST(ReadModes, LocalSpreadPutsATiersMasterAndReplicasInOneRank) {
  Router r(Cfg(Policy::kLocalSpread));
  ASSERT_TRUE(r.Update(LocalMasterTopo()).ok());
  const std::shared_ptr<const Snapshot> snap = r.Current();
  const CandidateSet &set = snap->sets[0];
  ASSERT_EQ(set.list.size(), 4u);
  ASSERT_EQ(set.ranks().size(), 2u);
  EXPECT_EQ(set.ranks()[0].end, 3u);  // the local master and both local replicas
  EXPECT_EQ(set.list[3].node->address, "127.0.2.1:7101");
  EXPECT_EQ(set.list[3].rank, 1u);
  // Today's `local` keeps every local read on the local master.
  Router local(Cfg(Policy::kLocal));
  ASSERT_TRUE(local.Update(LocalMasterTopo()).ok());
  EXPECT_EQ(Count(Reads(local, 300)), (std::map<std::string, int>{{"127.0.1.1:7001", 300}}));
}

TEST(ReadModes, LocalSpreadSharesTheTierByWeight) {
  RouterConfig cfg = Cfg(Policy::kLocalSpread);
  cfg.weights["m"] = 1;  // by node id
  cfg.weights["127.0.1.2:7002"] = 2;
  cfg.weights["127.0.1.3:7003"] = 5;
  Router r(cfg);
  ASSERT_TRUE(r.Update(LocalMasterTopo()).ok());
  const int n = 40000;
  const auto got = Count(Reads(r, n));
  EXPECT_EQ(got.count("127.0.2.1:7101"), 0u)
      << "the far replica is never read while the zone is up";
  // df = 2: 13.8 is the 0.999 quantile. The seed makes the draw fixed, so
  // this bound cannot flake; a wrong weighting lands in the thousands.
  const double x2 = ChiSquare(
      got, {{"127.0.1.1:7001", 1.0 / 8}, {"127.0.1.2:7002", 2.0 / 8}, {"127.0.1.3:7003", 5.0 / 8}},
      n);
  EXPECT_LT(x2, 13.8) << "master " << got.at("127.0.1.1:7001");
}

TEST(ReadModes, LocalSpreadFallsToTheNextTierOnlyWhenTheZoneIsDown) {
  Router r(Cfg(Policy::kLocalSpread));
  ASSERT_TRUE(r.Update(LocalMasterTopo()).ok());
  for (const char *a : {"127.0.1.1:7001", "127.0.1.2:7002"}) {
    ASSERT_TRUE(r.ReportFailure(r.registry().Find(a)->handle).ok());  // threshold 1
  }
  EXPECT_EQ(Count(Reads(r, 200)), (std::map<std::string, int>{{"127.0.1.3:7003", 200}}));
  ASSERT_TRUE(r.ReportFailure(r.registry().Find("127.0.1.3:7003")->handle).ok());
  EXPECT_EQ(Count(Reads(r, 50)), (std::map<std::string, int>{{"127.0.2.1:7101", 50}}));
}

TEST(ReadModes, ReplicaOnlyNeverReadsAMaster) {
  Router r(Cfg(Policy::kReplicaOnly));
  ASSERT_TRUE(r.Update(LocalMasterTopo()).ok());
  const auto got = Count(Reads(r, 20000));
  EXPECT_EQ(got.count("127.0.1.1:7001"), 0u);
  EXPECT_EQ(got.count("127.0.2.1:7101"), 0u);  // the far replica ranks after the local ones
  EXPECT_LT(ChiSquare(got, {{"127.0.1.2:7002", 0.5}, {"127.0.1.3:7003", 0.5}}, 20000), 10.8);
  // Every replica down: the read fails rather than touch the master...
  for (const char *a : {"127.0.1.2:7002", "127.0.1.3:7003", "127.0.2.1:7101"}) {
    ASSERT_TRUE(r.ReportFailure(r.registry().Find(a)->handle).ok());
  }
  Route route;
  EXPECT_EQ(r.RouteRead("k", 1, &route), Code::kUnavailable);
  // ...while writes still go to it.
  ASSERT_EQ(r.RouteWrite("k", 1, &route), Code::kOk);
  EXPECT_EQ(route.node->address, "127.0.1.1:7001");
}

TEST(ReadModes, ReplicaOnlyWithoutReplicasHasNoReadCandidate) {
  Router r(Cfg(Policy::kReplicaOnly));
  ASSERT_TRUE(r.Update(LocalMasterTopo(false)).ok());
  Route route;
  EXPECT_EQ(r.RouteRead("k", 1, &route), Code::kUnavailable);
  // A slot known only from a MOVED to a new master: still no read there.
  ASSERT_TRUE(r.ReportMoved(KeySlot("k", 1), "127.0.3.9", 7999).ok());
  EXPECT_EQ(r.RouteRead("k", 1, &route), Code::kUnavailable);
  ASSERT_EQ(r.RouteWrite("k", 1, &route), Code::kOk);
  EXPECT_EQ(route.node->address, "127.0.3.9:7999");
  EXPECT_NE(r.Current()->Explain(KeySlot("k", 1)).find("no read candidate"), std::string::npos);
}

TEST(ReadModes, RoundRobinGivesExactSharesOverEveryCycle) {
  RouterConfig cfg = Cfg(Policy::kLocalSpread, Selection::kRoundRobin);
  cfg.weights["m"] = 1;
  cfg.weights["127.0.1.2:7002"] = 2;
  cfg.weights["127.0.1.3:7003"] = 3;
  Router r(cfg);
  ASSERT_TRUE(r.Update(LocalMasterTopo()).ok());
  const std::vector<std::string> seq = Reads(r, 6 * 500);
  for (size_t start = 0; start < seq.size(); start += 6) {
    const auto got = Count(std::vector<std::string>(seq.begin() + start, seq.begin() + start + 6));
    ASSERT_EQ(got, (std::map<std::string, int>{
                       {"127.0.1.1:7001", 1}, {"127.0.1.2:7002", 2}, {"127.0.1.3:7003", 3}}))
        << "cycle at read " << start;
  }
  // Interleaved, not in blocks: the heaviest node never serves three in a row.
  for (size_t i = 2; i < seq.size(); ++i) {
    EXPECT_FALSE(seq[i] == seq[i - 1] && seq[i] == seq[i - 2]) << "run at read " << i;
  }
  // A topology refresh keeps the cycle's position (the ticket is copied).
  ASSERT_TRUE(r.Update(LocalMasterTopo()).ok());
  const auto next = Count(Reads(r, 6));
  EXPECT_EQ(next.at("127.0.1.3:7003"), 3);
}

TEST(ReadModes, RoundRobinAlternatesEqualNodesAndSkipsADownOne) {
  Router r(Cfg(Policy::kReplicaOnly, Selection::kRoundRobin));
  ASSERT_TRUE(r.Update(LocalMasterTopo()).ok());
  const std::vector<std::string> seq = Reads(r, 100);
  for (size_t i = 1; i < seq.size(); ++i) EXPECT_NE(seq[i], seq[i - 1]) << "read " << i;
  EXPECT_EQ(Count(seq),
            (std::map<std::string, int>{{"127.0.1.2:7002", 50}, {"127.0.1.3:7003", 50}}));
  ASSERT_TRUE(r.ReportFailure(r.registry().Find("127.0.1.2:7002")->handle).ok());
  EXPECT_EQ(Count(Reads(r, 10)), (std::map<std::string, int>{{"127.0.1.3:7003", 10}}));
}

TEST(ReadModes, RoundRobinOverUnweightedAndManyNodes) {
  // Five equal nodes (a rank of weight 0 cycles over its size) and a heavy
  // mix: each cycle is exact.
  for (uint32_t heavy : {0u, 100u}) {
    CandidateSet set;
    NodeRegistry reg(HealthConfig(), nullptr, 1);
    std::vector<uint64_t> keys;
    std::vector<Candidate> list;
    for (uint16_t i = 0; i < 5; ++i) {
      NodeEntry *e = *reg.Intern("127.0.0.1", static_cast<uint16_t>(7000 + i));
      list.push_back(Candidate{e, kNoTopoNode, Role::kReplica, Tier::kLocal, 0, false,
                               heavy == 0 ? 0u : (i == 4 ? heavy : 1u), 0});
      keys.push_back(0);
    }
    AssignRanks(&set, list.data(), list.size(), keys.data());
    set.selection = Selection::kRoundRobin;
    const uint64_t cycle = heavy == 0 ? 5 : 4 + heavy;
    std::map<uint16_t, uint64_t> got;
    for (uint64_t t = 0; t < cycle; ++t) {
      ++got[SelectCandidate(set, reg)->node->port];
    }
    for (uint16_t i = 0; i < 5; ++i) {
      EXPECT_EQ(got[static_cast<uint16_t>(7000 + i)], heavy == 0 ? 1u : (i == 4 ? heavy : 1u))
          << "heavy " << heavy << " node " << i;
    }
  }
}

TEST(ReadModes, ShardGroupsFollowTheSelection) {
  ShardGroups g(Cfg(Policy::kLocal, Selection::kRoundRobin));
  auto group = g.AddGroup("g0");
  ASSERT_TRUE(group.ok());
  ASSERT_TRUE(g.SetMaster(*group, "127.0.1.1", 7001).ok());
  ASSERT_TRUE(g.SetReplicas(*group, {{"127.0.1.2", 7002}}).ok());
  RingOptions ro;
  ro.algo = RingAlgo::kModulo;
  RingBuilder b(ro);
  ASSERT_TRUE(b.AddShard(nullptr, 0, 1).ok());
  auto ring = b.Build();
  ASSERT_TRUE(ring.ok()) << ring.status().message();
  ASSERT_TRUE(g.SetRing(*ring).ok());
  std::string prev;
  for (int i = 0; i < 20; ++i) {
    Route route;
    ASSERT_EQ(g.RouteRead("k", 1, &route), Code::kOk);
    EXPECT_NE(route.node->address, prev) << "read " << i;
    prev = route.node->address;
  }
}

}  // namespace read_modes_test
}  // namespace cloudroute
