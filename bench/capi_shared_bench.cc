// The C API as bindings call it: through libcloudroute.so (PLT calls, and
// thread-local storage reached with __tls_get_addr from inside a shared
// object). Compare with the BM_*_CApi rows of cloudroute_bench, which link
// the static library.
#include <benchmark/benchmark.h>

#include "bench_util.hpp"
#include "cloudroute.h"

namespace {

using crbench::KeySet;
using crbench::Must;

struct CWorld {
  std::string resp;
  cr_router *r = nullptr;
  cr_snapshot *snap = nullptr;
};

CWorld &GetCWorld(int shards) {
  static CWorld worlds[2];
  CWorld &w = worlds[shards == 3 ? 0 : 1];
  if (w.r != nullptr) return w;
  w.resp = crbench::MakeClusterSlots(shards);
  cr_config *cfg = crbench::MakeCConfig(CR_POLICY_LOCAL);
  Must(cr_router_new(&w.r, cfg), "cr_router_new");
  cr_config_free(cfg);
  cr_topology *t = nullptr;
  Must(cr_topology_parse(&t, w.resp.data(), w.resp.size(), CR_TOPOLOGY_FORMAT_CLUSTER_SLOTS,
                         nullptr),
       "parse");
  Must(cr_router_update(w.r, t), "update");
  cr_topology_free(t);
  Must(cr_router_get_snapshot(&w.snap, w.r), "snapshot");
  return w;
}

const KeySet &ShortKeys() {
  static const KeySet ks = crbench::MakeKeys(crbench::kShort);
  return ks;
}

void BM_Shared_KeySlot_CApi(benchmark::State &state) {
  const KeySet &ks = ShortKeys();
  for (auto _ : state) {
    for (size_t i = 0; i < KeySet::kKeys; ++i)
      benchmark::DoNotOptimize(cr_keyslot(ks.ptrs[i], ks.lens[i]));
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * KeySet::kKeys);
  state.SetLabel("short");
}

void BM_Shared_RouteRead_CApi(benchmark::State &state) {
  CWorld &w = GetCWorld(static_cast<int>(state.range(0)));
  const KeySet &ks = ShortKeys();
  for (auto _ : state) {
    for (size_t i = 0; i < KeySet::kKeys; ++i) {
      cr_route route = CR_ROUTE_INIT;
      benchmark::DoNotOptimize(cr_router_route_read(&route, w.r, ks.ptrs[i], ks.lens[i]));
      benchmark::DoNotOptimize(route.host);
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * KeySet::kKeys);
}

void BM_Shared_RouteRead_CApiSnapshot(benchmark::State &state) {
  CWorld &w = GetCWorld(static_cast<int>(state.range(0)));
  const KeySet &ks = ShortKeys();
  for (auto _ : state) {
    for (size_t i = 0; i < KeySet::kKeys; ++i) {
      cr_route route = CR_ROUTE_INIT;
      benchmark::DoNotOptimize(cr_snapshot_route_read(&route, w.snap, ks.ptrs[i], ks.lens[i]));
      benchmark::DoNotOptimize(route.host);
    }
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * KeySet::kKeys);
}

void BM_Shared_RouteReads_CApiBatch(benchmark::State &state) {
  CWorld &w = GetCWorld(static_cast<int>(state.range(0)));
  const KeySet &ks = ShortKeys();
  static cr_route out[KeySet::kKeys];
  static cr_status st[KeySet::kKeys];
  for (auto &o : out) o = CR_ROUTE_INIT;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        cr_router_route_read_batch(out, st, w.r, ks.ptrs.data(), ks.lens.data(), KeySet::kKeys));
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * KeySet::kKeys);
}

BENCHMARK(BM_Shared_KeySlot_CApi);
BENCHMARK(BM_Shared_RouteRead_CApi)->ArgName("shards")->Arg(3)->Arg(100);
BENCHMARK(BM_Shared_RouteRead_CApiSnapshot)->ArgName("shards")->Arg(3)->Arg(100);
BENCHMARK(BM_Shared_RouteReads_CApiBatch)->ArgName("shards")->Arg(3)->Arg(100);

}  // namespace
