// The live client against a real two-cloud Redis Cluster (scripts/redis-
// harness.sh; cloud A = 127.0.1.x, cloud B = 127.0.2.x; master 1 owns
// 0-3096 and 4078-5460). Only the C API is used. Each test asserts where
// commands were served through the client's statistics.
//
// CR_TEST_CLUSTER_ENV names the harness's cluster.env. Tests that mutate the
// cluster (kill/restart a node) run against their own fixture.
#include <dirent.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "cloudroute.h"
#include "common/wait_until.hpp"
#include "harness_env.hpp"

namespace client_test {

struct ClientFixture {
  cr_client *c = nullptr;
  cr_router *router = nullptr;

  // A client "in cloud A": nodes in 127.0.1.0/24 are local.
  explicit ClientFixture(const std::string &seeds, cr_policy policy = CR_POLICY_LOCAL,
                         uint32_t cooldown_ms = 2000) {
    cr_client_options o = CR_CLIENT_OPTIONS_INIT;
    o.client_name = "cr-integration";
    o.refresh_min_gap_ms = 200;
    c = crtest::NewCloudAClient(seeds, policy, cooldown_ms, o, &router);
  }
  ~ClientFixture() { cr_client_free(c); }

  cr_client_stats Stats() const {
    cr_client_stats st = CR_CLIENT_STATS_INIT;
    EXPECT_EQ(cr_client_get_stats(&st, c), CR_OK);
    return st;
  }
  std::vector<cr_client_node_stats> Nodes() const {
    std::vector<cr_client_node_stats> v(32);
    for (auto &n : v) n = CR_CLIENT_NODE_STATS_INIT;
    size_t count = 0;
    EXPECT_EQ(cr_client_get_node_stats(v.data(), v.size(), &count, c), CR_OK);
    v.resize(count);
    return v;
  }
  std::string Get(const std::string &key, cr_status *status = nullptr) {
    cr_reply *r = nullptr;
    const cr_status s = cr_client_cmd_get(&r, c, key.data(), key.size());
    if (status != nullptr)
      *status = s;
    else
      EXPECT_EQ(s, CR_OK) << key << ": " << cr_last_error();
    size_t len = 0;
    const char *p = cr_reply_get_string(r, &len);
    std::string v = p == nullptr ? "(nil)" : std::string(p, len);
    cr_reply_free(r);
    return v;
  }
};

std::vector<std::string> Keys(const std::string &prefix, int n) {
  std::vector<std::string> keys;
  for (int i = 0; i < n; ++i) keys.push_back(prefix + std::to_string(i));
  return keys;
}

class LiveClient : public ::testing::Test {
 protected:
  void SetUp() override {
    env_ = crtest::LoadHarnessEnv();
    ASSERT_FALSE(env_["SEEDS"].empty()) << "CR_TEST_CLUSTER_ENV does not name a cluster.env";
  }
  std::map<std::string, std::string> env_;
};

TEST_F(LiveClient, ReadsFromCloudAAreServedByCloudANodesOnly) {
  ClientFixture f(env_["NODE1_ADDR"]);  // one seed is enough: the rest is discovered
  ASSERT_NE(f.c, nullptr);
  const std::vector<std::string> keys = Keys("cloud-a:", 300);
  std::vector<const void *> kp, vp;
  std::vector<size_t> kl, vl;
  std::vector<std::string> values;
  for (const std::string &k : keys) values.push_back("v-" + k);
  for (size_t i = 0; i < keys.size(); ++i) {
    kp.push_back(keys[i].data());
    kl.push_back(keys[i].size());
    vp.push_back(values[i].data());
    vl.push_back(values[i].size());
  }
  ASSERT_EQ(cr_client_cmd_mset(f.c, kp.data(), kl.data(), vp.data(), vl.data(), keys.size()), CR_OK)
      << cr_last_error();
  // Replicas acknowledge asynchronously and WAIT is per connection, so poll
  // until every value reads back (reads may hit replicas).
  ASSERT_TRUE(crtest::WaitUntil(
      [&] {
        for (size_t i = 0; i < keys.size(); ++i) {
          cr_status s = CR_OK;
          if (f.Get(keys[i], &s) != values[i]) return false;
        }
        return true;
      },
      std::chrono::seconds(10)))
      << "the written values did not all read back within 10 s";
  cr_reply *r = nullptr;
  ASSERT_EQ(cr_client_cmd_mget(&r, f.c, kp.data(), kl.data(), keys.size()), CR_OK)
      << cr_last_error();
  ASSERT_EQ(cr_reply_get_type(r), CR_REPLY_TYPE_ARRAY);
  ASSERT_EQ(cr_reply_get_count(r), keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    size_t len = 0;
    const char *p = cr_reply_get_string(cr_reply_get_element(r, i), &len);
    ASSERT_NE(p, nullptr) << keys[i];
    EXPECT_EQ(std::string(p, len), values[i]);
  }
  cr_reply_free(r);

  const cr_client_stats st = f.Stats();
  EXPECT_GT(st.reads, keys.size());
  EXPECT_EQ(st.reads_by_tier[CR_TIER_LOCAL], st.reads) << "some reads left cloud A";
  EXPECT_EQ(st.fallbacks, 0u);
  EXPECT_GE(st.writes, 1u);
  uint64_t node_reads = 0;
  for (const cr_client_node_stats &n : f.Nodes()) {
    if (n.reads > 0) {
      EXPECT_EQ(std::string(n.host).rfind("127.0.1.", 0), 0u)
          << n.host << ":" << n.port << " served reads";
    }
    node_reads += n.reads;
    EXPECT_LE(n.open_connections, 8u);
  }
  EXPECT_EQ(node_reads, st.reads);
}

TEST_F(LiveClient, MgetOfManyKeysIsOneCommandPerSlotPipelinedPerNode) {
  ClientFixture f(env_["SEEDS"]);
  ASSERT_NE(f.c, nullptr);
  // 100 keys with a shared hash tag per 20: 5 slots, so 5 MGET commands.
  std::vector<std::string> keys;
  for (int i = 0; i < 100; ++i)
    keys.push_back("{tag" + std::to_string(i % 5) + "}:" + std::to_string(i));
  std::vector<const void *> kp;
  std::vector<size_t> kl;
  for (const std::string &k : keys) {
    kp.push_back(k.data());
    kl.push_back(k.size());
  }
  ASSERT_EQ(cr_client_cmd_mset(f.c, kp.data(), kl.data(), kp.data(), kl.data(), keys.size()),
            CR_OK);
  const cr_client_stats before = f.Stats();
  cr_reply *r = nullptr;
  ASSERT_EQ(cr_client_cmd_mget(&r, f.c, kp.data(), kl.data(), keys.size()), CR_OK)
      << cr_last_error();
  ASSERT_EQ(cr_reply_get_count(r), 100u);
  cr_reply_free(r);
  const cr_client_stats after = f.Stats();
  EXPECT_EQ(after.reads - before.reads, 5u);  // one MGET per slot, not one GET per key
  int64_t deleted = 0;
  ASSERT_EQ(cr_client_cmd_del(&deleted, f.c, kp.data(), kl.data(), keys.size()), CR_OK);
  EXPECT_EQ(deleted, 100);
}

TEST_F(LiveClient, GenericCommandsAndServerErrors) {
  ClientFixture f(env_["SEEDS"]);
  ASSERT_NE(f.c, nullptr);
  auto cmd = [&](cr_access a, std::vector<std::string> args, cr_reply **out) {
    std::vector<const void *> p;
    std::vector<size_t> l;
    for (const std::string &s : args) {
      p.push_back(s.data());
      l.push_back(s.size());
    }
    return cr_client_command(out, f.c, a, 1, args.size(), p.data(), l.data());
  };
  cr_reply *r = nullptr;
  const std::string bin("h\0ash", 5);
  ASSERT_EQ(cmd(CR_ACCESS_WRITE, {"DEL", bin}, &r), CR_OK);
  cr_reply_free(r);
  ASSERT_EQ(cmd(CR_ACCESS_WRITE, {"HSET", bin, "f1", "v1", "f2", "v2"}, &r), CR_OK)
      << cr_last_error();
  EXPECT_EQ(cr_reply_get_integer(r), 2);
  cr_reply_free(r);
  ASSERT_EQ(cmd(CR_ACCESS_READ, {"HGETALL", bin}, &r), CR_OK);
  EXPECT_EQ(cr_reply_get_count(r), 4u);
  cr_reply_free(r);
  ASSERT_EQ(cmd(CR_ACCESS_WRITE, {"EXPIRE", bin, "100"}, &r), CR_OK);
  EXPECT_EQ(cr_reply_get_integer(r), 1);
  cr_reply_free(r);
  ASSERT_EQ(cmd(CR_ACCESS_READ, {"TTL", bin}, &r), CR_OK);
  EXPECT_GT(cr_reply_get_integer(r), 0);
  cr_reply_free(r);
  r = reinterpret_cast<cr_reply *>(0x1);
  EXPECT_EQ(cmd(CR_ACCESS_WRITE, {"INCR", bin}, &r), CR_EREDIS);
  EXPECT_EQ(r, nullptr);
  EXPECT_EQ(std::string(cr_last_error()).rfind("WRONGTYPE", 0), 0u) << cr_last_error();
  ASSERT_EQ(cr_client_cmd_set(f.c, "ttl-key", 7, "v", 1, 60000), CR_OK);
  EXPECT_EQ(f.Get("ttl-key"), "v");
  EXPECT_EQ(f.Get("no-such-key-xyz"), "(nil)");
}

TEST_F(LiveClient, StaleSlotIsCorrectedByMovedAndARefresh) {
  ClientFixture f(env_["SEEDS"]);
  ASSERT_NE(f.c, nullptr);
  const std::string key = env_["SHARD1_KEY"];  // slot owned by master 1
  const uint16_t slot = cr_keyslot(key.data(), key.size());
  // Make the router believe shard 2's master owns the slot: writes go there
  // and get MOVED back.
  const std::string wrong = env_["SHARD2_MASTER"];
  const size_t colon = wrong.rfind(':');
  ASSERT_EQ(cr_router_report_moved(f.router, slot, wrong.substr(0, colon).c_str(),
                                   static_cast<uint16_t>(std::atoi(wrong.c_str() + colon + 1))),
            CR_OK);
  ASSERT_EQ(cr_client_cmd_set(f.c, key.data(), key.size(), "moved-ok", 8, 0), CR_OK)
      << cr_last_error();
  const cr_client_stats st = f.Stats();
  EXPECT_EQ(st.moved, 1u);
  cr_route route = CR_ROUTE_INIT;
  ASSERT_EQ(cr_router_route_write(&route, f.router, key.data(), key.size()), CR_OK);
  EXPECT_EQ(std::string(route.host) + ":" + std::to_string(route.port), env_["SHARD1_MASTER"]);
  // The MOVED triggered a background refresh (rate-limited, 200 ms here).
  EXPECT_TRUE(crtest::WaitUntil([&] { return f.Stats().refreshes >= 2; }, std::chrono::seconds(10)))
      << f.Stats().refreshes << " refreshes";
  // Slot 4078 of the non-contiguous range is served too.
  EXPECT_EQ(f.Get(key), "moved-ok");
}

TEST_F(LiveClient, AStormOfMovedCostsOneRefresh) {
  ClientFixture f(env_["SEEDS"]);
  ASSERT_NE(f.c, nullptr);
  const std::string wrong = env_["SHARD2_MASTER"];
  const size_t colon = wrong.rfind(':');
  const std::string host = wrong.substr(0, colon);
  const uint16_t port = static_cast<uint16_t>(std::atoi(wrong.c_str() + colon + 1));
  const auto t0 = std::chrono::steady_clock::now();
  const uint64_t before = f.Stats().refreshes;
  for (int i = 0; i < 200; ++i) {
    const std::string key = "storm:" + std::to_string(i);
    const uint16_t slot = cr_keyslot(key.data(), key.size());
    cr_route w = CR_ROUTE_INIT;
    ASSERT_EQ(cr_router_route_write(&w, f.router, key.data(), key.size()), CR_OK);
    if (w.port != port) {
      ASSERT_EQ(cr_router_report_moved(f.router, slot, host.c_str(), port), CR_OK);
    }
    ASSERT_EQ(cr_client_cmd_set(f.c, key.data(), key.size(), "x", 1, 0), CR_OK) << cr_last_error();
  }
  // The refresh the storm asked for has run once the router no longer asks.
  ASSERT_TRUE(crtest::WaitUntil([&] { return cr_router_get_refresh_needed(f.router) == 0; },
                                std::chrono::seconds(10)))
      << "the refresh the MOVED storm asked for never ran";
  const cr_client_stats st = f.Stats();
  const long long ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
          .count();
  EXPECT_GT(st.moved, 50u);
  // Triggered refreshes start at most once per refresh_min_gap_ms (200 ms),
  // plus one in flight when counting began: not one per MOVED, however long
  // the storm took (a slow or sanitized build stretches it).
  EXPECT_LE(st.refreshes - before, static_cast<uint64_t>(ms / 200 + 2))
      << "MOVED storm caused " << st.refreshes - before << " refreshes in " << ms << " ms";
}

// Entries of a /proc directory: open file descriptors (less the one
// opendir itself holds) or threads.
size_t CountEntries(const char *dir) {
  size_t n = 0;
  DIR *d = opendir(dir);
  if (d == nullptr) return 0;
  const std::string own = std::to_string(dirfd(d));
  const bool fds = std::string(dir) == "/proc/self/fd";
  while (dirent *e = readdir(d)) {
    if (e->d_name[0] != '.' && !(fds && own == e->d_name)) ++n;
  }
  closedir(d);
  return n;
}

// cr_client_free closes every connection and joins every thread it started:
// after three clients that each opened pools to every node and refreshed,
// the process holds exactly the descriptors and threads it held before.
TEST_F(LiveClient, FreeReturnsFdsAndThreadsToTheirBaseline) {
  const std::vector<std::string> keys = Keys("res:", 300);
  std::vector<const void *> kp;
  std::vector<size_t> kl;
  for (const std::string &k : keys) {
    kp.push_back(k.data());
    kl.push_back(k.size());
  }
  auto use = [&](ClientFixture &f) {
    ASSERT_NE(f.c, nullptr);
    cr_reply *r = nullptr;
    ASSERT_EQ(cr_client_cmd_mget(&r, f.c, kp.data(), kl.data(), kp.size()), CR_OK)
        << cr_last_error();
    cr_reply_free(r);
    ASSERT_EQ(cr_client_refresh(f.c), CR_OK) << cr_last_error();
  };
  {  // first use sets up what stays for the process (OpenSSL, sanitizer threads)
    ClientFixture warm(env_["SEEDS"]);
    use(warm);
  }
  const size_t fds0 = CountEntries("/proc/self/fd");
  const size_t threads0 = CountEntries("/proc/self/task");
  for (int round = 0; round < 3; ++round) {
    {
      ClientFixture f(env_["SEEDS"]);
      use(f);
      EXPECT_GT(CountEntries("/proc/self/fd"), fds0) << "the client opened no connection";
      EXPECT_GT(CountEntries("/proc/self/task"), threads0) << "the client started no thread";
    }
    EXPECT_EQ(CountEntries("/proc/self/fd"), fds0) << "round " << round;
    EXPECT_EQ(CountEntries("/proc/self/task"), threads0) << "round " << round;
  }
}

// A fan-out takes one pooled connection per node and holds it until its
// replies are read. Concurrent MGETs whose keys meet the masters in
// different orders, over pools of one connection, must never each hold what
// another waits for: no timeout, no failure, whatever the interleaving.
TEST_F(LiveClient, ConcurrentFanOutsOverOneConnectionPoolsDoNotDeadlock) {
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  o.pool_size = 1;
  cr_router *router = nullptr;
  cr_client *c = crtest::NewCloudAClient(env_["SEEDS"], CR_POLICY_MASTER, 2000, o, &router);
  ASSERT_NE(c, nullptr);
  // Four keys per master, bucketed by the master that serves them.
  std::map<uint32_t, std::vector<std::string>> by_master;
  for (int i = 0; by_master.size() < 3 || by_master.begin()->second.size() < 4; ++i) {
    const std::string k = "fanout:" + std::to_string(i);
    cr_route r = CR_ROUTE_INIT;
    ASSERT_EQ(cr_router_route_write(&r, router, k.data(), k.size()), CR_OK);
    if (by_master[r.node_handle].size() < 4) by_master[r.node_handle].push_back(k);
    bool full = by_master.size() == 3;
    for (const auto &kv : by_master) full = full && kv.second.size() == 4;
    if (full) break;
  }
  std::vector<std::vector<std::string>> buckets;
  for (const auto &kv : by_master) buckets.push_back(kv.second);
  std::atomic<int> failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      // Thread t meets the masters starting at bucket t % 3, in one of two directions.
      std::vector<const void *> kp;
      std::vector<size_t> kl;
      for (size_t b = 0; b < buckets.size(); ++b) {
        const size_t i =
            t % 2 == 0 ? (t + b) % buckets.size() : (t + buckets.size() - b) % buckets.size();
        for (const std::string &k : buckets[i]) {
          kp.push_back(k.data());
          kl.push_back(k.size());
        }
      }
      for (int n = 0; n < 150; ++n) {
        cr_reply *r = nullptr;
        if (cr_client_cmd_mget(&r, c, kp.data(), kl.data(), kp.size()) != CR_OK) ++failed;
        cr_reply_free(r);
      }
    });
  }
  for (std::thread &th : threads) th.join();
  cr_client_stats st = CR_CLIENT_STATS_INIT;
  ASSERT_EQ(cr_client_get_stats(&st, c), CR_OK);
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(st.timeouts, 0u) << "fan-outs waited on each other's pooled connections";
  cr_client_free(c);
}

}  // namespace client_test
