#include "capi_test.h"

static void status_strings_are_static_and_distinct(void **state) {
  (void)state;
  const cr_status all[] = {
      CR_OK,        CR_EINVAL,      CR_ENOMEM,      CR_EBUFS,           CR_EPARSE,
      CR_ELIMIT,    CR_EINCOMPLETE, CR_ENOTOPOLOGY, CR_ESLOT_UNCOVERED, CR_EUNAVAILABLE,
      CR_ENOTFOUND, CR_EINTERNAL,   CR_ECONN,       CR_ETIMEOUT,        CR_EREDIS};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) {
    assert_non_null(cr_status_str(all[i]));
    for (size_t j = 0; j < i; ++j)
      assert_string_not_equal(cr_status_str(all[i]), cr_status_str(all[j]));
  }
  assert_non_null(strstr(cr_status_str((cr_status)-999), "unknown"));
}

static void pinned_values(void **state) {
  (void)state;
  /* These numbers are ABI: they never change. */
  assert_int_equal(CR_OK, 0);
  assert_int_equal(CR_EINVAL, -1);
  assert_int_equal(CR_EPARSE, -4);
  assert_int_equal(CR_ESLOT_UNCOVERED, -8);
  assert_int_equal(CR_EINTERNAL, -11);
  assert_int_equal(CR_ECONN, -12);
  assert_int_equal(CR_ETIMEOUT, -13);
  assert_int_equal(CR_EREDIS, -14);
}

static void last_error_never_null_and_per_thread_message(void **state) {
  (void)state;
  assert_non_null(cr_last_error());
  cr_topology *t = NULL;
  assert_int_equal(cr_topology_parse(&t, "x", 1, CR_TOPOLOGY_FORMAT_CLUSTER_SLOTS, NULL),
                   CR_EPARSE);
  assert_null(t);
  assert_error_mentions("unknown type byte");
}

static void version(void **state) {
  (void)state;
  assert_string_equal(cr_version(), CR_VERSION_STRING);
  assert_int_equal(cr_version_number(), CR_VERSION_NUMBER);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(status_strings_are_static_and_distinct),
      cmocka_unit_test(pinned_values),
      cmocka_unit_test(last_error_never_null_and_per_thread_message),
      cmocka_unit_test(version),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
