// Load-aware selection (Selection::kLeastLoaded): the two-choice rule, a
// degraded node losing its share, equal nodes keeping equal shares, ties,
// stale latencies, a single candidate, nodes whose breaker is open. The
// registry's streams are seeded and its clock is the test's, so every
// share below is deterministic; the bounds leave room only for sampling.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "cloudroute/core/cluster_reply.hpp"
#include "cloudroute/core/router.hpp"
#include "cloudroute/core/selector.hpp"
#include "test_util.hpp"

namespace cloudroute {
namespace least_loaded_test {

int64_t g_now = 10'000'000'000;  // the test's clock (ns)
int64_t TestClock() { return g_now; }

constexpr int kDraws = 60000;

// One rank of candidates on ports 7000.., with these weights.
struct Rank {
  explicit Rank(const std::vector<uint32_t> &weights, uint64_t seed = 3)
      : reg(HealthConfig{1, 1000}, TestClock, seed) {
    std::vector<uint64_t> keys;
    std::vector<Candidate> list;
    for (size_t i = 0; i < weights.size(); ++i) {
      NodeEntry *e = *reg.Intern("127.0.0.1", static_cast<uint16_t>(7000 + i));
      list.push_back(
          Candidate{e, kNoTopoNode, Role::kReplica, Tier::kLocal, 0, false, weights[i], 0});
      keys.push_back(0);
    }
    AssignRanks(&set, list.data(), list.size(), keys.data());
    set.selection = Selection::kLeastLoaded;
  }
  NodeLoad &Load(size_t i) { return set.list[i].node->load; }
  void Sample(size_t i, uint32_t us) { Load(i).AddSample(us, g_now); }
  // How many of kDraws reads each node (by index) served.
  std::vector<int> Shares(int draws = kDraws) {
    std::vector<int> got(set.list.size(), 0);
    for (int d = 0; d < draws; ++d) {
      const Candidate *c = SelectCandidate(set, reg);
      EXPECT_NE(c, nullptr);
      if (c != nullptr) ++got[c->node->port - 7000];
    }
    return got;
  }
  NodeRegistry reg;
  CandidateSet set;
};

// Within 2% of kDraws of the expected fraction.
void ExpectShare(int got, double expected, const char *what) {
  EXPECT_NEAR(got, expected * kDraws, 0.02 * kDraws) << what;
}

TEST(LeastLoaded, CostRule) {
  // Only in flight when a latency is unknown.
  EXPECT_FALSE(LoadCheaper({0, 0}, {0, 0}));
  EXPECT_TRUE(LoadCheaper({0, 0}, {1, 0}));
  EXPECT_FALSE(LoadCheaper({1, 0}, {0, 0}));
  EXPECT_TRUE(LoadCheaper({0, 200}, {1, 0}));  // one unknown: in flight only
  // In flight x latency; within a fifth is a tie.
  EXPECT_TRUE(LoadCheaper({0, 200}, {0, 20200}));
  EXPECT_FALSE(LoadCheaper({0, 20200}, {0, 200}));
  EXPECT_FALSE(LoadCheaper({0, 900}, {0, 1000}));  // 10% apart
  EXPECT_TRUE(LoadCheaper({0, 700}, {0, 1000}));   // 30% apart
  EXPECT_TRUE(LoadCheaper({0, 1000}, {3, 1000}));
  EXPECT_TRUE(LoadCheaper({3, 200}, {0, 20200}));  // 4 x 200 < 20200
  // Latencies under the floor are equal.
  EXPECT_FALSE(LoadCheaper({0, 30}, {0, 95}));
}

TEST(LeastLoaded, TwoChoicesNotTheMinimum) {
  // Four unmeasured nodes with 0..3 requests in flight: the least loaded
  // wins each pair it is drawn into (3 of the 6 pairs), the most loaded
  // none — shares 1/2, 1/3, 1/6, 0, where a strict minimum would send
  // everything to node 0.
  Rank r({1, 1, 1, 1});
  for (size_t i = 0; i < 4; ++i) r.Load(i).inflight.store(static_cast<uint32_t>(i));
  const std::vector<int> got = r.Shares();
  ExpectShare(got[0], 1.0 / 2, "node 0");
  ExpectShare(got[1], 1.0 / 3, "node 1");
  ExpectShare(got[2], 1.0 / 6, "node 2");
  EXPECT_EQ(got[3], 0);
}

TEST(LeastLoaded, ADegradedNodeLosesItsShare) {
  Rank r({1, 1, 1});
  r.Sample(0, 250);
  r.Sample(1, 20250);  // a node 20 ms slower
  r.Sample(2, 240);
  std::vector<int> got = r.Shares();
  EXPECT_EQ(got[1], 0);
  ExpectShare(got[0], 0.5, "node 0");
  ExpectShare(got[2], 0.5, "node 2");
  // Busy enough, the fast nodes give way to it: 120 requests in flight at
  // 250 us cost more than one at 20 ms.
  r.Load(0).inflight.store(120);
  r.Load(2).inflight.store(120);
  got = r.Shares();
  ExpectShare(got[1], 2.0 / 3, "the slow node against two busy ones");
}

TEST(LeastLoaded, EqualNodesShareTheTier) {
  // Measured a little apart (within a fifth) or under the floor: no node
  // takes the rank, each keeps its third.
  for (const std::vector<uint32_t> &lat :
       {std::vector<uint32_t>{200, 215, 235}, std::vector<uint32_t>{35, 60, 95}}) {
    Rank r({1, 1, 1});
    for (size_t i = 0; i < 3; ++i) r.Sample(i, lat[i]);
    const std::vector<int> got = r.Shares();
    for (size_t i = 0; i < 3; ++i) ExpectShare(got[i], 1.0 / 3, "an equal node");
  }
}

TEST(LeastLoaded, TiesFollowTheWeights) {
  // Idle and equal: the first draw decides, by weight (1:1:2).
  Rank r({1, 1, 2});
  for (size_t i = 0; i < 3; ++i) r.Sample(i, 300);
  const std::vector<int> got = r.Shares();
  ExpectShare(got[0], 0.25, "weight 1");
  ExpectShare(got[1], 0.25, "weight 1");
  ExpectShare(got[2], 0.5, "weight 2");
  // Unweighted ranks (weight 0) draw uniformly.
  Rank u({0, 0, 0});
  const std::vector<int> even = u.Shares();
  for (size_t i = 0; i < 3; ++i) ExpectShare(even[i], 1.0 / 3, "weight 0");
  // Nodes that weigh nothing beside one that does never start a read.
  Rank z({1, 0, 0});
  z.Load(0).inflight.store(50);
  EXPECT_EQ(z.Shares(1000), (std::vector<int>{1000, 0, 0}));
}

TEST(LeastLoaded, AStaleLatencyIsUnknown) {
  Rank r({1, 1});
  r.Sample(0, 20000);
  r.Sample(1, 200);
  EXPECT_EQ(r.Shares(1000), (std::vector<int>{0, 1000}));
  g_now += kLoadStaleNs;  // node 0 not measured for a second: tried again
  r.Sample(1, 200);
  std::vector<int> got = r.Shares();
  ExpectShare(got[0], 0.5, "a stale slow node");
  // Its next sample replaces the old latency instead of averaging with it.
  r.Sample(0, 180);
  EXPECT_EQ(r.Load(0).latency_us.load(), 180u);
  r.Sample(0, 260);
  EXPECT_EQ(r.Load(0).latency_us.load(), (7u * 180 + 260) / 8);
  g_now += 1;
}

TEST(LeastLoaded, ASingleCandidateAndTheNextRank) {
  Rank one({1});
  one.Load(0).inflight.store(1000);
  one.Sample(0, 50000);
  EXPECT_EQ(one.Shares(100), (std::vector<int>{100}));
  // A rank of one before a rank of two: the first rank's node always.
  Rank r({1, 1, 1});
  AssignRanks(&r.set, {0, 1, 1});
  r.Load(0).inflight.store(10);
  EXPECT_EQ(r.Shares(100), (std::vector<int>{100, 0, 0}));
}

TEST(LeastLoaded, NodesMarkedDownAreSkippedAsToday) {
  Rank r({1, 1, 1});
  r.Sample(0, 200);
  r.Sample(1, 200);
  r.Sample(2, 200);
  r.Load(1).inflight.store(5);
  r.Load(2).inflight.store(5);
  // Node 0 is the cheapest, but set aside: never chosen while its breaker
  // is open, and its reads go on to the next node of the rank.
  r.set.list[0].node->health.SetAside(g_now, r.reg.health_config());
  std::vector<int> got = r.Shares();
  EXPECT_EQ(got[0], 0);
  EXPECT_EQ(got[1] + got[2], kDraws);
  // Its cool-down over, a read probes it (the cheapest: one of its first
  // reads), and the probe's success closes the breaker.
  g_now += 1'000'000'000;
  r.Sample(1, 200);
  r.Sample(2, 200);
  bool probed = false;
  for (int i = 0; i < 100 && !probed; ++i) {
    const Candidate *c = SelectCandidate(r.set, r.reg);
    ASSERT_NE(c, nullptr);
    probed = c->node == r.set.list[0].node;
  }
  ASSERT_TRUE(probed);
  r.set.list[0].node->health.Success();
  got = r.Shares();
  ExpectShare(got[0], 2.0 / 3, "the cheapest node, back up");
}

TEST(LeastLoaded, RouterReadsAreReproducibleAndNamed) {
  Selection s = Selection::kRandom;
  ASSERT_TRUE(SelectionFromName("LEAST_LOADED", &s));
  EXPECT_EQ(s, Selection::kLeastLoaded);
  EXPECT_STREQ(SelectionName(s), "least-loaded");
  auto topo =
      ParseClusterSlots(crtest::R::Arr({crtest::R{0, 16383, crtest::Node("127.0.1.1", 7001, "m"),
                                                  crtest::Node("127.0.1.2", 7002, "a"),
                                                  crtest::Node("127.0.1.3", 7003, "b")}})
                            .Encode(),
                        ClusterReplyOptions());
  ASSERT_TRUE(topo.ok());
  std::vector<std::string> runs[2];
  for (auto &run : runs) {
    RouterConfig cfg;
    cfg.policy = Policy::kLocalSpread;
    cfg.selection = Selection::kLeastLoaded;
    cfg.seed = 11;
    Router r(cfg, TestClock);
    ASSERT_TRUE(r.Update(*topo).ok());
    r.registry().Find("127.0.1.2:7002")->load.inflight.store(2);
    for (int i = 0; i < 200; ++i) {
      Route route;
      ASSERT_EQ(r.RouteRead("k", 1, &route), Code::kOk);
      run.push_back(route.node->address);
    }
    EXPECT_NE(r.Current()->Explain(0).find("selection least-loaded"), std::string::npos);
  }
  EXPECT_EQ(runs[0], runs[1]);
  std::map<std::string, int> by;
  for (const std::string &a : runs[0]) ++by[a];
  EXPECT_EQ(by.count("127.0.1.2:7002"), 0u);  // busy: loses both pairs it is in
  EXPECT_GT(by["127.0.1.1:7001"], 50);
  EXPECT_GT(by["127.0.1.3:7003"], 50);
}

}  // namespace least_loaded_test
}  // namespace cloudroute
