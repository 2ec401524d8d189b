/* C API: consistent hashing rings and shard groups. Every entry point of the
 * section, with NULL and invalid arguments; expected placements come from
 * tests/vectors/rings.json (generated independently by
 * tests/vectors/gen/ring_vectors.py). */
#include <stdlib.h>

#include "capi_test.h"

static const char *const kKeys[] = {"a", "foo", "bar", "user:1", "user:1000", "123456789"};
#define NKEYS 6

static cr_ring *ring_of(cr_ring_algo algo, cr_hash_algo hash, cr_ring_naming naming, int tags,
                        const char *const *names, const int32_t *weights, size_t n) {
  cr_ring_options o = CR_RING_OPTIONS_INIT;
  cr_ring *r = NULL;
  size_t i;
  o.algo = algo;
  o.hash = hash;
  o.naming = naming;
  o.key_tags = tags;
  assert_int_equal(cr_ring_new(&r, &o), CR_OK);
  for (i = 0; i < n; ++i) {
    const char *name = names != NULL ? names[i] : NULL;
    assert_int_equal(cr_ring_add_shard(r, name, weights != NULL ? weights[i] : 1), CR_OK);
  }
  assert_int_equal(cr_ring_build(r), CR_OK);
  return r;
}

static void expect_shards(const cr_ring *r, const uint32_t *want) {
  size_t i;
  uint32_t shard = 99;
  for (i = 0; i < NKEYS; ++i) {
    assert_int_equal(cr_ring_locate(&shard, r, kKeys[i], strlen(kKeys[i])), CR_OK);
    assert_int_equal(shard, want[i]);
  }
}

static void rings_match_vectors(void **state) {
  static const char *const abc[] = {"shard-a", "shard-b", "shard-c"};
  static const int32_t w112[] = {1, 1, 2};
  static const char *const mixed[] = {"redis-1", NULL, "redis-3", "redis-4", NULL};
  static const int32_t wmixed[] = {1, 2, 1, 3, 1};
  static const char *const hosts[] = {"10.0.0.1:6379", "10.0.0.2:6379", "10.0.0.3:6379"};
  static const uint32_t jedis3[] = {2, 2, 0, 1, 2, 1}, jedis2[] = {2, 2, 0, 0, 2, 2};
  static const uint32_t tagged[] = {1, 3, 3, 1, 3, 1}, md5[] = {0, 1, 0, 1, 0, 0};
  static const uint32_t ketama[] = {2, 2, 2, 0, 0, 0}, jump[] = {1, 1, 6, 4, 0, 4};
  static const uint32_t modulo[] = {4, 1, 6, 2, 3, 6};
  cr_ring *r;
  (void)state;
  r = ring_of(CR_RING_ALGO_JEDIS, CR_HASH_ALGO_MURMUR, CR_RING_NAMING_JEDIS3, 0, abc, w112, 3);
  expect_shards(r, jedis3);
  assert_int_equal(cr_ring_get_shard_count(r), 3);
  cr_ring_free(r);
  r = ring_of(CR_RING_ALGO_JEDIS, CR_HASH_ALGO_DEFAULT, CR_RING_NAMING_JEDIS2, 0, abc, w112, 3);
  expect_shards(r, jedis2);
  cr_ring_free(r);
  r = ring_of(CR_RING_ALGO_JEDIS, CR_HASH_ALGO_MURMUR, CR_RING_NAMING_JEDIS3, 1, mixed, wmixed, 5);
  expect_shards(r, tagged);
  cr_ring_free(r);
  r = ring_of(CR_RING_ALGO_JEDIS, CR_HASH_ALGO_MD5, CR_RING_NAMING_JEDIS3, 0, hosts, NULL, 3);
  expect_shards(r, md5);
  cr_ring_free(r);
  r = ring_of(CR_RING_ALGO_KETAMA, CR_HASH_ALGO_DEFAULT, CR_RING_NAMING_JEDIS3, 0, hosts, NULL, 3);
  expect_shards(r, ketama);
  cr_ring_free(r);
  r = ring_of(CR_RING_ALGO_JUMP, CR_HASH_ALGO_DEFAULT, CR_RING_NAMING_JEDIS3, 0, NULL, NULL, 10);
  expect_shards(r, jump);
  cr_ring_free(r);
  r = ring_of(CR_RING_ALGO_MODULO, CR_HASH_ALGO_MURMUR, CR_RING_NAMING_JEDIS3, 0, NULL, NULL, 7);
  expect_shards(r, modulo);
  cr_ring_free(r);
}

static void ring_locate_many_and_bad_calls(void **state) {
  static const char *const abc[] = {"shard-a", "shard-b", "shard-c"};
  static const int32_t w112[] = {1, 1, 2};
  static const uint32_t jedis3[] = {2, 2, 0, 1, 2, 1};
  const void *ptrs[NKEYS];
  size_t lens[NKEYS];
  uint32_t out[NKEYS];
  uint32_t shard = 0;
  size_t i;
  cr_ring *r =
      ring_of(CR_RING_ALGO_JEDIS, CR_HASH_ALGO_MURMUR, CR_RING_NAMING_JEDIS3, 0, abc, w112, 3);
  (void)state;
  for (i = 0; i < NKEYS; ++i) {
    ptrs[i] = kKeys[i];
    lens[i] = strlen(kKeys[i]);
  }
  assert_int_equal(cr_ring_locate_batch(out, r, ptrs, lens, NKEYS), CR_OK);
  for (i = 0; i < NKEYS; ++i) assert_int_equal(out[i], jedis3[i]);
  assert_int_equal(cr_ring_locate_batch(NULL, r, ptrs, lens, 0), CR_OK);
  assert_int_equal(cr_ring_locate_batch(NULL, r, ptrs, lens, 1), CR_EINVAL);
  assert_int_equal(cr_ring_locate_batch(out, NULL, ptrs, lens, 1), CR_EINVAL);
  ptrs[1] = NULL;
  assert_int_equal(cr_ring_locate_batch(out, r, ptrs, lens, 2), CR_EINVAL);
  assert_error_mentions("keys[1]");
  lens[1] = 0;
  assert_int_equal(cr_ring_locate_batch(out, r, ptrs, lens, 2), CR_OK);

  assert_int_equal(cr_ring_locate(&shard, r, NULL, 0), CR_OK); /* the empty key */
  assert_int_equal(cr_ring_locate(&shard, r, NULL, 1), CR_EINVAL);
  assert_int_equal(cr_ring_locate(NULL, r, "a", 1), CR_EINVAL);
  assert_int_equal(cr_ring_locate(&shard, NULL, "a", 1), CR_EINVAL);
  /* built: frozen */
  assert_int_equal(cr_ring_add_shard(r, "d", 1), CR_EINVAL);
  assert_error_mentions("already built");
  assert_int_equal(cr_ring_build(r), CR_OK); /* building twice is harmless */
  cr_ring_free(r);
  cr_ring_free(NULL);
  assert_int_equal(cr_ring_get_shard_count(NULL), 0);
}

static void ring_refuses_bad_input(void **state) {
  cr_ring_options o;
  cr_ring *r = NULL;
  uint32_t shard;
  (void)state;
  cr_ring_options_init(&o, sizeof o);
  assert_int_equal(o.struct_size, sizeof o);
  assert_int_equal(o.algo, CR_RING_ALGO_JEDIS);
  assert_int_equal(o.hash, CR_HASH_ALGO_DEFAULT);
  assert_int_equal(o.naming, CR_RING_NAMING_JEDIS3);
  assert_int_equal(o.key_tags, 0);
  assert_int_equal(cr_ring_options_init(NULL, sizeof(cr_ring_options)), CR_EINVAL);

  assert_int_equal(cr_ring_new(NULL, &o), CR_EINVAL);
  o.algo = (cr_ring_algo)7;
  assert_int_equal(cr_ring_new(&r, &o), CR_EINVAL);
  assert_error_mentions("unknown ring algorithm 7");
  assert_null(r);
  o.algo = CR_RING_ALGO_KETAMA;
  o.hash = CR_HASH_ALGO_MURMUR;
  assert_int_equal(cr_ring_new(&r, &o), CR_EINVAL);
  assert_error_mentions("MD5 only");
  o.hash = (cr_hash_algo)-1;
  assert_int_equal(cr_ring_new(&r, &o), CR_EINVAL);
  assert_error_mentions("unknown hash algorithm");
  o.hash = CR_HASH_ALGO_DEFAULT;
  o.naming = (cr_ring_naming)5;
  assert_int_equal(cr_ring_new(&r, &o), CR_EINVAL);
  o.naming = CR_RING_NAMING_JEDIS3;
  o.struct_size = 4;
  assert_int_equal(cr_ring_new(&r, &o), CR_EINVAL);
  assert_error_mentions("struct_size");
  o.struct_size = sizeof o;

  assert_int_equal(cr_ring_new(&r, NULL), CR_OK); /* defaults: Jedis, MURMUR */
  assert_int_equal(cr_ring_locate(&shard, r, "a", 1), CR_EINVAL);
  assert_error_mentions("not built");
  assert_int_equal(cr_ring_build(r), CR_EINVAL);
  assert_error_mentions("empty ring");
  assert_int_equal(cr_ring_add_shard(r, "a", 0), CR_EINVAL);
  assert_error_mentions("weight 0");
  assert_int_equal(cr_ring_add_shard(r, "a", UINT32_MAX), CR_EINVAL);
  assert_int_equal(cr_ring_add_shard(r, "a", 1000001), CR_EINVAL);
  assert_int_equal(cr_ring_add_shard(r, "", 1), CR_EINVAL);
  assert_int_equal(cr_ring_add_shard(r, "a", 1), CR_OK);
  assert_int_equal(cr_ring_add_shard(r, "a", 1), CR_EINVAL);
  assert_error_mentions("duplicate name");
  assert_int_equal(cr_ring_add_shard(r, NULL, 1), CR_OK);
  assert_int_equal(cr_ring_add_shard(NULL, "b", 1), CR_EINVAL);
  assert_int_equal(cr_ring_get_shard_count(r), 2);
  cr_ring_free(r);

  o.algo = CR_RING_ALGO_KETAMA;
  assert_int_equal(cr_ring_new(&r, &o), CR_OK);
  assert_int_equal(cr_ring_add_shard(r, NULL, 1), CR_EINVAL);
  assert_error_mentions("needs a name");
  cr_ring_free(r);
  o.algo = CR_RING_ALGO_JUMP;
  assert_int_equal(cr_ring_new(&r, &o), CR_OK);
  assert_int_equal(cr_ring_add_shard(r, NULL, 2), CR_EINVAL);
  assert_error_mentions("no weights");
  cr_ring_free(r);
  o.algo = CR_RING_ALGO_JEDIS;
  assert_int_equal(cr_ring_new(&r, &o), CR_OK);
  assert_int_equal(cr_ring_add_shard(r, "huge", 1000000), CR_OK);
  assert_int_equal(cr_ring_build(r), CR_ELIMIT);
  cr_ring_free(r);
  assert_int_equal(cr_ring_build(NULL), CR_EINVAL);
}

static void hashes_and_family_keys(void **state) {
  int64_t h = 0;
  uint32_t bucket = 99;
  char buf[CR_FAMILY_KEY_SIZE];
  size_t needed = 0;
  (void)state;
  assert_int_equal(cr_jedis_hash(&h, CR_HASH_ALGO_MURMUR, "foo", 3), CR_OK);
  assert_true(h == -7063922479176959649LL);
  assert_int_equal(cr_jedis_hash(&h, CR_HASH_ALGO_DEFAULT, "a", 1), CR_OK);
  assert_true(h == 7990182172224381693LL);
  assert_int_equal(cr_jedis_hash(&h, CR_HASH_ALGO_MD5, "foo", 3), CR_OK);
  assert_true(h == 3675831724LL);
  assert_int_equal(cr_jedis_hash(&h, CR_HASH_ALGO_MURMUR, "key:10.200.107.10:9002", 22), CR_OK);
  assert_true(h == -1498251713141396620LL); /* printed by a real Jedis */
  assert_int_equal(cr_jedis_hash(&h, CR_HASH_ALGO_MURMUR, NULL, 0), CR_OK);
  assert_true(h == 8371356515094919947LL);
  assert_int_equal(cr_jedis_hash(&h, CR_HASH_ALGO_MURMUR, NULL, 1), CR_EINVAL);
  assert_int_equal(cr_jedis_hash(NULL, CR_HASH_ALGO_MURMUR, "a", 1), CR_EINVAL);
  assert_int_equal(cr_jedis_hash(&h, (cr_hash_algo)9, "a", 1), CR_EINVAL);
  assert_error_mentions("unknown hash algorithm");

  /* Guava's golden values */
  assert_int_equal(cr_jump_hash(&bucket, 10863919174838991ULL, 11), CR_OK);
  assert_int_equal(bucket, 6);
  assert_int_equal(cr_jump_hash(&bucket, 2202, 100001), CR_OK);
  assert_int_equal(bucket, 15018);
  assert_int_equal(cr_jump_hash(&bucket, 1, 100), CR_OK);
  assert_int_equal(bucket, 55);
  assert_int_equal(cr_jump_hash(&bucket, 1, 0), CR_EINVAL);
  assert_int_equal(cr_jump_hash(&bucket, 1, 2147483648u), CR_EINVAL);
  assert_int_equal(cr_jump_hash(NULL, 1, 10), CR_EINVAL);

  assert_int_equal(cr_family_key(buf, sizeof buf, &needed, "user", "1", 1), CR_OK);
  assert_string_equal(buf, "538740876973559570");
  assert_int_equal(needed, strlen(buf) + 1);
  assert_int_equal(cr_family_key(buf, sizeof buf, &needed, "user", "1000", 4), CR_OK);
  assert_string_equal(buf, "-6452771463440683135");
  assert_int_equal(cr_family_key(buf, 5, &needed, "order", "1", 1), CR_EBUFS);
  assert_int_equal(needed, strlen("-4957413279758089894") + 1);
  assert_int_equal(cr_family_key(NULL, 0, &needed, "order", "1", 1), CR_EBUFS);
  assert_int_equal(cr_family_key(buf, sizeof buf, &needed, "cart", NULL, 0), CR_OK);
  assert_int_equal(cr_family_key(buf, sizeof buf, &needed, "a:b", "c", 1), CR_EINVAL);
  assert_error_mentions("':'");
  assert_int_equal(cr_family_key(buf, sizeof buf, &needed, "", "c", 1), CR_EINVAL);
  assert_int_equal(cr_family_key(buf, sizeof buf, NULL, "a", "c", 1), CR_EINVAL);
  assert_int_equal(cr_family_key(NULL, 4, &needed, "a", "c", 1), CR_EINVAL);
  assert_int_equal(cr_family_key(buf, sizeof buf, &needed, NULL, "c", 1), CR_EINVAL);
  assert_int_equal(cr_family_key(buf, sizeof buf, &needed, "a", NULL, 1), CR_EINVAL);
}

static cr_shard_groups *three_groups(const cr_config *cfg, cr_ring **ring_out) {
  static const char *const names[] = {"mymaster-1", "mymaster-2", "mymaster-3"};
  cr_shard_groups *g = NULL;
  uint32_t i, idx;
  char host[32];
  cr_address replicas[2] = {{NULL, 6379}, {NULL, 6379}};
  char r1[32], r2[32];
  assert_int_equal(cr_shard_groups_new(&g, cfg), CR_OK);
  for (i = 0; i < 3; ++i) {
    assert_int_equal(cr_shard_groups_add(&idx, g, names[i]), CR_OK);
    assert_int_equal(idx, i);
  }
  *ring_out =
      ring_of(CR_RING_ALGO_JEDIS, CR_HASH_ALGO_MURMUR, CR_RING_NAMING_JEDIS3, 0, names, NULL, 3);
  assert_int_equal(cr_shard_groups_set_ring(g, *ring_out), CR_OK);
  for (i = 0; i < 3; ++i) {
    snprintf(host, sizeof host, "10.0.%u.1", i + 1);
    snprintf(r1, sizeof r1, "10.0.%u.2", i + 1);
    snprintf(r2, sizeof r2, "10.0.%u.3", i + 1);
    replicas[0].host = r1;
    replicas[1].host = r2;
    assert_int_equal(cr_shard_groups_set_master(g, i, host, 6379), CR_OK);
    assert_int_equal(cr_shard_groups_set_replicas(g, i, replicas, 2), CR_OK);
  }
  return g;
}

static void groups_route_reads_and_writes(void **state) {
  cr_ring *ring = NULL;
  cr_shard_groups *g = three_groups(NULL, &ring);
  cr_route w = CR_ROUTE_INIT, rd = CR_ROUTE_INIT;
  uint32_t group = 99, shard = 98, idx = 0;
  char want[32];
  int k;
  (void)state;
  assert_int_equal(cr_shard_groups_get_count(g), 3);
  assert_int_equal(cr_shard_groups_find(&idx, g, "mymaster-2"), CR_OK);
  assert_int_equal(idx, 1);
  for (k = 0; k < 200; ++k) {
    char key[16];
    snprintf(key, sizeof key, "key:%d", k);
    assert_int_equal(cr_shard_groups_locate(&group, g, key, strlen(key)), CR_OK);
    assert_int_equal(cr_ring_locate(&shard, ring, key, strlen(key)), CR_OK);
    assert_int_equal(group, shard);
    assert_int_equal(cr_shard_groups_route_write(&w, g, key, strlen(key)), CR_OK);
    assert_int_equal(w.shard, group);
    assert_int_equal(w.slot, 0);
    assert_int_equal(w.role, CR_ROLE_MASTER);
    assert_int_equal(w.port, 6379);
    snprintf(want, sizeof want, "10.0.%u.1", group + 1);
    assert_string_equal(w.host, want);
    assert_int_equal(cr_shard_groups_route_read(&rd, g, key, strlen(key)), CR_OK);
    assert_int_equal(rd.shard, group);
    snprintf(want, sizeof want, "10.0.%u.", group + 1);
    assert_memory_equal(rd.host, want, strlen(want));
  }
  /* re-point group 0: the same keys, a new master */
  assert_int_equal(cr_shard_groups_set_master(g, 0, "192.168.5.5", 7000), CR_OK);
  for (k = 0; k < 200; ++k) {
    char key[16];
    snprintf(key, sizeof key, "key:%d", k);
    assert_int_equal(cr_shard_groups_locate(&group, g, key, strlen(key)), CR_OK);
    assert_int_equal(cr_ring_locate(&shard, ring, key, strlen(key)), CR_OK);
    assert_int_equal(group, shard);
    if (group == 0) {
      assert_int_equal(cr_shard_groups_route_write(&w, g, key, strlen(key)), CR_OK);
      assert_string_equal(w.host, "192.168.5.5");
      assert_int_equal(w.port, 7000);
    }
  }
  /* the groups keep their own reference to the ring */
  cr_ring_free(ring);
  assert_int_equal(cr_shard_groups_locate(&group, g, "k", 1), CR_OK);
  /* forget the master: writes fail fast, reads go on */
  assert_int_equal(cr_shard_groups_set_master(g, group, NULL, 0), CR_OK);
  assert_int_equal(cr_shard_groups_route_write(&w, g, "k", 1), CR_EUNAVAILABLE);
  assert_int_equal(cr_shard_groups_route_read(&rd, g, "k", 1), CR_OK);
  assert_int_equal(rd.role, CR_ROLE_REPLICA);
  cr_shard_groups_free(g);
  cr_shard_groups_free(NULL);
}

static void groups_read_order_and_health(void **state) {
  cr_ring *ring = NULL;
  cr_config *cfg = NULL;
  cr_router_options o = CR_ROUTER_OPTIONS_INIT;
  cr_shard_groups *g;
  cr_candidate order[4];
  cr_route rd = CR_ROUTE_INIT;
  size_t count = 0, i;
  const char *key = "order-key";
  uint32_t bad, group;
  (void)state;
  assert_int_equal(cr_config_new(&cfg), CR_OK);
  o.failure_threshold = 1;
  o.seed = 11;
  assert_int_equal(cr_config_set_router_options(cfg, &o), CR_OK);
  g = three_groups(cfg, &ring);
  cr_config_free(cfg); /* the groups keep a copy */
  for (i = 0; i < 4; ++i) {
    cr_candidate c = {sizeof(cr_candidate), 0, NULL, 0, CR_ROLE_MASTER,
                      CR_TIER_UNKNOWN,      0, 0,    0, 0};
    order[i] = c;
  }
  assert_int_equal(cr_shard_groups_candidates(order, 4, &count, g, key, strlen(key)), CR_OK);
  assert_int_equal(count, 3);
  assert_int_equal(cr_shard_groups_locate(&group, g, key, strlen(key)), CR_OK);
  for (i = 0; i < 3; ++i) {
    assert_int_equal(order[i].down, 0);
    assert_int_equal(order[i].rank, 0);
    assert_int_equal(order[i].weight, 1);
    assert_int_equal(order[i].tier, CR_TIER_UNKNOWN);
  }
  bad = order[0].node_handle;
  assert_int_equal(cr_shard_groups_report_failure(g, bad), CR_OK);
  assert_int_equal(cr_shard_groups_candidates(order, 4, &count, g, key, strlen(key)), CR_OK);
  assert_int_equal(count, 3);
  assert_int_equal(order[2].node_handle, bad);
  assert_int_equal(order[2].down, 1);
  for (i = 0; i < 50; ++i) {
    assert_int_equal(cr_shard_groups_route_read(&rd, g, key, strlen(key)), CR_OK);
    assert_int_not_equal(rd.node_handle, bad);
  }
  assert_int_equal(cr_shard_groups_report_success(g, bad), CR_OK);
  assert_int_equal(cr_shard_groups_candidates(order, 4, &count, g, key, strlen(key)), CR_OK);
  for (i = 0; i < 3; ++i) assert_int_equal(order[i].down, 0);
  /* too small a buffer: the first entries and the total */
  assert_int_equal(cr_shard_groups_candidates(order, 1, &count, g, key, strlen(key)), CR_EBUFS);
  assert_int_equal(count, 3);
  assert_int_equal(cr_shard_groups_candidates(NULL, 0, &count, g, key, strlen(key)), CR_EBUFS);
  order[0].struct_size = 4; /* the stride of the array */
  assert_int_equal(cr_shard_groups_candidates(order, 2, &count, g, key, strlen(key)), CR_EINVAL);
  assert_error_mentions("struct_size");
  order[0].struct_size = sizeof(cr_candidate);
  assert_int_equal(cr_shard_groups_candidates(order, 2, NULL, g, key, strlen(key)), CR_EINVAL);
  assert_int_equal(cr_shard_groups_candidates(NULL, 2, &count, g, key, strlen(key)), CR_EINVAL);
  assert_int_equal(cr_shard_groups_candidates(order, 2, &count, NULL, key, strlen(key)), CR_EINVAL);
  assert_int_equal(cr_shard_groups_candidates(order, 2, &count, g, NULL, 3), CR_EINVAL);
  assert_int_equal(cr_shard_groups_report_failure(g, 99999), CR_ENOTFOUND);
  assert_int_equal(cr_shard_groups_report_success(g, 99999), CR_ENOTFOUND);
  assert_int_equal(cr_shard_groups_report_failure(NULL, 0), CR_EINVAL);
  assert_int_equal(cr_shard_groups_report_success(NULL, 0), CR_EINVAL);
  cr_shard_groups_free(g);
  cr_ring_free(ring);
}

static void groups_refuse_bad_calls(void **state) {
  cr_shard_groups *g = NULL;
  cr_ring *ring2 = NULL, *unbuilt = NULL;
  cr_route r = CR_ROUTE_INIT;
  uint32_t idx;
  const cr_address bad[2] = {{"10.0.0.2", 6379}, {NULL, 6379}};
  const cr_address no_port[1] = {{"10.0.0.2", 0}};
  static const char *const two[] = {"a", "b"};
  (void)state;
  assert_int_equal(cr_shard_groups_new(NULL, NULL), CR_EINVAL);
  assert_int_equal(cr_shard_groups_new(&g, NULL), CR_OK);
  assert_int_equal(cr_shard_groups_add(NULL, g, "a"), CR_EINVAL);
  assert_int_equal(cr_shard_groups_add(&idx, NULL, "a"), CR_EINVAL);
  assert_int_equal(cr_shard_groups_add(&idx, g, NULL), CR_EINVAL);
  assert_int_equal(cr_shard_groups_add(&idx, g, ""), CR_EINVAL);
  assert_int_equal(cr_shard_groups_add(&idx, g, "a"), CR_OK);
  assert_int_equal(cr_shard_groups_add(&idx, g, "a"), CR_EINVAL);
  assert_error_mentions("duplicate group name");
  assert_int_equal(cr_shard_groups_find(&idx, g, "zz"), CR_ENOTFOUND);
  assert_int_equal(cr_shard_groups_find(NULL, g, "a"), CR_EINVAL);
  assert_int_equal(cr_shard_groups_find(&idx, NULL, "a"), CR_EINVAL);
  assert_int_equal(cr_shard_groups_find(&idx, g, NULL), CR_EINVAL);
  assert_int_equal(cr_shard_groups_get_count(NULL), 0);

  /* no ring yet */
  assert_int_equal(cr_shard_groups_locate(&idx, g, "k", 1), CR_ENOTOPOLOGY);
  assert_error_mentions("no ring set");
  assert_int_equal(cr_shard_groups_route_read(&r, g, "k", 1), CR_ENOTOPOLOGY);
  assert_int_equal(cr_shard_groups_route_write(&r, g, "k", 1), CR_ENOTOPOLOGY);

  ring2 = ring_of(CR_RING_ALGO_JEDIS, CR_HASH_ALGO_MURMUR, CR_RING_NAMING_JEDIS3, 0, two, NULL, 2);
  assert_int_equal(cr_shard_groups_set_ring(g, ring2), CR_EINVAL); /* 2 shards, 1 group */
  assert_error_mentions("2 shards but there are 1 groups");
  assert_int_equal(cr_ring_new(&unbuilt, NULL), CR_OK);
  assert_int_equal(cr_shard_groups_set_ring(g, unbuilt), CR_EINVAL);
  assert_error_mentions("not built");
  assert_int_equal(cr_shard_groups_set_ring(g, NULL), CR_EINVAL);
  assert_int_equal(cr_shard_groups_set_ring(NULL, ring2), CR_EINVAL);
  assert_int_equal(cr_shard_groups_add(&idx, g, "b"), CR_OK);
  assert_int_equal(cr_shard_groups_set_ring(g, ring2), CR_OK);

  /* no instance yet */
  assert_int_equal(cr_shard_groups_route_write(&r, g, "k", 1), CR_EUNAVAILABLE);
  assert_int_equal(cr_shard_groups_route_read(&r, g, "k", 1), CR_EUNAVAILABLE);

  assert_int_equal(cr_shard_groups_set_master(g, 7, "h", 1), CR_ENOTFOUND);
  assert_int_equal(cr_shard_groups_set_master(g, 0, "h", 0), CR_EINVAL);
  assert_int_equal(cr_shard_groups_set_master(g, 0, "", 1), CR_EINVAL);
  assert_int_equal(cr_shard_groups_set_master(NULL, 0, "h", 1), CR_EINVAL);
  assert_int_equal(cr_shard_groups_set_replicas(g, 0, bad, 2), CR_EINVAL);
  assert_error_mentions("replicas[1]");
  assert_int_equal(cr_shard_groups_set_replicas(g, 0, no_port, 1), CR_EINVAL);
  assert_int_equal(cr_shard_groups_set_replicas(g, 0, NULL, 1), CR_EINVAL);
  assert_int_equal(cr_shard_groups_set_replicas(g, 0, NULL, 0), CR_OK);
  assert_int_equal(cr_shard_groups_set_replicas(g, 9, bad, 1), CR_ENOTFOUND);
  assert_int_equal(cr_shard_groups_set_replicas(NULL, 0, bad, 1), CR_EINVAL);

  assert_int_equal(cr_shard_groups_locate(NULL, g, "k", 1), CR_EINVAL);
  assert_int_equal(cr_shard_groups_locate(&idx, NULL, "k", 1), CR_EINVAL);
  assert_int_equal(cr_shard_groups_locate(&idx, g, NULL, 1), CR_EINVAL);
  assert_int_equal(cr_shard_groups_route_read(NULL, g, "k", 1), CR_EINVAL);
  assert_int_equal(cr_shard_groups_route_write(&r, NULL, "k", 1), CR_EINVAL);
  assert_int_equal(cr_shard_groups_route_write(&r, g, NULL, 1), CR_EINVAL);
  r.struct_size = 4;
  assert_int_equal(cr_shard_groups_route_read(&r, g, "k", 1), CR_EINVAL);
  assert_error_mentions("struct_size");
  cr_ring_free(unbuilt);
  cr_ring_free(ring2);
  cr_shard_groups_free(g);
}

static void groups_prefer_the_local_zone(void **state) {
  cr_config *cfg = NULL;
  cr_ring *ring = NULL;
  cr_shard_groups *g;
  cr_candidate order[3];
  cr_route rd = CR_ROUTE_INIT;
  size_t count, i;
  uint32_t group;
  char local[32];
  (void)state;
  assert_int_equal(cr_config_new(&cfg), CR_OK);
  assert_int_equal(cr_config_set_client_location(cfg, "gcp/us-central1/b"), CR_OK);
  assert_int_equal(cr_config_add_local_cidr(cfg, "10.0.0.3/32"), CR_OK);
  assert_int_equal(cr_config_add_local_cidr(cfg, "10.0.1.3/32"), CR_OK);
  assert_int_equal(cr_config_add_local_cidr(cfg, "10.0.2.3/32"), CR_OK);
  assert_int_equal(cr_config_add_local_cidr(cfg, "10.0.3.3/32"), CR_OK);
  g = three_groups(cfg, &ring);
  cr_config_free(cfg);
  for (i = 0; i < 3; ++i) {
    cr_candidate c = {sizeof(cr_candidate), 0, NULL, 0, CR_ROLE_MASTER,
                      CR_TIER_UNKNOWN,      0, 0,    0, 0};
    order[i] = c;
  }
  assert_int_equal(cr_shard_groups_locate(&group, g, "k", 1), CR_OK);
  snprintf(local, sizeof local, "10.0.%u.3", group + 1);
  for (i = 0; i < 100; ++i) {
    assert_int_equal(cr_shard_groups_route_read(&rd, g, "k", 1), CR_OK);
    assert_string_equal(rd.host, local);
    assert_int_equal(rd.tier, CR_TIER_LOCAL);
  }
  assert_int_equal(cr_shard_groups_candidates(order, 3, &count, g, "k", 1), CR_OK);
  assert_int_equal(count, 3);
  assert_string_equal(order[0].host, local);
  assert_int_equal(order[0].rank, 0);
  assert_int_equal(order[1].rank, 1);
  cr_shard_groups_free(g);
  cr_ring_free(ring);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(rings_match_vectors),
      cmocka_unit_test(ring_locate_many_and_bad_calls),
      cmocka_unit_test(ring_refuses_bad_input),
      cmocka_unit_test(hashes_and_family_keys),
      cmocka_unit_test(groups_route_reads_and_writes),
      cmocka_unit_test(groups_read_order_and_health),
      cmocka_unit_test(groups_refuse_bad_calls),
      cmocka_unit_test(groups_prefer_the_local_zone),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
