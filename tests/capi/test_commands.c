/* The live client's commands section of the C API without a server: option
 * structs, scripts (the SHA1 EVALSHA names) and every entry point's refusal
 * of NULL and invalid arguments; the accessors of node replies are total.
 * (With a real cluster: tests/integration/commands_test.cc.) */
#include "capi_test.h"

static void options_init_matches_the_macros(void **state) {
  (void)state;
  cr_call_options a = CR_CALL_OPTIONS_INIT, b;
  memset(&b, 0xAB, sizeof b);
  assert_int_equal(cr_call_options_init(&b, sizeof b), CR_OK);
  assert_memory_equal(&a, &b, sizeof a);
  assert_int_equal(a.timeout_ms, 0);
  assert_int_equal(cr_call_options_init(&b, 2), CR_EINVAL);
  assert_int_equal(cr_call_options_init(NULL, sizeof b), CR_EINVAL);
  cr_scan_options s = CR_SCAN_OPTIONS_INIT, t;
  memset(&t, 0xAB, sizeof t);
  assert_int_equal(cr_scan_options_init(&t, sizeof t), CR_OK);
  assert_null(t.match);
  assert_null(t.type);
  assert_int_equal(t.count, 0);
  assert_int_equal(t.timeout_ms, s.timeout_ms);
}

static void scripts_are_named_by_their_sha1(void **state) {
  (void)state;
  cr_script *s = NULL;
  assert_int_equal(cr_script_new(&s, "return 1", 8), CR_OK);
  /* What SCRIPT LOAD "return 1" answers. */
  assert_string_equal(cr_script_get_sha(s), "e0e1f9fabfc9d4800c877a703b823ac0578ff8db");
  cr_script_free(s);
  s = (cr_script *)0x1;
  assert_int_equal(cr_script_new(&s, "", 0), CR_EINVAL);
  assert_null(s);
  assert_int_equal(cr_script_new(&s, NULL, 3), CR_EINVAL);
  assert_int_equal(cr_script_new(NULL, "x", 1), CR_EINVAL);
  assert_null(cr_script_get_sha(NULL));
  cr_script_free(NULL);
}

static void calls_on_a_null_client_are_refused(void **state) {
  (void)state;
  const void *argv[] = {"PING"};
  const size_t lens[] = {4};
  cr_reply *r = (cr_reply *)0x1;
  assert_int_equal(cr_client_command_opts(&r, NULL, NULL, CR_ACCESS_READ, 0, 1, argv, lens),
                   CR_EINVAL);
  assert_null(r);
  cr_node_replies *n = (cr_node_replies *)0x1;
  assert_int_equal(cr_client_command_nodes(&n, NULL, NULL, CR_TARGET_MASTERS, NULL, 1, argv, lens),
                   CR_EINVAL);
  assert_null(n);
  cr_scan *s = (cr_scan *)0x1;
  assert_int_equal(cr_scan_new(&s, NULL, NULL), CR_EINVAL);
  assert_null(s);
  assert_int_equal(cr_scan_next(&r, NULL), CR_EINVAL);
  cr_pinned *p = (cr_pinned *)0x1;
  assert_int_equal(cr_client_pin(&p, NULL, "k", 1), CR_EINVAL);
  assert_null(p);
  assert_int_equal(cr_client_pin_slot(&p, NULL, 0), CR_EINVAL);
  assert_int_equal(cr_pinned_command(&r, NULL, NULL, 0, NULL, 1, argv, lens), CR_EINVAL);
  cr_script *sc = NULL;
  assert_int_equal(cr_script_new(&sc, "return 1", 8), CR_OK);
  assert_int_equal(cr_client_eval(&r, NULL, NULL, sc, 0, 0, NULL, NULL, 0, NULL, NULL), CR_EINVAL);
  assert_int_equal(cr_client_fcall(&r, NULL, NULL, "f", 0, 0, NULL, NULL, 0, NULL, NULL),
                   CR_EINVAL);
  cr_script_free(sc);
  assert_null(cr_scan_get_address(NULL));
  assert_int_equal(cr_pinned_get_slot(NULL), 0);
  cr_scan_free(NULL);
  cr_pinned_free(NULL);
}

static void node_replies_accessors_are_total(void **state) {
  (void)state;
  assert_int_equal(cr_node_replies_get_count(NULL), 0);
  assert_int_equal(cr_node_replies_get_failed(NULL), 0);
  assert_null(cr_node_replies_get_address(NULL, 0));
  assert_int_equal(cr_node_replies_get_role(NULL, 0), CR_ROLE_MASTER);
  assert_int_equal(cr_node_replies_get_status(NULL, 0), CR_EINVAL);
  assert_string_equal(cr_node_replies_get_error(NULL, 0), "");
  assert_null(cr_node_replies_get_reply(NULL, 0));
  cr_node_replies_free(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(options_init_matches_the_macros),
      cmocka_unit_test(scripts_are_named_by_their_sha1),
      cmocka_unit_test(calls_on_a_null_client_are_refused),
      cmocka_unit_test(node_replies_accessors_are_total),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
