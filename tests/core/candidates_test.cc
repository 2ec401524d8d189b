#include "cloudroute/core/candidates.hpp"

#include <gtest/gtest.h>

#include "cloudroute/core/cluster_reply.hpp"
#include "test_util.hpp"

namespace cloudroute {
namespace candidates_test {

using crtest::Node;
using crtest::R;

// One shard: master in cloud B, replicas: two in A (local), one in B.
class CandidatesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto t = ParseClusterSlots(
        R::Arr({R{0, 16383, Node("127.0.2.1", 7000, "m"), Node("127.0.1.1", 7001, "ra1"),
                  Node("127.0.1.2", 7002, "ra2"), Node("127.0.2.2", 7003, "rb")}})
            .Encode(),
        ClusterReplyOptions());
    ASSERT_TRUE(t.ok());
    topo_ = *t;
    for (const TopoNode &n : topo_->nodes) {
      NodeEntry *e = *reg_.Intern(n.host(), n.port);
      const bool local = n.host().rfind("127.0.1.", 0) == 0;
      facts_.push_back(NodeFacts{e, local ? Tier::kLocal : Tier::kOtherCloud, 1});
    }
  }
  std::vector<std::string> Order(Policy p, uint32_t margin = 1000) {
    CandidateSet s = BuildCandidates(*topo_, 0, facts_, CandidateOptions{p, margin});
    std::vector<std::string> out;
    for (const Candidate &c : s.list) out.push_back(c.node->address + "#" + std::to_string(c.rank));
    return out;
  }
  std::shared_ptr<const Topology> topo_;
  NodeRegistry reg_{HealthConfig(), nullptr, 1};
  std::vector<NodeFacts> facts_;
};

using V = std::vector<std::string>;

TEST_F(CandidatesTest, Master) { EXPECT_EQ(Order(Policy::kMaster), V({"127.0.2.1:7000#0"})); }

TEST_F(CandidatesTest, PreferReplica) {
  EXPECT_EQ(Order(Policy::kPreferReplica),
            V({"127.0.1.1:7001#0", "127.0.1.2:7002#0", "127.0.2.2:7003#1", "127.0.2.1:7000#2"}));
}

TEST_F(CandidatesTest, LocalSeedOrder) {
  // Local tier has no master: local replicas share rank 0; then the remote
  // tier, master first.
  EXPECT_EQ(Order(Policy::kLocal),
            V({"127.0.1.1:7001#0", "127.0.1.2:7002#0", "127.0.2.1:7000#1", "127.0.2.2:7003#2"}));
}

TEST_F(CandidatesTest, LocalReplicasFirst) {
  EXPECT_EQ(Order(Policy::kLocalReplicasFirst),
            V({"127.0.1.1:7001#0", "127.0.1.2:7002#0", "127.0.2.2:7003#1", "127.0.2.1:7000#2"}));
}

TEST_F(CandidatesTest, MasterMovingClouds) {
  // After a failover the master is local: LOCAL now reads the local master first.
  facts_[0].tier = Tier::kLocal;
  facts_[1].tier = Tier::kOtherCloud;
  EXPECT_EQ(Order(Policy::kLocal),
            V({"127.0.2.1:7000#0", "127.0.1.2:7002#1", "127.0.1.1:7001#2", "127.0.2.2:7003#2"}));
}

TEST_F(CandidatesTest, NearestBandsShareLoad) {
  facts_[0].entry->rtt_us = 5200;  // master, remote
  facts_[1].entry->rtt_us = 300;
  facts_[2].entry->rtt_us = 900;  // within 1000 us of the fastest: same band
  facts_[3].entry->rtt_us = 0;    // never measured: last
  EXPECT_EQ(Order(Policy::kNearest, 1000),
            V({"127.0.1.1:7001#0", "127.0.1.2:7002#0", "127.0.2.1:7000#1", "127.0.2.2:7003#2"}));
  EXPECT_EQ(Order(Policy::kNearest, 100),
            V({"127.0.1.1:7001#0", "127.0.1.2:7002#1", "127.0.2.1:7000#2", "127.0.2.2:7003#3"}));
}

TEST_F(CandidatesTest, GroupsAndWeights) {
  facts_[1].weight = 3;
  facts_[2].weight = 0;
  CandidateSet s = BuildCandidates(*topo_, 0, facts_, CandidateOptions{Policy::kLocal, 1000});
  ASSERT_EQ(s.ranks().size(), 3u);
  EXPECT_EQ(s.ranks()[0].end, 2u);
  EXPECT_EQ(s.ranks()[1].end, 3u);
  EXPECT_EQ(s.ranks()[2].end, 4u);
  EXPECT_EQ(s.ranks()[0].weight, 3u);
  EXPECT_EQ(s.master, facts_[0].entry);
}

TEST_F(CandidatesTest, LoadingReplicaAndUnknownEndpointAreNotCandidates) {
  R reply = R::Arr(
      {R{"slots", R{0, 16383}, "nodes",
         R{R{"id", "m", "port", 1, "endpoint", "10.0.0.1", "role", "master"},
           R{"id", "r1", "port", 2, "endpoint", "10.0.0.2", "role", "replica", "health", "loading"},
           R{"id", "r2", "port", 3, "endpoint", "?", "role", "replica"}}}});
  auto t = ParseClusterShards(reply.Encode(), ClusterReplyOptions());
  ASSERT_TRUE(t.ok()) << t.status().message();
  std::vector<NodeFacts> facts;
  for (const TopoNode &n : (*t)->nodes) {
    facts.push_back(NodeFacts{n.endpoint_known() ? *reg_.Intern(n.host(), n.port) : nullptr,
                              Tier::kUnknown, 1});
  }
  CandidateSet s = BuildCandidates(**t, 0, facts, CandidateOptions{Policy::kPreferReplica, 0});
  ASSERT_EQ(s.list.size(), 1u);
  EXPECT_EQ(s.list[0].node->address, "10.0.0.1:1");
}

// A set's list keeps its candidates and ranks in one block: copies are
// deep, moves take the block, AssignRanks may re-rank the set's own list.
TEST_F(CandidatesTest, ListCopiesMovesAndReRanksItsOwnBlock) {
  CandidateSet s = BuildCandidates(*topo_, 0, facts_, CandidateOptions{Policy::kLocal, 1000});
  ASSERT_EQ(s.list.size(), 4u);
  ASSERT_EQ(s.ranks().size(), 3u);
  CandidateSet copy = s;
  EXPECT_NE(copy.list.data(), s.list.data());
  ASSERT_EQ(copy.list.size(), 4u);
  ASSERT_EQ(copy.ranks().size(), 3u);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(copy.list[i].node, s.list[i].node);
  for (size_t r = 0; r < 3; ++r) {
    EXPECT_EQ(copy.ranks()[r].end, s.ranks()[r].end);
    EXPECT_EQ(copy.ranks()[r].weight, s.ranks()[r].weight);
  }
  const Candidate *block = copy.list.data();
  CandidateSet moved = std::move(copy);
  EXPECT_EQ(moved.list.data(), block);
  EXPECT_TRUE(copy.list.empty());  // NOLINT(bugprone-use-after-move): moved from, empty
  EXPECT_EQ(copy.ranks().size(), 0u);
  // One rank over the set's own candidates.
  const std::vector<uint64_t> same(4, 0);
  AssignRanks(&moved, same);
  ASSERT_EQ(moved.list.size(), 4u);
  ASSERT_EQ(moved.ranks().size(), 1u);
  EXPECT_EQ(moved.ranks()[0].end, 4u);
  EXPECT_EQ(moved.ranks()[0].weight, 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(moved.list[i].node, s.list[i].node);
    EXPECT_EQ(moved.list[i].rank, 0u);
  }
  // Empty, and a copy of an empty list.
  CandidateSet none;
  AssignRanks(&none, std::vector<uint64_t>{});
  EXPECT_TRUE(none.list.empty());
  EXPECT_EQ(none.list.data(), nullptr);
  CandidateSet none_copy = none;
  EXPECT_TRUE(none_copy.list.empty());
  EXPECT_TRUE(none_copy.ranks().empty());
  s = none_copy;
  EXPECT_TRUE(s.list.empty());
}

// A candidate's rank is 16 bits: in a set of more ranks, those beyond
// 65534 read 65535, while the ranks themselves stay exact.
TEST_F(CandidatesTest, RanksBeyondSixteenBitsSaturate) {
  const size_t n = 70000;
  std::vector<Candidate> list(
      n, Candidate{facts_[0].entry, kNoTopoNode, Role::kReplica, Tier::kLocal, 0, false, 1, 0});
  std::vector<uint64_t> keys(n);
  for (size_t i = 0; i < n; ++i) keys[i] = i;
  CandidateSet s;
  AssignRanks(&s, list.data(), n, keys.data());
  ASSERT_EQ(s.ranks().size(), n);
  EXPECT_EQ(s.list[65534].rank, 65534u);
  EXPECT_EQ(s.list[65535].rank, 65535u);
  EXPECT_EQ(s.list[n - 1].rank, 65535u);
  EXPECT_EQ(s.ranks()[n - 1].end, n);
  EXPECT_EQ(sizeof(Candidate), 24u);
}

// MasterFirstCandidates copies the set: the original keeps its order.
TEST_F(CandidatesTest, MasterFirstCopyLeavesTheOriginal) {
  const CandidateSet s = BuildCandidates(*topo_, 0, facts_, CandidateOptions{Policy::kLocal, 1000});
  const CandidateSet m = MasterFirstCandidates(s);
  ASSERT_EQ(m.list.size(), 4u);
  EXPECT_EQ(m.list[0].node->address, "127.0.2.1:7000");
  EXPECT_EQ(m.ranks()[0].end, 1u);
  EXPECT_EQ(s.list[0].node->address, "127.0.1.1:7001");
  EXPECT_EQ(s.ranks()[0].end, 2u);
}

}  // namespace candidates_test
}  // namespace cloudroute
