// The live client reclaims the registry entries of nodes that left the
// topology, and their pools (net/node_pools.hpp), safely: a scripted server
// on 127.0.0.1 (tests/net/fake_server.hpp) is the master of every slot and
// announces, on each CLUSTER SLOTS, a replica at a new address where nothing
// listens (127.0.9.x: refused at once). Under prefer-replica every read dials
// that replica first, so each address gets a pool, fails over to the master
// and must read the master's value. Asserted: registry and pools stay
// bounded over thousands of addresses (slots of the registry are reused:
// the new node gets a new handle and a new pool, never the old one's);
// a reclaimed node's handle is refused; reads, pipelines to a named node,
// node commands and node statistics on other threads during the churn
// (the TSan run, label tsan) all succeed. The same for the pre-sharded
// client, whose ShardGroups table reclaims as the router does: its one
// server keeps a replica that moves to a new address on every SetServers;
// and for the Sentinel client, whose (scripted) sentinel lists a replica at
// a new address on every ask.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "cloudroute/core/ring.hpp"
#include "cloudroute/net/client.hpp"
#include "cloudroute/net/pipeline.hpp"
#include "cloudroute/net/sentinel.hpp"
#include "cloudroute/net/sharded.hpp"
#include "common/sanitizers.hpp"
#include "fake_server.hpp"

namespace cloudroute {
namespace net {
namespace live_reclaim_test {

using fake::Bulk;

// Replica n's address: 127.0.9.(1..250), then the next port.
std::string ReplicaHost(int n) { return "127.0.9." + std::to_string(1 + n % 250); }
uint16_t ReplicaPort(int n) { return static_cast<uint16_t>(21000 + n / 250); }

class LiveReclaim : public ::testing::Test {
 protected:
  LiveReclaim() : server_(fake::ClusterNode([this] { return Slots(replica_.load()); })) {}

  // CLUSTER SLOTS: every slot on the master (this server), replica n.
  std::string Slots(int n) const {
    const std::string id = std::to_string(n);
    return "*1\r\n*4\r\n:0\r\n:16383\r\n*3\r\n" + Bulk("127.0.0.1") + ":" +
           std::to_string(server_.port()) + "\r\n" + Bulk(std::string(40, 'a')) + "*3\r\n" +
           Bulk(ReplicaHost(n)) + ":" + std::to_string(ReplicaPort(n)) + "\r\n" +
           Bulk(std::string(40 - id.size(), 'b') + id);
  }

  std::unique_ptr<Client> NewClient() {
    RouterConfig rc;
    rc.policy = Policy::kPreferReplica;
    router_ = std::make_unique<Router>(rc);
    ClientOptions o;
    o.refresh_interval_ms = 0;
    for (uint32_t &t : o.timeout_ms) t = 2000;
    o.conn.connect_timeout_ms = 2000;
    auto c = Client::Create(router_.get(), {Seed{"127.0.0.1", server_.port()}}, o);
    EXPECT_TRUE(c.ok()) << c.status().message();
    return c.ok() ? std::move(*c) : nullptr;
  }

  // Moves the replica to address n and refreshes.
  void MoveReplica(Client *c, int n) {
    replica_ = n;
    const Status s = c->Refresh();
    ASSERT_TRUE(s.ok()) << s.message();
  }

  std::atomic<int> replica_{0};
  FakeServer server_;
  std::unique_ptr<Router> router_;
};

TEST_F(LiveReclaim, RegistryAndPoolsStayBoundedOverManyAddresses) {
  std::unique_ptr<Client> c = NewClient();
  ASSERT_NE(c, nullptr);
  const std::string master = "127.0.0.1:" + std::to_string(server_.port());
  uint32_t first = 0;
  ASSERT_TRUE(c->router().registry().FindHandle(
      ReplicaHost(0) + ":" + std::to_string(ReplicaPort(0)), &first));
  // Past NodeRegistry::kReuseAfter: slots are reused (from address ~1028 on;
  // under a sanitizer, where each refresh rebuilds the slot table at -O0,
  // 1100 of them).
  constexpr int kAddresses = crtest::Loops(1500, 1100);
  uint32_t max_size = 0;
  size_t max_pools = 0;
  for (int n = 1; n <= kAddresses; ++n) {
    MoveReplica(c.get(), n);
    if (HasFatalFailure()) return;
    auto r = c->Get("k");
    ASSERT_TRUE(r.ok()) << "address " << n << ": " << r.status().message();
    ASSERT_EQ((*r)->str, "v");
    // Every pool belongs to a node of the current or the previous topology.
    const std::vector<NodeStatsValues> stats = c->node_stats();
    max_pools = std::max(max_pools, stats.size());
    for (const NodeStatsValues &v : stats) {
      const std::string cur = ReplicaHost(n) + ":" + std::to_string(ReplicaPort(n));
      const std::string prev = ReplicaHost(n - 1) + ":" + std::to_string(ReplicaPort(n - 1));
      const std::string before = ReplicaHost(n - 2) + ":" + std::to_string(ReplicaPort(n - 2));
      ASSERT_TRUE(v.node->address == master || v.node->address == cur || v.node->address == prev ||
                  v.node->address == before)
          << "address " << n << ": a pool of " << v.node->address;
    }
    max_size = std::max(max_size, c->router().registry().size());
  }
  std::printf("LIVE_RECLAIM addresses=%d registry_slots=%u live=%zu max_pools=%zu\n", kAddresses,
              max_size, c->router().registry().live(), max_pools);
  // The master, the current and the previous replica, and the free slots
  // held back before reuse (NodeRegistry::kReuseAfter + 1).
  EXPECT_LE(max_size, NodeRegistry::kReuseAfter + 8);
  EXPECT_GT(max_size, NodeRegistry::kReuseAfter) << "the churn ended before slots were reused";
  EXPECT_LE(c->router().registry().live(), 3u);
  EXPECT_LE(max_pools, 4u);
  // The first replica's handle names nothing now: feedback by it is refused.
  EXPECT_EQ(c->router().registry().Get(first), nullptr);
  EXPECT_EQ(c->router().ReportFailure(first).code(), Code::kNotFound);
}

TEST_F(LiveReclaim, RequestsOnOtherThreadsDuringChurnSucceed) {
  std::unique_ptr<Client> c = NewClient();
  ASSERT_NE(c, nullptr);
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> ok{0}, failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([&] {
      while (!stop) {
        auto r = c->Get("k");
        (r.ok() && (*r)->str == "v" ? ok : failed).fetch_add(1);
      }
    });
  }
  threads.emplace_back([&] {
    while (!stop) {
      Pipeline p(c.get());
      if (!p.AddForNode(Access::kRead, "127.0.0.1", server_.port(), {"PING"}).ok()) {
        failed.fetch_add(1);
        continue;
      }
      p.Add(Access::kRead, 1, {"GET", "k"});
      std::vector<Job> jobs = p.Execute();
      const bool good = jobs.size() == 2 && jobs[0].reply != nullptr &&
                        jobs[0].reply->str == "PONG" && jobs[1].reply != nullptr &&
                        jobs[1].reply->str == "v";
      (good ? ok : failed).fetch_add(1);
      // Every node of the topology: the master answers, the replica refuses.
      auto all = c->ExecuteOnNodes(NodeTarget::kAllNodes, "", {"PING"});
      if (!all.ok() || all->empty()) failed.fetch_add(1);
      for (const NodeStatsValues &v : c->node_stats()) {
        if (v.node == nullptr || v.node->address.empty()) failed.fetch_add(1);
      }
    }
  });
  // Reclaimed from the second move on; a sanitizer needs fewer rounds.
  const int moves = crtest::Loops(600, 150);
  for (int n = 1; n <= moves && !HasFatalFailure(); ++n) MoveReplica(c.get(), n);
  stop = true;
  for (std::thread &t : threads) t.join();
  EXPECT_EQ(failed.load(), 0u);
  EXPECT_GT(ok.load(), 0u);
}

// A shard-group client (pre-sharded or Sentinel) whose replica moves to
// address n at move(n), through `addresses` addresses: after each move a
// read answers "v" and every node with statistics is the master or one of
// the last three replicas; then the registry's slots, its live entries and
// the client's pools must be bounded (pools: the sweeps after each change).
template <typename C>
void ChurnWithinBounds(const char *label, C *c, ShardGroups *groups, const std::string &master,
                       int addresses, const std::function<Status(int)> &move) {
  uint32_t max_size = 0;
  size_t max_pools = 0;
  for (int n = 1; n <= addresses; ++n) {
    const Status s = move(n);
    ASSERT_TRUE(s.ok()) << "address " << n << ": " << s.message();
    auto r = c->Execute(Access::kRead, "k", {"GET", "k"});
    ASSERT_TRUE(r.ok()) << "address " << n << ": " << r.status().message();
    ASSERT_EQ((*r)->str, "v");
    max_pools = std::max(max_pools, c->pool_count());
    for (const NodeStatsValues &v : c->node_stats()) {
      bool known = v.node->address == master;
      for (int k = n - 2; k <= n && !known; ++k) {
        known = k >= 0 && v.node->address == ReplicaHost(k) + ":" + std::to_string(ReplicaPort(k));
      }
      ASSERT_TRUE(known) << "address " << n << ": a pool of " << v.node->address;
    }
    max_size = std::max(max_size, groups->registry().size());
  }
  std::printf("%s addresses=%d registry_slots=%u live=%zu max_pools=%zu\n", label, addresses,
              max_size, groups->registry().live(), max_pools);
  EXPECT_LE(max_size, NodeRegistry::kReuseAfter + 8);
  EXPECT_LE(groups->registry().live(), 3u);
  EXPECT_LE(max_pools, 4u);
}

class ShardedReclaim : public ::testing::Test {
 protected:
  // A standalone server: GET answers "v", PING +PONG (fake::ClusterNode).
  ShardedReclaim()
      : server_(fake::ClusterNode([] { return std::string("-ERR no cluster\r\n"); })) {}

  std::string Master() const { return "127.0.0.1:" + std::to_string(server_.port()); }
  std::vector<GroupInstances> Servers(int n) const {
    return {GroupInstances{{"127.0.0.1", server_.port()}, {{ReplicaHost(n), ReplicaPort(n)}}}};
  }

  std::unique_ptr<ShardedClient> NewClient() {
    RouterConfig rc;
    rc.weights[Master()] = 0;  // the master last: every read dials the replica first
    groups_ = std::make_unique<ShardGroups>(rc);
    RingBuilder b(RingOptions{});
    EXPECT_TRUE(b.AddShard("s", 1, 1).ok());
    auto ring = b.Build();
    EXPECT_TRUE(ring.ok());
    EXPECT_TRUE(AddRingGroups(groups_.get(), *ring).ok());
    ClientOptions o;
    for (uint32_t &t : o.timeout_ms) t = 2000;
    o.conn.connect_timeout_ms = 2000;
    auto c = ShardedClient::Create(groups_.get(), Servers(0), o);
    EXPECT_TRUE(c.ok()) << c.status().message();
    return c.ok() ? std::move(*c) : nullptr;
  }

  FakeServer server_;
  std::unique_ptr<ShardGroups> groups_;
};

TEST_F(ShardedReclaim, RegistryAndPoolsStayBoundedOverManyAddresses) {
  std::unique_ptr<ShardedClient> c = NewClient();
  ASSERT_NE(c, nullptr);
  auto r = c->Execute(Access::kRead, "k", {"GET", "k"});
  ASSERT_TRUE(r.ok()) << r.status().message();
  uint32_t first = 0;
  ASSERT_TRUE(groups_->registry().FindHandle(ReplicaHost(0) + ":" + std::to_string(ReplicaPort(0)),
                                             &first));
  // Past NodeRegistry::kReuseAfter: slots are reused.
  ChurnWithinBounds("SHARDED_RECLAIM", c.get(), groups_.get(), Master(), 1500,
                    [&](int n) { return c->SetServers(Servers(n)); });
  EXPECT_EQ(groups_->registry().Get(first), nullptr);
  EXPECT_EQ(groups_->ReportFailure(first).code(), Code::kNotFound);
}

TEST_F(ShardedReclaim, RequestsOnOtherThreadsDuringChurnSucceed) {
  std::unique_ptr<ShardedClient> c = NewClient();
  ASSERT_NE(c, nullptr);
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> ok{0}, failed{0};
  std::vector<std::thread> threads;
  threads.emplace_back([&] {
    while (!stop) {
      auto r = c->Execute(Access::kRead, "k", {"GET", "k"});
      (r.ok() && (*r)->str == "v" ? ok : failed).fetch_add(1);
    }
  });
  threads.emplace_back([&] {
    while (!stop) {
      auto m = c->MGet({"a", "b", "c"});
      const bool good = m.ok() && (*m)->elements.size() == 3 && (*m)->elements[2]->str == "v";
      (good ? ok : failed).fetch_add(1);
    }
  });
  threads.emplace_back([&] {
    while (!stop) {
      // Every instance: the server answers, the moving replica refuses.
      auto all = c->ExecuteOnNodes(NodeTarget::kAllNodes, "", {"PING"});
      if (!all.ok() || all->empty()) failed.fetch_add(1);
      for (const NodeStatsValues &v : c->node_stats()) {
        if (v.node == nullptr || v.node->address.empty()) failed.fetch_add(1);
      }
    }
  });
  // A change every millisecond (a refresh takes a round trip; back to back
  // changes would give a batch's every round a new replica to try first).
  const int changes = crtest::Loops(600, 150);
  for (int n = 1; n <= changes; ++n) {
    const Status s = c->SetServers(Servers(n));
    ASSERT_TRUE(s.ok()) << s.message();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  stop = true;
  for (std::thread &t : threads) t.join();
  EXPECT_EQ(failed.load(), 0u);
  EXPECT_GT(ok.load(), 0u);
  EXPECT_LE(groups_->registry().size(), NodeRegistry::kReuseAfter + 8);
}

// A sentinel that monitors one master, "g" (the data server), and lists one
// replica, at address replica_ (127.0.9.x: nothing listens there).
class SentinelReclaim : public ::testing::Test {
 protected:
  SentinelReclaim()
      : data_(fake::ClusterNode([] { return std::string("-ERR no cluster\r\n"); })),
        sentinel_([this](const std::string &req) { return Answer(req); }) {}

  std::string Answer(const std::string &req) {
    size_t used = 0;
    std::string out;
    for (const auto &argv : fake::Commands(req, &used)) {
      const std::string sub = argv.size() > 1 ? argv[1] : "";
      if (argv[0] == "SUBSCRIBE") {
        for (size_t i = 1; i < argv.size(); ++i) {
          out += "*3\r\n" + Bulk("subscribe") + Bulk(argv[i]) + ":" + std::to_string(i) + "\r\n";
        }
      } else if (argv[0] == "SENTINEL" && sub == "get-master-addr-by-name") {
        out += "*2\r\n" + Bulk("127.0.0.1") + Bulk(std::to_string(data_.port()));
      } else if (argv[0] == "SENTINEL" && sub == "replicas") {
        const int n = replica_.load();
        out += "*1\r\n*10\r\n" + Bulk("name") + Bulk("r") + Bulk("ip") + Bulk(ReplicaHost(n)) +
               Bulk("port") + Bulk(std::to_string(ReplicaPort(n))) + Bulk("flags") + Bulk("slave") +
               Bulk("role-reported") + Bulk("slave");
      } else if (argv[0] == "SENTINEL" && sub == "master") {
        out += "*2\r\n" + Bulk("flags") + Bulk("master");
      } else {
        out += "+OK\r\n";
      }
    }
    return out;
  }

  std::string Data() const { return "127.0.0.1:" + std::to_string(data_.port()); }

  std::unique_ptr<SentinelClient> NewClient() {
    RouterConfig rc;
    rc.weights[Data()] = 0;  // the master last: every read dials the replica first
    groups_ = std::make_unique<ShardGroups>(rc);
    EXPECT_TRUE(groups_->AddGroup("g").ok());
    RingBuilder b(RingOptions{});
    EXPECT_TRUE(b.AddShard("g", 1, 1).ok());
    auto ring = b.Build();
    EXPECT_TRUE(ring.ok());
    EXPECT_TRUE(groups_->SetRing(*ring).ok());
    SentinelOptions o;
    o.reask_interval_ms = 0;  // the test asks (Refresh)
    o.engine.refresh_interval_ms = 0;
    for (uint32_t &t : o.engine.timeout_ms) t = 2000;
    auto c = SentinelClient::Create(groups_.get(), {Seed{"127.0.0.1", sentinel_.port()}}, {"g"}, o);
    EXPECT_TRUE(c.ok()) << c.status().message();
    return c.ok() ? std::move(*c) : nullptr;
  }

  std::atomic<int> replica_{0};
  FakeServer data_;
  FakeServer sentinel_;
  std::unique_ptr<ShardGroups> groups_;
};

TEST_F(SentinelReclaim, InstancesSentinelStopsListingAreReclaimedWithTheirPools) {
  std::unique_ptr<SentinelClient> c = NewClient();
  ASSERT_NE(c, nullptr);
  uint32_t first = 0;
  ASSERT_TRUE(groups_->registry().FindHandle(ReplicaHost(0) + ":" + std::to_string(ReplicaPort(0)),
                                             &first));
  ChurnWithinBounds("SENTINEL_RECLAIM", c.get(), groups_.get(), Data(), 1200, [&](int n) {
    replica_ = n;
    return c->Refresh();
  });
  EXPECT_EQ(groups_->ReportFailure(first).code(), Code::kNotFound);
}

}  // namespace live_reclaim_test
}  // namespace net
}  // namespace cloudroute
