// A stalled node costs one timeout, against a real two-cloud
// Redis Cluster (scripts/redis-harness.sh; cloud A = 127.0.1.x, cloud B =
// 127.0.2.x) of its own: ports 8501-8509, cluster-node-timeout 15 s (the
// Redis default), so the servers never mark the stalled node failed and only
// the client's own rules are at work.
//
// A cloud-A client under the `local` policy runs 60-key MGETs and single
// GETs on threads while n6 — the only cloud-A replica of shard 2, so the
// first read candidate of its slots — is stopped with SIGSTOP for 5 s (the
// kernel still accepts TCP connections to it) and resumed with SIGCONT.
// Asserted: no request failed or read a wrong value; the slowest request
// took less than the local tier's timeout plus one retry on the next
// candidate (with a margin for a loaded 2-core machine); reads are served by
// n6 again within 1 s of SIGCONT (the client's per-node statistics and the
// node's own INFO commandstats), polled every 5 ms. Prints one greppable line:
//   STALL scenario=NAME requests=… failed=0 slowest_get_ms=… slowest_mget_ms=… recovery_ms=…
//
// CR_TEST_CLUSTER_ENV names the cluster.env.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cloudroute.h"
#include "harness_env.hpp"

namespace stall_test {

using Clock = std::chrono::steady_clock;

int64_t MsSince(Clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
}

// Polls pred every 5 ms for at most ms; true once it holds.
bool WaitFor(int64_t ms, const std::function<bool()> &pred) {
  const auto t0 = Clock::now();
  for (;;) {
    if (pred()) return true;
    if (MsSince(t0) > ms) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// "calls" of cmdstat_<cmd> in the node's INFO commandstats; 0 when never
// called or unreadable.
uint64_t CommandCalls(const std::string &addr, const std::string &cmd) {
  return crtest::CommandCalls(crtest::CliLine(addr, "INFO commandstats"), cmd);
}

// SIGSTOP now; SIGCONT at Resume() or, whatever happens, on destruction, so
// a failed assertion never leaves a server stopped for the fixture's stop.
class Stopped {
 public:
  explicit Stopped(int pid) : pid_(pid) { stopped_ = kill(pid_, SIGSTOP) == 0; }
  ~Stopped() { Resume(); }
  bool ok() const { return stopped_; }
  void Resume() {
    if (stopped_) kill(pid_, SIGCONT);
    stopped_ = false;
  }

 private:
  const int pid_;
  bool stopped_ = false;
};

// What the load threads saw.
struct Tally {
  std::atomic<uint64_t> requests{0}, failed{0}, wrong{0};
  std::atomic<int64_t> slowest_get_us{0}, slowest_mget_us{0};
  std::mutex mu;
  std::string first_error;

  void Note(const std::string &what) {
    failed.fetch_add(1);
    std::lock_guard<std::mutex> l(mu);
    if (first_error.empty()) first_error = what;
  }
  static void Max(std::atomic<int64_t> *m, int64_t v) {
    int64_t cur = m->load();
    while (v > cur && !m->compare_exchange_weak(cur, v)) {
    }
  }
};

class Stall : public ::testing::Test {
 protected:
  void SetUp() override {
    env_ = crtest::LoadHarnessEnv();
    ASSERT_FALSE(env_["SEEDS"].empty()) << "CR_TEST_CLUSTER_ENV does not name a cluster.env";
  }
  void TearDown() override { cr_client_free(c_); }

  // A client "in cloud A" with the router's default breaker threshold (3),
  // the given cool-down, client options and read policy.
  void NewClient(const cr_client_options &o, uint32_t cooldown_ms,
                 cr_policy policy = CR_POLICY_LOCAL) {
    const cr_router_options defaults = CR_ROUTER_OPTIONS_INIT;
    cr_router *router = nullptr;
    c_ = crtest::NewCloudAClient(env_["SEEDS"], policy, cooldown_ms, o, &router,
                                 defaults.failure_threshold);
    ASSERT_NE(c_, nullptr);
  }

  uint64_t NodeReads(const std::string &addr) {
    std::vector<cr_client_node_stats> v(32);
    for (auto &n : v) n = CR_CLIENT_NODE_STATS_INIT;
    size_t count = 0;
    if (cr_client_get_node_stats(v.data(), v.size(), &count, c_) != CR_OK) return 0;
    for (size_t i = 0; i < count && i < v.size(); ++i) {
      if (std::string(v[i].host) + ":" + std::to_string(v[i].port) == addr) return v[i].reads;
    }
    return 0;
  }

  std::string FirstCandidate(const std::string &key) {
    cr_candidate out[8];
    for (auto &x : out) x.struct_size = sizeof(cr_candidate);
    size_t n = 0;
    cr_router *r = cr_client_get_router(c_);
    if (cr_router_candidates_slot(out, 8, &n, r, cr_keyslot(key.data(), key.size())) != CR_OK ||
        n == 0)
      return "";
    return std::string(out[0].host) + ":" + std::to_string(out[0].port);
  }

  // 60 keys over the three shards, a third of them read first from n6;
  // written once, so every read can check its value.
  void WriteKeys() {
    const std::string n6 = env_["NODE6_ADDR"];
    for (int i = 0; keys_.size() < 60 && i < 100000; ++i) {
      std::string k = "stall:" + std::to_string(i);
      const size_t on_n6 = std::count_if(keys_.begin(), keys_.end(), [&](const std::string &x) {
        return FirstCandidate(x) == n6;
      });
      const bool is_n6 = FirstCandidate(k) == n6;
      if (is_n6 ? on_n6 < 20 : keys_.size() - on_n6 < 40) keys_.push_back(std::move(k));
    }
    ASSERT_EQ(keys_.size(), 60u);
    for (const std::string &k : keys_) {
      ASSERT_EQ(cr_client_cmd_set(c_, k.data(), k.size(), ("v-" + k).data(), k.size() + 2, 0),
                CR_OK)
          << cr_last_error();
      if (FirstCandidate(k) == n6) n6_keys_.push_back(k);
    }
    // Replicas acknowledge asynchronously: wait until every key reads back.
    ASSERT_TRUE(WaitFor(5000, [&] {
      for (const std::string &k : keys_) {
        if (Get(k) != "v-" + k) return false;
      }
      return true;
    })) << "writes did not become readable";
  }

  // The value read, "(nil)" for none, "!status: message" on an error.
  std::string Get(const std::string &k) {
    cr_reply *r = nullptr;
    const cr_status s = cr_client_cmd_get(&r, c_, k.data(), k.size());
    std::string out;
    if (s != CR_OK) {
      out = std::string("!") + cr_status_str(s) + ": " + cr_last_error();
    } else {
      size_t len = 0;
      const char *p = cr_reply_get_string(r, &len);
      out = p == nullptr ? "(nil)" : std::string(p, len);
    }
    cr_reply_free(r);
    return out;
  }

  // One MGET of every key; "" when each value was right, else what was wrong.
  std::string MGet() {
    std::vector<const void *> ptrs;
    std::vector<size_t> lens;
    for (const std::string &k : keys_) {
      ptrs.push_back(k.data());
      lens.push_back(k.size());
    }
    cr_reply *r = nullptr;
    const cr_status s = cr_client_cmd_mget(&r, c_, ptrs.data(), lens.data(), ptrs.size());
    if (s != CR_OK) return std::string("MGET: ") + cr_status_str(s) + ": " + cr_last_error();
    std::string bad;
    for (size_t i = 0; i < keys_.size() && bad.empty(); ++i) {
      size_t len = 0;
      const char *p = cr_reply_get_string(cr_reply_get_element(r, i), &len);
      if (p == nullptr || std::string(p, len) != "v-" + keys_[i]) bad = "MGET: wrong " + keys_[i];
    }
    cr_reply_free(r);
    return bad;
  }

  // GET threads (n6's keys) and MGET threads (all 60 keys) until stop.
  std::vector<std::thread> StartLoad(Tally *t, const std::atomic<bool> *stop) {
    std::vector<std::thread> threads;
    for (int i = 0; i < 2; ++i) {
      threads.emplace_back([this, t, stop, i] {
        for (size_t n = static_cast<size_t>(i); !stop->load(); ++n) {
          const std::string &k = n6_keys_[n % n6_keys_.size()];
          const auto t0 = Clock::now();
          const std::string v = Get(k);
          Tally::Max(
              &t->slowest_get_us,
              std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t0).count());
          t->requests.fetch_add(1);
          if (v != "v-" + k) t->Note("GET " + k + ": " + v);
        }
      });
      threads.emplace_back([this, t, stop] {
        while (!stop->load()) {
          const auto t0 = Clock::now();
          const std::string bad = MGet();
          Tally::Max(
              &t->slowest_mget_us,
              std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t0).count());
          t->requests.fetch_add(1);
          if (!bad.empty()) t->Note(bad);
        }
      });
    }
    return threads;
  }

  // SIGSTOP n6 for stall_ms under load, SIGCONT, and the assertions above:
  // every request under bound_ms, reads back on n6 within recover_ms.
  void Run(const char *scenario, int64_t stall_ms, int64_t bound_ms, int64_t recover_ms) {
    WriteKeys();
    if (HasFatalFailure()) return;
    const std::string n6 = env_["NODE6_ADDR"];
    ASSERT_FALSE(n6_keys_.empty());
    Tally t;
    std::atomic<bool> stop{false};
    std::vector<std::thread> threads = StartLoad(&t, &stop);
    auto join = [&] {
      stop.store(true);
      for (std::thread &th : threads) th.join();
      threads.clear();
    };
    // Warm: every pool has its connections before the fault.
    EXPECT_TRUE(WaitFor(3000, [&] { return NodeReads(n6) > 200; })) << "n6 serves no reads";
    const uint64_t get_calls_before = CommandCalls(n6, "get");
    int64_t recovery_ms = -1;
    {
      Stopped stalled(std::atoi(env_["NODE6_PID"].c_str()));
      EXPECT_TRUE(stalled.ok()) << "SIGSTOP " << env_["NODE6_PID"];
      std::this_thread::sleep_for(std::chrono::milliseconds(stall_ms));  // the stall itself
      const uint64_t reads_stalled = NodeReads(n6);
      stalled.Resume();
      const auto t_cont = Clock::now();
      if (WaitFor(10000, [&] { return NodeReads(n6) > reads_stalled + 20; }))
        recovery_ms = MsSince(t_cont);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));  // traffic after the recovery
    join();
    const uint64_t get_calls_after = CommandCalls(n6, "get");
    const int64_t slowest_get_ms = t.slowest_get_us.load() / 1000;
    const int64_t slowest_mget_ms = t.slowest_mget_us.load() / 1000;
    std::printf(
        "STALL scenario=%s requests=%llu failed=%llu slowest_get_ms=%lld slowest_mget_ms=%lld "
        "recovery_ms=%lld n6_get_calls=%llu\n",
        scenario, (unsigned long long)t.requests.load(), (unsigned long long)t.failed.load(),
        (long long)slowest_get_ms, (long long)slowest_mget_ms, (long long)recovery_ms,
        (unsigned long long)(get_calls_after - get_calls_before));
    std::fflush(stdout);
    EXPECT_EQ(t.failed.load(), 0u) << t.first_error;
    EXPECT_LT(slowest_get_ms, bound_ms) << "a GET waited longer than one timeout and a retry";
    EXPECT_LT(slowest_mget_ms, bound_ms) << "an MGET waited longer than one timeout and a retry";
    EXPECT_GE(recovery_ms, 0) << "reads did not return to " << n6;
    EXPECT_LT(recovery_ms, recover_ms) << "reads returned to " << n6 << " late";
    // The node's own count agrees: it served GETs after it was resumed.
    EXPECT_GT(get_calls_after, get_calls_before);
  }

  std::map<std::string, std::string> env_;
  cr_client *c_ = nullptr;
  std::vector<std::string> keys_;
  std::vector<std::string> n6_keys_;
};

// Local timeout 300 ms (connect too), other tiers 1000 ms, breaker
// cool-down 500 ms: the slowest request is one local timeout plus a retry on
// a healthy cloud-B node (a few ms), asserted under 1 s; reads are back on
// the replica within a cool-down of SIGCONT, asserted under 1 s.
cr_client_options TightOptions() {
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  o.client_name = "cr-stall";
  o.connect_timeout_ms = 300;
  for (uint32_t &t : o.command_timeout_ms) t = 1000;
  o.command_timeout_ms[CR_TIER_LOCAL] = 300;
  return o;
}

TEST_F(Stall, StoppedLocalReplicaCostsOneTimeout) {
  NewClient(TightOptions(), 500);
  if (HasFatalFailure()) return;
  // Probes of the stalled node start about every 800 ms (a cool-down and a
  // timeout): 5.2 s resumes it just after one failed, the slow case.
  Run("tight", 5200, 1000, 1000);
}

// Every option at its default (local timeout 500 ms, cool-down 2 s): every
// request under 1 s, and reads back on the replica within 1 s of SIGCONT.
// The client's recovery prober PINGs the set-aside node
// about every 200 ms plus its 500 ms timeout (net/recovery_probe.hpp): a
// PING in flight at SIGCONT is answered at once, else the next one goes
// within 200 ms; its PONG closes the breaker for every request, without
// waiting for the 2 s cool-down.
TEST_F(Stall, StoppedLocalReplicaWithDefaults) {
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  const cr_router_options defaults = CR_ROUTER_OPTIONS_INIT;
  NewClient(o, defaults.down_cooldown_ms);
  if (HasFatalFailure()) return;
  Run("defaults", 5000, 1000, 1000);
}

// A new client (its replicas' pools empty) whose first MGET must dial two
// stopped local replicas (local-replicas-first: n2 for shard 1, n6 for shard
// 2): the two handshakes run at the same time, so the MGET costs one local
// timeout (300 ms) and a retry, not one per stalled node (>= 600 ms).
TEST_F(Stall, NewConnectionsToStalledNodesAreDialedAtOnce) {
  NewClient(TightOptions(), 500, CR_POLICY_LOCAL_REPLICAS_FIRST);
  if (HasFatalFailure()) return;
  WriteKeys();
  if (HasFatalFailure()) return;
  const std::string n2 = env_["NODE2_ADDR"];
  size_t on_n2 = 0;
  for (const std::string &k : keys_) on_n2 += FirstCandidate(k) == n2 ? 1 : 0;
  ASSERT_GT(on_n2, 0u) << "no key is read first from " << n2;
  cr_client_free(c_);
  c_ = nullptr;
  NewClient(TightOptions(), 500, CR_POLICY_LOCAL_REPLICAS_FIRST);
  if (HasFatalFailure()) return;
  int64_t ms = -1;
  std::string bad;
  {
    Stopped a(std::atoi(env_["NODE2_PID"].c_str())), b(std::atoi(env_["NODE6_PID"].c_str()));
    ASSERT_TRUE(a.ok() && b.ok()) << "SIGSTOP";
    const auto t0 = Clock::now();
    bad = MGet();
    ms = MsSince(t0);
  }
  std::printf("STALL scenario=two_new_dials mget_ms=%lld\n", (long long)ms);
  std::fflush(stdout);
  EXPECT_EQ(bad, "");
  EXPECT_LT(ms, 550) << "the stalled nodes' handshakes ran one after the other";
}

}  // namespace stall_test
