// Ring lookup: the core Ring (a sorted point array with a prefix index)
// against a std::map holding the same points — the TreeMap shape of Jedis —
// for Jedis rings of 4, 16 and 64 shards (160 points each), in the same run.
//
//   *_Lookup: the key's hash is precomputed; only the point lookup is timed.
//   *_Locate: MurmurHash64A of a short key ("user:123456") plus the lookup.
//
// Every benchmark walks the same 1024 keys per iteration; items/s is keys/s,
// so ns/key = 1e9 / items_per_second.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench_util.hpp"
#include "cloudroute/core/jedis_ring.hpp"
#include "cloudroute/core/murmur64a.hpp"
#include "cloudroute/core/ring.hpp"

namespace {

using crbench::KeySet;

struct Fixture {
  std::shared_ptr<const cloudroute::Ring> ring;
  std::map<int64_t, uint32_t> tree;  // TreeMap<Long, shard>
  std::vector<int64_t> hashes;       // of the 1024 keys
};

const KeySet &ShortKeys() {
  static const KeySet ks = crbench::MakeKeys(crbench::kShort);
  return ks;
}

const Fixture &Ring(int shards) {
  static std::map<int, Fixture> cache;
  auto it = cache.find(shards);
  if (it != cache.end()) return it->second;
  Fixture f;
  cloudroute::RingBuilder b(cloudroute::RingOptions{});
  for (int i = 0; i < shards; ++i) {
    const std::string name = "redis-" + std::to_string(i);
    if (!b.AddShard(name.data(), name.size(), 1).ok()) std::abort();
    for (uint32_t n = 0; n < cloudroute::kJedisPointsPerWeight; ++n) {
      const std::string p =
          cloudroute::JedisPointName(cloudroute::JedisNaming::kJedis3, 0, &name, 1, n);
      f.tree[cloudroute::JedisMurmurHash(p.data(), p.size())] = static_cast<uint32_t>(i);
    }
  }
  f.ring = *b.Build();
  const KeySet &ks = ShortKeys();
  for (size_t i = 0; i < KeySet::kKeys; ++i) {
    f.hashes.push_back(f.ring->KeyHash(ks.ptrs[i], ks.lens[i]));
    // Both sides must agree, or the comparison is void.
    auto t = f.tree.lower_bound(f.hashes.back());
    if (t == f.tree.end()) t = f.tree.begin();
    if (t->second != f.ring->Locate(ks.ptrs[i], ks.lens[i])) {
      std::fprintf(stderr, "ring and std::map disagree on key %zu\n", i);
      std::abort();
    }
  }
  return cache.emplace(shards, std::move(f)).first->second;
}

inline uint32_t TreeLookup(const std::map<int64_t, uint32_t> &tree, int64_t h) {
  auto it = tree.lower_bound(h);
  if (it == tree.end()) it = tree.begin();
  return it->second;
}

void Finish(benchmark::State &state) {
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * KeySet::kKeys);
  state.counters["points"] =
      static_cast<double>(Ring(static_cast<int>(state.range(0))).ring->point_count());
}

void BM_RingLookup_Core(benchmark::State &state) {
  const Fixture &f = Ring(static_cast<int>(state.range(0)));
  const cloudroute::Ring &ring = *f.ring;
  for (auto _ : state) {
    for (int64_t h : f.hashes) benchmark::DoNotOptimize(ring.LocateHash(h));
  }
  Finish(state);
}

void BM_RingLookup_StdMap(benchmark::State &state) {
  const Fixture &f = Ring(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    for (int64_t h : f.hashes) benchmark::DoNotOptimize(TreeLookup(f.tree, h));
  }
  Finish(state);
}

void BM_RingLocate_Core(benchmark::State &state) {
  const Fixture &f = Ring(static_cast<int>(state.range(0)));
  const cloudroute::Ring &ring = *f.ring;
  const KeySet &ks = ShortKeys();
  for (auto _ : state) {
    for (size_t i = 0; i < KeySet::kKeys; ++i)
      benchmark::DoNotOptimize(ring.Locate(ks.ptrs[i], ks.lens[i]));
  }
  Finish(state);
}

void BM_RingLocate_StdMap(benchmark::State &state) {
  const Fixture &f = Ring(static_cast<int>(state.range(0)));
  const KeySet &ks = ShortKeys();
  for (auto _ : state) {
    for (size_t i = 0; i < KeySet::kKeys; ++i) {
      benchmark::DoNotOptimize(
          TreeLookup(f.tree, cloudroute::JedisMurmurHash(ks.ptrs[i], ks.lens[i])));
    }
  }
  Finish(state);
}

void BM_RingLocate_CApi(benchmark::State &state) {
  const int shards = static_cast<int>(state.range(0));
  cr_ring *r = nullptr;
  crbench::Must(cr_ring_new(&r, nullptr), "cr_ring_new");
  for (int i = 0; i < shards; ++i) {
    const std::string name = "redis-" + std::to_string(i);
    crbench::Must(cr_ring_add_shard(r, name.c_str(), 1), "cr_ring_add_shard");
  }
  crbench::Must(cr_ring_build(r), "cr_ring_build");
  const KeySet &ks = ShortKeys();
  uint32_t shard = 0;
  for (auto _ : state) {
    for (size_t i = 0; i < KeySet::kKeys; ++i) {
      cr_ring_locate(&shard, r, ks.ptrs[i], ks.lens[i]);
      benchmark::DoNotOptimize(shard);
    }
  }
  cr_ring_free(r);
  Finish(state);
}

#define RING_SIZES ArgName("shards")->Arg(4)->Arg(16)->Arg(64)

BENCHMARK(BM_RingLookup_Core)->RING_SIZES;
BENCHMARK(BM_RingLookup_StdMap)->RING_SIZES;
BENCHMARK(BM_RingLocate_Core)->RING_SIZES;
BENCHMARK(BM_RingLocate_StdMap)->RING_SIZES;
BENCHMARK(BM_RingLocate_CApi)->RING_SIZES;

}  // namespace
