// Sentinel shard groups: key -> group by ring, writes to the reported
// master, weighted reads with round-robin fallback, health, locality, and
// re-pointing without moving keys.
#include "cloudroute/core/shard_group.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/sanitizers.hpp"

namespace shard_group_test {

using namespace cloudroute;

std::atomic<int64_t> g_now{1000000000};
int64_t FakeNow() { return g_now.load(); }

std::shared_ptr<const Ring> NamedRing(const std::vector<std::string> &names,
                                      RingAlgo algo = RingAlgo::kJedis) {
  RingOptions o;
  o.algo = algo;
  RingBuilder b(o);
  for (const std::string &n : names) EXPECT_TRUE(b.AddShard(n.data(), n.size(), 1).ok());
  return *b.Build();
}

std::string Addr(const NodeEntry *e) { return e->address; }

struct Fixture {
  explicit Fixture(RouterConfig cfg = {}) : groups(std::move(cfg), &FakeNow) {
    for (const char *n : {"mymaster-1", "mymaster-2", "mymaster-3"})
      EXPECT_TRUE(groups.AddGroup(n).ok());
    ring = NamedRing({"mymaster-1", "mymaster-2", "mymaster-3"});
    EXPECT_TRUE(groups.SetRing(ring).ok());
    for (uint32_t g = 0; g < 3; ++g) {
      const std::string base = "10.0." + std::to_string(g + 1) + ".";
      EXPECT_TRUE(groups.SetMaster(g, base + "1", 6379).ok());
      EXPECT_TRUE(groups.SetReplicas(g, {{base + "2", 6379}, {base + "3", 6379}}).ok());
    }
  }
  ShardGroups groups;
  std::shared_ptr<const Ring> ring;
};

TEST(ShardGroups, KeysMapThroughTheRingAndWritesGoToTheMaster) {
  Fixture f;
  for (int k = 0; k < 2000; ++k) {
    const std::string key = "key:" + std::to_string(k);
    uint32_t group = 99;
    ASSERT_EQ(f.groups.Locate(key.data(), key.size(), &group), Code::kOk);
    ASSERT_EQ(group, f.ring->Locate(key.data(), key.size()));
    Route w;
    ASSERT_EQ(f.groups.RouteWrite(key.data(), key.size(), &w), Code::kOk);
    EXPECT_EQ(w.shard, group);
    EXPECT_EQ(w.role, Role::kMaster);
    EXPECT_EQ(Addr(w.node), "10.0." + std::to_string(group + 1) + ".1:6379");
  }
}

TEST(ShardGroups, RepointingAGroupMovesNoKey) {
  Fixture f;
  std::vector<uint32_t> before;
  for (int k = 0; k < 1000; ++k) {
    const std::string key = std::to_string(k);
    uint32_t g;
    ASSERT_EQ(f.groups.Locate(key.data(), key.size(), &g), Code::kOk);
    before.push_back(g);
  }
  // Sentinel fails group 1 over to another host in another cloud.
  ASSERT_TRUE(f.groups.SetMaster(1, "192.168.9.9", 7000).ok());
  ASSERT_TRUE(f.groups.SetReplicas(1, {{"10.0.2.1", 6379}}).ok());
  for (int k = 0; k < 1000; ++k) {
    const std::string key = std::to_string(k);
    uint32_t g;
    ASSERT_EQ(f.groups.Locate(key.data(), key.size(), &g), Code::kOk);
    EXPECT_EQ(g, before[static_cast<size_t>(k)]);
    if (g == 1) {
      Route w;
      ASSERT_EQ(f.groups.RouteWrite(key.data(), key.size(), &w), Code::kOk);
      EXPECT_EQ(Addr(w.node), "192.168.9.9:7000");
    }
  }
}

TEST(ShardGroups, NoRingNoMasterAndBadCalls) {
  ShardGroups groups(RouterConfig{}, &FakeNow);
  uint32_t g;
  Route r;
  EXPECT_EQ(groups.Locate("k", 1, &g), Code::kNoTopology);
  EXPECT_EQ(groups.RouteRead("k", 1, &r), Code::kNoTopology);
  ASSERT_TRUE(groups.AddGroup("a").ok());
  EXPECT_EQ(groups.AddGroup("a").status().code(), Code::kInvalid);
  EXPECT_EQ(groups.AddGroup("").status().code(), Code::kInvalid);
  EXPECT_EQ(groups.AddGroup(std::string("x\0y", 3)).status().code(), Code::kInvalid);
  EXPECT_EQ(groups.SetRing(NamedRing({"a", "b"})).code(), Code::kInvalid);  // 2 shards, 1 group
  EXPECT_EQ(groups.SetRing(nullptr).code(), Code::kInvalid);
  ASSERT_TRUE(groups.SetRing(NamedRing({"a"})).ok());
  EXPECT_EQ(groups.RouteWrite("k", 1, &r), Code::kUnavailable);  // no master yet
  EXPECT_EQ(groups.RouteRead("k", 1, &r), Code::kUnavailable);   // no instance at all
  ASSERT_TRUE(groups.SetReplicas(0, {{"10.9.9.9", 6380}}).ok());
  ASSERT_EQ(groups.RouteRead("k", 1, &r), Code::kOk);  // reads need no master
  EXPECT_EQ(r.role, Role::kReplica);
  EXPECT_EQ(groups.RouteWrite("k", 1, &r), Code::kUnavailable);  // writes never go elsewhere
  EXPECT_EQ(groups.SetMaster(5, "h", 1).code(), Code::kNotFound);
  EXPECT_EQ(groups.SetMaster(0, "h", 0).code(), Code::kInvalid);
  EXPECT_EQ(groups.SetReplicas(0, {{"", 1}}).code(), Code::kInvalid);
  EXPECT_EQ(groups.ReportFailure(12345).code(), Code::kNotFound);
  EXPECT_EQ(groups.ReportSuccess(12345).code(), Code::kNotFound);
  EXPECT_EQ(*groups.FindGroup("a"), 0u);
  EXPECT_EQ(groups.FindGroup("zz").status().code(), Code::kNotFound);
  // A group added after the ring gets no key until a new ring includes it.
  ASSERT_TRUE(groups.AddGroup("b").ok());
  EXPECT_EQ(groups.group_count(), 2u);
  for (int k = 0; k < 100; ++k) {
    const std::string key = std::to_string(k);
    ASSERT_EQ(groups.Locate(key.data(), key.size(), &g), Code::kOk);
    EXPECT_EQ(g, 0u);
  }
  // Forgetting the master.
  ASSERT_TRUE(groups.SetMaster(0, "10.1.1.1", 6379).ok());
  ASSERT_EQ(groups.RouteWrite("k", 1, &r), Code::kOk);
  ASSERT_TRUE(groups.SetMaster(0, "", 0).ok());
  EXPECT_EQ(groups.RouteWrite("k", 1, &r), Code::kUnavailable);
}

uint64_t Generation(const ShardGroups &groups) {
  SnapshotCell::Guard g = groups.cell().Read();
  return g.get()->generation;
}

// A failover as Sentinel reports it — a new master and a new replica list —
// is one change: one snapshot, never the new master beside the old replicas.
TEST(ShardGroups, SetGroupChangesMasterAndReplicasInOneSnapshot) {
  Fixture f;
  const uint64_t before = Generation(f.groups);
  ASSERT_TRUE(
      f.groups.SetGroup(1, {"10.0.2.2", 6379}, {{"10.0.2.3", 6379}, {"10.0.2.1", 6379}}).ok());
  EXPECT_EQ(Generation(f.groups), before + 1);
  std::string key;
  uint32_t g = 0;
  for (int k = 0; g != 1; ++k) {
    key = "k" + std::to_string(k);
    ASSERT_EQ(f.groups.Locate(key.data(), key.size(), &g), Code::kOk);
  }
  Route w;
  ASSERT_EQ(f.groups.RouteWrite(key.data(), key.size(), &w), Code::kOk);
  EXPECT_EQ(w.node->address, "10.0.2.2:6379");
  PolledCandidate order[8];
  size_t count = 0;
  ASSERT_EQ(f.groups.ReadOrder(key.data(), key.size(), &g, order, 8, &count), Code::kOk);
  EXPECT_EQ(count, 3u);
  // The same addresses again publish nothing; bad ones change nothing.
  ASSERT_TRUE(
      f.groups.SetGroup(1, {"10.0.2.2", 6379}, {{"10.0.2.3", 6379}, {"10.0.2.1", 6379}}).ok());
  EXPECT_EQ(f.groups.SetGroup(1, {"10.0.2.9", 0}, {}).code(), Code::kInvalid);
  EXPECT_EQ(f.groups.SetGroup(1, {"10.0.2.9", 6379}, {{"", 6379}}).code(), Code::kInvalid);
  EXPECT_EQ(f.groups.SetGroup(7, {"10.0.2.9", 6379}, {}).code(), Code::kNotFound);
  EXPECT_EQ(Generation(f.groups), before + 1);
  // An empty host forgets the master, as SetMaster's does.
  ASSERT_TRUE(f.groups.SetGroup(1, {"", 0}, {{"10.0.2.3", 6379}}).ok());
  EXPECT_EQ(f.groups.RouteWrite(key.data(), key.size(), &w), Code::kUnavailable);
}

std::map<std::string, int> ReadCounts(ShardGroups &groups, const std::string &key, int n) {
  std::map<std::string, int> counts;
  for (int i = 0; i < n; ++i) {
    Route r;
    const Code c = groups.RouteRead(key.data(), key.size(), &r);
    EXPECT_EQ(c, Code::kOk) << key;
    ++counts[c == Code::kOk ? Addr(r.node) : "(no route)"];  // r.node is only valid after kOk
  }
  return counts;
}

TEST(ShardGroups, ReadsAreUniformWithoutWeights) {
  Fixture f;
  const std::string key = "some-key";
  uint32_t g;
  ASSERT_EQ(f.groups.Locate(key.data(), key.size(), &g), Code::kOk);
  auto counts = ReadCounts(f.groups, key, 30000);
  ASSERT_EQ(counts.size(), 3u);  // master and both replicas
  for (const auto &c : counts) EXPECT_NEAR(c.second, 10000, 600) << c.first;
}

TEST(ShardGroups, ReadsFollowWeights) {
  RouterConfig cfg;
  cfg.weights["10.0.1.1:6379"] = 1;
  cfg.weights["10.0.1.2:6379"] = 3;
  cfg.weights["10.0.1.3:6379"] = 0;  // only polled when the others fail
  cfg.seed = 7;
  Fixture f(cfg);
  std::string key;
  for (int k = 0;; ++k) {  // a key of group 0
    key = "k" + std::to_string(k);
    uint32_t g;
    ASSERT_EQ(f.groups.Locate(key.data(), key.size(), &g), Code::kOk);
    if (g == 0) break;
  }
  auto counts = ReadCounts(f.groups, key, 40000);
  EXPECT_NEAR(counts["10.0.1.1:6379"], 10000, 700);
  EXPECT_NEAR(counts["10.0.1.2:6379"], 30000, 700);
  EXPECT_EQ(counts.count("10.0.1.3:6379"), 0u);
}

TEST(ShardGroups, FailedInstancesAreSkippedAndPolledRoundRobin) {
  RouterConfig cfg;
  cfg.health.failure_threshold = 2;
  cfg.health.cooldown_ms = 1000;
  Fixture f(cfg);
  std::string key;
  for (int k = 0;; ++k) {
    key = "k" + std::to_string(k);
    uint32_t g;
    ASSERT_EQ(f.groups.Locate(key.data(), key.size(), &g), Code::kOk);
    if (g == 2) break;
  }
  // The read order is a rotation of the group's instances (one rank: no
  // locality), starting at the weighted pick.
  const std::vector<std::string> sorted = {"10.0.3.1:6379", "10.0.3.2:6379", "10.0.3.3:6379"};
  std::set<std::string> starts;
  for (int i = 0; i < 300; ++i) {
    PolledCandidate order[8];
    size_t count = 0;
    uint32_t group = 0;
    ASSERT_EQ(f.groups.ReadOrder(key.data(), key.size(), &group, order, 8, &count), Code::kOk);
    ASSERT_EQ(count, 3u);
    EXPECT_EQ(group, 2u);
    size_t start = 0;
    while (sorted[start] != order[0].c.node->address) ++start;
    for (size_t j = 0; j < 3; ++j) {
      EXPECT_EQ(order[j].c.node->address, sorted[(start + j) % 3]);
      EXPECT_FALSE(order[j].down);
    }
    starts.insert(order[0].c.node->address);
  }
  EXPECT_EQ(starts.size(), 3u);

  // Two failures open 10.0.3.2's breaker: reads skip it, the read order
  // lists it last and down.
  NodeEntry *bad = f.groups.registry().Find("10.0.3.2:6379");
  ASSERT_NE(bad, nullptr);
  ASSERT_TRUE(f.groups.ReportFailure(bad->handle).ok());
  ASSERT_TRUE(f.groups.ReportFailure(bad->handle).ok());
  auto counts = ReadCounts(f.groups, key, 3000);
  EXPECT_EQ(counts.count("10.0.3.2:6379"), 0u);
  EXPECT_EQ(counts.size(), 2u);
  for (int i = 0; i < 50; ++i) {
    PolledCandidate order[3];
    size_t count = 0;
    uint32_t group = 0;
    ASSERT_EQ(f.groups.ReadOrder(key.data(), key.size(), &group, order, 3, &count), Code::kOk);
    ASSERT_EQ(count, 3u);
    EXPECT_EQ(order[2].c.node->address, "10.0.3.2:6379");
    EXPECT_TRUE(order[2].down);
    EXPECT_FALSE(order[0].down);
    EXPECT_FALSE(order[1].down);
  }
  // Everything down: reads fail, writes still name the master.
  for (const char *a : {"10.0.3.1:6379", "10.0.3.3:6379"}) {
    NodeEntry *e = f.groups.registry().Find(a);
    ASSERT_TRUE(f.groups.ReportFailure(e->handle).ok());
    ASSERT_TRUE(f.groups.ReportFailure(e->handle).ok());
  }
  Route r;
  EXPECT_EQ(f.groups.RouteRead(key.data(), key.size(), &r), Code::kUnavailable);
  EXPECT_EQ(f.groups.RouteWrite(key.data(), key.size(), &r), Code::kOk);
  // After the cool-down one probe is let through; a success closes the breaker.
  g_now += 2000000000;
  ASSERT_EQ(f.groups.RouteRead(key.data(), key.size(), &r), Code::kOk);
  ASSERT_TRUE(f.groups.ReportSuccess(r.node->handle).ok());
  ASSERT_EQ(f.groups.RouteRead(key.data(), key.size(), &r), Code::kOk);
  // A short buffer still reports the full count.
  PolledCandidate one[1];
  size_t count = 0;
  uint32_t group = 0;
  ASSERT_EQ(f.groups.ReadOrder(key.data(), key.size(), &group, one, 1, &count), Code::kOk);
  EXPECT_EQ(count, 3u);
}

TEST(ShardGroups, LocalInstancesFirst) {
  RouterConfig cfg;
  cfg.locality.client = *ParseLocation("gcp/us-central1/b");
  cfg.locality.rules.push_back(LocationRule{*Cidr::Parse("10.0.1.3/32"), Location{}, true});
  cfg.locality.rules.push_back(
      LocationRule{*Cidr::Parse("10.0.1.0/24"), *ParseLocation("aws/us-east-1/a"), false});
  Fixture f(cfg);
  std::string key;
  for (int k = 0;; ++k) {
    key = "k" + std::to_string(k);
    uint32_t g;
    ASSERT_EQ(f.groups.Locate(key.data(), key.size(), &g), Code::kOk);
    if (g == 0) break;
  }
  auto counts = ReadCounts(f.groups, key, 500);
  ASSERT_EQ(counts.size(), 1u);
  EXPECT_EQ(counts["10.0.1.3:6379"], 500);  // the local replica, while it is up
  PolledCandidate order[4];
  size_t count = 0;
  uint32_t group = 0;
  ASSERT_EQ(f.groups.ReadOrder(key.data(), key.size(), &group, order, 4, &count), Code::kOk);
  ASSERT_EQ(count, 3u);
  EXPECT_EQ(order[0].c.node->address, "10.0.1.3:6379");
  EXPECT_EQ(order[0].c.tier, Tier::kLocal);
  EXPECT_EQ(order[0].c.rank, 0u);
  EXPECT_EQ(order[1].c.tier, Tier::kOtherCloud);
  EXPECT_EQ(order[1].c.rank, 1u);
  // The local one fails: reads fall back to the remote tier.
  NodeEntry *local = f.groups.registry().Find("10.0.1.3:6379");
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(f.groups.ReportFailure(local->handle).ok());
  counts = ReadCounts(f.groups, key, 200);
  EXPECT_EQ(counts.count("10.0.1.3:6379"), 0u);
}

TEST(ShardGroups, ReplicaListsAreCleaned) {
  Fixture f;
  // A promoted replica still listed beside itself as master, and a repeat.
  ASSERT_TRUE(f.groups.SetMaster(0, "10.0.1.2", 6379).ok());
  ASSERT_TRUE(
      f.groups.SetReplicas(0, {{"10.0.1.2", 6379}, {"10.0.1.1", 6379}, {"10.0.1.1", 6379}}).ok());
  std::string key;
  for (int k = 0;; ++k) {
    key = "k" + std::to_string(k);
    uint32_t g;
    ASSERT_EQ(f.groups.Locate(key.data(), key.size(), &g), Code::kOk);
    if (g == 0) break;
  }
  PolledCandidate order[8];
  size_t count = 0;
  uint32_t group = 0;
  ASSERT_EQ(f.groups.ReadOrder(key.data(), key.size(), &group, order, 8, &count), Code::kOk);
  EXPECT_EQ(count, 2u);
}

TEST(ShardGroups, ModuloRing) {
  ShardGroups groups(RouterConfig{}, &FakeNow);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(groups.AddGroup("g" + std::to_string(i)).ok());
  RingOptions o;
  o.algo = RingAlgo::kModulo;
  RingBuilder b(o);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(b.AddShard(nullptr, 0, 1).ok());
  auto ring = *b.Build();
  ASSERT_TRUE(groups.SetRing(ring).ok());
  for (int k = 0; k < 100; ++k) {
    const std::string key = std::to_string(k);
    uint32_t g;
    ASSERT_EQ(groups.Locate(key.data(), key.size(), &g), Code::kOk);
    EXPECT_EQ(g,
              static_cast<uint64_t>(JedisHashOf(JedisHash::kMurmur, key.data(), key.size())) % 4);
  }
}

// Under a sanitizer or an emulator a read costs far more, and a reader
// preempted inside one holds the writer (SnapshotCell::Publish waits it out)
// until the two cores come round to it again: there the readers below yield
// between reads, so each change takes milliseconds, not a scheduler round.
void YieldIfSlow() {
  if (crtest::kSlow) std::this_thread::yield();
}

// Readers never see a half-applied change while Sentinel flips masters.
TEST(ShardGroups, ConcurrentRoutingDuringFailovers) {
  // Standalone (the C API's cr_shard_groups): the readers below keep a
  // route's node after the read, which only a table that never reclaims
  // allows (instance 1 leaves the group each time 2 is master).
  RouterConfig cfg;
  cfg.reclaim_nodes = false;
  Fixture f(cfg);
  std::atomic<bool> stop{false};
  std::atomic<long> routed{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 3; ++t) {
    readers.emplace_back([&, t] {
      long n = 0;
      while (!stop.load()) {
        const std::string key = std::to_string(n++ * 3 + t);
        Route r;
        if (f.groups.RouteWrite(key.data(), key.size(), &r) == Code::kOk) {
          const std::string a = Addr(r.node);
          const std::string base = "10.0." + std::to_string(r.shard + 1) + ".";
          if (a != base + "1:6379" && a != base + "2:6379") ADD_FAILURE() << a;
        }
        ASSERT_EQ(f.groups.RouteRead(key.data(), key.size(), &r), Code::kOk);
        routed.fetch_add(1);
        YieldIfSlow();
      }
    });
  }
  // Start flipping only once readers run (bounded), so the race is real.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (routed.load() == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::yield();
  for (int i = 0; i < 300; ++i) {
    const uint32_t g = static_cast<uint32_t>(i % 3);
    const std::string base = "10.0." + std::to_string(g + 1) + ".";
    ASSERT_TRUE(f.groups.SetMaster(g, base + (i % 2 ? "2" : "1"), 6379).ok());
  }
  stop = true;
  for (auto &t : readers) t.join();
  EXPECT_GT(routed.load(), 0);
}

// A live client's table (reclaim_nodes): an instance gone from the groups
// for two changes, held in no snapshot, loses its registry entry; its
// handle is refused, never applied to the address that reuses its slot.
TEST(ShardGroups, InstancesGoneForTwoChangesAreReclaimed) {
  ShardGroups groups(RouterConfig{}, &FakeNow);
  ASSERT_TRUE(groups.AddGroup("g").ok());
  ASSERT_TRUE(groups.SetRing(NamedRing({"g"})).ok());
  ASSERT_TRUE(groups.SetMaster(0, "10.0.0.1", 6379).ok());
  auto replica = [](int n) {
    return GroupAddress{"10.1." + std::to_string(n / 250) + "." + std::to_string(n % 250), 6379};
  };
  auto handle = [&](int n, uint32_t *out) {
    return groups.registry().FindHandle(replica(n).host + ":6379", out);
  };
  ASSERT_TRUE(groups.SetReplicas(0, {replica(0)}).ok());
  uint32_t first = 0;
  ASSERT_TRUE(handle(0, &first));
  // One change after it left, the previous snapshot's instances stay.
  ASSERT_TRUE(groups.SetReplicas(0, {replica(1)}).ok());
  EXPECT_TRUE(groups.ReportFailure(first).ok());
  // A snapshot someone holds keeps its instances however many changes pass.
  uint32_t second = 0;
  ASSERT_TRUE(handle(1, &second));
  std::shared_ptr<const Snapshot> held = groups.cell().Acquire();
  ASSERT_TRUE(groups.SetReplicas(0, {replica(2)}).ok());
  ASSERT_TRUE(groups.SetReplicas(0, {replica(3)}).ok());
  EXPECT_EQ(groups.ReportFailure(first).code(), Code::kNotFound);
  EXPECT_NE(groups.ReportFailure(first).message().find("reclaimed"), std::string::npos);
  EXPECT_TRUE(groups.ReportSuccess(second).ok()) << "replica 1 is in a held snapshot";
  held.reset();
  ASSERT_TRUE(groups.SetReplicas(0, {replica(4)}).ok());
  EXPECT_EQ(groups.ReportSuccess(second).code(), Code::kNotFound);
  // Thousands of addresses: the registry stays at the live instances plus
  // the free slots held back before reuse.
  uint32_t max_size = 0;
  for (int n = 5; n < 3000; ++n) {
    ASSERT_TRUE(groups.SetReplicas(0, {replica(n)}).ok());
    max_size = std::max(max_size, groups.registry().size());
  }
  EXPECT_LE(max_size, NodeRegistry::kReuseAfter + 8);
  EXPECT_LE(groups.registry().live(), 3u);  // the master, the replica and the previous one
  EXPECT_EQ(groups.ReportFailure(first).code(), Code::kNotFound);
  Route r;
  ASSERT_EQ(groups.RouteWrite("k", 1, &r), Code::kOk);
  EXPECT_EQ(Addr(r.node), "10.0.0.1:6379");
}

// The C API's standalone table (reclaim_nodes off) keeps every instance's
// entry and handle for its lifetime.
TEST(ShardGroups, AStandaloneTableKeepsEveryHandle) {
  RouterConfig cfg;
  cfg.reclaim_nodes = false;
  ShardGroups groups(cfg, &FakeNow);
  ASSERT_TRUE(groups.AddGroup("g").ok());
  ASSERT_TRUE(groups.SetMaster(0, "10.0.0.1", 6379).ok());
  ASSERT_TRUE(groups.SetReplicas(0, {{"10.1.0.0", 6379}}).ok());
  uint32_t first = 0;
  ASSERT_TRUE(groups.registry().FindHandle("10.1.0.0:6379", &first));
  for (int n = 1; n <= 50; ++n) {
    ASSERT_TRUE(groups.SetReplicas(0, {{"10.1.1." + std::to_string(n), 6379}}).ok());
  }
  EXPECT_TRUE(groups.ReportFailure(first).ok());
  EXPECT_EQ(groups.registry().live(), 52u);
}

// Routing inside the snapshot (as the net layer does) and feedback by
// handle on other threads while instances churn through new addresses:
// every route names a live instance of its snapshot (TSan: no entry is
// reclaimed under a reader).
TEST(ShardGroups, ReadersAndFeedbackDuringChurnSeeOnlyLiveInstances) {
  ShardGroups groups(RouterConfig{}, &FakeNow);
  ASSERT_TRUE(groups.AddGroup("g").ok());
  ASSERT_TRUE(groups.SetRing(NamedRing({"g"})).ok());
  ASSERT_TRUE(groups.SetMaster(0, "10.0.0.1", 6379).ok());
  std::atomic<bool> stop{false};
  std::atomic<uint32_t> last_handle{0};
  std::atomic<long> routed{0}, bad{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&] {
      while (!stop.load()) {
        uint32_t group = 0;
        groups.VisitReadOrder("k", 1, &group, [&](const Candidate &c, bool) {
          const std::string a = c.node->address;  // inside the read: pinned
          if (a.rfind("10.", 0) != 0) bad.fetch_add(1);
          last_handle.store(c.node->handle.load(), std::memory_order_relaxed);
        });
        routed.fetch_add(1);
        YieldIfSlow();
      }
    });
  }
  threads.emplace_back([&] {
    while (!stop.load()) {
      const Status s = groups.ReportFailure(last_handle.load(std::memory_order_relaxed));
      if (!s.ok() && s.code() != Code::kNotFound) bad.fetch_add(1);
      (void)groups.ReportSuccess(last_handle.load(std::memory_order_relaxed));
      YieldIfSlow();
    }
  });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (routed.load() == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::yield();
  // Reclaims from the third change on, reuses slots from ~1027 on: a
  // sanitizer tree stops at 1100.
  const int changes = crtest::Loops(2000, 1100);
  for (int n = 0; n < changes; ++n) {
    ASSERT_TRUE(
        groups
            .SetReplicas(
                0, {{"10.1." + std::to_string(n / 250) + "." + std::to_string(n % 250), 6379}})
            .ok());
  }
  stop = true;
  for (auto &t : threads) t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_GT(routed.load(), 0);
  EXPECT_LE(groups.registry().size(), NodeRegistry::kReuseAfter + 8);
  EXPECT_GT(groups.registry().size(), NodeRegistry::kReuseAfter);
}

// A live client's table: RouteWrite / RouteRead with a fill copy the
// instance's address while the snapshot is read, however fast the groups
// change (TSan: no entry is reclaimed under the copy).
TEST(ShardGroups, RouteFillCopiesTheInstanceWhileItIsPinned) {
  ShardGroups groups(RouterConfig{}, &FakeNow);
  ASSERT_TRUE(groups.AddGroup("g").ok());
  ASSERT_TRUE(groups.SetRing(NamedRing({"g"})).ok());
  ASSERT_TRUE(groups.SetMaster(0, "10.0.0.1", 6379).ok());
  std::atomic<bool> stop{false};
  std::atomic<long> routed{0}, bad{0};
  const ShardGroups::RouteFill copy = [](const Route &r, void *ctx) {
    *static_cast<std::string *>(ctx) = r.node->address;
  };
  std::vector<std::thread> readers;
  for (int t = 0; t < 2; ++t) {
    readers.emplace_back([&, t] {
      std::string address;
      while (!stop.load()) {
        Route r;
        const Code c = t == 0 ? groups.RouteWrite("k", 1, &r, copy, &address)
                              : groups.RouteRead("k", 1, &r, copy, &address);
        if (c != Code::kOk || address.rfind("10.", 0) != 0) bad.fetch_add(1);
        routed.fetch_add(1);
        YieldIfSlow();
      }
    });
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (routed.load() == 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::yield();
  // Master and replicas change one after the other, as a Sentinel failover
  // applies them: two changes each round (200 rounds under a sanitizer: each
  // reclaims the round before last's instances).
  const int rounds = crtest::Loops(1000, 200);
  for (int n = 0; n < rounds; ++n) {
    const std::string a = "10.1." + std::to_string(n / 250) + "." + std::to_string(n % 250);
    ASSERT_TRUE(groups.SetMaster(0, a, 6379).ok());
    ASSERT_TRUE(groups.SetReplicas(0, {{a, 6380}}).ok());
  }
  stop = true;
  for (auto &t : readers) t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_GT(routed.load(), 0);
}

}  // namespace shard_group_test
