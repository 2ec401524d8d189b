// NearerNode: which subscribed names make a planned move to a nearer node,
// the settle time, the anti-flap gap, no move on a tie.
#include "cloudroute/net/nearer_node.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cloudroute/net/deadline.hpp"

namespace cloudroute {
namespace net {
namespace nearer_node_test {

constexpr int64_t kT0 = 1'000'000'000'000;  // any clock
constexpr int64_t kSettle = MsToNs(NearerNode::kReadyForMs);
constexpr int64_t kGap = MsToNs(NearerNode::kMoveGapMs);

// The harness-like shard after a failover: the name is on the new master in
// the other cloud; the local replica and a same-cloud one are candidates.
std::vector<NearerOption> Options(bool local_healthy = true) {
  return {{"local:1", Tier::kLocal, local_healthy},
          {"region:2", Tier::kSameRegion, true},
          {"remote:3", Tier::kOtherCloud, true}};
}

ReadyClock SampledAt(const std::vector<std::string> &healthy, int64_t at) {
  ReadyClock r;
  r.Sample(healthy, at);
  return r;
}

TEST(NearerNode, MovesToTheBestTierOnceItSettled) {
  const ReadyClock ready = SampledAt({"local:1", "region:2", "remote:3"}, kT0);
  NearerDecision d = NearerNode::Decide(Tier::kOtherCloud, Options(), ready, 0, kT0 + kSettle);
  EXPECT_EQ(d.index, 0);
  // Not settled yet: waits for it (and not for a move to the settled-less
  // region node either: one move, not two).
  d = NearerNode::Decide(Tier::kOtherCloud, Options(), ready, 0, kT0 + kSettle - 1);
  EXPECT_EQ(d.index, -1);
  EXPECT_EQ(d.recheck_ns, kT0 + kSettle);
}

TEST(NearerNode, WaitsForANearerNodeToSettleRatherThanMovingTwice) {
  ReadyClock ready = SampledAt({"region:2", "remote:3"}, kT0);
  ready.Sample({"local:1", "region:2", "remote:3"}, kT0 + kSettle);  // local only now
  const NearerDecision d =
      NearerNode::Decide(Tier::kOtherCloud, Options(), ready, 0, kT0 + kSettle + 1);
  EXPECT_EQ(d.index, -1) << "region:2 settled, but local:1 is healthy and nearer";
  EXPECT_EQ(d.recheck_ns, kT0 + 2 * kSettle);
}

TEST(NearerNode, AnUnhealthyNearerNodeIsSkipped) {
  const ReadyClock ready = SampledAt({"region:2", "remote:3"}, kT0);
  const NearerDecision d = NearerNode::Decide(Tier::kOtherCloud, Options(/*local_healthy=*/false),
                                              ready, 0, kT0 + kSettle);
  EXPECT_EQ(d.index, 1) << "the best healthy one";
}

TEST(NearerNode, NoMoveOnATieOrFromTheBestTier) {
  const ReadyClock ready = SampledAt({"local:1", "region:2", "remote:3"}, kT0);
  NearerDecision d = NearerNode::Decide(Tier::kLocal, Options(), ready, 0, kT0 + 10 * kSettle);
  EXPECT_EQ(d.index, -1);
  EXPECT_EQ(d.recheck_ns, 0) << "nothing nearer: nothing to look at again";
  // On a remote node, with only remote (equal-tier) candidates healthy.
  const std::vector<NearerOption> remote = {{"remote:3", Tier::kOtherCloud, true},
                                            {"remote:4", Tier::kOtherCloud, true}};
  d = NearerNode::Decide(Tier::kOtherCloud, remote, ready, 0, kT0 + 10 * kSettle);
  EXPECT_EQ(d.index, -1);
  EXPECT_EQ(d.recheck_ns, 0);
}

TEST(NearerNode, NothingNearerIsHealthyLooksAgainSoon) {
  const ReadyClock ready = SampledAt({"remote:3"}, kT0);
  const std::vector<NearerOption> o = {{"local:1", Tier::kLocal, false},
                                       {"remote:3", Tier::kOtherCloud, true}};
  const NearerDecision d = NearerNode::Decide(Tier::kOtherCloud, o, ready, 0, kT0);
  EXPECT_EQ(d.index, -1);
  EXPECT_EQ(d.recheck_ns, kT0 + kSettle);
}

TEST(NearerNode, AtMostOnePlannedMovePerGap) {
  const ReadyClock ready = SampledAt({"local:1", "region:2", "remote:3"}, kT0);
  const int64_t last = kT0 + kSettle;  // moved then
  NearerDecision d = NearerNode::Decide(Tier::kOtherCloud, Options(), ready, last, last + kGap - 1);
  EXPECT_EQ(d.index, -1);
  EXPECT_EQ(d.recheck_ns, last + kGap);
  d = NearerNode::Decide(Tier::kOtherCloud, Options(), ready, last, last + kGap);
  EXPECT_EQ(d.index, 0);
}

TEST(ReadyClock, AGapInHealthRestartsTheClock) {
  ReadyClock ready;
  ready.Sample({"a", "b"}, kT0);
  ready.Sample({"a", "b"}, kT0 + 5);
  EXPECT_EQ(ready.Since("a"), kT0);
  ready.Sample({"b"}, kT0 + 10);  // a: not a candidate (loading), or its breaker open
  EXPECT_EQ(ready.Since("a"), 0);
  ready.Sample({"a", "b"}, kT0 + 20);
  EXPECT_EQ(ready.Since("a"), kT0 + 20);
  EXPECT_EQ(ready.Since("b"), kT0);
  ready.Forget("b");  // failed the subscriber
  EXPECT_EQ(ready.Since("b"), 0);
  const NearerDecision d = NearerNode::Decide(
      Tier::kOtherCloud, {{"b", Tier::kLocal, true}, {"c", Tier::kOtherCloud, true}}, ready, 0,
      kT0 + kGap);
  EXPECT_EQ(d.index, -1) << "b is healthy now but not sampled so since its failure";
}

TEST(ReadyClock, KeysOfOneAddressAreForgottenTogether) {
  ReadyClock ready;
  ready.Sample({"a:1|m:1", "a:1|m:2", "a:10|m:1"}, kT0);
  EXPECT_FALSE(ready.Settled("a:1|m:1", kT0 + kSettle - 1));
  EXPECT_TRUE(ready.Settled("a:1|m:1", kT0 + kSettle));
  ready.Forget("a:1");
  EXPECT_EQ(ready.Since("a:1|m:1"), 0);
  EXPECT_EQ(ready.Since("a:1|m:2"), 0);
  EXPECT_EQ(ready.Since("a:10|m:1"), kT0) << "another address that starts the same";
  // A replica re-pointed to a new master is a new key: it starts over.
  ready.Sample({"a:10|m:2"}, kT0 + kSettle);
  EXPECT_FALSE(ready.Settled("a:10|m:2", kT0 + kSettle));
}

}  // namespace nearer_node_test
}  // namespace net
}  // namespace cloudroute
