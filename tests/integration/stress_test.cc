// Concurrency stress of one live client: worker threads run
// GET, SET and MGET through one cr_client while a chaos thread keeps
// swapping its router between the live topology and a stale one (every
// shard's slots given to the next shard's nodes, so commands meet MOVED),
// forces refreshes, and flips node health; a checker thread routes on
// snapshots. Bounded in time (CR_STRESS_SECONDS, default 8); with
// CR_STRESS_SHARED_CONNECTIONS every thread's commands share that many
// connections per node (integration.stress.shared). Asserts no
// failed command, no wrong value, and that every routing answer agrees with
// the snapshot it came from (its topology, or a MOVED the cluster sent) and
// snapshot generations only grow. Runs under ASan + UBSan and ThreadSanitizer (label
// tsan), against the shared cluster fixture (it writes keys of its own).
//
// CR_TEST_CLUSTER_ENV names the harness's cluster.env.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cloudroute.h"
#include "fault_kit.hpp"
#include "harness_env.hpp"

namespace stress_test {

using crtest::FaultClient;
using crtest::FaultClock;
using crtest::MsFrom;
using crtest::ValueOf;

struct ShardNodes {
  std::string master;
  std::vector<std::string> replicas;
};

std::string NodeAddr(const cr_node_info &n) {
  return std::string(n.host) + ":" + std::to_string(n.port);
}

// The master of slot in topology t, "host:port"; "" when no shard serves it.
std::string SlotMaster(const cr_topology *t, uint16_t slot) {
  uint32_t shard = 0;
  if (cr_topology_get_slot_shard(&shard, t, slot) != CR_OK) return "";
  for (size_t i = 0; i < cr_topology_get_node_count(t); ++i) {
    cr_node_info n = CR_NODE_INFO_INIT;
    if (cr_topology_get_node(&n, t, i) == CR_OK && n.shard == shard && n.role == CR_ROLE_MASTER)
      return NodeAddr(n);
  }
  return "";
}

// A stale view of t in the static format: shard i's slots served by the
// nodes of shard i+1 (mod the shard count). Every command routed on it
// meets a MOVED.
std::string RotatedStatic(const cr_topology *t) {
  const size_t shards = cr_topology_get_shard_count(t);
  std::vector<ShardNodes> nodes(shards);
  for (size_t i = 0; i < cr_topology_get_node_count(t); ++i) {
    cr_node_info n = CR_NODE_INFO_INIT;
    EXPECT_EQ(cr_topology_get_node(&n, t, i), CR_OK);
    if (n.role == CR_ROLE_MASTER)
      nodes[n.shard].master = NodeAddr(n);
    else
      nodes[n.shard].replicas.push_back(NodeAddr(n));
  }
  std::string text;
  for (size_t s = 0; s < shards; ++s) {
    uint16_t starts[64], ends[64];
    size_t count = 0;
    EXPECT_EQ(cr_topology_get_shard_ranges(starts, ends, 64, &count, t, static_cast<uint32_t>(s)),
              CR_OK);
    const ShardNodes &to = nodes[(s + 1) % shards];
    text += "shard slots=";
    for (size_t r = 0; r < count; ++r) {
      text += (r ? "," : "") + std::to_string(starts[r]) + "-" + std::to_string(ends[r]);
    }
    text += " master=" + to.master;
    if (!to.replicas.empty()) {
      text += " replicas=";
      for (size_t r = 0; r < to.replicas.size(); ++r) text += (r ? "," : "") + to.replicas[r];
    }
    text += "\n";
  }
  return text;
}

// CR_STRESS_SHARED_CONNECTIONS: run with that many shared connections per
// node (cr_client_options.shared_connections; integration.stress.shared).
cr_client_options StressOptions() {
  cr_client_options o = crtest::FaultOptions();
  const char *s = std::getenv("CR_STRESS_SHARED_CONNECTIONS");
  o.shared_connections = s == nullptr ? 0u : static_cast<uint32_t>(std::atoi(s));
  return o;
}

int StressSeconds() {
  const char *s = std::getenv("CR_STRESS_SECONDS");
  const int v = s == nullptr ? 0 : std::atoi(s);
  return v > 0 ? v : 8;
}

TEST(Stress, OneClientManyThreadsWhileTopologiesSwapAndHealthFlips) {
  auto env = crtest::LoadHarnessEnv();
  ASSERT_FALSE(env["SEEDS"].empty()) << "CR_TEST_CLUSTER_ENV does not name a cluster.env";
  FaultClient cl(env["SEEDS"], CR_POLICY_LOCAL_SPREAD, StressOptions(), /*cooldown_ms=*/200);
  ASSERT_NE(cl.c, nullptr);
  std::vector<std::string> keys;
  for (int i = 0; i < 300; ++i) keys.push_back("stress:" + std::to_string(i));
  crtest::StoreAndSettle(cl, keys);

  cr_snapshot *snap = nullptr;
  ASSERT_EQ(cr_router_get_snapshot(&snap, cl.router), CR_OK);
  cr_topology *live = cr_snapshot_get_topology(snap);
  cr_snapshot_free(snap);
  ASSERT_NE(live, nullptr);
  const std::string stale_text = RotatedStatic(live);
  cr_topology *stale = nullptr;
  ASSERT_EQ(cr_topology_parse_static(&stale, stale_text.data(), stale_text.size()), CR_OK)
      << cr_last_error() << "\n"
      << stale_text;
  std::vector<uint32_t> handles;
  for (size_t i = 0; i < cr_topology_get_node_count(live); ++i) {
    cr_node_info n = CR_NODE_INFO_INIT;
    ASSERT_EQ(cr_topology_get_node(&n, live, i), CR_OK);
    uint32_t h = 0;
    ASSERT_EQ(cr_router_find_node(&h, cl.router, n.host, n.port), CR_OK);
    handles.push_back(h);
  }

  const auto deadline = FaultClock::now() + std::chrono::seconds(StressSeconds());
  std::atomic<uint64_t> ops{0}, failed{0}, wrong{0}, swaps{0}, flips{0}, checks{0}, bad_routes{0};
  std::atomic<int64_t> slowest_ms{0};
  std::mutex mu;
  std::string first_error;
  auto note = [&](const std::string &what) {
    std::lock_guard<std::mutex> l(mu);
    if (first_error.empty()) first_error = what;
  };

  std::vector<std::thread> threads;
  for (int w = 0; w < 6; ++w) {
    threads.emplace_back([&, w] {
      std::mt19937 rng(static_cast<uint32_t>(w + 1));
      std::vector<const void *> mk(10);
      std::vector<size_t> ml(10);
      while (FaultClock::now() < deadline) {
        const auto t = FaultClock::now();
        const std::string &k = keys[rng() % keys.size()];
        const uint32_t op = rng() % 4;
        if (op == 0) {  // SET of the value the key always holds
          if (cl.Set(k, ValueOf(k)) != CR_OK) {
            failed.fetch_add(1);
            note("SET " + k + ": " + cr_last_error());
          }
        } else if (op == 1) {  // MGET of 10 keys in any slots
          std::vector<size_t> idx(10);
          for (size_t i = 0; i < 10; ++i) {
            idx[i] = rng() % keys.size();
            mk[i] = keys[idx[i]].data();
            ml[i] = keys[idx[i]].size();
          }
          cr_reply *r = nullptr;
          if (cr_client_cmd_mget(&r, cl.c, mk.data(), ml.data(), 10) != CR_OK) {
            failed.fetch_add(1);
            note(std::string("MGET: ") + cr_last_error());
          } else {
            for (size_t i = 0; i < 10; ++i) {
              size_t len = 0;
              const char *p = cr_reply_get_string(cr_reply_get_element(r, i), &len);
              if (p == nullptr || std::string(p, len) != ValueOf(keys[idx[i]])) {
                wrong.fetch_add(1);
                note("MGET " + keys[idx[i]] + " read a wrong value");
              }
            }
          }
          cr_reply_free(r);
        } else {
          std::string v;
          if (cl.Get(k, &v) != CR_OK) {
            failed.fetch_add(1);
            note("GET " + k + ": " + cr_last_error());
          } else if (v != ValueOf(k)) {
            wrong.fetch_add(1);
            note("GET " + k + " read '" + v + "'");
          }
        }
        ops.fetch_add(1);
        const int64_t ms = MsFrom(t);
        int64_t prev = slowest_ms.load();
        while (ms > prev && !slowest_ms.compare_exchange_weak(prev, ms)) {
        }
      }
    });
  }
  // The checker: whatever snapshot it gets, its write route of a key names
  // the master its own topology gives the slot, or the live master (a MOVED
  // patches a slot of a snapshot, not its topology), and generations never
  // go back.
  std::vector<std::string> live_master(keys.size());
  for (size_t i = 0; i < keys.size(); ++i)
    live_master[i] = SlotMaster(live, cr_keyslot(keys[i].data(), keys[i].size()));
  threads.emplace_back([&] {
    uint64_t last_gen = 0;
    while (FaultClock::now() < deadline) {
      cr_snapshot *s = nullptr;
      if (cr_router_get_snapshot(&s, cl.router) != CR_OK) {
        bad_routes.fetch_add(1);
        continue;
      }
      const uint64_t gen = cr_snapshot_get_generation(s);
      if (gen < last_gen) {
        bad_routes.fetch_add(1);
        note("snapshot generation went back from " + std::to_string(last_gen));
      }
      last_gen = gen;
      cr_topology *t = cr_snapshot_get_topology(s);
      for (size_t i = 0; i < keys.size(); i += 7) {
        const std::string &k = keys[i];
        cr_route r = CR_ROUTE_INIT;
        const bool ok = cr_snapshot_route_write(&r, s, k.data(), k.size()) == CR_OK;
        const std::string got = ok ? std::string(r.host) + ":" + std::to_string(r.port) : "";
        if (got.empty() ||
            (got != live_master[i] && got != SlotMaster(t, cr_keyslot(k.data(), k.size())))) {
          bad_routes.fetch_add(1);
          note("snapshot " + std::to_string(gen) + " routes " + k + " to " + got +
               ", neither its topology's master nor the live one");
        }
      }
      cr_topology_free(t);
      cr_snapshot_free(s);
      checks.fetch_add(1);
    }
  });
  // Chaos: the stale topology, a refresh, one node failed and later healed.
  threads.emplace_back([&] {
    std::mt19937 rng(99);
    uint32_t down = UINT32_MAX;
    for (int round = 0; FaultClock::now() < deadline; ++round) {
      if (round % 3 == 0) {
        EXPECT_EQ(cr_router_update(cl.router, stale), CR_OK);
        swaps.fetch_add(1);
      } else if (round % 3 == 1) {
        (void)cr_client_refresh(cl.c);  // may race the background refresher; counted by it
        swaps.fetch_add(1);
      }
      if (down != UINT32_MAX) {
        EXPECT_EQ(cr_router_report_success(cl.router, down), CR_OK);
        down = UINT32_MAX;
      } else {
        down = handles[rng() % handles.size()];
        EXPECT_EQ(cr_router_report_failure(cl.router, down), CR_OK);
      }
      flips.fetch_add(1);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (down != UINT32_MAX) {
      EXPECT_EQ(cr_router_report_success(cl.router, down), CR_OK);
    }
  });
  for (std::thread &t : threads) t.join();

  const cr_client_stats st = cl.Stats();
  std::printf(
      "STRESS seconds=%d ops=%llu failed=%llu wrong=%llu slowest_ms=%lld swaps=%llu flips=%llu "
      "snapshot_checks=%llu bad_routes=%llu moved=%llu refreshes=%llu fallbacks=%llu\n",
      StressSeconds(), (unsigned long long)ops.load(), (unsigned long long)failed.load(),
      (unsigned long long)wrong.load(), (long long)slowest_ms.load(),
      (unsigned long long)swaps.load(), (unsigned long long)flips.load(),
      (unsigned long long)checks.load(), (unsigned long long)bad_routes.load(),
      (unsigned long long)st.moved, (unsigned long long)st.refreshes,
      (unsigned long long)st.fallbacks);
  EXPECT_GT(ops.load(), 100u);
  EXPECT_GT(st.moved, 0u) << "the stale topology never met a MOVED";
  EXPECT_EQ(failed.load(), 0u) << first_error;
  EXPECT_EQ(wrong.load(), 0u) << first_error;
  EXPECT_EQ(bad_routes.load(), 0u) << first_error;
  // After the storm the client settles on the live topology.
  ASSERT_EQ(cr_client_refresh(cl.c), CR_OK) << cr_last_error();
  crtest::ExpectStored(cl, keys, "stress");
  cr_topology_free(stale);
  cr_topology_free(live);
}

}  // namespace stress_test
