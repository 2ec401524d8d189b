// Routing: route_read through the C++ Router, the C API, a pinned snapshot
// and the batch call, on 3- and 100-shard topologies built from generated
// CLUSTER SLOTS bytes; topology rebuild cost; multi-threaded readers, alone
// and against a thread that keeps installing new topologies.
//
// Routing benchmarks walk 1024 short keys per iteration; items/s is keys/s.
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <tuple>

#include "bench_util.hpp"
#include "cloudroute.h"
#include "cloudroute/core/cluster_reply.hpp"
#include "cloudroute/core/router.hpp"
#include "cloudroute/core/snapshot.hpp"

namespace {

using cloudroute::Policy;
using crbench::KeySet;
using crbench::Must;

// ---------------------------------------------------------------- fixtures

std::shared_ptr<const cloudroute::Topology> ParseOrDie(const std::string &resp) {
  auto t = cloudroute::ParseClusterSlots(resp, cloudroute::ClusterReplyOptions{});
  if (!t.ok()) {
    std::fprintf(stderr, "ParseClusterSlots: %s\n", t.status().message().c_str());
    std::abort();
  }
  return *t;
}

// One router pair (C++ and C API) on one topology. Built once, never freed.
struct World {
  std::string resp, resp_alt;  // the topology and its failed-over twin
  std::shared_ptr<const cloudroute::Topology> topo, topo_alt;
  std::unique_ptr<cloudroute::Router> router;
  cr_router *crouter = nullptr;
  cr_snapshot *snap = nullptr;
};

void DescribeOnce(World &w, int shards) {
  cr_candidate c[8];
  for (auto &x : c) x = cr_candidate{(uint32_t)sizeof(cr_candidate)};
  size_t n = 0;
  Must(cr_router_candidates_slot(c, 8, &n, w.crouter, 0), "cr_router_candidates_slot");
  std::fprintf(stderr, "[fixture] %d shards, %zu nodes; slot 0 candidates:", shards,
               w.topo->nodes.size());
  for (size_t i = 0; i < n; ++i) {
    std::fprintf(stderr, " %s:%u/%s/%s/r%u", c[i].host, c[i].port,
                 c[i].role == CR_ROLE_MASTER ? "M" : "R", cr_tier_name(c[i].tier), c[i].rank);
  }
  std::fprintf(stderr, "\n");
}

// instance: separate routers for benchmarks that mutate (the updater).
World &GetWorld(int shards, Policy policy = Policy::kLocal, int instance = 0) {
  static std::mutex mu;
  static std::map<std::tuple<int, int, int>, std::unique_ptr<World>> worlds;
  std::lock_guard<std::mutex> lock(mu);
  auto &slot = worlds[{shards, static_cast<int>(policy), instance}];
  if (slot) return *slot;
  auto w = std::make_unique<World>();
  w->resp = crbench::MakeClusterSlots(shards);
  w->resp_alt = crbench::MakeClusterSlots(shards, /*failover=*/true);
  w->topo = ParseOrDie(w->resp);
  w->topo_alt = ParseOrDie(w->resp_alt);
  w->router = std::make_unique<cloudroute::Router>(crbench::MakeCoreConfig(policy));
  cloudroute::Status s = w->router->Update(w->topo);
  if (!s.ok()) {
    std::fprintf(stderr, "Router::Update: %s\n", s.message().c_str());
    std::abort();
  }
  cr_config *cfg = crbench::MakeCConfig(static_cast<cr_policy>(policy));
  Must(cr_router_new(&w->crouter, cfg), "cr_router_new");
  cr_config_free(cfg);
  cr_topology *t = nullptr;
  Must(cr_topology_parse(&t, w->resp.data(), w->resp.size(), CR_TOPOLOGY_FORMAT_CLUSTER_SLOTS,
                         nullptr),
       "cr_topology_parse");
  Must(cr_router_update(w->crouter, t), "cr_router_update");
  cr_topology_free(t);
  Must(cr_router_get_snapshot(&w->snap, w->crouter), "cr_router_get_snapshot");
  if (instance == 0 && policy == Policy::kLocal) DescribeOnce(*w, shards);
  slot = std::move(w);
  return *slot;
}

const KeySet &ShortKeys() {
  static const KeySet ks = crbench::MakeKeys(crbench::kShort);
  return ks;
}

void PerKey(benchmark::State &state, const char *label = nullptr) {
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * KeySet::kKeys);
  if (label != nullptr) state.SetLabel(label);
}

// ---------------------------------------------------------------- single-thread routing

void BM_RouteRead_Router(benchmark::State &state) {
  World &w = GetWorld(static_cast<int>(state.range(0)));
  const KeySet &ks = ShortKeys();
  const cloudroute::Router &r = *w.router;
  for (auto _ : state) {
    for (size_t i = 0; i < KeySet::kKeys; ++i) {
      cloudroute::Route route;
      benchmark::DoNotOptimize(r.RouteRead(ks.ptrs[i], ks.lens[i], &route));
      benchmark::DoNotOptimize(route.node);
    }
  }
  PerKey(state);
}

// Snapshot::RouteRead on a counted reference: no SnapshotCell guard at all,
// to show what the guard costs.
void BM_RouteRead_CoreSnapshot(benchmark::State &state) {
  World &w = GetWorld(static_cast<int>(state.range(0)));
  const KeySet &ks = ShortKeys();
  std::shared_ptr<const cloudroute::Snapshot> snap = w.router->Current();
  for (auto _ : state) {
    for (size_t i = 0; i < KeySet::kKeys; ++i) {
      cloudroute::Route route;
      benchmark::DoNotOptimize(
          snap->RouteRead(cloudroute::KeySlot(ks.ptrs[i], ks.lens[i]), &route));
      benchmark::DoNotOptimize(route.node);
    }
  }
  PerKey(state);
}

void BM_RouteRead_CApi(benchmark::State &state) {
  World &w = GetWorld(static_cast<int>(state.range(0)));
  const KeySet &ks = ShortKeys();
  for (auto _ : state) {
    for (size_t i = 0; i < KeySet::kKeys; ++i) {
      cr_route route = CR_ROUTE_INIT;
      benchmark::DoNotOptimize(cr_router_route_read(&route, w.crouter, ks.ptrs[i], ks.lens[i]));
      benchmark::DoNotOptimize(route.host);
    }
  }
  PerKey(state);
}

void BM_RouteRead_CApiSnapshot(benchmark::State &state) {
  World &w = GetWorld(static_cast<int>(state.range(0)));
  const KeySet &ks = ShortKeys();
  for (auto _ : state) {
    for (size_t i = 0; i < KeySet::kKeys; ++i) {
      cr_route route = CR_ROUTE_INIT;
      benchmark::DoNotOptimize(cr_snapshot_route_read(&route, w.snap, ks.ptrs[i], ks.lens[i]));
      benchmark::DoNotOptimize(route.host);
    }
  }
  PerKey(state);
}

void BM_RouteReads_CApiBatch(benchmark::State &state) {
  World &w = GetWorld(static_cast<int>(state.range(0)));
  const KeySet &ks = ShortKeys();
  static thread_local cr_route out[KeySet::kKeys];
  static thread_local cr_status st[KeySet::kKeys];
  for (auto &o : out) o = CR_ROUTE_INIT;
  for (auto _ : state) {
    cr_status s = cr_router_route_read_batch(out, st, w.crouter, ks.ptrs.data(), ks.lens.data(),
                                             KeySet::kKeys);
    benchmark::DoNotOptimize(s);
    benchmark::ClobberMemory();
  }
  PerKey(state);
}

void BM_RouteWrite_CApi(benchmark::State &state) {
  World &w = GetWorld(static_cast<int>(state.range(0)));
  const KeySet &ks = ShortKeys();
  for (auto _ : state) {
    for (size_t i = 0; i < KeySet::kKeys; ++i) {
      cr_route route = CR_ROUTE_INIT;
      benchmark::DoNotOptimize(cr_router_route_write(&route, w.crouter, ks.ptrs[i], ks.lens[i]));
      benchmark::DoNotOptimize(route.host);
    }
  }
  PerKey(state);
}

#define SHARDS ArgName("shards")->Arg(3)->Arg(100)
BENCHMARK(BM_RouteRead_Router)->SHARDS;
BENCHMARK(BM_RouteRead_CoreSnapshot)->SHARDS;
BENCHMARK(BM_RouteRead_CApi)->SHARDS;
BENCHMARK(BM_RouteRead_CApiSnapshot)->SHARDS;
BENCHMARK(BM_RouteReads_CApiBatch)->SHARDS;
BENCHMARK(BM_RouteWrite_CApi)->SHARDS;

// ---------------------------------------------------------------- rebuild

void BM_Rebuild_Parse(benchmark::State &state) {
  const std::string resp = crbench::MakeClusterSlots(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    auto t = cloudroute::ParseClusterSlots(resp, cloudroute::ClusterReplyOptions{});
    benchmark::DoNotOptimize(t.ok());
  }
}

void BM_Rebuild_BuildSnapshot(benchmark::State &state) {
  World &w = GetWorld(static_cast<int>(state.range(0)));
  const cloudroute::RouterConfig cfg = crbench::MakeCoreConfig(Policy::kLocal);
  auto registry = std::make_shared<cloudroute::NodeRegistry>(cfg.health, nullptr, 42);
  std::unordered_map<std::string, std::string> zones;
  std::vector<cloudroute::MovedPatch> moved;
  uint64_t gen = 0;
  for (auto _ : state) {
    cloudroute::SnapshotInputs in;
    in.topology = w.topo;
    in.config = &cfg;
    in.registry = registry;
    in.zone_overrides = &zones;
    in.moved = &moved;
    in.generation = ++gen;
    auto snap = cloudroute::BuildSnapshot(in);
    benchmark::DoNotOptimize(snap.ok());
  }
}

// Router::Update alternating two topologies (the master moving clouds and
// back): BuildSnapshot + publish + freeing the previous snapshot.
void BM_Rebuild_RouterUpdate(benchmark::State &state) {
  World &w = GetWorld(static_cast<int>(state.range(0)), Policy::kLocal, /*instance=*/2);
  bool alt = false;
  for (auto _ : state) {
    alt = !alt;
    benchmark::DoNotOptimize(w.router->Update(alt ? w.topo_alt : w.topo).ok());
  }
}

// The whole refresh: RESP bytes → Topology → Router::Update.
void BM_Rebuild_ParseAndUpdate(benchmark::State &state) {
  World &w = GetWorld(static_cast<int>(state.range(0)), Policy::kLocal, /*instance=*/2);
  bool alt = false;
  for (auto _ : state) {
    alt = !alt;
    auto t =
        cloudroute::ParseClusterSlots(alt ? w.resp_alt : w.resp, cloudroute::ClusterReplyOptions{});
    benchmark::DoNotOptimize(w.router->Update(std::move(*t)).ok());
  }
}

void BM_Rebuild_CApi_ParseAndUpdate(benchmark::State &state) {
  World &w = GetWorld(static_cast<int>(state.range(0)), Policy::kLocal, /*instance=*/2);
  bool alt = false;
  for (auto _ : state) {
    alt = !alt;
    const std::string &resp = alt ? w.resp_alt : w.resp;
    cr_topology *t = nullptr;
    cr_status s =
        cr_topology_parse(&t, resp.data(), resp.size(), CR_TOPOLOGY_FORMAT_CLUSTER_SLOTS, nullptr);
    if (s == CR_OK) s = cr_router_update(w.crouter, t);
    cr_topology_free(t);
    benchmark::DoNotOptimize(s);
  }
}

#define REBUILD ArgName("shards")->Arg(10)->Arg(100)->Unit(benchmark::kMicrosecond)
BENCHMARK(BM_Rebuild_Parse)->REBUILD;
BENCHMARK(BM_Rebuild_BuildSnapshot)->REBUILD;
BENCHMARK(BM_Rebuild_RouterUpdate)->REBUILD;
BENCHMARK(BM_Rebuild_ParseAndUpdate)->REBUILD;
BENCHMARK(BM_Rebuild_CApi_ParseAndUpdate)->REBUILD;

// ---------------------------------------------------------------- threads

// Readers on one shared Router. Arg policy: 0 = local (two local replicas
// share rank 0, so every read draws NodeRegistry::NextRandom), 1 = master
// (one candidate, no random draw) — the difference isolates the shared RNG.
void BM_RouteRead_MT(benchmark::State &state) {
  const Policy policy = state.range(0) == 0 ? Policy::kLocal : Policy::kMaster;
  World &w = GetWorld(100, policy);
  const KeySet &ks = ShortKeys();
  const cloudroute::Router &r = *w.router;
  const size_t off = static_cast<size_t>(state.thread_index()) * 331;
  for (auto _ : state) {
    for (size_t i = 0; i < KeySet::kKeys; ++i) {
      const size_t k = (i + off) & (KeySet::kKeys - 1);
      cloudroute::Route route;
      benchmark::DoNotOptimize(r.RouteRead(ks.ptrs[k], ks.lens[k], &route));
      benchmark::DoNotOptimize(route.node);
    }
  }
  PerKey(state, policy == Policy::kLocal ? "local" : "master");
}

// Each reader pins its own snapshot once: no SnapshotCell traffic at all.
void BM_SnapshotRouteRead_MT(benchmark::State &state) {
  World &w = GetWorld(100);
  const KeySet &ks = ShortKeys();
  cr_snapshot *snap = nullptr;
  Must(cr_router_get_snapshot(&snap, w.crouter), "cr_router_get_snapshot");
  const size_t off = static_cast<size_t>(state.thread_index()) * 331;
  for (auto _ : state) {
    for (size_t i = 0; i < KeySet::kKeys; ++i) {
      const size_t k = (i + off) & (KeySet::kKeys - 1);
      cr_route route = CR_ROUTE_INIT;
      benchmark::DoNotOptimize(cr_snapshot_route_read(&route, snap, ks.ptrs[k], ks.lens[k]));
      benchmark::DoNotOptimize(route.host);
    }
  }
  cr_snapshot_free(snap);
  PerKey(state);
}

// Readers while another thread keeps calling Router::Update (alternating two
// topologies). The updater stops when the readers finish, and in any case
// after kMaxUpdates updates or kMaxSeconds.
void BM_RouteRead_MT_WithUpdater(benchmark::State &state) {
  static constexpr uint64_t kMaxUpdates = 200000;
  static constexpr auto kMaxSeconds = std::chrono::seconds(20);
  static std::atomic<bool> stop{false};
  static std::atomic<uint64_t> updates{0};
  static std::thread updater;
  World &w = GetWorld(100, Policy::kLocal, /*instance=*/1);
  const KeySet &ks = ShortKeys();
  std::chrono::steady_clock::time_point t0;
  if (state.thread_index() == 0) {
    stop.store(false);
    updates.store(0);
    updater = std::thread([&w] {
      const auto start = std::chrono::steady_clock::now();
      bool alt = false;
      while (!stop.load(std::memory_order_relaxed) &&
             updates.load(std::memory_order_relaxed) < kMaxUpdates &&
             std::chrono::steady_clock::now() - start < kMaxSeconds) {
        alt = !alt;
        if (!w.router->Update(alt ? w.topo_alt : w.topo).ok()) std::abort();
        updates.fetch_add(1, std::memory_order_relaxed);
      }
    });
    t0 = std::chrono::steady_clock::now();
  }
  const cloudroute::Router &r = *w.router;
  const size_t off = static_cast<size_t>(state.thread_index()) * 331;
  uint64_t failures = 0;
  for (auto _ : state) {
    for (size_t i = 0; i < KeySet::kKeys; ++i) {
      const size_t k = (i + off) & (KeySet::kKeys - 1);
      cloudroute::Route route;
      failures += r.RouteRead(ks.ptrs[k], ks.lens[k], &route) != cloudroute::Code::kOk;
      benchmark::DoNotOptimize(route.node);
    }
  }
  if (failures != 0) state.SkipWithError("a read failed during updates");
  if (state.thread_index() == 0) {
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    stop.store(true);
    updater.join();
    state.counters["updates"] = static_cast<double>(updates.load());
    state.counters["updates_per_s"] = static_cast<double>(updates.load()) / secs;
  }
  PerKey(state);
}

BENCHMARK(BM_RouteRead_MT)
    ->ArgName("policy")
    ->Arg(0)
    ->Arg(1)
    ->Threads(1)
    ->Threads(2)
    ->UseRealTime();
BENCHMARK(BM_SnapshotRouteRead_MT)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_RouteRead_MT_WithUpdater)->Threads(1)->Threads(2)->UseRealTime();

// One reader while another thread reports success for every node in a loop,
// as the net layer does after each reply. Arg guarded: 0 = ReportSuccess on
// every reply (today: NodeHealth::Success() stores to the NodeEntry line
// every reader loads in Admit()), 1 = skip the call when the node has no
// failures (what the proposed Success() patch does inside). Bounded: stops
// with the reader, or after 20 s.
void BM_RouteRead_WithSuccessReports(benchmark::State &state) {
  static std::atomic<bool> stop{false};
  static std::atomic<uint64_t> reports{0};
  const bool guarded = state.range(0) != 0;
  World &w = GetWorld(100, Policy::kLocal, /*instance=*/3);
  cloudroute::Router &router = *w.router;
  stop.store(false);
  reports.store(0);
  std::thread reporter([&router, guarded] {
    const auto start = std::chrono::steady_clock::now();
    const uint32_t n = router.registry().size();
    uint64_t done = 0;
    while (!stop.load(std::memory_order_relaxed) &&
           std::chrono::steady_clock::now() - start < std::chrono::seconds(20)) {
      for (uint32_t h = 0; h < n; ++h) {
        if (guarded && router.registry().Get(h)->health.consecutive_failures() == 0) continue;
        (void)router.ReportSuccess(h);
      }
      done += n;
    }
    reports.store(done);
  });
  const KeySet &ks = ShortKeys();
  for (auto _ : state) {
    for (size_t i = 0; i < KeySet::kKeys; ++i) {
      cloudroute::Route route;
      benchmark::DoNotOptimize(router.RouteRead(ks.ptrs[i], ks.lens[i], &route));
      benchmark::DoNotOptimize(route.node);
    }
  }
  stop.store(true);
  reporter.join();
  state.counters["reports"] = static_cast<double>(reports.load());
  PerKey(state, guarded ? "success reports skipped when healthy" : "success reports store");
}
BENCHMARK(BM_RouteRead_WithSuccessReports)->ArgName("guarded")->Arg(0)->Arg(1)->UseRealTime();

}  // namespace
