// Read your own writes on a two-cloud cluster of its own
// (scripts/redis-harness.sh, ports 8711-8719; cloud A = 127.0.1.x, cloud B =
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
#include <fstream>
#include <string>
#include <vector>

#include "cloudroute.h"
#include "fault_kit.hpp"
#include "harness_env.hpp"
#include "pipeline_kit.hpp"

namespace ryw_test {

using crtest::FaultClient;
using crtest::FaultClock;
using crtest::FaultProxy;
using crtest::MsFrom;
using crtest::PollUntil;

constexpr int kProxyDelayMs = 10;
constexpr size_t kKeys = 200;

// A pipeline of GETs and SETs: each result as its text ("(nil)", or
// "ERROR: …" for a failed command).
class TextPipe {
 public:
  explicit TextPipe(cr_client *c) : p_(c) {}
  void Add(cr_access access, std::vector<std::string> argv) {
    EXPECT_EQ(p_.Add(access, std::move(argv)), CR_OK) << cr_last_error();
  }
  void AddNode(const std::string &addr, std::vector<std::string> argv) {
    EXPECT_EQ(p_.AddNode(CR_ACCESS_READ, addr, std::move(argv)), CR_OK) << cr_last_error();
  }
  std::vector<std::string> Execute() {
    std::vector<crtest::Result> results;
    EXPECT_EQ(p_.Execute(&results), CR_OK) << cr_last_error();
    std::vector<std::string> out;
    for (const crtest::Result &r : results) {
      out.push_back(r.status != CR_OK             ? "ERROR: " + r.text
                    : r.type == CR_REPLY_TYPE_NIL ? "(nil)"
                                                  : r.text);
    }
    return out;
  }

 private:
  crtest::Pipe p_;
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
    TextPipe p(cl.c);
    for (const std::string &k : keys) p.Add(CR_ACCESS_READ, {"GET", k});
    const std::vector<std::string> got = p.Execute();
    for (size_t i = 0; i < kKeys; ++i) EXPECT_EQ(got[i], crtest::ValueOf(keys[i]));
    EXPECT_EQ(cl.NodeReads(Replica()) - before, kKeys) << "a read-only pipeline reads n6";
  }
  // What a GET placed on the replica returns in the same pipeline as the SET:
  // the old value (the SET is still on its way to the remote master).
  {
    TextPipe p(cl.c);
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
  TextPipe p(cl.c);
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
    TextPipe p(on.c);
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

}  // namespace ryw_test
