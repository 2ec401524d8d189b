/* The Sentinel client section of the C API without a server: every entry
 * point refuses NULL and invalid arguments with CR_EINVAL, and a client
 * whose sentinels answer nothing fails with CR_ECONN naming them. (With real
 * sentinels and a failover: tests/integration/sentinel_test.cc.) */
#include "capi_test.h"

static cr_ring *ring_of(size_t n, int build) {
  cr_ring *ring = NULL;
  cr_ring_options ro = CR_RING_OPTIONS_INIT;
  assert_int_equal(cr_ring_new(&ring, &ro), CR_OK);
  for (size_t i = 0; i < n; ++i) {
    char name[32];
    snprintf(name, sizeof name, "group%zu", i);
    assert_int_equal(cr_ring_add_shard(ring, name, 1), CR_OK);
  }
  if (build) assert_int_equal(cr_ring_build(ring), CR_OK);
  return ring;
}

static void options_init_matches_the_macro(void **state) {
  (void)state;
  cr_sentinel_options a = CR_SENTINEL_OPTIONS_INIT, b;
  memset(&b, 0xAB, sizeof b);
  cr_sentinel_options_init(&b, sizeof b);
  assert_int_equal(a.struct_size, sizeof(cr_sentinel_options));
  assert_memory_equal(&a, &b,
                      offsetof(cr_sentinel_options, tcp_user_timeout_ms) + sizeof(uint32_t));
  assert_null(b.username);
  assert_null(b.password);
  assert_null(b.sentinel_username);
  assert_null(b.sentinel_password);
  assert_null(b.client_name);
  assert_int_equal(a.reask_interval_ms, 5000);
  assert_int_equal(a.failures_before_refresh, 3);
  assert_int_equal(a.tls, 0);
  assert_int_equal(a.tls_verify, 1);
  assert_int_equal(a.hedge_mode, CR_HEDGE_MODE_OFF);
  assert_int_equal(a.hedge_delay_ms, 20);
  assert_int_equal(a.command_timeout_ms[CR_TIER_LOCAL], 500);
  assert_int_equal(cr_sentinel_options_init(NULL, sizeof(cr_sentinel_options)), CR_EINVAL);
}

static void new_refuses_invalid_arguments(void **state) {
  (void)state;
  const char *names[] = {"group0", "group1"};
  const char *dup[] = {"group0", "group0"};
  const char *empty[] = {"group0", ""};
  const char *with_null[] = {"group0", NULL};
  cr_ring *ring = ring_of(2, 1), *unbuilt = ring_of(2, 0), *three = ring_of(3, 1);
  cr_sentinel_client *c = (cr_sentinel_client *)0x1;
  const char *s = "127.0.0.1:1";
  assert_int_equal(cr_sentinel_client_new(NULL, NULL, NULL, ring, names, 2, s), CR_EINVAL);
  assert_int_equal(cr_sentinel_client_new(&c, NULL, NULL, NULL, names, 2, s), CR_EINVAL);
  assert_null(c);
  assert_int_equal(cr_sentinel_client_new(&c, NULL, NULL, ring, NULL, 2, s), CR_EINVAL);
  assert_int_equal(cr_sentinel_client_new(&c, NULL, NULL, ring, names, 2, NULL), CR_EINVAL);
  assert_int_equal(cr_sentinel_client_new(&c, NULL, NULL, ring, names, 0, s), CR_EINVAL);
  assert_int_equal(cr_sentinel_client_new(&c, NULL, NULL, unbuilt, names, 2, s), CR_EINVAL);
  assert_error_mentions("not built");
  assert_int_equal(cr_sentinel_client_new(&c, NULL, NULL, three, names, 2, s), CR_EINVAL);
  assert_int_equal(cr_sentinel_client_new(&c, NULL, NULL, ring, dup, 2, s), CR_EINVAL);
  assert_int_equal(cr_sentinel_client_new(&c, NULL, NULL, ring, empty, 2, s), CR_EINVAL);
  assert_int_equal(cr_sentinel_client_new(&c, NULL, NULL, ring, with_null, 2, s), CR_EINVAL);
  assert_error_mentions("names[1]");
  const char *bad_addrs[] = {"", "nohost", "h:0", "h:70000", "::1:7000"};
  for (size_t i = 0; i < sizeof bad_addrs / sizeof bad_addrs[0]; ++i) {
    assert_int_equal(cr_sentinel_client_new(&c, NULL, NULL, ring, names, 2, bad_addrs[i]),
                     CR_EINVAL);
    assert_null(c);
  }
  cr_sentinel_options o = CR_SENTINEL_OPTIONS_INIT;
  o.struct_size = 8;
  assert_int_equal(cr_sentinel_client_new(&c, NULL, &o, ring, names, 2, s), CR_EINVAL);
  assert_error_mentions("struct_size");
  o = (cr_sentinel_options)CR_SENTINEL_OPTIONS_INIT;
  o.pool_size = 0;
  assert_int_equal(cr_sentinel_client_new(&c, NULL, &o, ring, names, 2, s), CR_EINVAL);
  o = (cr_sentinel_options)CR_SENTINEL_OPTIONS_INIT;
  o.command_timeout_ms[CR_TIER_UNKNOWN] = 0;
  assert_int_equal(cr_sentinel_client_new(&c, NULL, &o, ring, names, 2, s), CR_EINVAL);
  o = (cr_sentinel_options)CR_SENTINEL_OPTIONS_INIT;
  o.sentinel_timeout_ms = 0;
  assert_int_equal(cr_sentinel_client_new(&c, NULL, &o, ring, names, 2, s), CR_EINVAL);
  o = (cr_sentinel_options)CR_SENTINEL_OPTIONS_INIT;
  o.db = 0xffffffffu;
  assert_int_equal(cr_sentinel_client_new(&c, NULL, &o, ring, names, 2, s), CR_EINVAL);
  assert_error_mentions("db 4294967295 is above the largest database index");
  assert_null(c);
  /* The engine's fields, checked as cr_client_new checks them. */
  o = (cr_sentinel_options)CR_SENTINEL_OPTIONS_INIT;
  o.tls = 2;
  assert_int_equal(cr_sentinel_client_new(&c, NULL, &o, ring, names, 2, s), CR_EINVAL);
  assert_error_mentions("tls");
  o = (cr_sentinel_options)CR_SENTINEL_OPTIONS_INIT;
  o.tls = 1;
  o.tls_ca_file = "/nonexistent/ca.pem";
  assert_int_equal(cr_sentinel_client_new(&c, NULL, &o, ring, names, 2, s), CR_EINVAL);
  assert_error_mentions("ca.pem");
  o = (cr_sentinel_options)CR_SENTINEL_OPTIONS_INIT;
  o.hedge_mode = CR_HEDGE_MODE_FIXED;
  o.hedge_delay_ms = 0;
  assert_int_equal(cr_sentinel_client_new(&c, NULL, &o, ring, names, 2, s), CR_EINVAL);
  assert_error_mentions("hedge_delay_ms");
  o = (cr_sentinel_options)CR_SENTINEL_OPTIONS_INIT;
  o.hedge_mode = (cr_hedge_mode)9;
  assert_int_equal(cr_sentinel_client_new(&c, NULL, &o, ring, names, 2, s), CR_EINVAL);
  assert_null(c);
  cr_ring_free(ring);
  cr_ring_free(unbuilt);
  cr_ring_free(three);
}

static void no_sentinel_is_a_connection_error_naming_each(void **state) {
  (void)state;
  const char *names[] = {"group0", "group1"};
  cr_ring *ring = ring_of(2, 1);
  cr_sentinel_client *c = (cr_sentinel_client *)0x1;
  cr_sentinel_options o = CR_SENTINEL_OPTIONS_INIT;
  o.connect_timeout_ms = 300;
  o.sentinel_timeout_ms = 300;
  o.sentinel_password = "hunter2-secret";
  /* Port 1 on loopback: nothing listens, the connect is refused at once. */
  assert_int_equal(cr_sentinel_client_new(&c, NULL, &o, ring, names, 2, "127.0.0.1:1,127.0.0.2:1"),
                   CR_ECONN);
  assert_null(c);
  assert_error_mentions("127.0.0.1:1");
  assert_error_mentions("127.0.0.2:1");
  assert_error_mentions("group0");
  assert_null(strstr(cr_last_error(), "hunter2"));
  cr_ring_free(ring);
}

static void entry_points_refuse_null(void **state) {
  (void)state;
  cr_reply *r = (cr_reply *)0x1;
  const void *argv[] = {"GET", "k"};
  const size_t lens[] = {3, 1};
  assert_int_equal(cr_sentinel_client_command(&r, NULL, CR_ACCESS_READ, 1, 2, argv, lens),
                   CR_EINVAL);
  assert_null(r);
  assert_int_equal(cr_sentinel_client_command(NULL, NULL, CR_ACCESS_READ, 1, 2, argv, lens),
                   CR_EINVAL);
  assert_int_equal(cr_sentinel_client_refresh(NULL), CR_EINVAL);
  assert_null(cr_sentinel_client_get_groups(NULL));
  cr_sentinel_stats st = CR_SENTINEL_STATS_INIT;
  assert_int_equal(cr_sentinel_client_get_stats(&st, NULL), CR_EINVAL);
  assert_int_equal(cr_sentinel_client_get_stats(NULL, NULL), CR_EINVAL);
  cr_client_node_stats ns[2] = {CR_CLIENT_NODE_STATS_INIT, CR_CLIENT_NODE_STATS_INIT};
  size_t needed = 7;
  assert_int_equal(cr_sentinel_client_get_node_stats(ns, 2, &needed, NULL), CR_EINVAL);
  assert_int_equal(cr_sentinel_client_get_node_stats(ns, 2, NULL, NULL), CR_EINVAL);
  char text[16];
  assert_int_equal(cr_sentinel_client_get_metrics_text(text, sizeof text, &needed, NULL),
                   CR_EINVAL);
  assert_int_equal(cr_sentinel_client_get_metrics_text(text, sizeof text, NULL, NULL), CR_EINVAL);
  cr_sentinel_client_free(NULL); /* no-op */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(options_init_matches_the_macro),
      cmocka_unit_test(new_refuses_invalid_arguments),
      cmocka_unit_test(no_sentinel_is_a_connection_error_naming_each),
      cmocka_unit_test(entry_points_refuse_null),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
