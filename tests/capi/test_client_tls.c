/* The TLS fields of cr_client_options without a server: their defaults,
 * files that do not load (CR_EINVAL naming the file, before any connection
 * is tried), and a caller built against the header before the TLS fields
 * (a smaller struct_size: the fields after it are never read). With real
 * TLS servers: tests/integration/tls_test.cc. */
#include "capi_test.h"

static void defaults_are_plaintext_with_verification_on(void **state) {
  (void)state;
  cr_client_options a = CR_CLIENT_OPTIONS_INIT, b;
  memset(&b, 0xAB, sizeof b);
  cr_client_options_init(&b, sizeof b);
  assert_int_equal(a.tls, 0);
  assert_int_equal(a.tls_verify, 1);
  assert_int_equal(b.tls, 0);
  assert_int_equal(b.tls_verify, 1);
  assert_null(b.tls_ca_file);
  assert_null(b.tls_ca_dir);
  assert_null(b.tls_cert_file);
  assert_null(b.tls_key_file);
  assert_null(b.tls_server_name);
}

static void files_that_do_not_load_are_invalid(void **state) {
  (void)state;
  cr_client *c = (cr_client *)0x1;
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  o.tls = 1;
  o.tls_ca_file = "/nonexistent/cloudroute-ca.pem";
  assert_int_equal(cr_client_new(&c, NULL, &o, "127.0.0.1:1"), CR_EINVAL);
  assert_null(c);
  assert_error_mentions("/nonexistent/cloudroute-ca.pem");
  o.tls_ca_file = NULL;
  o.tls_cert_file = "/nonexistent/client.pem"; /* without a key */
  assert_int_equal(cr_client_new(&c, NULL, &o, "127.0.0.1:1"), CR_EINVAL);
  assert_error_mentions("key_file");
  o.tls_key_file = "/nonexistent/client.key";
  assert_int_equal(cr_client_new(&c, NULL, &o, "127.0.0.1:1"), CR_EINVAL);
  assert_error_mentions("/nonexistent/client.pem");
  assert_null(c);
}

static void tls_to_nothing_is_a_connection_error(void **state) {
  (void)state;
  cr_client *c = (cr_client *)0x1;
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  o.tls = 1;
  o.connect_timeout_ms = 300;
  assert_int_equal(cr_client_new(&c, NULL, &o, "127.0.0.1:1"), CR_ECONN);
  assert_null(c);
  assert_error_mentions("127.0.0.1:1");
}

static void an_older_struct_size_ignores_the_tls_fields(void **state) {
  (void)state;
  cr_client *c = (cr_client *)0x1;
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  o.connect_timeout_ms = 300;
  o.tls = 1;
  o.tls_ca_file = "/nonexistent/cloudroute-ca.pem"; /* would be CR_EINVAL if read */
  o.struct_size = (uint32_t)offsetof(cr_client_options, tls);
  assert_int_equal(cr_client_new(&c, NULL, &o, "127.0.0.1:1"), CR_ECONN);
  assert_null(c);
  o.struct_size = (uint32_t)offsetof(cr_client_options, tls) - 1;
  assert_int_equal(cr_client_new(&c, NULL, &o, "127.0.0.1:1"), CR_EINVAL);
  assert_error_mentions("struct_size");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(defaults_are_plaintext_with_verification_on),
      cmocka_unit_test(files_that_do_not_load_are_invalid),
      cmocka_unit_test(tls_to_nothing_is_a_connection_error),
      cmocka_unit_test(an_older_struct_size_ignores_the_tls_fields),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
