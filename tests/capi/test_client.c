/* The live cluster client section of the C API without a server: every
 * entry point refuses NULL and invalid arguments with CR_EINVAL, a client
 * whose seeds answer nothing fails with CR_ECONN naming them, and the reply
 * accessors are total. (With a real cluster: tests/integration/client_*.) */
#include "capi_test.h"

static void options_init_matches_the_macro(void **state) {
  (void)state;
  cr_client_options a = CR_CLIENT_OPTIONS_INIT, b;
  memset(&b, 0xAB, sizeof b);
  cr_client_options_init(&b, sizeof b);
  assert_int_equal(a.struct_size, sizeof(cr_client_options));
  assert_memory_equal(&a, &b, offsetof(cr_client_options, username));
  assert_null(b.username);
  assert_null(b.password);
  assert_null(b.client_name);
  assert_int_equal(a.command_timeout_ms[CR_TIER_LOCAL], 500);
  assert_int_equal(a.command_timeout_ms[CR_TIER_OTHER_CLOUD], 2000);
  assert_int_equal(a.refresh_interval_ms, 30000);
  assert_int_equal(cr_client_options_init(NULL, sizeof(cr_client_options)), CR_EINVAL);
}

static void new_refuses_invalid_arguments(void **state) {
  (void)state;
  cr_client *c = (cr_client *)0x1;
  assert_int_equal(cr_client_new(NULL, NULL, NULL, "127.0.0.1:1"), CR_EINVAL);
  assert_int_equal(cr_client_new(&c, NULL, NULL, NULL), CR_EINVAL);
  assert_null(c);
  const char *bad_seeds[] = {"",          "nohost",  "host:",         ":7000",
                             "h:0",       "h:70000", "h:12x",         "::1:7000",
                             "[::1:7000", "[]:7000", "[myhost]:7000", "[10.0.0.1]:7000"};
  for (size_t i = 0; i < sizeof bad_seeds / sizeof bad_seeds[0]; ++i) {
    assert_int_equal(cr_client_new(&c, NULL, NULL, bad_seeds[i]), CR_EINVAL);
    assert_null(c);
  }
  assert_error_mentions("seed '[10.0.0.1]:7000': brackets hold an IPv6 address");
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  o.struct_size = 8;
  assert_int_equal(cr_client_new(&c, NULL, &o, "127.0.0.1:1"), CR_EINVAL);
  assert_error_mentions("struct_size");
  o = (cr_client_options)CR_CLIENT_OPTIONS_INIT;
  o.pool_size = 0;
  assert_int_equal(cr_client_new(&c, NULL, &o, "127.0.0.1:1"), CR_EINVAL);
  o = (cr_client_options)CR_CLIENT_OPTIONS_INIT;
  o.command_timeout_ms[CR_TIER_UNKNOWN] = 0;
  assert_int_equal(cr_client_new(&c, NULL, &o, "127.0.0.1:1"), CR_EINVAL);
  o = (cr_client_options)CR_CLIENT_OPTIONS_INIT;
  o.max_bulk_len = 0;
  assert_int_equal(cr_client_new(&c, NULL, &o, "127.0.0.1:1"), CR_EINVAL);
  o = (cr_client_options)CR_CLIENT_OPTIONS_INIT;
  o.db = 2147483648u;
  assert_int_equal(cr_client_new(&c, NULL, &o, "127.0.0.1:1"), CR_EINVAL);
  assert_error_mentions("db 2147483648 is above the largest database index");
  o = (cr_client_options)CR_CLIENT_OPTIONS_INIT;
  o.shared_connections = 17;
  assert_int_equal(cr_client_new(&c, NULL, &o, "127.0.0.1:1"), CR_EINVAL);
  assert_error_mentions("shared_connections must be 0 (off) or 1-16, not 17");
}

static void no_server_is_a_connection_error_naming_every_seed(void **state) {
  (void)state;
  cr_client *c = (cr_client *)0x1;
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  o.connect_timeout_ms = 300;
  o.password = "hunter2-secret";
  /* Port 1 on loopback: nothing listens, the connect is refused at once. */
  assert_int_equal(cr_client_new(&c, NULL, &o, "127.0.0.1:1,127.0.0.2:1"), CR_ECONN);
  assert_null(c);
  assert_error_mentions("127.0.0.1:1");
  assert_error_mentions("127.0.0.2:1");
  assert_null(strstr(cr_last_error(), "hunter2"));
}

static void calls_on_a_null_client_are_refused(void **state) {
  (void)state;
  cr_reply *r = (cr_reply *)0x1;
  const void *argv[] = {"GET", "k"};
  const size_t lens[] = {3, 1};
  const void *keys[] = {"a"};
  const size_t klens[] = {1};
  int64_t n = 0;
  assert_int_equal(cr_client_command(&r, NULL, CR_ACCESS_READ, 1, 2, argv, lens), CR_EINVAL);
  assert_null(r);
  assert_int_equal(cr_client_command(NULL, NULL, CR_ACCESS_READ, 1, 2, argv, lens), CR_EINVAL);
  assert_int_equal(cr_client_cmd_get(&r, NULL, "k", 1), CR_EINVAL);
  assert_int_equal(cr_client_cmd_get(NULL, NULL, "k", 1), CR_EINVAL);
  assert_int_equal(cr_client_cmd_set(NULL, "k", 1, "v", 1, 0), CR_EINVAL);
  assert_int_equal(cr_client_cmd_mget(&r, NULL, keys, klens, 1), CR_EINVAL);
  assert_int_equal(cr_client_cmd_mset(NULL, keys, klens, keys, klens, 1), CR_EINVAL);
  assert_int_equal(cr_client_cmd_del(&n, NULL, keys, klens, 1), CR_EINVAL);
  assert_int_equal(cr_client_refresh(NULL), CR_EINVAL);
  assert_null(cr_client_get_router(NULL));
  cr_client_stats st = CR_CLIENT_STATS_INIT;
  assert_int_equal(cr_client_get_stats(&st, NULL), CR_EINVAL);
  assert_int_equal(cr_client_get_stats(NULL, NULL), CR_EINVAL);
  size_t count = 0;
  cr_client_node_stats ns = CR_CLIENT_NODE_STATS_INIT;
  assert_int_equal(cr_client_get_node_stats(&ns, 1, &count, NULL), CR_EINVAL);
  cr_client_free(NULL); /* no-op */
}

static void reply_accessors_are_total(void **state) {
  (void)state;
  size_t len = 99;
  assert_int_equal(cr_reply_get_type(NULL), CR_REPLY_TYPE_NIL);
  assert_null(cr_reply_get_string(NULL, &len));
  assert_int_equal(len, 0);
  assert_null(cr_reply_get_string(NULL, NULL));
  assert_int_equal(cr_reply_get_integer(NULL), 0);
  assert_int_equal(cr_reply_get_count(NULL), 0);
  assert_null(cr_reply_get_element(NULL, 0));
  cr_reply_free(NULL); /* no-op */
}

static void pinned_reply_types(void **state) {
  (void)state;
  assert_int_equal(CR_REPLY_TYPE_STRING, 0);
  assert_int_equal(CR_REPLY_TYPE_ERROR, 5);
  assert_int_equal(CR_REPLY_TYPE_BIGNUM, 9);
  assert_int_equal(CR_ACCESS_READ, 0);
  assert_int_equal(CR_ACCESS_WRITE, 1);
  assert_int_equal(CR_TIER_COUNT, CR_TIER_UNKNOWN + 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(options_init_matches_the_macro),
      cmocka_unit_test(new_refuses_invalid_arguments),
      cmocka_unit_test(no_server_is_a_connection_error_naming_every_seed),
      cmocka_unit_test(calls_on_a_null_client_are_refused),
      cmocka_unit_test(reply_accessors_are_total),
      cmocka_unit_test(pinned_reply_types),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
