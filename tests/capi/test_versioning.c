/* The one rule for versioned structs (docs/c-api.md): a caller built against
 * an older header (the frozen 0.1.0 layouts of layouts_v0_1.h) works with
 * this library; a caller from a newer header with a bigger struct is accepted
 * while its unknown tail is zero and refused with CR_EVERSION otherwise; an
 * _options_init never writes past the caller's size (run under ASan, a write
 * past the malloc'd size fails the test). */
#include <stdlib.h>

#include "capi_test.h"
#include "layouts_v0_1.h"

/* Every 0.1.0 layout is a prefix of today's (only growth at the end). */
static void layouts_only_grew(void **state) {
  (void)state;
  assert_true(sizeof(v01_parse_options) <= sizeof(cr_parse_options));
  assert_int_equal(offsetof(v01_parse_options, default_host),
                   offsetof(cr_parse_options, default_host));
  assert_int_equal(offsetof(v01_route, tier), offsetof(cr_route, tier));
  assert_int_equal(offsetof(v01_route, node), offsetof(cr_route, node_handle));
  assert_int_equal(offsetof(v01_candidate, down), offsetof(cr_candidate, down));
  assert_int_equal(offsetof(v01_node_info, shard), offsetof(cr_node_info, shard));
  assert_int_equal(offsetof(v01_router_options, seed), offsetof(cr_router_options, seed));
  assert_int_equal(offsetof(v01_ring_options, key_tags), offsetof(cr_ring_options, key_tags));
  assert_int_equal(offsetof(v01_client_options, replica_max_lag_s),
                   offsetof(cr_client_options, replica_max_lag_s));
  assert_int_equal(offsetof(v01_client_stats, connections), offsetof(cr_client_stats, connections));
  assert_int_equal(offsetof(v01_sentinel_options, client_name),
                   offsetof(cr_sentinel_options, client_name));
  /* Fields added since grow at the end: read_your_writes_ms after hedging. */
  assert_true(offsetof(cr_client_options, read_your_writes_ms) >
              offsetof(cr_client_options, hedge_percentile));
  cr_client_options o;
  memset(&o, 0xff, sizeof o);
  assert_int_equal(cr_client_options_init(&o, sizeof o), CR_OK);
  assert_int_equal(o.read_your_writes_ms, 0); /* off by default */
  /* db after read_your_writes_ms, database 0 by default (both structs). */
  assert_true(offsetof(cr_client_options, db) > offsetof(cr_client_options, read_your_writes_ms));
  assert_int_equal(o.db, 0);
  assert_true(offsetof(cr_sentinel_options, db) > offsetof(cr_sentinel_options, client_name));
  cr_sentinel_options so;
  memset(&so, 0xff, sizeof so);
  assert_int_equal(cr_sentinel_options_init(&so, sizeof so), CR_OK);
  assert_int_equal(so.db, 0);
}

/* An old caller: parse, configure, route and inspect with 0.1.0 structs. */
static void old_caller_works(void **state) {
  (void)state;
  v01_parse_options po = {sizeof(v01_parse_options), 1048576u, 8u, 65536u, 67108864u, NULL};
  cr_topology *t = NULL;
  assert_int_equal(
      cr_topology_parse(&t, kTwoShards, sizeof kTwoShards - 1, CR_TOPOLOGY_FORMAT_CLUSTER_SLOTS,
                        (const cr_parse_options *)&po),
      CR_OK);
  v01_node_info ni;
  memset(&ni, 0, sizeof ni);
  ni.struct_size = sizeof ni;
  assert_int_equal(cr_topology_get_node((cr_node_info *)&ni, t, 0), CR_OK);
  assert_string_equal(ni.host, "127.0.1.1");
  assert_int_equal(ni.struct_size, sizeof ni);

  v01_router_options ro = {
      sizeof(v01_router_options), CR_POLICY_LOCAL_REPLICAS_FIRST, 1000u, 3u, 2000u, 42u};
  cr_config *cfg = NULL;
  assert_int_equal(cr_config_new(&cfg), CR_OK);
  assert_int_equal(cr_config_add_local_cidr(cfg, "127.0.1.0/24"), CR_OK);
  assert_int_equal(cr_config_set_router_options(cfg, (const cr_router_options *)&ro), CR_OK);
  cr_router *r = NULL;
  assert_int_equal(cr_router_new(&r, cfg), CR_OK);
  assert_int_equal(cr_router_update(r, t), CR_OK);

  v01_route route;
  memset(&route, 0, sizeof route);
  route.struct_size = sizeof route;
  assert_int_equal(cr_router_route_read((cr_route *)&route, r, "a", 1), CR_OK);
  assert_int_equal(route.tier, CR_TIER_LOCAL);
  assert_int_equal(route.role, CR_ROLE_REPLICA); /* replicas first */

  v01_candidate cands[4];
  size_t needed = 0;
  memset(cands, 0, sizeof cands);
  cands[0].struct_size = sizeof cands[0];
  assert_int_equal(cr_router_candidates((cr_candidate *)cands, 4, &needed, r, "a", 1), CR_OK);
  assert_int_equal(needed, 3);
  for (size_t i = 0; i < needed; ++i) {
    assert_int_equal(cands[i].struct_size, sizeof(v01_candidate));
    assert_non_null(cands[i].host);
  }

  v01_ring_options rio = {sizeof(v01_ring_options), CR_RING_ALGO_JEDIS, CR_HASH_ALGO_MURMUR,
                          CR_RING_NAMING_JEDIS3, 0};
  cr_ring *ring = NULL;
  assert_int_equal(cr_ring_new(&ring, (const cr_ring_options *)&rio), CR_OK);
  cr_ring_free(ring);
  cr_router_free(r);
  cr_config_free(cfg);
  cr_topology_free(t);
}

/* A struct that ends before fields this library has: they keep their
 * defaults, and bytes past struct_size are never read. */
static void shorter_struct_keeps_defaults(void **state) {
  (void)state;
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  o.struct_size = (uint32_t)offsetof(cr_client_options, tls); /* the first public layout */
  o.tls = 5; /* past struct_size: ignored, not refused as a bad boolean */
  o.connect_timeout_ms = 200;
  cr_client *c = NULL;
  /* Nothing listens on port 1: the options were accepted, the connect failed. */
  assert_int_equal(cr_client_new(&c, NULL, &o, "127.0.0.1:1"), CR_ECONN);
  assert_null(c);
  o.struct_size = (uint32_t)offsetof(cr_client_options, tls) - 1;
  assert_int_equal(cr_client_new(&c, NULL, &o, "127.0.0.1:1"), CR_EINVAL);
  assert_error_mentions("first layout");
}

/* A caller from a newer header: a bigger struct. */
typedef struct future_router_options {
  cr_router_options base;
  uint64_t added_later;
} future_router_options;
typedef struct future_parse_options {
  cr_parse_options base;
  uint32_t added_later;
} future_parse_options;
typedef struct future_route {
  cr_route base;
  uint64_t added_later;
} future_route;

static void newer_caller_zero_tail_or_eversion(void **state) {
  (void)state;
  cr_config *cfg = NULL;
  assert_int_equal(cr_config_new(&cfg), CR_OK);
  future_router_options fo;
  memset(&fo, 0, sizeof fo);
  assert_int_equal(cr_router_options_init(&fo.base, sizeof fo), CR_OK);
  assert_int_equal(fo.base.struct_size, sizeof fo);
  assert_int_equal(fo.added_later, 0); /* init zeroes what it does not know */
  assert_int_equal(cr_config_set_router_options(cfg, &fo.base), CR_OK);
  fo.added_later = 7;
  assert_int_equal(cr_config_set_router_options(cfg, &fo.base), CR_EVERSION);
  assert_error_mentions("older than the header");
  assert_string_equal(cr_status_str(CR_EVERSION),
                      "CR_EVERSION: a struct from a newer header than this library");

  future_parse_options fp;
  memset(&fp, 0, sizeof fp);
  assert_int_equal(cr_parse_options_init(&fp.base, sizeof fp), CR_OK);
  fp.added_later = 1;
  cr_topology *t = NULL;
  assert_int_equal(cr_topology_parse(&t, kTwoShards, sizeof kTwoShards - 1,
                                     CR_TOPOLOGY_FORMAT_CLUSTER_SLOTS, &fp.base),
                   CR_EVERSION);
  assert_null(t);
  fp.added_later = 0;
  assert_int_equal(cr_topology_parse(&t, kTwoShards, sizeof kTwoShards - 1,
                                     CR_TOPOLOGY_FORMAT_CLUSTER_SLOTS, &fp.base),
                   CR_OK);

  /* An output struct from a newer header: filled up to this library's
   * layout; the newer field is left as the caller set it. */
  cr_router *r = NULL;
  assert_int_equal(cr_router_new(&r, cfg), CR_OK);
  assert_int_equal(cr_router_update(r, t), CR_OK);
  future_route fr;
  memset(&fr, 0, sizeof fr);
  fr.base.struct_size = sizeof fr;
  fr.added_later = 0xABCDu;
  assert_int_equal(cr_router_route_write(&fr.base, r, "a", 1), CR_OK);
  assert_non_null(fr.base.host);
  assert_int_equal(fr.base.struct_size, sizeof fr);
  assert_int_equal(fr.added_later, 0xABCDu);

  future_route arr[2];
  memset(arr, 0, sizeof arr);
  arr[0].base.struct_size = sizeof arr[0]; /* the stride */
  arr[1].added_later = 0x55u;
  const void *keys[2] = {"a", "zz"};
  const size_t lens[2] = {1, 2};
  assert_int_equal(cr_router_route_read_batch(&arr[0].base, NULL, r, keys, lens, 2), CR_OK);
  assert_non_null(arr[1].base.host);
  assert_int_equal(arr[1].base.struct_size, sizeof arr[1]);
  assert_int_equal(arr[1].added_later, 0x55u);
  cr_router_free(r);
  cr_topology_free(t);
  cr_config_free(cfg);
}

/* _options_init writes the caller's size and nothing past it: the buffer
 * is malloc'd to exactly that size, so ASan fails the test on any write
 * beyond; without ASan the guard bytes after a bigger buffer say so. */
static void init_writes_only_the_callers_size(void **state) {
  (void)state;
  const size_t first = offsetof(cr_client_options, tls); /* client options' first layout */
  unsigned char *o = malloc(first);
  assert_non_null(o);
  assert_int_equal(cr_client_options_init((cr_client_options *)o, first), CR_OK);
  uint32_t v = 0;
  memcpy(&v, o + offsetof(cr_client_options, struct_size), sizeof v);
  assert_int_equal(v, first);
  memcpy(&v, o + offsetof(cr_client_options, pool_size), sizeof v);
  assert_int_equal(v, 8);
  free(o);

  unsigned char buf[sizeof(cr_ring_options) + 16];
  memset(buf, 0xEE, sizeof buf);
  assert_int_equal(cr_ring_options_init((cr_ring_options *)buf, sizeof(cr_ring_options)), CR_OK);
  for (size_t i = sizeof(cr_ring_options); i < sizeof buf; ++i) assert_int_equal(buf[i], 0xEE);

  memset(buf, 0xEE, sizeof buf);
  assert_int_equal(cr_ring_options_init((cr_ring_options *)buf, 4),
                   CR_EINVAL); /* below the first layout */
  assert_error_mentions("first layout");
  for (size_t i = 0; i < sizeof buf; ++i) assert_int_equal(buf[i], 0xEE);

  v01_sentinel_options so;
  assert_int_equal(cr_sentinel_options_init((cr_sentinel_options *)&so, sizeof so), CR_OK);
  assert_int_equal(so.struct_size, sizeof so);
  assert_int_equal(so.sentinel_timeout_ms, 1000);
}

/* Output structs below the first layout are refused, never written. */
static void output_below_first_layout_is_refused(void **state) {
  (void)state;
  cr_topology *t = two_shards();
  cr_router *r = NULL;
  assert_int_equal(cr_router_new(&r, NULL), CR_OK);
  assert_int_equal(cr_router_update(r, t), CR_OK);
  cr_route out = CR_ROUTE_INIT;
  out.struct_size = (uint32_t)offsetof(cr_route, tier);
  out.host = NULL;
  assert_int_equal(cr_router_route_read(&out, r, "a", 1), CR_EINVAL);
  assert_error_mentions("first layout");
  assert_null(out.host);
  cr_router_free(r);
  cr_topology_free(t);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(layouts_only_grew),
      cmocka_unit_test(old_caller_works),
      cmocka_unit_test(shorter_struct_keeps_defaults),
      cmocka_unit_test(newer_caller_zero_tail_or_eversion),
      cmocka_unit_test(init_writes_only_the_callers_size),
      cmocka_unit_test(output_below_first_layout_is_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
