// Load-aware selection on real servers: shard 1's three nodes (n1 master,
// n2 and n3 replicas) are one local tier under local-spread, and n2 is
// dialed through scripts/latency-proxy.py adding 10 ms each way (a 20 ms
// slower replica). The same traffic — GETs from 4 threads, then MGETs of 4
// keys (a fan-out: each key placed on its own, one leg per node) — runs
// with least-loaded and with random
// selection, side by side: under least-loaded n2's share drops well below
// the other two's, neither of which takes the whole tier, and the request
// p99 stays well under random selection's, which pays the 20 ms (n2 keeps
// its third there; the two p99s are compared, not an absolute bound, as
// the machine's load moves both).
//
// Its own cluster (scripts/redis-harness.sh, ports 9101-9109) and proxy
// (127.0.3.2:9102). CR_TEST_CLUSTER_ENV names the cluster.env,
// CR_PROXY_SCRIPT latency-proxy.py.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "cloudroute.h"
#include "fault_kit.hpp"

namespace least_loaded_live_test {

using crtest::FaultProxy;

constexpr int kThreads = 4;
constexpr int64_t kWarmupMs = 500;
constexpr int64_t kMeasureMs = 2000;
constexpr uint64_t kMaxRequests = 200000;  // per phase, across threads

struct Phase {
  std::map<std::string, double> share;  // reads per node over all three
  int64_t p99_us = 0;
  uint64_t requests = 0, failed = 0;
  std::string first_error;
};

class LeastLoaded : public crtest::ClusterTest {
 protected:
  std::string Addr(int n) { return Node(n, "IP") + ":" + Node(n, "PORT"); }

  cr_client *NewClient(cr_selection selection, const std::string &proxy) {
    cr_config *cfg = nullptr;
    EXPECT_EQ(cr_config_new(&cfg), CR_OK);
    EXPECT_EQ(cr_config_add_local_cidr(cfg, "127.0.0.0/8"), CR_OK);  // one tier: every node local
    EXPECT_EQ(cr_config_set_client_location(cfg, "cloud-a"), CR_OK);
    EXPECT_EQ(cr_config_add_address_remap(cfg, Addr(2).c_str(), proxy.c_str()), CR_OK)
        << cr_last_error();
    cr_router_options ro = CR_ROUTER_OPTIONS_INIT;
    ro.policy = CR_POLICY_LOCAL_SPREAD;
    EXPECT_EQ(cr_config_set_router_options(cfg, &ro), CR_OK);
    EXPECT_EQ(cr_config_set_selection(cfg, selection), CR_OK);
    cr_client_options o = CR_CLIENT_OPTIONS_INIT;
    o.client_name = "cr-least-loaded";
    cr_client *c = nullptr;
    EXPECT_EQ(cr_client_new(&c, cfg, &o, env_["SEEDS"].c_str()), CR_OK) << cr_last_error();
    cr_config_free(cfg);
    return c;
  }

  std::map<std::string, uint64_t> Reads(cr_client *c) {
    std::vector<cr_client_node_stats> v(64, cr_client_node_stats(CR_CLIENT_NODE_STATS_INIT));
    size_t count = 0;
    EXPECT_EQ(cr_client_get_node_stats(v.data(), v.size(), &count, c), CR_OK);
    std::map<std::string, uint64_t> out;
    for (size_t i = 0; i < count && i < v.size(); ++i)
      out[std::string(v[i].host) + ":" + std::to_string(v[i].port)] = v[i].reads;
    return out;
  }

  // Keys whose slots shard 1 (master n1) owns.
  std::vector<std::string> ShardOneKeys(cr_client *c, size_t n) {
    cr_router *router = cr_client_get_router(c);
    std::vector<std::string> keys;
    for (int i = 0; keys.size() < n && i < 100000; ++i) {
      const std::string k = "ll:" + std::to_string(i);
      cr_route r = CR_ROUTE_INIT;
      if (cr_router_route_write(&r, router, k.data(), k.size()) == CR_OK &&
          std::string(r.host) + ":" + std::to_string(r.port) == Addr(1)) {
        keys.push_back(k);
      }
    }
    return keys;
  }

  // kThreads threads of GETs (mget: MGETs of 4 keys) for kWarmupMs, then
  // measured for kMeasureMs.
  Phase Run(cr_client *c, const std::vector<std::string> &keys, bool mget) {
    Phase out;
    std::atomic<int> stage{0};  // 0 warm-up, 1 measured, 2 stop
    std::atomic<uint64_t> requests{0}, failed{0};
    std::vector<std::vector<int64_t>> lat(kThreads);
    std::vector<std::string> errors(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        size_t i = static_cast<size_t>(t) * 7;
        while (stage.load() < 2 && requests.load() < kMaxRequests) {
          const auto t0 = std::chrono::steady_clock::now();
          cr_reply *r = nullptr;
          cr_status s;
          if (mget) {
            const void *ks[4];
            size_t lens[4];
            for (size_t j = 0; j < 4; ++j) {
              const std::string &k = keys[(i + j) % keys.size()];
              ks[j] = k.data();
              lens[j] = k.size();
            }
            s = cr_client_cmd_mget(&r, c, ks, lens, 4);
          } else {
            const std::string &k = keys[i % keys.size()];
            s = cr_client_cmd_get(&r, c, k.data(), k.size());
          }
          cr_reply_free(r);
          ++i;
          const int64_t us = std::chrono::duration_cast<std::chrono::microseconds>(
                                 std::chrono::steady_clock::now() - t0)
                                 .count();
          if (stage.load() != 1) continue;
          requests.fetch_add(1);
          lat[t].push_back(us);
          if (s != CR_OK) {
            failed.fetch_add(1);
            if (errors[t].empty())
              errors[t] = std::string(cr_status_str(s)) + ": " + cr_last_error();
          }
        }
      });
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(kWarmupMs));  // load, not an assertion
    const std::map<std::string, uint64_t> before = Reads(c);
    stage.store(1);
    std::this_thread::sleep_for(std::chrono::milliseconds(kMeasureMs));
    stage.store(2);
    for (std::thread &th : threads) th.join();
    const std::map<std::string, uint64_t> after = Reads(c);
    uint64_t total = 0;
    std::map<std::string, uint64_t> delta;
    for (int n : {1, 2, 3}) {
      const std::string a = Addr(n);
      delta[a] = after.count(a) ? after.at(a) - (before.count(a) ? before.at(a) : 0) : 0;
      total += delta[a];
    }
    for (const auto &d : delta) out.share[d.first] = total == 0 ? 0 : double(d.second) / total;
    std::vector<int64_t> all;
    for (const auto &l : lat) all.insert(all.end(), l.begin(), l.end());
    std::sort(all.begin(), all.end());
    out.p99_us = all.empty() ? 0 : all[all.size() * 99 / 100];
    out.requests = requests.load();
    out.failed = failed.load();
    for (const std::string &e : errors)
      if (out.first_error.empty()) out.first_error = e;
    return out;
  }

  void Report(const char *what, const char *mode, const Phase &p) {
    std::printf("LEAST_LOADED op=%s selection=%s requests=%llu failed=%llu p99_us=%lld", what, mode,
                static_cast<unsigned long long>(p.requests),
                static_cast<unsigned long long>(p.failed), static_cast<long long>(p.p99_us));
    for (int n : {1, 2, 3}) std::printf(" n%d=%.4f", n, p.share.at(Addr(n)));
    std::printf("\n");
    EXPECT_GT(p.requests, 100u) << what << " " << mode;
    EXPECT_EQ(p.failed, 0u) << what << " " << mode << ": " << p.first_error;
  }
};

TEST_F(LeastLoaded, ASlowReplicaLosesItsShareAndTheP99StaysBounded) {
  const std::string control = env_["HARNESS_DIR"] + "/proxy-least-loaded.ctl";
  std::ofstream(control) << "forward\n";
  const std::string proxy = "127.0.3.2:" + Node(2, "PORT");
  FaultProxy slow(proxy, Addr(2), control, /*delay_ms=*/10);  // +20 ms per round trip
  ASSERT_TRUE(slow.ready());

  cr_client *least = NewClient(CR_SELECTION_LEAST_LOADED, proxy);
  cr_client *random = NewClient(CR_SELECTION_RANDOM, proxy);
  ASSERT_NE(least, nullptr);
  ASSERT_NE(random, nullptr);
  const std::vector<std::string> keys = ShardOneKeys(least, 64);
  ASSERT_EQ(keys.size(), 64u);
  // The keys exist on every node (replicas answer once they have them).
  for (const std::string &k : keys)
    ASSERT_EQ(cr_client_cmd_set(least, k.data(), k.size(), "v", 1, 0), CR_OK) << cr_last_error();

  for (bool mget : {false, true}) {
    const char *op = mget ? "mget" : "get";
    const Phase ll = Run(least, keys, mget);
    Report(op, "least-loaded", ll);
    const Phase rnd = Run(random, keys, mget);
    Report(op, "random", rnd);
    const double slow_ll = ll.share.at(Addr(2));
    // The slow replica: well below the others under least-loaded, about
    // its third under random.
    EXPECT_LT(slow_ll, 0.10) << op;
    EXPECT_LT(slow_ll * 4, std::min(ll.share.at(Addr(1)), ll.share.at(Addr(3)))) << op;
    EXPECT_GT(rnd.share.at(Addr(2)), 0.20) << op;
    // The two fast nodes share the tier: neither takes it all.
    EXPECT_GT(ll.share.at(Addr(1)), 0.25) << op;
    EXPECT_GT(ll.share.at(Addr(3)), 0.25) << op;
    // Random's p99 pays the 20 ms; least-loaded's stays under it (measured:
    // 0.6 ms for GETs, 11 ms for MGETs on a 2-core machine at load 15,
    // against 42 ms under random; under ASan on a busy CI machine an MGET
    // p99 of 26.6 against 46.5 ms). The shares above are the behaviour; how
    // far under is a benchmark's question (bench/least_loaded_bench.sh).
    EXPECT_GE(rnd.p99_us, 20000) << op;
    EXPECT_LT(ll.p99_us, rnd.p99_us) << op;
  }
  cr_client_free(least);
  cr_client_free(random);
}

}  // namespace least_loaded_live_test
