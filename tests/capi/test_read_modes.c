/* Read modes through the C API: the local-spread and replica-only policies,
 * round-robin selection, and their names. */
#include "capi_test.h"

static cr_router *router_with(cr_policy policy, cr_selection selection) {
  cr_config *c = NULL;
  assert_int_equal(cr_config_new(&c), CR_OK);
  assert_int_equal(cr_config_add_local_cidr(c, "127.0.1.0/24"), CR_OK);
  cr_router_options o = CR_ROUTER_OPTIONS_INIT;
  o.policy = policy;
  o.seed = 5;
  assert_int_equal(cr_config_set_router_options(c, &o), CR_OK);
  assert_int_equal(cr_config_set_selection(c, selection), CR_OK);
  cr_router *r = NULL;
  assert_int_equal(cr_router_new(&r, c), CR_OK);
  cr_config_free(c);
  cr_topology *t = two_shards();
  assert_int_equal(cr_router_update(r, t), CR_OK);
  cr_topology_free(t);
  return r;
}

/* A key of shard 0: master 127.0.1.1:7001 and replica 127.0.1.2:7002 are
 * local, replica 127.0.2.2:7102 is not. */
static const char *shard0_key(void) {
  static char buf[16];
  for (int i = 0;; ++i) {
    snprintf(buf, sizeof buf, "k%d", i);
    if (cr_keyslot(buf, strlen(buf)) < 8192) return buf;
  }
}

static void round_robin_local_spread_alternates_master_and_replica(void **state) {
  (void)state;
  cr_router *r = router_with(CR_POLICY_LOCAL_SPREAD, CR_SELECTION_ROUND_ROBIN);
  const char *k = shard0_key();
  uint16_t prev = 0;
  int master = 0;
  for (int i = 0; i < 100; ++i) {
    cr_route out = CR_ROUTE_INIT;
    assert_int_equal(cr_router_route_read(&out, r, k, strlen(k)), CR_OK);
    assert_int_not_equal(out.port, prev);
    assert_int_equal(out.tier, CR_TIER_LOCAL);
    master += out.role == CR_ROLE_MASTER;
    prev = out.port;
  }
  assert_int_equal(master, 50);
  cr_router_free(r);
}

static void replica_only_never_routes_a_read_to_a_master(void **state) {
  (void)state;
  cr_router *r = router_with(CR_POLICY_REPLICA_ONLY, CR_SELECTION_RANDOM);
  const char *k = shard0_key();
  for (int i = 0; i < 200; ++i) {
    cr_route out = CR_ROUTE_INIT;
    assert_int_equal(cr_router_route_read(&out, r, k, strlen(k)), CR_OK);
    assert_int_equal(out.role, CR_ROLE_REPLICA);
    assert_int_equal(out.port, 7002); /* the local replica first */
  }
  cr_router_free(r);
}

static void names_and_errors(void **state) {
  (void)state;
  cr_selection s = CR_SELECTION_RANDOM;
  assert_int_equal(cr_selection_from_name(&s, "ROUND_ROBIN"), CR_OK);
  assert_int_equal(s, CR_SELECTION_ROUND_ROBIN);
  assert_string_equal(cr_selection_name(s), "round-robin");
  assert_string_equal(cr_selection_name((cr_selection)7), "?");
  assert_int_equal(cr_selection_from_name(&s, "sticky"), CR_EINVAL);
  assert_error_mentions("random, round-robin or least-loaded");
  assert_int_equal(cr_selection_from_name(&s, "Least_Loaded"), CR_OK);
  assert_int_equal(s, CR_SELECTION_LEAST_LOADED);
  assert_string_equal(cr_selection_name(s), "least-loaded");
  assert_int_equal(cr_selection_from_name(NULL, "random"), CR_EINVAL);
  cr_config *c = NULL;
  assert_int_equal(cr_config_new(&c), CR_OK);
  assert_int_equal(cr_config_set_selection(c, (cr_selection)3), CR_EINVAL);
  assert_int_equal(cr_config_set_selection(NULL, CR_SELECTION_RANDOM), CR_EINVAL);
  cr_router_options o = CR_ROUTER_OPTIONS_INIT;
  o.policy = (cr_policy)7;
  assert_int_equal(cr_config_set_router_options(c, &o), CR_EINVAL);
  cr_config_free(c);
  cr_policy p = CR_POLICY_LOCAL;
  assert_int_equal(cr_policy_from_name(&p, "replica_only"), CR_OK);
  assert_int_equal(p, CR_POLICY_REPLICA_ONLY);
  assert_string_equal(cr_policy_name(CR_POLICY_LOCAL_SPREAD), "local-spread");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(round_robin_local_spread_alternates_master_and_replica),
      cmocka_unit_test(replica_only_never_routes_a_read_to_a_master),
      cmocka_unit_test(names_and_errors)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
