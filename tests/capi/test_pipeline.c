/* The pipeline section of the C API without a server: every entry point
 * refuses NULL handles and pointers with CR_EINVAL naming the argument, and
 * the calls that cannot fail are total on NULL. (With a real cluster —
 * routing, in-place errors, redirects, failures, CR_EBUFS, key_index and
 * unknown nodes: tests/integration/pipeline_test.cc.) */
#include "capi_test.h"

static void new_refuses_null(void **state) {
  (void)state;
  cr_pipeline *p = (cr_pipeline *)0x1;
  assert_int_equal(cr_pipeline_new(NULL, (cr_client *)0x1), CR_EINVAL);
  assert_error_mentions("out");
  assert_int_equal(cr_pipeline_new(&p, NULL), CR_EINVAL);
  assert_error_mentions("client");
  assert_null(p);
}

static void adds_refuse_a_null_pipeline_and_bad_arguments(void **state) {
  (void)state;
  const void *argv[] = {"GET", "k"};
  const size_t lens[] = {3, 1};
  assert_int_equal(cr_pipeline_add(NULL, CR_ACCESS_READ, 1, 2, argv, lens), CR_EINVAL);
  assert_error_mentions("cr_pipeline_add");
  assert_error_mentions("pipeline is NULL");
  assert_int_equal(cr_pipeline_add_node(NULL, CR_ACCESS_READ, "127.0.0.1", 7000, 1, argv, lens),
                   CR_EINVAL);
  assert_error_mentions("cr_pipeline_add_node");
}

static void execute_refuses_null(void **state) {
  (void)state;
  cr_reply *replies[1];
  size_t needed = 7;
  assert_int_equal(cr_pipeline_execute(replies, NULL, 1, &needed, NULL), CR_EINVAL);
  assert_error_mentions("pipeline is NULL");
  assert_int_equal(needed, 7); /* nothing written */
}

static void total_calls_accept_null(void **state) {
  (void)state;
  assert_int_equal(cr_pipeline_get_count(NULL), 0);
  cr_pipeline_clear(NULL); /* no-op */
  cr_pipeline_free(NULL);  /* no-op */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(new_refuses_null),
      cmocka_unit_test(adds_refuse_a_null_pipeline_and_bad_arguments),
      cmocka_unit_test(execute_refuses_null),
      cmocka_unit_test(total_calls_accept_null),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
