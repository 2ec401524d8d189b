// Does routing allocate? Replaces the global operator new/delete with
// counting versions, warms every routing entry point up, then counts the
// allocations of many calls. Exit status 1 when a hot path allocated.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <thread>

#include "bench_util.hpp"
#include "cloudroute.h"
#include "cloudroute/core/cluster_reply.hpp"
#include "cloudroute/core/router.hpp"

namespace {
std::atomic<uint64_t> g_news{0};
std::atomic<bool> g_counting{false};

void *Alloc(size_t n) {
  if (g_counting.load(std::memory_order_relaxed)) g_news.fetch_add(1, std::memory_order_relaxed);
  void *p = std::malloc(n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
}  // namespace

void *operator new(size_t n) { return Alloc(n); }
void *operator new[](size_t n) { return Alloc(n); }
void *operator new(size_t n, const std::nothrow_t &) noexcept {
  try {
    return Alloc(n);
  } catch (...) {
    return nullptr;
  }
}
void *operator new[](size_t n, const std::nothrow_t &t) noexcept { return operator new(n, t); }
void operator delete(void *p) noexcept { std::free(p); }
void operator delete[](void *p) noexcept { std::free(p); }
void operator delete(void *p, size_t) noexcept { std::free(p); }
void operator delete[](void *p, size_t) noexcept { std::free(p); }

namespace {

using crbench::KeySet;

template <typename F>
uint64_t Count(const char *what, int rounds, F &&f) {
  f();  // warm-up: first-use thread_local initialisation is not the hot path
  g_news.store(0);
  g_counting.store(true);
  for (int i = 0; i < rounds; ++i) f();
  g_counting.store(false);
  const uint64_t n = g_news.load();
  std::printf("%-44s %8llu allocations in %d x %zu keys\n", what,
              static_cast<unsigned long long>(n), rounds, KeySet::kKeys);
  return n;
}

}  // namespace

int main() {
  constexpr int kRounds = 200;
  const KeySet ks = crbench::MakeKeys(crbench::kShort);
  const std::string resp = crbench::MakeClusterSlots(100);

  auto topo = cloudroute::ParseClusterSlots(resp, cloudroute::ClusterReplyOptions{});
  if (!topo.ok()) return 2;
  cloudroute::Router router(crbench::MakeCoreConfig(cloudroute::Policy::kLocal));
  if (!router.Update(*topo).ok()) return 2;

  cr_config *cfg = crbench::MakeCConfig(CR_POLICY_LOCAL);
  cr_router *cr = nullptr;
  crbench::Must(cr_router_new(&cr, cfg), "cr_router_new");
  cr_topology *t = nullptr;
  crbench::Must(
      cr_topology_parse(&t, resp.data(), resp.size(), CR_TOPOLOGY_FORMAT_CLUSTER_SLOTS, nullptr),
      "parse");
  crbench::Must(cr_router_update(cr, t), "update");
  cr_snapshot *snap = nullptr;
  crbench::Must(cr_router_get_snapshot(&snap, cr), "snapshot");

  uint64_t hot = 0;
  hot += Count("cr_keyslot", kRounds, [&] {
    for (size_t i = 0; i < KeySet::kKeys; ++i) (void)cr_keyslot(ks.ptrs[i], ks.lens[i]);
  });
  static uint16_t slots[KeySet::kKeys];
  hot += Count("cr_keyslot_batch (batch)", kRounds, [&] {
    (void)cr_keyslot_batch(slots, ks.ptrs.data(), ks.lens.data(), KeySet::kKeys);
  });
  hot += Count("Router::RouteRead", kRounds, [&] {
    for (size_t i = 0; i < KeySet::kKeys; ++i) {
      cloudroute::Route r;
      (void)router.RouteRead(ks.ptrs[i], ks.lens[i], &r);
    }
  });
  hot += Count("cr_router_route_read", kRounds, [&] {
    for (size_t i = 0; i < KeySet::kKeys; ++i) {
      cr_route r = CR_ROUTE_INIT;
      (void)cr_router_route_read(&r, cr, ks.ptrs[i], ks.lens[i]);
    }
  });
  hot += Count("cr_router_route_write", kRounds, [&] {
    for (size_t i = 0; i < KeySet::kKeys; ++i) {
      cr_route r = CR_ROUTE_INIT;
      (void)cr_router_route_write(&r, cr, ks.ptrs[i], ks.lens[i]);
    }
  });
  hot += Count("cr_snapshot_route_read", kRounds, [&] {
    for (size_t i = 0; i < KeySet::kKeys; ++i) {
      cr_route r = CR_ROUTE_INIT;
      (void)cr_snapshot_route_read(&r, snap, ks.ptrs[i], ks.lens[i]);
    }
  });
  static cr_route out[KeySet::kKeys];
  static cr_status st[KeySet::kKeys];
  for (auto &o : out) o = CR_ROUTE_INIT;
  hot += Count("cr_router_route_read_batch (batch)", kRounds, [&] {
    (void)cr_router_route_read_batch(out, st, cr, ks.ptrs.data(), ks.lens.data(), KeySet::kKeys);
  });

  // A reader thread that is new to the router: its first call included.
  uint64_t first = 0;
  g_news.store(0);
  g_counting.store(true);
  std::thread([&] {
    cr_route r = CR_ROUTE_INIT;
    (void)cr_router_route_read(&r, cr, ks.ptrs[0], ks.lens[0]);
  }).join();
  g_counting.store(false);
  first = g_news.load();
  std::printf("%-44s %8llu (includes std::thread's own state)\n",
              "first route_read on a new thread", static_cast<unsigned long long>(first));

  // Not the hot path, for contrast: the error path builds a message.
  cr_route bad = CR_ROUTE_INIT;
  bad.struct_size = 0;
  Count("error path (bad struct_size), for contrast", 1, [&] {
    for (size_t i = 0; i < KeySet::kKeys; ++i)
      (void)cr_router_route_read(&bad, cr, ks.ptrs[i], ks.lens[i]);
  });

  cr_snapshot_free(snap);
  cr_topology_free(t);
  cr_router_free(cr);
  cr_config_free(cfg);
  std::printf("hot paths: %s\n", hot == 0 ? "no allocation" : "ALLOCATE");
  return hot == 0 ? 0 : 1;
}
