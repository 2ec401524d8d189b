// Clients started back to back while a shard fails over and back, against a real Valkey cluster
// of its own (scripts/redis-harness.sh with REDIS_SERVER=valkey-server, ports 8721-8729; cloud
// A = 127.0.1.x, cloud B = 127.0.2.x). For about 0.5 s after each CLUSTER FAILOVER Valkey's
// nodes disagree and CLUSTER SHARDS may show two masters for the shard; a start that meets that
// asks its seeds again (net/discovery.hpp) instead of failing. Asserted: every start succeeds,
// and every client started writes a key of the moving shard and reads it back (on a checker
// thread, so that the starting threads keep starting while a failover holds the shard's writes).
// Shard 1 (master n1, replica n2) fails over to n2 and back to n1 kFailbacks times
// (cluster-node-timeout 1 s, so that a master votes again for the shard's replicas 2 s after a
// failover). Prints:
//   FAILBACK starts=… disagreed=… failovers=… ms=… slowest_start_ms=…
// where disagreed counts the starts that asked their seeds more than once.
//
// CR_TEST_CLUSTER_ENV names the cluster.env.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cloudroute.h"
#include "fault_kit.hpp"
#include "harness_env.hpp"

namespace failback_start_test {

using crtest::Cli;
using crtest::FaultClock;
using crtest::MsFrom;
using crtest::PollUntil;

constexpr int kFailbacks = 3;  // 6 failovers: n1 -> n2 -> n1, three times
constexpr int kStarters = 2;   // threads starting clients back to back
constexpr int64_t kMaxStarts = 20000;

// What the starting threads saw.
struct Starts {
  std::atomic<uint64_t> started{0}, failed{0}, io_failed{0}, checked{0}, disagreed{0};
  std::atomic<int64_t> slowest_ms{0};
  std::mutex mu;
  std::vector<std::string> errors;  // the first few
  void Note(const std::string &what) {
    std::lock_guard<std::mutex> l(mu);
    if (errors.size() < 5) errors.push_back(what);
  }
};

void OnLog(cr_log_level, const char *message, const cr_log_field *, size_t, void *payload) {
  if (std::string(message) == "seeds disagreed, asked again") {
    static_cast<Starts *>(payload)->disagreed.fetch_add(1);
  }
}

// Starts a client; nullptr (counted, the error noted) when it does not start.
cr_client *StartOne(const std::string &seeds, Starts *st) {
  cr_config *cfg = nullptr;
  if (cr_config_new(&cfg) != CR_OK ||
      cr_config_set_log_callback(cfg, CR_LOG_LEVEL_INFO, &OnLog, st) != CR_OK) {
    st->Note(std::string("config: ") + cr_last_error());
    st->failed.fetch_add(1);
    cr_config_free(cfg);
    return nullptr;
  }
  cr_client *c = nullptr;
  const auto t0 = FaultClock::now();
  const cr_status s = cr_client_new(&c, cfg, nullptr, seeds.c_str());
  const int64_t ms = MsFrom(t0);
  cr_config_free(cfg);
  int64_t prev = st->slowest_ms.load();
  while (ms > prev && !st->slowest_ms.compare_exchange_weak(prev, ms)) {
  }
  if (s != CR_OK) {
    st->failed.fetch_add(1);
    st->Note("start after " + std::to_string(ms) + " ms: " + cr_status_str(s) + ": " +
             cr_last_error());
    return nullptr;
  }
  st->started.fetch_add(1);
  return c;
}

// Writes `key` through c and reads it back, then frees c.
void CheckAndFree(cr_client *c, const std::string &key, Starts *st) {
  const std::string value = "v-" + key;
  cr_status w = cr_client_cmd_set(c, key.data(), key.size(), value.data(), value.size(), 0);
  std::string got;
  if (w == CR_OK) {
    cr_reply *r = nullptr;
    w = cr_client_cmd_get(&r, c, key.data(), key.size());
    size_t len = 0;
    const char *p = w == CR_OK ? cr_reply_get_string(r, &len) : nullptr;
    got = p == nullptr ? "(nil)" : std::string(p, len);
    cr_reply_free(r);
  }
  if (w != CR_OK || got != value) {
    st->io_failed.fetch_add(1);
    st->Note(key + ": " +
             (w != CR_OK ? std::string(cr_status_str(w)) + ": " + cr_last_error()
                         : "read '" + got + "'"));
  }
  st->checked.fetch_add(1);
  cr_client_free(c);
}

// Started clients waiting for their write and read on the checker thread, so that the
// starting threads keep starting while a failover holds writes to the shard for a moment.
class CheckQueue {
 public:
  static constexpr size_t kMax = 256;  // beyond it a starter checks its client itself
  bool Push(cr_client *c, std::string key) {
    std::lock_guard<std::mutex> l(mu_);
    if (q_.size() >= kMax) return false;
    q_.emplace_back(c, std::move(key));
    cv_.notify_one();
    return true;
  }
  // Checks clients until Close() and the queue is empty.
  void Run(Starts *st) {
    std::unique_lock<std::mutex> l(mu_);
    for (;;) {
      cv_.wait(l, [&] { return closed_ || !q_.empty(); });
      if (q_.empty()) return;
      auto item = std::move(q_.front());
      q_.pop_front();
      l.unlock();
      CheckAndFree(item.first, item.second, st);
      l.lock();
    }
  }
  void Close() {
    std::lock_guard<std::mutex> l(mu_);
    closed_ = true;
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::pair<cr_client *, std::string>> q_;
  bool closed_ = false;
};

class FailbackStart : public crtest::ClusterTest {
 protected:
  bool IsMaster(const std::string &addr) { return Cli(addr, {"ROLE"}).rfind("master", 0) == 0; }
  bool Synced(const std::string &addr) {
    return Cli(addr, {"INFO", "replication"}).find("master_link_status:up") != std::string::npos;
  }
  // `replica`, once in sync, takes its shard over (CLUSTER FAILOVER) and `master` follows it.
  // A master votes for a replica of the same shard at most once per two node timeouts, so a
  // failover starts that long after the previous one ended; one that still times out (a manual
  // failover gives up after 5 s) is asked for once more.
  void FailOverTo(const std::string &replica, const std::string &master) {
    const int64_t gap_ms = 2 * std::stoll(env_["CLUSTER_NODE_TIMEOUT_MS"]) + 200;
    const int64_t wait_ms = gap_ms - MsFrom(last_failover_);
    if (wait_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
    ASSERT_TRUE(PollUntil(10000, [&] { return Synced(replica); })) << replica << " is not in sync";
    bool promoted = false;
    for (int attempt = 0; attempt < 2 && !promoted; ++attempt) {
      ASSERT_EQ(Cli(replica, {"CLUSTER", "FAILOVER"}), "OK");
      promoted = PollUntil(7000, [&] { return IsMaster(replica); });
    }
    ASSERT_TRUE(promoted) << replica << " did not become master";
    ASSERT_TRUE(PollUntil(10000, [&] { return !IsMaster(master); }))
        << master << " did not step down";
    last_failover_ = FaultClock::now();
  }

  FaultClock::time_point last_failover_{};
};

TEST_F(FailbackStart, ClientsStartedAcrossFailoversAndFailbacksAllStart) {
  const std::string n1 = Node(1, "ADDR"), n2 = Node(2, "ADDR");
  ASSERT_EQ(env_["SHARD1_MASTER"], n1);
  // Two seeds, the masters of the other shards: a start meets the disagreement when both
  // show it at once (with every node as a seed, one of nine almost always answers consistently).
  const std::string seeds = Node(4, "ADDR") + "," + Node(7, "ADDR");
  const std::string tag = "{" + env_["SHARD1_KEY"] + "}";
  ASSERT_NE(tag, "{}");

  Starts st;
  CheckQueue checks;
  std::thread checker([&] { checks.Run(&st); });
  std::atomic<bool> stop{false};
  std::vector<std::thread> starters;
  for (int t = 0; t < kStarters; ++t) {
    starters.emplace_back([&, t] {
      for (int64_t i = 0; !stop.load() && i < kMaxStarts; ++i) {
        cr_client *c = StartOne(seeds, &st);
        if (c == nullptr) continue;
        std::string key = tag + ":" + std::to_string(t) + ":" + std::to_string(i);
        if (!checks.Push(c, key)) CheckAndFree(c, key, &st);
      }
    });
  }
  const auto t0 = FaultClock::now();
  int failovers = 0;
  for (int round = 0; round < kFailbacks && !HasFatalFailure(); ++round) {
    FailOverTo(n2, n1);
    if (HasFatalFailure()) break;
    ++failovers;
    FailOverTo(n1, n2);
    if (HasFatalFailure()) break;
    ++failovers;
  }
  // Starts go on for a moment after the last failback (its disagreement).
  const uint64_t at_end = st.started.load() + st.failed.load();
  PollUntil(5000, [&] { return st.started.load() + st.failed.load() >= at_end + 20; });
  stop.store(true);
  for (std::thread &t : starters) t.join();
  checks.Close();
  checker.join();
  const int64_t ms = MsFrom(t0);

  std::printf(
      "FAILBACK starts=%llu failed=%llu io_failed=%llu disagreed=%llu failovers=%d "
      "ms=%lld slowest_start_ms=%lld\n",
      (unsigned long long)(st.started.load() + st.failed.load()),
      (unsigned long long)st.failed.load(), (unsigned long long)st.io_failed.load(),
      (unsigned long long)st.disagreed.load(), failovers, (long long)ms,
      (long long)st.slowest_ms.load());
  std::fflush(stdout);
  EXPECT_EQ(failovers, 2 * kFailbacks);
  std::string errors;
  for (const std::string &e : st.errors) errors += "\n  " + e;
  EXPECT_EQ(st.failed.load(), 0u) << errors;
  EXPECT_EQ(st.io_failed.load(), 0u) << errors;
  EXPECT_EQ(st.checked.load(), st.started.load());
  EXPECT_GE(st.started.load(), 20u) << "too few starts to say anything";
  // The shard is left as the harness made it: n1 its master.
  EXPECT_TRUE(IsMaster(n1));
}

}  // namespace failback_start_test
