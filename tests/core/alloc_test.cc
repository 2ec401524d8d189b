// Proves that routing a key allocates nothing on the heap: operator new (and,
// outside sanitizer builds, malloc) are counted while keys are routed through
// the core and through the C API.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "alloc_counter.hpp"
#include "cloudroute.h"
#include "cloudroute/core/cluster_reply.hpp"
#include "cloudroute/core/router.hpp"
#include "test_util.hpp"

using crtest::g_allocs;
using crtest::g_counting;

namespace cloudroute {
namespace {

using crtest::Node;
using crtest::R;

TEST(Alloc, RoutingAKeyAllocatesNothing) {
  R reply{R{0, 8191, Node("127.0.1.1", 7001, "m1"), Node("127.0.1.2", 7002, "r1"),
            Node("127.0.1.3", 7003, "r2")},
          R{8192, 16383, Node("127.0.2.1", 7101, "m2"), Node("127.0.1.4", 7004, "r3")}};
  const std::string bytes = reply.Encode();
  cr_topology *t = nullptr;
  ASSERT_EQ(
      cr_topology_parse(&t, bytes.data(), bytes.size(), CR_TOPOLOGY_FORMAT_CLUSTER_SLOTS, nullptr),
      CR_OK);
  cr_config *cfg = nullptr;
  ASSERT_EQ(cr_config_new(&cfg), CR_OK);
  ASSERT_EQ(cr_config_add_local_cidr(cfg, "127.0.1.0/24"), CR_OK);
  cr_router *r = nullptr;
  ASSERT_EQ(cr_router_new(&r, cfg), CR_OK);
  ASSERT_EQ(cr_router_update(r, t), CR_OK);
  cr_snapshot *snap = nullptr;
  ASSERT_EQ(cr_router_get_snapshot(&snap, r), CR_OK);

  char key[32];
  cr_route out = CR_ROUTE_INIT;
  const void *keys[64];
  size_t lens[64];
  cr_route outs[64];
  char kb[64][16];
  for (int i = 0; i < 64; ++i) {
    lens[i] = static_cast<size_t>(std::snprintf(kb[i], sizeof kb[i], "user:%d", i));
    keys[i] = kb[i];
    outs[i] = cr_route CR_ROUTE_INIT;
  }
  g_allocs = 0;
  g_counting = true;
  long routed = 0;
  for (int i = 0; i < 100000; ++i) {
    const int n = std::snprintf(key, sizeof key, "user:%d", i);
    routed += cr_router_route_read(&out, r, key, static_cast<size_t>(n)) == CR_OK;
    routed += cr_router_route_write(&out, r, key, static_cast<size_t>(n)) == CR_OK;
    routed += cr_snapshot_route_read(&out, snap, key, static_cast<size_t>(n)) == CR_OK;
    routed += cr_keyslot(key, static_cast<size_t>(n)) < 16384;
  }
  for (int i = 0; i < 1000; ++i)
    routed += cr_router_route_read_batch(outs, nullptr, r, keys, lens, 64) == CR_OK;
  g_counting = false;
  EXPECT_EQ(routed, 401000);
  EXPECT_EQ(g_allocs.load(), 0) << "heap allocations while routing";

  // And the counter works: an update does allocate.
  g_counting = true;
  ASSERT_EQ(cr_router_update(r, t), CR_OK);
  g_counting = false;
  EXPECT_GT(g_allocs.load(), 0);

  cr_snapshot_free(snap);
  cr_router_free(r);
  cr_config_free(cfg);
  cr_topology_free(t);
}

}  // namespace
}  // namespace cloudroute
