// Hedged reads (issue 10 §2) against a real two-cloud Redis Cluster of its
// own (scripts/redis-harness.sh, ports 8641-8649, cluster-node-timeout 15 s so
// the servers never act on the stall). n6 is shard 2's only cloud-A replica,
// so a cloud-A client under the `local` policy reads shard 2 from n6 first
// and from the cloud-B nodes n4 / n5 next.
//
//  - n6 stopped with SIGSTOP, hedging after a fixed 20 ms: every read of
//    shard 2 answers well under the local timeout (1 s), bounded here at
//    300 ms; hedges were sent and won.
//  - nothing wrong: over 1500 reads hardly any are hedged.
//  - n4 (shard 2's master) stopped: a write times out and is never hedged.
//
// CR_TEST_CLUSTER_ENV names the cluster.env. Prints greppable HEDGE lines.
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "fault_kit.hpp"

namespace {

using crtest::FaultClient;
using crtest::Traffic;

// SIGSTOP for the scope: SIGCONT when it ends, whatever the test did.
class Paused {
 public:
  explicit Paused(const std::string &pid) : pid_(std::atoi(pid.c_str())) {
    paused_ = pid_ > 0 && kill(pid_, SIGSTOP) == 0;
  }
  ~Paused() {
    if (paused_) kill(pid_, SIGCONT);
  }
  Paused(const Paused &) = delete;
  Paused &operator=(const Paused &) = delete;
  bool ok() const { return paused_; }

 private:
  const int pid_;
  bool paused_ = false;
};

// 1 s for the local tier (an unhedged read of a stalled n6 would cost that),
// 400 ms for the others; hedging after a fixed 20 ms, 10% budget.
cr_client_options HedgeOptions() {
  cr_client_options o = crtest::FaultOptions();
  o.client_name = "cr-hedge";
  o.command_timeout_ms[CR_TIER_LOCAL] = 1000;
  o.hedge_mode = CR_HEDGE_FIXED;
  o.hedge_delay_ms = 20;
  o.hedge_budget_percent = 10;
  return o;
}

class Hedge : public crtest::ClusterTest {
 protected:
  // The first read candidate of key's slot, "host:port".
  static std::string FirstCandidate(const FaultClient &cl, const std::string &key) {
    cr_candidate out[8];
    for (cr_candidate &x : out) x.struct_size = sizeof(cr_candidate);
    size_t n = 0;
    if (cr_router_candidates(out, 8, &n, cl.router, key.data(), key.size()) != CR_OK || n == 0)
      return "";
    return std::string(out[0].host) + ":" + std::to_string(out[0].port);
  }
  static uint64_t NodeWrites(const FaultClient &cl, const std::string &addr) {
    std::vector<cr_client_node_stats> v(64, cr_client_node_stats(CR_CLIENT_NODE_STATS_INIT));
    size_t count = 0;
    if (cr_client_get_node_stats(v.data(), v.size(), &count, cl.c) != CR_OK) return 0;
    for (size_t i = 0; i < count; ++i) {
      if (std::string(v[i].host) + ":" + std::to_string(v[i].port) == addr) return v[i].writes;
    }
    return 0;
  }
  // n keys of shard 2, stored and readable.
  std::vector<std::string> Shard2Keys(FaultClient &cl, size_t n) {
    std::vector<std::string> keys = cl.KeysOwnedBy(Node(4, "ADDR"), "hedge:", n);
    EXPECT_EQ(keys.size(), n);
    for (const std::string &k : keys) EXPECT_EQ(FirstCandidate(cl, k), Node(6, "ADDR")) << k;
    crtest::StoreAndSettle(cl, keys);
    return keys;
  }
};

TEST_F(Hedge, StalledReplicaCostsAHedgeDelayNotATimeout) {
  FaultClient cl(env_["SEEDS"], CR_POLICY_LOCAL, HedgeOptions(), 500);
  ASSERT_NE(cl.c, nullptr);
  const std::vector<std::string> keys = Shard2Keys(cl, 20);
  if (HasFatalFailure()) return;
  const cr_client_stats before = cl.Stats();
  Traffic t1(cl, keys, Traffic::kRead), t2(cl, keys, Traffic::kRead);
  ASSERT_TRUE(crtest::PollUntil(3000, [&] { return t1.requests() + t2.requests() > 100; }));
  t1.ResetSlowest();
  t2.ResetSlowest();
  const uint64_t requests_before = t1.requests() + t2.requests();
  {
    Paused stalled(Node(6, "PID"));
    ASSERT_TRUE(stalled.ok()) << "SIGSTOP n6";
    // Two breaker cool-downs: the stall's start and two half-open probes.
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    t1.Stop();
    t2.Stop();
  }
  const cr_client_stats after = cl.Stats();
  const int64_t slowest = std::max(t1.slowest_ms(), t2.slowest_ms());
  std::printf("HEDGE scenario=stall reads=%llu slowest_ms=%lld hedges=%llu won=%llu denied=%llu\n",
              (unsigned long long)(t1.requests() + t2.requests() - requests_before),
              (long long)slowest, (unsigned long long)(after.hedges - before.hedges),
              (unsigned long long)(after.hedges_won - before.hedges_won),
              (unsigned long long)(after.hedges_denied - before.hedges_denied));
  std::fflush(stdout);
  EXPECT_EQ(t1.failed() + t2.failed(), 0u) << t1.first_error() << t2.first_error();
  EXPECT_EQ(t1.wrong() + t2.wrong(), 0u);
  EXPECT_LT(slowest, 300) << "a read waited for the stalled replica instead of hedging";
  EXPECT_GE(after.hedges_won - before.hedges_won, 1u);
  EXPECT_GE(after.hedges, after.hedges_won);
}

TEST_F(Hedge, NothingWrongHedgesAlmostNever) {
  FaultClient cl(env_["SEEDS"], CR_POLICY_LOCAL, HedgeOptions(), 500);
  ASSERT_NE(cl.c, nullptr);
  const std::vector<std::string> keys = Shard2Keys(cl, 20);
  if (HasFatalFailure()) return;
  const cr_client_stats before = cl.Stats();
  constexpr uint64_t kReads = 1500;
  std::string v;
  for (uint64_t i = 0; i < kReads; ++i) {
    ASSERT_EQ(cl.Get(keys[i % keys.size()], &v), CR_OK) << cr_last_error();
  }
  const cr_client_stats after = cl.Stats();
  const uint64_t hedges = after.hedges - before.hedges;
  std::printf("HEDGE scenario=quiet reads=%llu hedges=%llu per_1000=%.2f\n",
              (unsigned long long)kReads, (unsigned long long)hedges,
              1000.0 * static_cast<double>(hedges) / kReads);
  std::fflush(stdout);
  EXPECT_EQ(after.reads - before.reads, kReads);
  // A read slower than 20 ms on loopback is rare even on a busy machine;
  // 2% leaves room for scheduler stalls and stays well under the budget (10%).
  EXPECT_LE(hedges, kReads / 50);
}

TEST_F(Hedge, WritesAreNeverHedged) {
  FaultClient cl(env_["SEEDS"], CR_POLICY_LOCAL, HedgeOptions(), 500);
  ASSERT_NE(cl.c, nullptr);
  const std::vector<std::string> keys = Shard2Keys(cl, 4);
  if (HasFatalFailure()) return;
  const cr_client_stats before = cl.Stats();
  cr_status s = CR_OK;
  {
    Paused stalled(Node(4, "PID"));
    ASSERT_TRUE(stalled.ok()) << "SIGSTOP n4";
    s = cl.Set(keys[0], "never-hedged");
  }
  const cr_client_stats after = cl.Stats();
  EXPECT_EQ(s, CR_ETIMEOUT) << cr_last_error();
  EXPECT_EQ(after.hedges, before.hedges);
  EXPECT_EQ(after.hedges_denied, before.hedges_denied);
  EXPECT_EQ(NodeWrites(cl, Node(5, "ADDR")), 0u);
  EXPECT_EQ(NodeWrites(cl, Node(6, "ADDR")), 0u);
}

}  // namespace
