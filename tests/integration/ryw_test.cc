// Read your own writes (issue 19 §5) on a two-cloud cluster of its own
// (scripts/redis-harness.sh, ports 8681-8689; cloud A = 127.0.1.x, cloud B =
// 127.0.2.x). The client is in cloud A with local-replicas-first; the keys
// are shard 2's: its master n4 is in cloud B, one hop away behind
// scripts/latency-proxy.py (127.0.3.4, 10 ms each way), its replica n6 is
// local and read first.
//
//  - In one pipeline, `SET k v; GET k` returns v for every key: the GET of a
//    slot the pipeline wrote goes to the master, after the SET. The test can
//    fail: the reads of a read-only pipeline do go to n6, and in the same
//    pipeline a GET sent to n6 itself (what the GET did before the rule)
//    returns the old value.
//  - With read_your_writes_ms, a read right after this client's write
//    returns the new value for every key, and reads go to the replica again
//    once the window has passed. n6 lags on purpose for this one: CLIENT
//    PAUSE WRITE stops it applying its master's stream while it still
//    answers reads, so "without the option some reads are stale" holds on
//    every run, not just when a proxy delay happens to win a race.
//
// CR_TEST_CLUSTER_ENV names the cluster.env, CR_PROXY_SCRIPT latency-proxy.py.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <string>
#include <vector>

#include "cloudroute.h"
#include "fault_kit.hpp"
#include "harness_env.hpp"

namespace {

using crtest::FaultClient;
using crtest::FaultClock;
using crtest::FaultProxy;
using crtest::MsFrom;
using crtest::PollUntil;

constexpr int kProxyDelayMs = 10;
constexpr size_t kKeys = 200;

std::string HostOf(const std::string &addr) { return addr.substr(0, addr.rfind(':')); }
uint16_t PortOf(const std::string &addr) {
  return static_cast<uint16_t>(std::atoi(addr.c_str() + addr.rfind(':') + 1));
}

// A cr_pipeline holding the arguments it borrows until Execute; each
// result's string (or error text) in queue order.
class Pipe {
 public:
  explicit Pipe(cr_client *c) { EXPECT_EQ(cr_pipeline_new(&p_, c), CR_OK) << cr_last_error(); }
  ~Pipe() { cr_pipeline_free(p_); }
  Pipe(const Pipe &) = delete;
  Pipe &operator=(const Pipe &) = delete;

  void Add(cr_access access, std::vector<std::string> argv) {
    Hold(std::move(argv));
    EXPECT_EQ(cr_pipeline_add(p_, access, 1, args_.back().size(), ptrs_.back().data(),
                              lens_.back().data()),
              CR_OK)
        << cr_last_error();
  }
  void AddNode(const std::string &addr, std::vector<std::string> argv) {
    Hold(std::move(argv));
    EXPECT_EQ(cr_pipeline_add_node(p_, CR_ACCESS_READ, HostOf(addr).c_str(), PortOf(addr),
                                   args_.back().size(), ptrs_.back().data(), lens_.back().data()),
              CR_OK)
        << cr_last_error();
  }
  std::vector<std::string> Execute() {
    const size_t n = cr_pipeline_get_count(p_);
    std::vector<cr_reply *> replies(n, nullptr);
    std::vector<cr_status> statuses(n, CR_EINTERNAL);
    size_t needed = 0;
    EXPECT_EQ(cr_pipeline_execute(replies.data(), statuses.data(), n, &needed, p_), CR_OK)
        << cr_last_error();
    std::vector<std::string> out(n);
    for (size_t i = 0; i < n; ++i) {
      size_t len = 0;
      const char *s = cr_reply_get_string(replies[i], &len);
      out[i] = s == nullptr ? "(nil)" : std::string(s, len);
      if (statuses[i] != CR_OK) out[i] = std::string(cr_status_str(statuses[i])) + ": " + out[i];
      cr_reply_free(replies[i]);
    }
    args_.clear();
    ptrs_.clear();
    lens_.clear();
    return out;
  }

 private:
  void Hold(std::vector<std::string> argv) {
    args_.push_back(std::move(argv));
    std::vector<const void *> p;
    std::vector<size_t> l;
    for (const std::string &a : args_.back()) {
      p.push_back(a.data());
      l.push_back(a.size());
    }
    ptrs_.push_back(std::move(p));
    lens_.push_back(std::move(l));
  }

  cr_pipeline *p_ = nullptr;
  std::deque<std::vector<std::string>> args_;  // deque: no moves, the views stay valid
  std::vector<std::vector<const void *>> ptrs_;
  std::vector<std::vector<size_t>> lens_;
};

cr_client_options Options(uint32_t read_your_writes_ms) {
  cr_client_options o = crtest::FaultOptions();
  o.client_name = "cr-ryw";
  o.read_your_writes_ms = read_your_writes_ms;
  return o;
}

class ReadYourWrites : public crtest::ClusterTest {
 protected:
  std::string Replica() { return Node(6, "ADDR"); }  // shard 2's replica in cloud A
  std::string Master() { return Node(4, "ADDR"); }   // shard 2's master in cloud B
};

TEST_F(ReadYourWrites, PipelineReadsItsOwnWritesFromTheMaster) {
  ASSERT_EQ(env_["SHARD2_MASTER"], Master());
  const std::string proxy_addr = "127.0.3.4:" + Node(4, "PORT");
  const std::string control = env_["HARNESS_DIR"] + "/proxy-ryw.ctl";
  std::ofstream(control) << "forward\n";
  FaultProxy proxy(proxy_addr, Master(), control, kProxyDelayMs);
  ASSERT_TRUE(proxy.ready());
  FaultClient cl(env_["SEEDS"], CR_POLICY_LOCAL_REPLICAS_FIRST, Options(0), 500,
                 {{Master(), proxy_addr}});
  ASSERT_NE(cl.c, nullptr);
  const std::vector<std::string> keys = cl.KeysOwnedBy(Master(), "ryw:pipe:", kKeys);
  ASSERT_EQ(keys.size(), kKeys);
  crtest::StoreAndSettle(cl, keys);

  // Reads alone go to the local replica: the rule below is what moves them.
  {
    const uint64_t before = cl.NodeReads(Replica());
    Pipe p(cl.c);
    for (const std::string &k : keys) p.Add(CR_ACCESS_READ, {"GET", k});
    const std::vector<std::string> got = p.Execute();
    for (size_t i = 0; i < kKeys; ++i) EXPECT_EQ(got[i], crtest::ValueOf(keys[i]));
    EXPECT_EQ(cl.NodeReads(Replica()) - before, kKeys) << "a read-only pipeline reads n6";
  }
  // What a GET placed on the replica returns in the same pipeline as the SET:
  // the old value (the SET is still on its way to the remote master).
  {
    Pipe p(cl.c);
    for (const std::string &k : keys) {
      p.Add(CR_ACCESS_WRITE, {"SET", k, "v2-" + k});
      p.AddNode(Replica(), {"GET", k});
    }
    const std::vector<std::string> got = p.Execute();
    size_t stale = 0;
    for (size_t i = 0; i < kKeys; ++i) {
      EXPECT_EQ(got[2 * i], "OK");
      if (got[2 * i + 1] != "v2-" + keys[i]) ++stale;
    }
    std::printf("RYW pipeline: %zu of %zu GETs on the local replica were stale\n", stale, kKeys);
    EXPECT_GT(stale, 0u) << "the replica was never behind: the test below proves nothing";
  }
  // The rule: each GET follows its SET to the master, and reads it.
  const uint64_t replica_before = cl.NodeReads(Replica());
  const uint64_t master_before = cl.NodeReads(Master());
  Pipe p(cl.c);
  for (const std::string &k : keys) {
    p.Add(CR_ACCESS_WRITE, {"SET", k, "v3-" + k});
    p.Add(CR_ACCESS_READ, {"GET", k});
  }
  const std::vector<std::string> got = p.Execute();
  size_t wrong = 0;
  for (size_t i = 0; i < kKeys; ++i) {
    EXPECT_EQ(got[2 * i], "OK");
    if (got[2 * i + 1] != "v3-" + keys[i]) {
      if (wrong++ < 3) ADD_FAILURE() << keys[i] << " read '" << got[2 * i + 1] << "'";
    }
  }
  EXPECT_EQ(wrong, 0u) << "GETs after a SET in the same pipeline read an old value";
  EXPECT_EQ(cl.NodeReads(Replica()) - replica_before, 0u);
  EXPECT_EQ(cl.NodeReads(Master()) - master_before, kKeys);
  std::printf("RYW pipeline: %zu of %zu GETs after their SET were stale\n", wrong, kKeys);
}

// n6 stops applying its master's stream (it still answers reads) until the
// guard ends: every read of it is stale meanwhile.
class ReplicaPaused {
 public:
  explicit ReplicaPaused(std::string addr) : addr_(std::move(addr)) {
    EXPECT_EQ(crtest::Cli(addr_, {"CLIENT", "PAUSE", "30000", "WRITE"}), "OK");
  }
  ~ReplicaPaused() { EXPECT_EQ(crtest::Cli(addr_, {"CLIENT", "UNPAUSE"}), "OK"); }
  ReplicaPaused(const ReplicaPaused &) = delete;
  ReplicaPaused &operator=(const ReplicaPaused &) = delete;

 private:
  const std::string addr_;
};

// Writes each key's new value (prefix + key) and reads it back at once;
// how many reads returned something else.
size_t StaleAfterWrite(FaultClient &cl, const std::vector<std::string> &keys,
                       const std::string &prefix) {
  size_t stale = 0;
  for (const std::string &k : keys) {
    EXPECT_EQ(cl.Set(k, prefix + k), CR_OK) << cr_last_error();
    std::string v;
    EXPECT_EQ(cl.Get(k, &v), CR_OK) << cr_last_error();
    if (v != prefix + k) ++stale;
  }
  return stale;
}

TEST_F(ReadYourWrites, WindowSendsReadsAfterAWriteToTheMaster) {
  constexpr uint32_t kWindowMs = 3000;
  FaultClient off(env_["SEEDS"], CR_POLICY_LOCAL_REPLICAS_FIRST, Options(0), 500);
  FaultClient on(env_["SEEDS"], CR_POLICY_LOCAL_REPLICAS_FIRST, Options(kWindowMs), 500);
  ASSERT_NE(off.c, nullptr);
  ASSERT_NE(on.c, nullptr);
  const std::vector<std::string> keys = on.KeysOwnedBy(Master(), "ryw:window:", kKeys);
  ASSERT_EQ(keys.size(), kKeys);
  crtest::StoreAndSettle(off, keys);  // off reads the replica: it has caught up
  {
    ReplicaPaused paused(Replica());
    // Without the option a read right after the write reads the lagging replica.
    const size_t stale_off = StaleAfterWrite(off, keys, "off-");
    std::printf("RYW window off: %zu of %zu reads after a write were stale\n", stale_off, kKeys);
    EXPECT_GT(stale_off, 0u) << "the replica did not lag: the test below proves nothing";

    const uint64_t replica_before = on.NodeReads(Replica());
    const size_t stale_on = StaleAfterWrite(on, keys, "on-");
    const auto t_written = FaultClock::now();
    std::printf("RYW window on: %zu of %zu reads after a write were stale\n", stale_on, kKeys);
    EXPECT_EQ(stale_on, 0u);
    // A read-only pipeline within the window reads the master too.
    Pipe p(on.c);
    for (const std::string &k : keys) p.Add(CR_ACCESS_READ, {"GET", k});
    const std::vector<std::string> got = p.Execute();
    size_t wrong = 0;
    for (size_t i = 0; i < kKeys; ++i) wrong += got[i] != "on-" + keys[i];
    EXPECT_EQ(wrong, 0u) << "a pipeline's reads within the window";
    EXPECT_EQ(on.NodeReads(Replica()) - replica_before, 0u) << "a read in the window hit n6";

    // Once the window has passed, reads go to the replica again (it is still
    // paused: what it returns is stale, which is the trade the policy makes).
    std::string v;
    ASSERT_TRUE(PollUntil(kWindowMs + 5000, [&] {
      EXPECT_EQ(on.Get(keys.back(), &v), CR_OK);
      return on.NodeReads(Replica()) > replica_before;
    })) << "reads never returned to the replica";
    const int64_t back_ms = MsFrom(t_written);
    std::printf("RYW window on: reads back on the replica %lld ms after the last write\n",
                static_cast<long long>(back_ms));
    EXPECT_GE(back_ms + 50, static_cast<int64_t>(kWindowMs)) << "the window ended early";
  }
  // n6 catches up once unpaused; the next run starts from settled values.
  crtest::StoreAndSettle(off, keys);
}

}  // namespace
