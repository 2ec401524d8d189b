#include "capi_test.h"

static cr_router *local_router(cr_policy policy) {
  cr_config *c = NULL;
  assert_int_equal(cr_config_new(&c), CR_OK);
  assert_int_equal(cr_config_add_local_cidr(c, "127.0.1.0/24"), CR_OK);
  assert_int_equal(cr_config_add_location_rule(c, "127.0.2.0/24", "gcp/us-central1"), CR_OK);
  assert_int_equal(cr_config_set_client_location(c, "aws/us-east-1/a"), CR_OK);
  cr_router_options o = CR_ROUTER_OPTIONS_INIT;
  o.policy = policy;
  o.failure_threshold = 1;
  o.seed = 1;
  assert_int_equal(cr_config_set_router_options(c, &o), CR_OK);
  cr_router *r = NULL;
  assert_int_equal(cr_router_new(&r, c), CR_OK);
  cr_config_free(c); /* the router keeps its own copy */
  cr_topology *t = two_shards();
  assert_int_equal(cr_router_update(r, t), CR_OK);
  cr_topology_free(t); /* and its own reference */
  return r;
}

/* "k1" is in slot 12706 (shard 1), "k0"... find keys by slot range. */
static const char *key_in_shard(int shard) {
  static char buf[2][16];
  for (int i = 0;; ++i) {
    snprintf(buf[shard], sizeof buf[shard], "k%d", i);
    if ((cr_keyslot(buf[shard], strlen(buf[shard])) < 8192) == (shard == 0)) return buf[shard];
  }
}

static void routes_reads_locally_and_writes_to_master(void **state) {
  (void)state;
  cr_router *r = local_router(CR_POLICY_LOCAL);
  const char *k = key_in_shard(1);
  cr_route out = CR_ROUTE_INIT;
  assert_int_equal(cr_router_route_read(&out, r, k, strlen(k)), CR_OK);
  assert_string_equal(out.host, "127.0.1.3");
  assert_int_equal(out.port, 7003);
  assert_int_equal(out.role, CR_ROLE_REPLICA);
  assert_int_equal(out.tier, CR_TIER_LOCAL);
  assert_int_equal(out.slot, cr_keyslot(k, strlen(k)));
  assert_int_equal(cr_router_route_write(&out, r, k, strlen(k)), CR_OK);
  assert_string_equal(out.host, "127.0.2.1");
  assert_int_equal(out.tier, CR_TIER_OTHER_CLOUD);

  cr_route by_slot = CR_ROUTE_INIT;
  assert_int_equal(cr_router_route_read_slot(&by_slot, r, cr_keyslot(k, strlen(k))), CR_OK);
  assert_string_equal(by_slot.host, "127.0.1.3");
  assert_int_equal(cr_router_route_write_slot(&by_slot, r, cr_keyslot(k, strlen(k))), CR_OK);
  assert_string_equal(by_slot.host, "127.0.2.1");
  assert_int_equal(cr_router_route_read_slot(&by_slot, r, 16384), CR_EINVAL);
  assert_error_mentions("16384");
  assert_int_equal(cr_router_route_write_slot(NULL, r, 1), CR_EINVAL);
  assert_int_equal(cr_router_route_read_slot(&by_slot, NULL, 1), CR_EINVAL);

  cr_candidate c[3];
  for (int i = 0; i < 3; ++i) c[i].struct_size = sizeof c[i];
  size_t n = 0;
  assert_int_equal(cr_router_candidates(c, 3, &n, r, k, strlen(k)), CR_OK);
  assert_int_equal(n, 3);
  assert_string_equal(c[0].host, "127.0.1.3");
  assert_string_equal(c[1].host, "127.0.2.1");
  assert_int_equal(c[1].role, CR_ROLE_MASTER);
  assert_string_equal(c[2].host, "127.0.2.3");
  assert_int_equal(cr_router_candidates(c, 1, &n, r, k, strlen(k)), CR_EBUFS);
  assert_int_equal(n, 3);
  assert_int_equal(cr_router_candidates_slot(c, 3, &n, r, 0), CR_OK);
  assert_string_equal(c[0].host, "127.0.1.1");
  assert_int_equal(cr_router_candidates_slot(c, 3, &n, r, 16384), CR_EINVAL);

  char text[2048];
  size_t needed = 0;
  assert_int_equal(cr_router_explain(text, sizeof text, &needed, r, k, strlen(k)), CR_OK);
  assert_non_null(strstr(text, "127.0.1.3:7003 replica tier=local"));
  assert_int_equal(needed, strlen(text) + 1);
  char tiny[4];
  assert_int_equal(cr_router_explain(tiny, sizeof tiny, &needed, r, k, strlen(k)), CR_EBUFS);
  assert_int_equal(tiny[0], '\0');
  assert_true(needed > sizeof tiny);
  cr_router_free(r);
}

static void batch_routing(void **state) {
  (void)state;
  cr_router *r = local_router(CR_POLICY_LOCAL_REPLICAS_FIRST);
  const void *keys[3] = {"a", "b", "c"};
  const size_t lens[3] = {1, 1, 1};
  cr_route out[3] = {CR_ROUTE_INIT, CR_ROUTE_INIT, CR_ROUTE_INIT};
  cr_status st[3];
  assert_int_equal(cr_router_route_read_batch(out, st, r, keys, lens, 3), CR_OK);
  for (int i = 0; i < 3; ++i) {
    assert_int_equal(st[i], CR_OK);
    assert_int_equal(out[i].tier, CR_TIER_LOCAL);
  }
  out[0].struct_size = 1; /* the stride of the array: below the first layout */
  assert_int_equal(cr_router_route_read_batch(out, st, r, keys, lens, 3), CR_EINVAL);
  assert_error_mentions("struct_size");
  out[0].struct_size = sizeof(cr_route);
  keys[1] = NULL; /* one bad key: its status, the others routed */
  assert_int_equal(cr_router_route_read_batch(out, st, r, keys, lens, 3), CR_EINVAL);
  assert_int_equal(st[0], CR_OK);
  assert_int_equal(st[1], CR_EINVAL);
  assert_int_equal(st[2], CR_OK);
  assert_int_equal(cr_router_route_read_batch(out, NULL, r, keys, lens, 3), CR_EINVAL);
  assert_int_equal(cr_router_route_read_batch(NULL, NULL, r, keys, lens, 3), CR_EINVAL);
  assert_int_equal(cr_router_route_read_batch(NULL, NULL, NULL, NULL, NULL, 0), CR_OK);
  cr_router_free(r);
}

static void health_moved_ask_rtt_zone(void **state) {
  (void)state;
  cr_router *r = local_router(CR_POLICY_LOCAL);
  const char *k = key_in_shard(1);
  cr_route out = CR_ROUTE_INIT;
  assert_int_equal(cr_router_route_read(&out, r, k, strlen(k)), CR_OK);
  assert_int_equal(cr_router_report_failure(r, out.node_handle), CR_OK); /* threshold 1 */
  assert_int_equal(cr_router_route_read(&out, r, k, strlen(k)), CR_OK);
  assert_string_equal(out.host, "127.0.2.1");
  assert_int_equal(cr_router_report_failure(r, 4000000), CR_ENOTFOUND);
  assert_int_equal(cr_router_report_success(r, 4000000), CR_ENOTFOUND);
  uint32_t h = 0;
  assert_int_equal(cr_router_find_node(&h, r, "127.0.1.3", 7003), CR_OK);
  cr_candidate c[3];
  for (int i = 0; i < 3; ++i) c[i].struct_size = sizeof c[i];
  size_t n = 0;
  assert_int_equal(cr_router_candidates(c, 3, &n, r, k, strlen(k)), CR_OK);
  assert_int_equal(c[0].down, 1);
  assert_int_equal(cr_router_report_success(r, h), CR_OK);
  assert_int_equal(cr_router_route_read(&out, r, k, strlen(k)), CR_OK);
  assert_string_equal(out.host, "127.0.1.3");
  assert_int_equal(cr_router_find_node(&h, r, "10.9.9.9", 1), CR_ENOTFOUND);

  assert_int_equal(cr_router_get_refresh_needed(r), 0);
  assert_int_equal(cr_router_report_moved(r, cr_keyslot(k, strlen(k)), "127.0.1.1", 7001), CR_OK);
  assert_int_equal(cr_router_get_refresh_needed(r), 1);
  assert_int_equal(cr_router_route_write(&out, r, k, strlen(k)), CR_OK);
  assert_string_equal(out.host, "127.0.1.1");
  assert_int_equal(cr_router_report_moved(r, 16384, "127.0.1.1", 7001), CR_EINVAL);
  assert_int_equal(cr_router_report_moved(r, 1, NULL, 7001), CR_EINVAL);
  assert_int_equal(cr_router_report_moved(r, 1, "127.0.1.1", 0), CR_EINVAL);
  /* CR/LF (or any byte a hostname has not) never enters routing state */
  assert_int_equal(cr_router_report_moved(r, 1, "10.9.9.9\r\n", 7001), CR_EINVAL);
  assert_error_mentions("host '10.9.9.9\\x0d\\x0a' is neither an IP address nor a hostname");
  cr_route asked = CR_ROUTE_INIT;
  assert_int_equal(cr_router_report_ask(&asked, r, 1, "evil\nhost", 7001), CR_EINVAL);
  assert_int_equal(cr_router_set_node_zone(r, "127.0.1.1", 7001, "az\r1"), CR_EINVAL);
  assert_error_mentions("zone 'az\\x0d1' contains a control character");
  assert_int_equal(cr_router_set_replica_lagging(r, "a b", 7001, 1), CR_EINVAL);

  cr_route ask = CR_ROUTE_INIT;
  assert_int_equal(cr_router_report_ask(&ask, r, 5, "127.0.2.9", 7109), CR_OK);
  assert_string_equal(ask.host, "127.0.2.9");
  assert_int_equal(ask.port, 7109);
  assert_int_equal(cr_router_report_ask(&ask, r, 16384, "127.0.2.9", 7109), CR_EINVAL);
  assert_int_equal(cr_router_report_ask(NULL, r, 5, "127.0.2.9", 7109), CR_EINVAL);

  assert_int_equal(cr_router_set_rtt(r, ask.node_handle, 250), CR_OK);
  assert_int_equal(cr_router_set_rtt(r, 4000000, 250), CR_ENOTFOUND);
  assert_int_equal(cr_router_set_node_zone(r, "127.0.2.3", 7103, "a"), CR_OK);
  assert_int_equal(cr_router_set_node_zone(r, NULL, 7103, "a"), CR_EINVAL);
  assert_int_equal(cr_router_set_replica_lagging(r, "127.0.2.3", 7103, 1), CR_OK);
  assert_int_equal(cr_router_set_replica_lagging(r, "127.0.2.3", 7103, 0), CR_OK);
  assert_int_equal(cr_router_set_replica_lagging(r, NULL, 7103, 1), CR_EINVAL);
  assert_int_equal(cr_router_set_replica_lagging(r, "127.0.2.3", 0, 1), CR_EINVAL);
  assert_int_equal(cr_router_set_replica_lagging(NULL, "127.0.2.3", 7103, 1), CR_EINVAL);
  assert_int_equal(cr_router_set_node_zone(r, "127.0.2.3", 0, "a"), CR_EINVAL);
  cr_router_free(r);
}

/* A migrating slot is read from its master (its replicas answer nil for keys
 * already moved); ASK marks it, MOVED and an explicit report clear it. */
static void migrating_slot_reads_the_master(void **state) {
  (void)state;
  cr_router *r = local_router(CR_POLICY_LOCAL);
  const char *k = key_in_shard(1);
  const uint32_t slot = cr_keyslot(k, strlen(k));
  cr_route out = CR_ROUTE_INIT;
  assert_int_equal(cr_router_get_slot_migrating(r, slot), 0);
  assert_int_equal(cr_router_route_read(&out, r, k, strlen(k)), CR_OK);
  assert_string_equal(out.host, "127.0.1.3"); /* the local replica */

  assert_int_equal(cr_router_set_slot_migrating(r, slot, 1), CR_OK);
  assert_int_equal(cr_router_get_slot_migrating(r, slot), 1);
  assert_int_equal(cr_router_route_read(&out, r, k, strlen(k)), CR_OK);
  assert_string_equal(out.host, "127.0.2.1"); /* the (remote) master */
  assert_int_equal(out.role, CR_ROLE_MASTER);
  assert_int_equal(cr_router_route_read_slot(&out, r, slot), CR_OK);
  assert_string_equal(out.host, "127.0.2.1");
  cr_snapshot *snap = NULL;
  assert_int_equal(cr_router_get_snapshot(&snap, r), CR_OK);
  assert_int_equal(cr_snapshot_route_read(&out, snap, k, strlen(k)), CR_OK);
  assert_string_equal(out.host, "127.0.2.1");

  assert_int_equal(cr_router_set_slot_migrating(r, slot, 0), CR_OK);
  assert_int_equal(cr_router_get_slot_migrating(r, slot), 0);
  assert_int_equal(cr_router_route_read(&out, r, k, strlen(k)), CR_OK);
  assert_string_equal(out.host, "127.0.1.3");
  assert_int_equal(cr_snapshot_route_read(&out, snap, k, strlen(k)), CR_OK);
  assert_string_equal(out.host, "127.0.2.1"); /* a snapshot never changes */
  cr_snapshot_free(snap);

  cr_route ask = CR_ROUTE_INIT;
  assert_int_equal(cr_router_report_ask(&ask, r, slot, "127.0.1.1", 7001), CR_OK);
  assert_int_equal(cr_router_get_slot_migrating(r, slot), 1);
  assert_int_equal(cr_router_route_read(&out, r, k, strlen(k)), CR_OK);
  assert_string_equal(out.host, "127.0.2.1");
  assert_int_equal(cr_router_report_moved(r, slot, "127.0.1.1", 7001), CR_OK);
  assert_int_equal(cr_router_get_slot_migrating(r, slot), 0);

  /* Invalid arguments. */
  assert_int_equal(cr_router_set_slot_migrating(NULL, slot, 1), CR_EINVAL);
  assert_int_equal(cr_router_set_slot_migrating(r, CR_SLOT_COUNT, 1), CR_EINVAL);
  assert_true(strstr(cr_last_error(), "16384") != NULL);
  assert_int_equal(cr_router_set_slot_migrating(r, UINT16_MAX, 0), CR_EINVAL);
  assert_int_equal(cr_router_set_slot_migrating(r, slot, 2), CR_EINVAL); /* booleans are 0 or 1 */
  assert_true(strstr(cr_last_error(), "0 or 1") != NULL);
  assert_int_equal(cr_router_get_slot_migrating(NULL, slot), 0);
  assert_int_equal(cr_router_get_slot_migrating(r, CR_SLOT_COUNT), 0);
  cr_router_free(r);

  /* Before any topology: the mark is kept, routing still says why it cannot. */
  cr_router *empty = NULL;
  assert_int_equal(cr_router_new(&empty, NULL), CR_OK);
  assert_int_equal(cr_router_set_slot_migrating(empty, 7, 1), CR_OK);
  assert_int_equal(cr_router_get_slot_migrating(empty, 7), 1);
  assert_int_equal(cr_router_route_read_slot(&out, empty, 7), CR_ENOTOPOLOGY);
  cr_router_free(empty);
}

static void snapshots_outlive_the_router(void **state) {
  (void)state;
  cr_router *r = local_router(CR_POLICY_LOCAL);
  cr_snapshot *s = NULL;
  assert_int_equal(cr_router_get_snapshot(&s, r), CR_OK);
  const uint64_t gen = cr_snapshot_get_generation(s);
  assert_true(gen > 0);
  cr_topology *t = two_shards();
  assert_int_equal(cr_router_update(r, t), CR_OK);
  cr_snapshot *s2 = NULL;
  assert_int_equal(cr_router_get_snapshot(&s2, r), CR_OK);
  assert_true(cr_snapshot_get_generation(s2) > gen);
  cr_router_free(r); /* snapshots stay valid */
  cr_topology_free(t);
  cr_route out = CR_ROUTE_INIT;
  assert_int_equal(cr_snapshot_route_read(&out, s, "x", 1), CR_OK);
  assert_non_null(out.host);
  assert_int_equal(cr_snapshot_route_write(&out, s2, "x", 1), CR_OK);
  cr_topology *st = cr_snapshot_get_topology(s);
  assert_non_null(st);
  assert_null(cr_snapshot_get_topology(NULL));
  assert_int_equal(cr_topology_get_shard_count(st), 2);
  cr_topology_free(st);
  assert_int_equal(cr_snapshot_route_read(&out, NULL, "x", 1), CR_EINVAL);
  assert_int_equal(cr_snapshot_get_generation(NULL), 0);
  cr_snapshot_free(s);
  cr_snapshot_free(s2);
  cr_snapshot_free(NULL);
}

static void errors_without_topology_or_with_bad_args(void **state) {
  (void)state;
  cr_router *r = NULL;
  assert_int_equal(cr_router_new(&r, NULL), CR_OK);
  cr_route out = CR_ROUTE_INIT;
  assert_int_equal(cr_router_route_read(&out, r, "x", 1), CR_ENOTOPOLOGY);
  assert_error_mentions("cr_router_update");
  assert_int_equal(cr_router_route_write(&out, r, "x", 1), CR_ENOTOPOLOGY);
  assert_int_equal(cr_router_route_read_slot(&out, r, 1), CR_ENOTOPOLOGY);
  cr_snapshot *s = NULL;
  assert_int_equal(cr_router_get_snapshot(&s, r), CR_ENOTOPOLOGY);
  assert_null(s);
  size_t n;
  assert_int_equal(cr_router_candidates(NULL, 0, &n, r, "x", 1), CR_ENOTOPOLOGY);
  char buf[8];
  assert_int_equal(cr_router_explain(buf, sizeof buf, &n, r, "x", 1), CR_ENOTOPOLOGY);
  assert_int_equal(cr_router_route_read(NULL, r, "x", 1), CR_EINVAL);
  assert_int_equal(cr_router_route_read(&out, NULL, "x", 1), CR_EINVAL);
  assert_int_equal(cr_router_route_read(&out, r, NULL, 1), CR_EINVAL);
  cr_route small = CR_ROUTE_INIT;
  small.struct_size = 8;
  assert_int_equal(cr_router_route_read(&small, r, "x", 1), CR_EINVAL);
  assert_error_mentions("struct_size");
  assert_int_equal(cr_router_update(r, NULL), CR_EINVAL);
  assert_int_equal(cr_router_update(NULL, NULL), CR_EINVAL);
  assert_int_equal(cr_router_new(NULL, NULL), CR_EINVAL);
  assert_int_equal(cr_router_get_refresh_needed(NULL), 0);

  /* a topology with an uncovered slot */
  static const char partial[] =
      "*1\r\n*3\r\n:0\r\n:10\r\n*3\r\n$9\r\n127.0.1.1\r\n:7001\r\n$1\r\nm\r\n";
  cr_topology *t = NULL;
  assert_int_equal(
      cr_topology_parse(&t, partial, sizeof partial - 1, CR_TOPOLOGY_FORMAT_CLUSTER_SLOTS, NULL),
      CR_OK);
  assert_int_equal(cr_router_update(r, t), CR_OK);
  assert_int_equal(cr_router_route_read(&out, r, "foo", 3), CR_ESLOT_UNCOVERED);
  assert_error_mentions("slot 12182");
  assert_int_equal(cr_router_route_write(&out, r, "foo", 3), CR_ESLOT_UNCOVERED);
  cr_topology_free(t);

  /* every candidate down, and a master whose endpoint is unknown */
  static const char unknown[] = "*1\r\n*3\r\n:0\r\n:16383\r\n*3\r\n$1\r\n?\r\n:7001\r\n$1\r\nm\r\n";
  assert_int_equal(
      cr_topology_parse(&t, unknown, sizeof unknown - 1, CR_TOPOLOGY_FORMAT_CLUSTER_SLOTS, NULL),
      CR_OK);
  assert_int_equal(cr_router_update(r, t), CR_OK);
  assert_int_equal(cr_router_route_write(&out, r, "foo", 3), CR_EUNAVAILABLE);
  assert_int_equal(cr_router_route_read(&out, r, "foo", 3), CR_EUNAVAILABLE);
  cr_topology_free(t);
  cr_router_free(r);
  cr_router_free(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(routes_reads_locally_and_writes_to_master),
      cmocka_unit_test(batch_routing),
      cmocka_unit_test(health_moved_ask_rtt_zone),
      cmocka_unit_test(migrating_slot_reads_the_master),
      cmocka_unit_test(snapshots_outlive_the_router),
      cmocka_unit_test(errors_without_topology_or_with_bad_args),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
