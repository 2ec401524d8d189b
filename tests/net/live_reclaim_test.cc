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
// (the TSan run, label tsan) all succeed.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "cloudroute/net/client.hpp"
#include "cloudroute/net/pipeline.hpp"
#include "fake_server.hpp"

namespace cloudroute {
namespace net {
namespace {

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
  constexpr int kAddresses = 1500;  // past NodeRegistry::kReuseAfter: slots are reused
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
  for (int n = 1; n <= 600 && !HasFatalFailure(); ++n) MoveReplica(c.get(), n);
  stop = true;
  for (std::thread &t : threads) t.join();
  EXPECT_EQ(failed.load(), 0u);
  EXPECT_GT(ok.load(), 0u);
}

}  // namespace
}  // namespace net
}  // namespace cloudroute
