#include "cloudroute/core/router.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cloudroute/core/cluster_reply.hpp"
#include "common/sanitizers.hpp"
#include "test_util.hpp"

namespace cloudroute {
namespace router_test {

using crtest::Node;
using crtest::R;

int64_t g_now = 1;
int64_t FakeNow() { return g_now; }

std::shared_ptr<const Topology> Topo(const R &r) {
  auto t = ParseClusterSlots(r.Encode(), ClusterReplyOptions());
  EXPECT_TRUE(t.ok()) << t.status().message();
  return *t;
}

// Two shards; cloud A is 127.0.1.0/24 (local), cloud B 127.0.2.0/24.
R TwoShards(bool failed_over = false) {
  R m1 = Node("127.0.1.1", 7001, "m1"), r1a = Node("127.0.1.2", 7002, "r1a"),
    r1b = Node("127.0.2.2", 7102, "r1b");
  R m2 = Node("127.0.2.1", 7101, "m2"), r2a = Node("127.0.1.3", 7003, "r2a"),
    r2b = Node("127.0.2.3", 7103, "r2b");
  if (failed_over) {  // r1b was promoted: shard 1's master now lives in cloud B
    return R{R{0, 8191, Node("127.0.2.2", 7102, "r1b"), r1a, Node("127.0.1.1", 7001, "m1")},
             R{8192, 16383, m2, r2a, r2b}};
  }
  return R{R{0, 8191, m1, r1a, r1b}, R{8192, 16383, m2, r2a, r2b}};
}

RouterConfig Cfg(Policy p) {
  RouterConfig c;
  c.policy = p;
  c.locality.client = *ParseLocation("aws/use1/a");
  c.locality.rules.push_back({*Cidr::Parse("127.0.1.0/24"), {}, true});
  c.locality.rules.push_back({*Cidr::Parse("127.0.2.0/24"), *ParseLocation("gcp/usc1"), false});
  c.health = HealthConfig{1, 1000};
  c.seed = 7;
  return c;
}

// A key in shard 0 (slot < 8192) and one in shard 1.
std::string KeyForShard(int shard) {
  for (int i = 0;; ++i) {
    std::string k = "k" + std::to_string(i);
    if ((KeySlot(k.data(), k.size()) < 8192) == (shard == 0)) return k;
  }
}

TEST(Router, NoTopologyYet) {
  Router r(Cfg(Policy::kLocal));
  Route out;
  EXPECT_EQ(r.RouteRead("x", 1, &out), Code::kNoTopology);
  EXPECT_EQ(r.RouteWrite("x", 1, &out), Code::kNoTopology);
  EXPECT_EQ(r.ReportMoved(1, "h", 1).code(), Code::kNoTopology);
  EXPECT_TRUE(r.refresh_needed());
}

TEST(Router, ReadsStayLocalWritesGoToTheMaster) {
  Router r(Cfg(Policy::kLocal), &FakeNow);
  ASSERT_TRUE(r.Update(Topo(TwoShards())).ok());
  const std::string k0 = KeyForShard(0), k1 = KeyForShard(1);
  for (int i = 0; i < 1000; ++i) {
    Route out;
    ASSERT_EQ(r.RouteRead(k0.data(), k0.size(), &out), Code::kOk);
    EXPECT_EQ(out.node->address, "127.0.1.1:7001");  // local master first under LOCAL
    ASSERT_EQ(r.RouteRead(k1.data(), k1.size(), &out), Code::kOk);
    EXPECT_EQ(out.node->address, "127.0.1.3:7003");  // remote master: the local replica
    EXPECT_EQ(out.tier, Tier::kLocal);
  }
  Route w;
  ASSERT_EQ(r.RouteWrite(k1.data(), k1.size(), &w), Code::kOk);
  EXPECT_EQ(w.node->address, "127.0.2.1:7101");
  EXPECT_EQ(w.role, Role::kMaster);
  EXPECT_EQ(w.tier, Tier::kOtherCloud);
}

TEST(Router, FailoverAcrossCloudsReordersOnUpdate) {
  Router r(Cfg(Policy::kLocalReplicasFirst), &FakeNow);
  ASSERT_TRUE(r.Update(Topo(TwoShards())).ok());
  const std::string k0 = KeyForShard(0);
  Route out;
  ASSERT_EQ(r.RouteWrite(k0.data(), k0.size(), &out), Code::kOk);
  EXPECT_EQ(out.node->address, "127.0.1.1:7001");
  ASSERT_TRUE(r.Update(Topo(TwoShards(true))).ok());
  ASSERT_EQ(r.RouteWrite(k0.data(), k0.size(), &out), Code::kOk);
  EXPECT_EQ(out.node->address, "127.0.2.2:7102");
  EXPECT_EQ(out.tier, Tier::kOtherCloud);
  auto snap = r.Current();
  const CandidateSet *set = snap->SetForSlot(KeySlot(k0.data(), k0.size()));
  ASSERT_EQ(set->list.size(), 3u);
  // local replicas (r1a, and the demoted m1), then the remote master
  EXPECT_EQ(set->list[0].node->address, "127.0.1.1:7001");
  EXPECT_EQ(set->list[1].node->address, "127.0.1.2:7002");
  EXPECT_EQ(set->list[2].node->address, "127.0.2.2:7102");
  EXPECT_EQ(set->list[2].role, Role::kMaster);
}

TEST(Router, WeightedChoiceAmongEqualRank) {
  RouterConfig cfg = Cfg(Policy::kPreferReplica);
  cfg.locality.rules.clear();  // every node tier unknown: all replicas share rank 0
  cfg.weights["127.0.1.2:7002"] = 3;
  cfg.weights["r1b"] = 1;  // by node id
  Router r(cfg, &FakeNow);
  ASSERT_TRUE(r.Update(Topo(TwoShards())).ok());
  const std::string k0 = KeyForShard(0);
  std::map<std::string, int> hits;
  for (int i = 0; i < 40000; ++i) {
    Route out;
    ASSERT_EQ(r.RouteRead(k0.data(), k0.size(), &out), Code::kOk);
    ++hits[out.node->address];
  }
  EXPECT_EQ(hits.size(), 2u);
  const double ratio = static_cast<double>(hits["127.0.1.2:7002"]) / hits["127.0.2.2:7102"];
  EXPECT_GT(ratio, 2.6);
  EXPECT_LT(ratio, 3.4);
}

// The seed belongs to the router: two routers with one seed make the same
// picks among equal candidates, even on one thread and even interleaved.
TEST(Router, ASeedReproducesTheRoutersPicks) {
  RouterConfig cfg = Cfg(Policy::kPreferReplica);
  cfg.locality.rules.clear();  // every replica of a shard ranks equal: the seed picks
  // The addresses n reads of key:0, key:1, ... went to.
  auto picks = [](Router &r, int n) {
    std::vector<std::string> seq;
    for (int i = 0; i < n; ++i) {
      const std::string k = "key:" + std::to_string(i);
      Route out;
      const Code c = r.RouteRead(k.data(), k.size(), &out);
      EXPECT_EQ(c, Code::kOk) << k;
      seq.push_back(c == Code::kOk ? out.node->address : std::string());
    }
    return seq;
  };
  Router a(cfg, &FakeNow), b(cfg, &FakeNow);
  ASSERT_TRUE(a.Update(Topo(TwoShards())).ok());
  ASSERT_TRUE(b.Update(Topo(TwoShards())).ok());
  const std::vector<std::string> first = picks(a, 200);
  EXPECT_EQ(picks(b, 200), first);  // b after a on this thread
  const std::set<std::string> seen(first.begin(), first.end());
  EXPECT_EQ(seen.size(), 4u) << "the seed did not pick among each shard's two replicas";

  cfg.seed = 8;
  Router c(cfg, &FakeNow), d(cfg, &FakeNow), e(cfg, &FakeNow);
  ASSERT_TRUE(c.Update(Topo(TwoShards())).ok());
  ASSERT_TRUE(d.Update(Topo(TwoShards())).ok());
  ASSERT_TRUE(e.Update(Topo(TwoShards())).ok());
  std::vector<std::string> cs, ds;
  for (int i = 0; i < 50; ++i) {  // interleaved on one thread
    for (std::string &s : picks(c, 4)) cs.push_back(std::move(s));
    for (std::string &s : picks(d, 4)) ds.push_back(std::move(s));
  }
  EXPECT_EQ(cs, ds);
  EXPECT_NE(picks(e, 200), first);  // another seed, other picks
}

TEST(Router, DownNodeIsSkippedRoundRobinThenProbed) {
  Router r(Cfg(Policy::kLocal), &FakeNow);
  ASSERT_TRUE(r.Update(Topo(TwoShards())).ok());
  const std::string k0 = KeyForShard(0);
  Route out;
  ASSERT_EQ(r.RouteRead(k0.data(), k0.size(), &out), Code::kOk);
  NodeEntry *master = out.node;
  g_now = 1;
  ASSERT_TRUE(r.ReportFailure(master->handle).ok());  // threshold 1
  ASSERT_EQ(r.RouteRead(k0.data(), k0.size(), &out), Code::kOk);
  EXPECT_EQ(out.node->address, "127.0.1.2:7002");  // next candidate: local replica
  ASSERT_TRUE(r.ReportFailure(out.node->handle).ok());
  ASSERT_EQ(r.RouteRead(k0.data(), k0.size(), &out), Code::kOk);
  EXPECT_EQ(out.node->address, "127.0.2.2:7102");  // then the other cloud
  ASSERT_TRUE(r.ReportFailure(out.node->handle).ok());
  EXPECT_EQ(r.RouteRead(k0.data(), k0.size(), &out), Code::kUnavailable);
  // Writes never move: still the master, even while it is marked down.
  ASSERT_EQ(r.RouteWrite(k0.data(), k0.size(), &out), Code::kOk);
  EXPECT_EQ(out.node, master);
  // Cool-down over: the master is probed once, and a success closes it.
  g_now += 1001ll * 1000000;
  ASSERT_EQ(r.RouteRead(k0.data(), k0.size(), &out), Code::kOk);
  EXPECT_EQ(out.node, master);
  ASSERT_TRUE(r.ReportSuccess(master->handle).ok());
  ASSERT_EQ(r.RouteRead(k0.data(), k0.size(), &out), Code::kOk);
  EXPECT_EQ(out.node, master);
  EXPECT_EQ(r.ReportFailure(999999).code(), Code::kNotFound);
}

TEST(Router, MovedPatchesOneSlotAtOnceAndFlagsRefresh) {
  Router r(Cfg(Policy::kLocal), &FakeNow);
  ASSERT_TRUE(r.Update(Topo(TwoShards())).ok());
  EXPECT_FALSE(r.refresh_needed());
  const uint64_t gen = r.Current()->generation;
  // Slot 100 moved to shard 2's master.
  ASSERT_TRUE(r.ReportMoved(100, "127.0.2.1", 7101).ok());
  EXPECT_TRUE(r.refresh_needed());
  auto snap = r.Current();
  EXPECT_GT(snap->generation, gen);
  Route w;
  ASSERT_EQ(snap->RouteWrite(100, &w), Code::kOk);
  EXPECT_EQ(w.node->address, "127.0.2.1:7101");
  ASSERT_EQ(snap->RouteRead(100, &w), Code::kOk);
  EXPECT_EQ(w.node->address, "127.0.1.3:7003");  // that shard's local replica
  ASSERT_EQ(snap->RouteWrite(101, &w), Code::kOk);
  EXPECT_EQ(w.node->address, "127.0.1.1:7001");  // neighbours untouched
  // The same MOVED again builds nothing new.
  ASSERT_TRUE(r.ReportMoved(100, "127.0.2.1", 7101).ok());
  EXPECT_EQ(r.Current()->generation, snap->generation);
  // To an unknown node: a redirect-only shard.
  ASSERT_TRUE(r.ReportMoved(200, "127.0.9.9", 7999).ok());
  ASSERT_EQ(r.Current()->RouteRead(200, &w), Code::kOk);
  EXPECT_EQ(w.node->address, "127.0.9.9:7999");
  // A fresh topology clears patches and the flag.
  ASSERT_TRUE(r.Update(Topo(TwoShards())).ok());
  EXPECT_FALSE(r.refresh_needed());
  ASSERT_EQ(r.Current()->RouteWrite(100, &w), Code::kOk);
  EXPECT_EQ(w.node->address, "127.0.1.1:7001");
  EXPECT_EQ(r.ReportMoved(16384, "h", 1).code(), Code::kInvalid);
  EXPECT_EQ(r.ReportMoved(1, "", 1).code(), Code::kInvalid);
}

TEST(Router, UncoveredSlot) {
  Router r(Cfg(Policy::kLocal));
  ASSERT_TRUE(r.Update(Topo(R::Arr({R{0, 10, Node("127.0.1.1", 1, "m")}}))).ok());
  Route out;
  EXPECT_EQ(r.Current()->RouteRead(11, &out), Code::kSlotUncovered);
  EXPECT_EQ(r.Current()->RouteWrite(11, &out), Code::kSlotUncovered);
  EXPECT_NE(r.Current()->Explain(11).find("served by no shard"), std::string::npos);
}

TEST(Router, NearestFollowsMeasuredRtt) {
  Router r(Cfg(Policy::kNearest), &FakeNow);
  ASSERT_TRUE(r.Update(Topo(TwoShards())).ok());
  const std::string k0 = KeyForShard(0);
  NodeEntry *far = r.registry().Find("127.0.2.2:7102");
  NodeEntry *near = r.registry().Find("127.0.1.2:7002");
  NodeEntry *master = r.registry().Find("127.0.1.1:7001");
  ASSERT_TRUE(r.SetRtt(far->handle, 150).ok());
  ASSERT_TRUE(r.SetRtt(near->handle, 4000).ok());
  ASSERT_TRUE(r.SetRtt(master->handle, 9000).ok());
  Route out;
  ASSERT_EQ(r.RouteRead(k0.data(), k0.size(), &out), Code::kOk);
  EXPECT_EQ(out.node, far);
  EXPECT_EQ(r.SetRtt(12345, 1).code(), Code::kNotFound);
}

TEST(Router, ServerZoneFromTheNetLayerReorders) {
  RouterConfig cfg = Cfg(Policy::kLocal);
  cfg.locality.rules.clear();
  cfg.locality.by_zone["zb"] = *ParseLocation("gcp/usc1/zb");
  cfg.locality.by_zone["a"] = *ParseLocation("aws/use1/a");
  Router r(cfg, &FakeNow);
  ASSERT_TRUE(r.Update(Topo(TwoShards())).ok());
  const std::string k0 = KeyForShard(0);
  ASSERT_TRUE(r.SetNodeZone("127.0.2.2", 7102, "a").ok());
  Route out;
  ASSERT_EQ(r.RouteRead(k0.data(), k0.size(), &out), Code::kOk);
  EXPECT_EQ(out.node->address, "127.0.2.2:7102");
  EXPECT_NE(r.Current()->Explain(KeySlot(k0.data(), k0.size())).find("server zone a"),
            std::string::npos);
}

// A CLUSTER SLOTS reply may lack the answering node's own metadata: a zone
// an earlier topology reported stays; a zone the topology reports wins over
// one learned elsewhere.
TEST(Router, ZonesSurviveAReplyThatOmitsThem) {
  RouterConfig cfg = Cfg(Policy::kLocal);
  cfg.locality = LocalityConfig{};
  cfg.locality.client_zone = "za";
  Router r(cfg, &FakeNow);
  auto zoned = [](const char *ip, int port, const char *id, const char *zone) {
    R n = Node(ip, port, id);
    if (*zone != '\0') n.a.push_back(R{"availability-zone", zone});
    return n;
  };
  auto topo = [&](const char *m1_zone) {
    // One shard: R::Arr, as one R in braces is a copy for clang (test_util.hpp).
    return Topo(
        R::Arr({R{0, 16383, zoned("127.0.2.1", 7101, "m1", m1_zone),
                  zoned("127.0.1.2", 7002, "r1", "za"), zoned("127.0.2.2", 7102, "r2", "zb")}}));
  };
  ASSERT_TRUE(r.Update(topo("za")).ok());
  const std::string k = "k";
  Route out;
  ASSERT_EQ(r.RouteWrite(k.data(), k.size(), &out), Code::kOk);
  EXPECT_EQ(out.tier, Tier::kLocal);
  ASSERT_TRUE(r.Update(topo("")).ok());  // m1 answered and left its own zone out
  ASSERT_EQ(r.RouteWrite(k.data(), k.size(), &out), Code::kOk);
  EXPECT_EQ(out.tier, Tier::kLocal);
  ASSERT_TRUE(r.Update(topo("zb")).ok());  // it moved: the topology's zone wins
  ASSERT_EQ(r.RouteWrite(k.data(), k.size(), &out), Code::kOk);
  EXPECT_EQ(out.tier, Tier::kSameRegion);
  ASSERT_TRUE(r.SetNodeZone("127.0.2.1", 7101, "za").ok());  // the topology still wins
  ASSERT_EQ(r.RouteWrite(k.data(), k.size(), &out), Code::kOk);
  EXPECT_EQ(out.tier, Tier::kSameRegion);
  // Learned from the node itself (HELLO/INFO), used where the reply has none.
  Router fresh(cfg, &FakeNow);
  ASSERT_TRUE(fresh.Update(topo("")).ok());
  ASSERT_EQ(fresh.RouteWrite(k.data(), k.size(), &out), Code::kOk);
  EXPECT_EQ(out.tier, Tier::kUnknown);
  ASSERT_TRUE(fresh.SetNodeZone("127.0.2.1", 7101, "za").ok());
  ASSERT_EQ(fresh.RouteWrite(k.data(), k.size(), &out), Code::kOk);
  EXPECT_EQ(out.tier, Tier::kLocal);
}

TEST(Router, LaggingReplicaIsReadLast) {
  Router r(Cfg(Policy::kLocalReplicasFirst), &FakeNow);
  ASSERT_TRUE(r.Update(Topo(TwoShards())).ok());
  const std::string k0 = KeyForShard(0);
  const uint16_t slot = KeySlot(k0.data(), k0.size());
  Route out;
  ASSERT_EQ(r.RouteRead(k0.data(), k0.size(), &out), Code::kOk);
  EXPECT_EQ(out.node->address, "127.0.1.2:7002");  // the local replica
  const uint64_t gen = r.Current()->generation;
  ASSERT_TRUE(r.SetReplicaLagging("127.0.1.2", 7002, true).ok());
  ASSERT_EQ(r.RouteRead(k0.data(), k0.size(), &out), Code::kOk);
  EXPECT_EQ(out.node->address, "127.0.1.1:7001");  // the local master now
  const CandidateSet *set = r.Current()->SetForSlot(slot);
  EXPECT_EQ(set->list.back().node->address, "127.0.1.2:7002");  // still there, last
  EXPECT_NE(r.Current()->Explain(slot).find("lagging"), std::string::npos);
  const uint64_t marked = r.Current()->generation;
  EXPECT_GT(marked, gen);
  ASSERT_TRUE(r.SetReplicaLagging("127.0.1.2", 7002, true).ok());  // no change: no rebuild
  EXPECT_EQ(r.Current()->generation, marked);
  // A master is never demoted by the mark.
  ASSERT_TRUE(r.SetReplicaLagging("127.0.1.1", 7001, true).ok());
  ASSERT_EQ(r.RouteRead(k0.data(), k0.size(), &out), Code::kOk);
  EXPECT_EQ(out.node->address, "127.0.1.1:7001");
  ASSERT_TRUE(r.SetReplicaLagging("127.0.1.2", 7002, false).ok());
  ASSERT_EQ(r.RouteRead(k0.data(), k0.size(), &out), Code::kOk);
  EXPECT_EQ(out.node->address, "127.0.1.2:7002");
  EXPECT_EQ(r.SetReplicaLagging("", 1, true).code(), Code::kInvalid);
}

// Mid-migration the source's replicas answer nil for moved keys: reads of a
// migrating slot go to its master until MOVED, a clean scan, or the TTL.
TEST(Router, MigratingSlotReadsGoToTheMaster) {
  g_now = 1;
  Router r(Cfg(Policy::kLocalReplicasFirst), &FakeNow);
  ASSERT_TRUE(r.Update(Topo(TwoShards())).ok());
  const std::string k0 = KeyForShard(0), k1 = KeyForShard(1);
  const uint16_t slot = KeySlot(k0.data(), k0.size());
  // The address a read of k goes to, or "" (and a test failure) when the
  // read does not route: out.node is only valid after kOk. (ASSERT_* cannot
  // return a value from this lambda.)
  auto read_node = [&](const std::string &k) -> std::string {
    Route out;
    const Code c = r.RouteRead(k.data(), k.size(), &out);
    EXPECT_EQ(c, Code::kOk) << k;
    return c == Code::kOk ? out.node->address : std::string();
  };
  auto old_snap = r.Current();
  const uint64_t gen = old_snap->generation;
  EXPECT_EQ(read_node(k0), "127.0.1.2:7002");  // the local replica
  EXPECT_FALSE(r.SlotMigrating(slot));

  // (a) An ASK marks the slot: reads go to the master. The first one
  // rebuilds the snapshot (the flag is in its slot table); repeats re-arm.
  ASSERT_TRUE(r.ReportAsk(slot, "127.0.2.1", 7101).ok());
  EXPECT_TRUE(r.SlotMigrating(slot));
  for (int i = 0; i < 100; ++i) EXPECT_EQ(read_node(k0), "127.0.1.1:7001");
  EXPECT_EQ(r.Current()->generation, gen + 1);
  ASSERT_TRUE(r.ReportAsk(slot, "127.0.2.1", 7101).ok());
  EXPECT_EQ(r.Current()->generation, gen + 1);
  Route out;
  ASSERT_EQ(old_snap->RouteRead(slot, &out), Code::kOk);  // a snapshot never changes
  EXPECT_EQ(out.node->address, "127.0.1.2:7002");
  EXPECT_NE(r.Current()->Explain(slot).find("migrating"), std::string::npos);
  EXPECT_EQ(read_node(k1), "127.0.1.3:7003");  // other slots are untouched
  // The slot's set is its shard's, master first, then the rest in order.
  const CandidateSet *set = r.Current()->SetForSlot(slot);
  ASSERT_EQ(set->list.size(), 3u);
  EXPECT_EQ(set->list[0].node->address, "127.0.1.1:7001");
  EXPECT_EQ(set->list[1].node->address, "127.0.1.2:7002");
  EXPECT_EQ(set->ranks().front().end, 1u);
  EXPECT_EQ(r.Current()->SetForSlot(slot + 1)->list[0].node->address, "127.0.1.2:7002");
  ASSERT_EQ(r.RouteWrite(k0.data(), k0.size(), &out), Code::kOk);
  EXPECT_EQ(out.node->address, "127.0.1.1:7001");

  // A master marked down: reads degrade to the candidates (lesson 6).
  ASSERT_TRUE(r.ReportFailure(r.registry().Find("127.0.1.1:7001")->handle).ok());
  EXPECT_EQ(read_node(k0), "127.0.1.2:7002");
  ASSERT_TRUE(r.ReportSuccess(r.registry().Find("127.0.1.1:7001")->handle).ok());
  EXPECT_EQ(read_node(k0), "127.0.1.1:7001");

  // (c) The TTL bounds a mark; every ASK re-arms it.
  g_now += 59'000'000'000;
  ASSERT_TRUE(r.ReportAsk(slot, "127.0.2.1", 7101).ok());
  g_now += 59'000'000'000;
  EXPECT_EQ(read_node(k0), "127.0.1.1:7001");
  g_now += 2'000'000'000;
  EXPECT_FALSE(r.SlotMigrating(slot));  // at once; routing at the next rebuild
  ASSERT_TRUE(r.SyncMigrating(SlotSet(), SlotSet(), g_now).ok());  // an empty refresh scan
  EXPECT_EQ(read_node(k0), "127.0.1.2:7002");
  const uint64_t expired_gen = r.Current()->generation;
  ASSERT_TRUE(r.ReportAsk(slot, "127.0.2.1", 7101).ok());  // an expired mark is no mark
  EXPECT_EQ(r.Current()->generation, expired_gen + 1);
  EXPECT_EQ(read_node(k0), "127.0.1.1:7001");
  ASSERT_TRUE(r.ReportMigrating(slot, false).ok());
  EXPECT_EQ(read_node(k0), "127.0.1.2:7002");

  // (b) A refresh scan marks; (c) a later one that no longer lists it clears
  // it, unless an ASK re-armed it after that scan began; unscanned slots keep it.
  SlotSet scanned, migrating, none;
  for (uint32_t s = 0; s < 8192; ++s) scanned.set(s);
  migrating.set(slot);
  ASSERT_TRUE(r.SyncMigrating(scanned, migrating, g_now).ok());
  EXPECT_EQ(read_node(k0), "127.0.1.1:7001");
  const int64_t scan_start = g_now;
  g_now += 10;
  ASSERT_TRUE(r.ReportAsk(slot, "127.0.2.1", 7101).ok());  // newer than the scan
  ASSERT_TRUE(r.SyncMigrating(scanned, none, scan_start).ok());
  EXPECT_TRUE(r.SlotMigrating(slot));
  ASSERT_TRUE(r.SyncMigrating(none, none, g_now + 1).ok());  // its master did not answer
  EXPECT_TRUE(r.SlotMigrating(slot));
  ASSERT_TRUE(r.SyncMigrating(scanned, none, g_now + 1).ok());
  EXPECT_FALSE(r.SlotMigrating(slot));
  EXPECT_EQ(read_node(k0), "127.0.1.2:7002");

  // (c) A MOVED clears it; explicit reports set and clear it.
  ASSERT_TRUE(r.ReportMigrating(slot, true).ok());
  EXPECT_EQ(read_node(k0), "127.0.1.1:7001");
  ASSERT_TRUE(r.ReportMigrating(slot, false).ok());
  EXPECT_EQ(read_node(k0), "127.0.1.2:7002");
  ASSERT_TRUE(r.ReportAsk(slot, "127.0.2.1", 7101).ok());
  ASSERT_TRUE(r.ReportMoved(slot, "127.0.2.1", 7101).ok());
  EXPECT_FALSE(r.SlotMigrating(slot));
  EXPECT_EQ(read_node(k0), "127.0.1.3:7003");  // the new owner's local replica

  EXPECT_EQ(r.ReportMigrating(16384, true).code(), Code::kInvalid);
  EXPECT_EQ(r.ReportAsk(16384, "127.0.2.1", 7101).status().code(), Code::kInvalid);
  EXPECT_EQ(r.ReportAsk(slot, "", 7101).status().code(), Code::kInvalid);
}

TEST(Router, ExplainNamesTierRoleHealthWeight) {
  Router r(Cfg(Policy::kLocal), &FakeNow);
  ASSERT_TRUE(r.Update(Topo(TwoShards())).ok());
  const std::string text = r.Current()->Explain(0);
  EXPECT_NE(text.find("policy local write 127.0.1.1:7001"), std::string::npos) << text;
  EXPECT_NE(text.find("1. 127.0.1.1:7001 master tier=local rank=0 weight=1 health=up"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("from=cidr 127.0.2.0/24"), std::string::npos) << text;
}

// Nodes placed by the same CIDR rule and zone share one placement; a
// different rule or zone is a placement of its own, and explain names each
// node's own.
TEST(Router, NodesOfOneRuleAndZoneShareAPlacement) {
  Router r(Cfg(Policy::kLocal), &FakeNow);
  R m1 = Node("127.0.1.1", 7001, "m1"), r1a = Node("127.0.1.2", 7002, "r1a"),
    r1b = Node("127.0.2.2", 7102, "r1b");
  R m2 = Node("127.0.2.1", 7101, "m2"), r2a = Node("127.0.1.3", 7003, "r2a"),
    r2b = Node("10.9.9.9", 7103, "r2b");
  ASSERT_TRUE(r.Update(Topo(R{R{0, 8191, m1, r1a, r1b}, R{8192, 16383, m2, r2a, r2b}})).ok());
  const auto snap = r.Current();
  ASSERT_EQ(snap->places.size(), 3u);  // local CIDR, the gcp CIDR, no rule
  const auto &nodes = snap->topology->nodes;
  ASSERT_EQ(nodes.size(), 6u);
  std::map<std::string, uint32_t> place;
  for (uint32_t i = 0; i < nodes.size(); ++i) place[nodes[i].address()] = snap->place_of[i];
  EXPECT_EQ(place["127.0.1.1:7001"], place["127.0.1.2:7002"]);
  EXPECT_EQ(place["127.0.1.1:7001"], place["127.0.1.3:7003"]);
  EXPECT_EQ(place["127.0.2.2:7102"], place["127.0.2.1:7101"]);
  EXPECT_NE(place["127.0.1.1:7001"], place["127.0.2.1:7101"]);
  EXPECT_NE(place["10.9.9.9:7103"], place["127.0.2.1:7101"]);
  EXPECT_NE(place["10.9.9.9:7103"], place["127.0.1.1:7001"]);
  EXPECT_EQ(snap->places[place["10.9.9.9:7103"]].source, "none");
  EXPECT_NE(snap->Explain(8192).find("from=none"), std::string::npos) << snap->Explain(8192);
}

// Readers route continuously while a writer swaps topologies; readers must
// always see a complete snapshot (every read lands on a node of the right
// shard of one of the two layouts) — run under ASan/TSan in CI for teeth.
// Swaps r between a and b while readers run: up to max_updates, but no longer
// than `budget` once min_updates are done (under ASan or TSan on a loaded
// machine each swap waits out readers that share two cores, and 2000 took
// minutes; there the readers spin for the whole budget, so the sanitizer
// trees, which look for memory errors and races rather than the logic, take
// fewer swaps and a shorter budget). Returns how many were done.
int SwapWhileReading(Router &r, const std::shared_ptr<const Topology> &a,
                     const std::shared_ptr<const Topology> &b, int min_updates, int max_updates,
                     std::chrono::milliseconds budget) {
  const auto until = std::chrono::steady_clock::now() + budget;
  int i = 0;
  for (; i < max_updates; ++i) {
    if (i >= min_updates && std::chrono::steady_clock::now() >= until) break;
    EXPECT_TRUE(r.Update(i % 2 ? a : b).ok());
  }
  return i;
}

TEST(Router, ReadersNeverSeeAHalfBuiltSnapshot) {
  Router r(Cfg(Policy::kLocal));
  auto a = Topo(TwoShards()), b = Topo(TwoShards(true));
  ASSERT_TRUE(r.Update(a).ok());
  std::atomic<bool> stop{false};
  std::atomic<long> reads{0}, bad{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 3; ++t) {
    readers.emplace_back([&, t] {
      std::string key = "key" + std::to_string(t);
      while (!stop.load()) {
        for (int i = 0; i < 1000; ++i) {
          key.back() = static_cast<char>('0' + i % 10);
          Route out;
          if (r.RouteRead(key.data(), key.size(), &out) != Code::kOk) {
            ++bad;  // and out.node is not valid
            continue;
          }
          const bool shard0 = KeySlot(key.data(), key.size()) < 8192;
          const std::string &addr = out.node->address;
          const bool in0 =
              addr == "127.0.1.1:7001" || addr == "127.0.1.2:7002" || addr == "127.0.2.2:7102";
          if (shard0 != in0) ++bad;
          ++reads;
        }
      }
    });
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (reads.load() == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::yield();
  const int min_swaps = crtest::Loops(100, 30);
  const int swaps = SwapWhileReading(r, a, b, min_swaps, 2000,
                                     std::chrono::milliseconds(crtest::Loops(3000, 1000)));
  stop = true;
  for (auto &t : readers) t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_GT(reads.load(), 0);
  EXPECT_GE(swaps, min_swaps);
}

// More threads than SnapshotCell has fast-path slots: the first ones read
// with plain stores (membarrier on the writer side), the rest through the
// locked fallback counters; both must hold off reclamation.
TEST(Router, MoreReaderThreadsThanFastSlots) {
  Router r(Cfg(Policy::kLocal));
  auto a = Topo(TwoShards()), b = Topo(TwoShards(true));
  ASSERT_TRUE(r.Update(a).ok());
  std::atomic<bool> stop{false};
  std::atomic<long> reads{0}, bad{0};
  std::vector<std::thread> readers;
  const int threads = static_cast<int>(SnapshotCell::kSlots) + 12;
  for (int t = 0; t < threads; ++t) {
    readers.emplace_back([&] {
      for (int i = 0; i < 200 || !stop.load(); ++i) {
        const std::string key = "k" + std::to_string(i % 50);
        Route out;
        if (r.RouteRead(key.data(), key.size(), &out) != Code::kOk) {
          ++bad;  // and out.node is not valid
          continue;
        }
        const bool shard0 = KeySlot(key.data(), key.size()) < 8192;
        const std::string &addr = out.node->address;
        const bool in0 =
            addr == "127.0.1.1:7001" || addr == "127.0.1.2:7002" || addr == "127.0.2.2:7102";
        if (shard0 != in0) ++bad;
        ++reads;
        if (i > 100000) break;  // bounded even if stop never comes
        // A read costs far more under a sanitizer or an emulator: a reader
        // preempted inside one holds the writer for a round of all these
        // threads on two cores, and the swaps took a minute. There each
        // reader yields between reads, so the writer, and readers inside a
        // read, run soon.
        if (crtest::kSlow) std::this_thread::yield();
      }
    });
  }
  const int swaps =
      SwapWhileReading(r, a, b, 20, 300, std::chrono::milliseconds(crtest::Loops(3000, 1000)));
  stop = true;
  for (auto &t : readers) t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_GE(reads.load(), 200L * threads);
  EXPECT_GE(swaps, 20);
}

// A slot is "recently moved" for a window after a MOVED to another node or
// an update naming another master for it (RecentMoves: at least
// kWindowMs, at most twice that); a MOVED to the owner it has, or a slot
// whose master stays, is not marked.
TEST(RouterRecentMoves, AMovedSlotIsRecentForAWindow) {
  g_now = 1;
  Router r(Cfg(Policy::kLocal), &FakeNow);
  ASSERT_TRUE(r.Update(Topo(TwoShards())).ok());
  EXPECT_FALSE(r.SlotRecentlyMoved(100)) << "the first install moved nothing";
  ASSERT_TRUE(r.ReportMoved(100, "127.0.1.1", 7001).ok());  // its owner already
  EXPECT_FALSE(r.SlotRecentlyMoved(100));
  ASSERT_TRUE(r.ReportMoved(100, "127.0.2.1", 7101).ok());  // shard 1's master
  EXPECT_TRUE(r.SlotRecentlyMoved(100));
  EXPECT_FALSE(r.SlotRecentlyMoved(101));
  const int64_t window_ns = int64_t{RecentMoves::kWindowMs} * 1000000;
  g_now += window_ns;
  EXPECT_TRUE(r.SlotRecentlyMoved(100)) << "forgotten before a whole window passed";
  g_now += 2 * window_ns;
  EXPECT_FALSE(r.SlotRecentlyMoved(100)) << "still recent two windows later";

  // A failover: shard 0's slots get another master, shard 1's keep theirs.
  ASSERT_TRUE(r.Update(Topo(TwoShards(true))).ok());
  EXPECT_TRUE(r.SlotRecentlyMoved(0));
  EXPECT_TRUE(r.SlotRecentlyMoved(8191));
  EXPECT_FALSE(r.SlotRecentlyMoved(8192));
  EXPECT_FALSE(r.SlotRecentlyMoved(16383));
  g_now += 3 * window_ns;
  ASSERT_TRUE(r.Update(Topo(TwoShards(true))).ok());  // the same topology again
  EXPECT_FALSE(r.SlotRecentlyMoved(0));
}

// Slot runs that start and end inside a group of four slots, and slots no
// shard serves between them: the snapshot's slot table and the moved marks
// (both filled four slots at a time inside a run) are exact at every edge.
TEST(RouterRecentMoves, RunEdgesInsideAGroupOfFourSlots) {
  g_now = 1;
  const R m1 = Node("127.0.1.1", 7001, "m1"), r1 = Node("127.0.1.2", 7002, "r1");
  const R m2 = Node("127.0.2.1", 7101, "m2");
  Router r(Cfg(Policy::kLocal), &FakeNow);
  ASSERT_TRUE(r.Update(Topo(R{R{0, 101, m1, r1}, R{105, 16382, m2}})).ok());
  const auto before = r.Current();
  for (uint16_t slot : {0, 101, 105, 16382}) EXPECT_NE(before->SetForSlot(slot), nullptr) << slot;
  for (uint16_t slot : {102, 103, 104, 16383}) EXPECT_EQ(before->SetForSlot(slot), nullptr) << slot;
  EXPECT_EQ(before->SetForSlot(101), before->SetForSlot(0));
  for (uint32_t slot = 0; slot < kSlotCount; ++slot) {  // the table against the runs
    ASSERT_EQ(before->slot_to_set[slot], before->topology->ShardOfSlot(slot)) << slot;
  }
  EXPECT_NE(before->SetForSlot(105), before->SetForSlot(101));
  // r1 promoted in the first shard, whose run now ends at 102; the second
  // shard keeps its master.
  ASSERT_TRUE(
      r.Update(Topo(R{R{0, 102, Node("127.0.1.2", 7002, "r1"), Node("127.0.1.1", 7001, "m1")},
                      R{105, 16382, m2}}))
          .ok());
  for (uint16_t slot : {0, 3, 4, 99, 100, 101}) EXPECT_TRUE(r.SlotRecentlyMoved(slot)) << slot;
  for (uint16_t slot : {102, 103, 104, 105, 106, 108, 16382, 16383}) {
    EXPECT_FALSE(r.SlotRecentlyMoved(slot)) << slot;
  }
  EXPECT_NE(r.Current()->SetForSlot(102), nullptr);
  EXPECT_EQ(r.Current()->SetForSlot(103), nullptr);
}

}  // namespace router_test
}  // namespace cloudroute
