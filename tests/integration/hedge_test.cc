// Hedged reads against a real two-cloud Redis Cluster of its
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
//  - fan-out: n6 stopped, an MGET over keys of every shard and a pipeline of
//    reads with an INCR (and a read of it: master-only) in it answer well
//    under the local timeout, values in place, the INCR applied exactly once
//    per pipeline; with nothing wrong, MGETs hardly ever hedge a leg.
//
// CR_TEST_CLUSTER_ENV names the cluster.env. Prints greppable HEDGE lines.
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "fault_kit.hpp"

namespace hedge_test {

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
  o.hedge_mode = CR_HEDGE_MODE_FIXED;
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
  // n keys over every shard (at least a third of them first read from n6),
  // stored and readable.
  std::vector<std::string> KeysOnEveryShard(FaultClient &cl, size_t n) {
    std::vector<std::string> keys;
    size_t on_n6 = 0;
    for (int i = 0; keys.size() < n && i < 100000; ++i) {
      std::string k = "hedgefan:" + std::to_string(i);
      const bool n6_first = FirstCandidate(cl, k) == Node(6, "ADDR");
      if (!n6_first && keys.size() - on_n6 >= n - n / 3) continue;
      on_n6 += n6_first ? 1 : 0;
      keys.push_back(std::move(k));
    }
    EXPECT_EQ(keys.size(), n);
    crtest::StoreAndSettle(cl, keys);
    return keys;
  }
};

// One MGET of keys: "" when it succeeded with every value in place, else why not.
std::string MGetInPlace(FaultClient &cl, const std::vector<std::string> &keys) {
  std::vector<const void *> kp;
  std::vector<size_t> kl;
  for (const std::string &k : keys) {
    kp.push_back(k.data());
    kl.push_back(k.size());
  }
  cr_reply *r = nullptr;
  const cr_status s = cr_client_cmd_mget(&r, cl.c, kp.data(), kl.data(), keys.size());
  std::string bad;
  if (s != CR_OK) {
    bad = std::string("MGET: ") + cr_status_str(s) + ": " + cr_last_error();
  } else if (cr_reply_get_count(r) != keys.size()) {
    bad = "MGET: " + std::to_string(cr_reply_get_count(r)) + " values";
  } else {
    for (size_t i = 0; i < keys.size() && bad.empty(); ++i) {
      const char *v = cr_reply_get_string(cr_reply_get_element(r, i), nullptr);
      if (v == nullptr || v != crtest::ValueOf(keys[i])) bad = "MGET: wrong value of " + keys[i];
    }
  }
  cr_reply_free(r);
  return bad;
}

// One pipeline: GET of each key, then INCR counter and GET counter (a read
// after a write of its slot: master-only), then GET of each key again. ""
// when every result is in place and the INCR gave *count + 1 (then *count
// is that), else why not.
std::string PipelineInPlace(FaultClient &cl, const std::vector<std::string> &keys,
                            const std::string &counter, int64_t *count) {
  cr_pipeline *p = nullptr;
  if (cr_pipeline_new(&p, cl.c) != CR_OK) return std::string("pipeline: ") + cr_last_error();
  static const std::string kGet = "GET", kIncr = "INCR";
  auto add = [p](const std::string &cmd, const std::string &key, cr_access access) {
    const void *argv[2] = {cmd.data(), key.data()};
    const size_t lens[2] = {cmd.size(), key.size()};
    return cr_pipeline_add(p, access, 1, 2, argv, lens);
  };
  for (const std::string &k : keys) add(kGet, k, CR_ACCESS_READ);
  add(kIncr, counter, CR_ACCESS_WRITE);
  add(kGet, counter, CR_ACCESS_READ);
  for (const std::string &k : keys) add(kGet, k, CR_ACCESS_READ);
  const size_t n = cr_pipeline_get_count(p);
  std::vector<cr_reply *> replies(n, nullptr);
  std::vector<cr_status> statuses(n, CR_OK);
  size_t needed = 0;
  const cr_status s = cr_pipeline_execute(replies.data(), statuses.data(), n, &needed, p);
  std::string bad;
  if (s != CR_OK) bad = std::string("pipeline: ") + cr_status_str(s) + ": " + cr_last_error();
  const size_t m = keys.size();
  for (size_t i = 0; i < n && bad.empty(); ++i) {
    if (i == m) {
      if (cr_reply_get_integer(replies[i]) != *count + 1) {
        bad = "INCR gave " + std::to_string(cr_reply_get_integer(replies[i])) + ", expected " +
              std::to_string(*count + 1);
      }
      continue;
    }
    const char *v = cr_reply_get_string(replies[i], nullptr);
    const std::string want =
        i == m + 1 ? std::to_string(*count + 1) : crtest::ValueOf(keys[i < m ? i : i - m - 2]);
    if (v == nullptr || v != want) bad = "pipeline: wrong result at " + std::to_string(i);
  }
  if (bad.empty()) ++*count;
  for (cr_reply *r : replies) cr_reply_free(r);
  cr_pipeline_free(p);
  return bad;
}

int64_t MsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               t0)
      .count();
}

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

TEST_F(Hedge, FanOutLegsOfAStalledReplicaAreHedged) {
  FaultClient cl(env_["SEEDS"], CR_POLICY_LOCAL, HedgeOptions(), 500);
  ASSERT_NE(cl.c, nullptr);
  const std::vector<std::string> keys = KeysOnEveryShard(cl, 60);
  if (HasFatalFailure()) return;
  // The pipeline's reads: 12 of the keys, every shard among them.
  const std::vector<std::string> some(keys.begin(), keys.begin() + 12);
  const std::vector<std::string> counters = cl.KeysOwnedBy(Node(4, "ADDR"), "hedgefan-count:", 1);
  ASSERT_EQ(counters.size(), 1u);
  const std::string &counter = counters[0];
  ASSERT_EQ(cl.Set(counter, "0"), CR_OK) << cr_last_error();
  int64_t count = 0;
  // Warm: every pool has connections.
  for (int i = 0; i < 20; ++i) {
    ASSERT_EQ(MGetInPlace(cl, keys), "");
    ASSERT_EQ(PipelineInPlace(cl, some, counter, &count), "");
  }
  const cr_client_stats before = cl.Stats();
  int64_t slowest_mget = 0, slowest_pipeline = 0;
  uint64_t requests = 0;
  std::string first_bad;
  {
    Paused stalled(Node(6, "PID"));
    ASSERT_TRUE(stalled.ok()) << "SIGSTOP n6";
    // Two breaker cool-downs: the stall's start and two half-open probes.
    const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(1500);
    while (std::chrono::steady_clock::now() < end) {
      auto t0 = std::chrono::steady_clock::now();
      std::string bad = MGetInPlace(cl, keys);
      slowest_mget = std::max(slowest_mget, MsSince(t0));
      if (first_bad.empty()) first_bad = bad;
      t0 = std::chrono::steady_clock::now();
      bad = PipelineInPlace(cl, some, counter, &count);
      slowest_pipeline = std::max(slowest_pipeline, MsSince(t0));
      if (first_bad.empty()) first_bad = bad;
      requests += 2;
    }
  }
  const cr_client_stats after = cl.Stats();
  std::printf(
      "HEDGE scenario=fanout-stall requests=%llu slowest_mget_ms=%lld slowest_pipeline_ms=%lld "
      "hedges=%llu won=%llu denied=%llu\n",
      (unsigned long long)requests, (long long)slowest_mget, (long long)slowest_pipeline,
      (unsigned long long)(after.hedges - before.hedges),
      (unsigned long long)(after.hedges_won - before.hedges_won),
      (unsigned long long)(after.hedges_denied - before.hedges_denied));
  std::fflush(stdout);
  EXPECT_EQ(first_bad, "");
  // An unhedged leg on n6 would wait for the local timeout (1 s).
  EXPECT_LT(slowest_mget, 300) << "an MGET waited for the stalled replica instead of hedging";
  EXPECT_LT(slowest_pipeline, 300) << "a pipeline waited for the stalled replica";
  EXPECT_GE(after.hedges_won - before.hedges_won, 1u);
  EXPECT_GE(after.hedges, after.hedges_won);
  // Every INCR was applied once: the counter is the number of pipelines run.
  std::string v;
  ASSERT_EQ(cl.Get(counter, &v), CR_OK) << cr_last_error();
  EXPECT_EQ(v, std::to_string(count));
}

TEST_F(Hedge, QuietFanOutHedgesAlmostNever) {
  FaultClient cl(env_["SEEDS"], CR_POLICY_LOCAL, HedgeOptions(), 500);
  ASSERT_NE(cl.c, nullptr);
  const std::vector<std::string> keys = KeysOnEveryShard(cl, 60);
  if (HasFatalFailure()) return;
  const cr_client_stats before = cl.Stats();
  constexpr uint64_t kRequests = 500;
  for (uint64_t i = 0; i < kRequests; ++i) ASSERT_EQ(MGetInPlace(cl, keys), "");
  const cr_client_stats after = cl.Stats();
  const uint64_t hedges = after.hedges - before.hedges;
  std::printf("HEDGE scenario=fanout-quiet requests=%llu hedges=%llu\n",
              (unsigned long long)kRequests, (unsigned long long)hedges);
  std::fflush(stdout);
  // Each MGET has a leg per node it reads (3 or more): a leg slower than
  // 20 ms on loopback is rare even on a busy machine; 2% of the requests
  // leaves room for scheduler stalls and stays well under the budget.
  EXPECT_LE(hedges, kRequests / 50);
}

}  // namespace hedge_test
