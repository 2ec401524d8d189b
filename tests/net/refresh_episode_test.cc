// When a refresh is followed by more (RefreshEpisode): no server needed.
#include "cloudroute/net/refresh_episode.hpp"

#include <gtest/gtest.h>

#include <tuple>
#include <vector>

namespace cloudroute {
namespace net {
namespace refresh_episode_test {

// One shard over every slot: a master on port 7001 and replicas on the
// given ports, each online unless listed in loading.
Topology Shard(const std::vector<uint16_t> &replicas, const std::vector<uint16_t> &loading = {}) {
  Topology t;
  TopoShard sh;
  sh.ranges.push_back(SlotRange{0, 16383});
  TopoNode m;
  if (!t.text.Put(&m, "", "127.0.0.1", "", "").ok()) return t;
  m.port = 7001;
  sh.master = 0;
  t.nodes.push_back(m);
  for (uint16_t port : replicas) {
    TopoNode r;
    if (!t.text.Put(&r, "", "127.0.0.1", "", "").ok()) return t;
    r.port = port;
    r.role = Role::kReplica;
    for (uint16_t l : loading) {
      if (l == port) r.health = ReportedHealth::kLoading;
    }
    sh.replicas.push_back(static_cast<uint32_t>(t.nodes.size()));
    t.nodes.push_back(r);
  }
  t.shards.push_back(sh);
  return t;
}

TEST(RefreshEpisode, AStableTopologyWantsNoFollowUp) {
  RefreshEpisode e;
  EXPECT_FALSE(e.Observe(Shard({7002, 7003})));
  EXPECT_FALSE(e.Observe(Shard({7002, 7003})));
}

TEST(RefreshEpisode, AMissingNodeIsFollowedUpAtMostTenTimes) {
  RefreshEpisode e;
  EXPECT_FALSE(e.Observe(Shard({7002, 7003})));
  // A failover mid-way: 7003 is listed under no shard yet.
  for (uint32_t i = 0; i < RefreshEpisode::kMaxFollowUps; ++i) {
    EXPECT_TRUE(e.Observe(Shard({7002}))) << i;
  }
  EXPECT_FALSE(e.Observe(Shard({7002})));  // the episode ends; this is settled now
  EXPECT_FALSE(e.Observe(Shard({7002})));
  EXPECT_TRUE(e.Observe(Shard({7002, 7003})));   // a change again: a new episode
  EXPECT_FALSE(e.Observe(Shard({7002, 7003})));  // settled at once
}

TEST(RefreshEpisode, ALoadingReplicaIsFollowedUp) {
  RefreshEpisode e;
  EXPECT_TRUE(e.Observe(Shard({7002}, {7002})));
  EXPECT_TRUE(e.Observe(Shard({7002}, {7002})));
  EXPECT_TRUE(e.Observe(Shard({7002})));  // its health changed: one more look
  EXPECT_FALSE(e.Observe(Shard({7002})));
}

// Shards of (master port, replica ports, owns every slot); at most one owns
// the slots.
Topology Shards(const std::vector<std::tuple<uint16_t, std::vector<uint16_t>, bool>> &shards) {
  Topology t;
  auto node = [&t](uint16_t port, Role role) {
    TopoNode n;
    if (!t.text.Put(&n, "", "127.0.0.1", "", "").ok()) return kNoNode;
    n.port = port;
    n.role = role;
    t.nodes.push_back(n);
    return static_cast<uint32_t>(t.nodes.size() - 1);
  };
  for (const auto &[master, replicas, owns] : shards) {
    TopoShard sh;
    if (owns) sh.ranges.push_back(SlotRange{0, 16383});
    sh.master = node(master, Role::kMaster);
    for (uint16_t r : replicas) sh.replicas.push_back(node(r, Role::kReplica));
    t.shards.push_back(sh);
  }
  return t;
}

TEST(RefreshEpisode, ADemotedMasterListedWithoutSlotsIsFollowedUp) {
  RefreshEpisode e;
  EXPECT_FALSE(e.Observe(Shards({{7001, {7002, 7003}, true}})));
  // 7002 took over; a node that has not heard from 7001 and 7003 since
  // lists them as a shard of their own, without slots: 7003 is no read
  // candidate of the slots' shard. Every node is present, and the view
  // repeats, but it is not settled.
  const Topology midway = Shards({{7002, {}, true}, {7001, {7003}, false}});
  for (uint32_t i = 0; i < RefreshEpisode::kMaxFollowUps; ++i) {
    EXPECT_TRUE(e.Observe(midway)) << i;
  }
  EXPECT_FALSE(e.Observe(midway));  // the episode ends: an empty master may stay one
  EXPECT_FALSE(e.Observe(midway));
  // Once the nodes followed 7002: one more look, then settled.
  EXPECT_TRUE(e.Observe(Shards({{7002, {7001, 7003}, true}})));
  EXPECT_FALSE(e.Observe(Shards({{7002, {7001, 7003}, true}})));
}

TEST(RefreshEpisode, AnEmptyMasterOfTheSettledTopologyWantsNoFollowUp) {
  RefreshEpisode e;
  EXPECT_FALSE(e.Observe(Shards({{7001, {7002}, true}, {7004, {7005}, false}})));
  EXPECT_FALSE(e.Observe(Shards({{7001, {7002}, true}, {7004, {7005}, false}})));
}

TEST(RefreshEpisode, SignatureSeesRolesHealthAndRanges) {
  const std::string base = TopologySignature(Shard({7002}));
  EXPECT_EQ(TopologySignature(Shard({7002})), base);
  EXPECT_NE(TopologySignature(Shard({7002}, {7002})), base);
  Topology moved = Shard({7002});
  moved.shards[0].ranges[0].end = 100;
  EXPECT_NE(TopologySignature(moved), base);
  Topology promoted = Shard({7002});
  promoted.nodes[1].role = Role::kMaster;
  EXPECT_NE(TopologySignature(promoted), base);
}

}  // namespace refresh_episode_test
}  // namespace net
}  // namespace cloudroute
