// Proves that locating and routing a key on a ring or through shard groups
// allocates nothing: operator new is counted while keys are routed through
// the core and the C API.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "alloc_counter.hpp"
#include "cloudroute.h"
#include "cloudroute/core/ring.hpp"
#include "cloudroute/core/shard_group.hpp"

using crtest::g_allocs;
using crtest::g_counting;

namespace cloudroute {
namespace {

std::vector<std::string> Keys() {
  std::vector<std::string> keys;
  for (int i = 0; i < 2000; ++i) keys.push_back("{user:" + std::to_string(i) + "}:cart");
  return keys;
}

TEST(RingAlloc, LocatingAllocatesNothing) {
  const auto keys = Keys();
  for (RingAlgo algo : {RingAlgo::kJedis, RingAlgo::kKetama, RingAlgo::kJump, RingAlgo::kModulo}) {
    for (RingHash hash : {RingHash::kDefault, RingHash::kMd5}) {
      RingOptions o;
      o.algo = algo;
      o.hash = hash;
      o.key_tags = true;
      RingBuilder b(o);
      for (int i = 0; i < 16; ++i) {
        const std::string n = "10.0.0." + std::to_string(i) + ":6379";
        ASSERT_TRUE(b.AddShard(n.data(), n.size(), 1).ok());
      }
      auto ring = *b.Build();
      cr_ring *cring = nullptr;
      cr_ring_options co = CR_RING_OPTIONS_INIT;
      co.algo = static_cast<cr_ring_algo>(algo);
      co.hash = static_cast<cr_hash_algo>(hash);
      ASSERT_EQ(cr_ring_new(&cring, &co), CR_OK);
      for (int i = 0; i < 16; ++i) {
        const std::string n = "10.0.0." + std::to_string(i) + ":6379";
        ASSERT_EQ(cr_ring_add_shard(cring, n.c_str(), 1), CR_OK);
      }
      ASSERT_EQ(cr_ring_build(cring), CR_OK);
      uint64_t sum = 0;
      uint32_t shard = 0;
      int64_t h = 0;
      g_allocs = 0;
      g_counting = true;
      for (const std::string &k : keys) {
        sum += ring->Locate(k.data(), k.size());
        cr_ring_locate(&shard, cring, k.data(), k.size());
        cr_jedis_hash(&h, CR_HASH_ALGO_MD5, k.data(), k.size());
        sum += shard + static_cast<uint64_t>(h);
      }
      g_counting = false;
      EXPECT_EQ(g_allocs.load(), 0) << RingAlgoName(algo);
      EXPECT_NE(sum, 0u);
      cr_ring_free(cring);
    }
  }
}

TEST(RingAlloc, ShardGroupRoutingAllocatesNothing) {
  cr_shard_groups *g = nullptr;
  ASSERT_EQ(cr_shard_groups_new(&g, nullptr), CR_OK);
  cr_ring *ring = nullptr;
  ASSERT_EQ(cr_ring_new(&ring, nullptr), CR_OK);
  for (int i = 0; i < 4; ++i) {
    const std::string name = "mymaster-" + std::to_string(i),
                      host = "10.0." + std::to_string(i) + ".1";
    const std::string r1 = "10.0." + std::to_string(i) + ".2",
                      r2 = "10.0." + std::to_string(i) + ".3";
    uint32_t idx = 0;
    ASSERT_EQ(cr_shard_groups_add(&idx, g, name.c_str()), CR_OK);
    ASSERT_EQ(cr_ring_add_shard(ring, name.c_str(), 1), CR_OK);
    ASSERT_EQ(cr_shard_groups_set_master(g, idx, host.c_str(), 6379), CR_OK);
    const cr_address replicas[] = {{r1.c_str(), 6379}, {r2.c_str(), 6380}};
    ASSERT_EQ(cr_shard_groups_set_replicas(g, idx, replicas, 2), CR_OK);
  }
  ASSERT_EQ(cr_ring_build(ring), CR_OK);
  ASSERT_EQ(cr_shard_groups_set_ring(g, ring), CR_OK);
  const auto keys = Keys();
  cr_route out = CR_ROUTE_INIT;
  cr_candidate order[4];
  for (cr_candidate &c : order) c.struct_size = sizeof c;
  size_t count = 0;
  uint32_t group = 0;
  // A thread's first read registers it with the lock-free reader scheme
  // (once per thread, not per key): do it before counting.
  ASSERT_EQ(cr_shard_groups_route_read(&out, g, keys[0].data(), keys[0].size()), CR_OK);
  g_allocs = 0;
  g_counting = true;
  for (const std::string &k : keys) {
    EXPECT_EQ(cr_shard_groups_locate(&group, g, k.data(), k.size()), CR_OK);
    EXPECT_EQ(cr_shard_groups_route_write(&out, g, k.data(), k.size()), CR_OK);
    EXPECT_EQ(cr_shard_groups_route_read(&out, g, k.data(), k.size()), CR_OK);
    EXPECT_EQ(cr_shard_groups_candidates(order, 4, &count, g, k.data(), k.size()), CR_OK);
  }
  g_counting = false;
  EXPECT_EQ(g_allocs.load(), 0);
  cr_ring_free(ring);
  cr_shard_groups_free(g);
}

}  // namespace
}  // namespace cloudroute
