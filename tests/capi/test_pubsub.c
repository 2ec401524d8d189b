/* The publish / subscribe section of the C API without a server: NULL
 * handles and arguments are CR_EINVAL naming what was wrong, accessors of a
 * NULL message give their neutral values, free of NULL is a no-op. (With a
 * subscription: tests/net/hostile_pubsub_test.cc; live: tests/integration/
 * pubsub_test.cc.) */
#include "capi_test.h"

static void null_handles(void **state) {
  (void)state;
  cr_subscription *s = (cr_subscription *)(uintptr_t)1;
  assert_int_equal(cr_client_subscribe(&s, NULL), CR_EINVAL);
  assert_null(s);
  assert_error_mentions("cr_client_subscribe: client is NULL");
  assert_int_equal(cr_client_subscribe(NULL, NULL), CR_EINVAL);
  const void *names[1] = {"a"};
  const size_t lens[1] = {1};
  assert_int_equal(cr_subscription_add(NULL, CR_CHANNEL_KIND_CHANNEL, 1, names, lens), CR_EINVAL);
  assert_error_mentions("cr_subscription_add: subscription is NULL");
  assert_int_equal(cr_subscription_remove(NULL, CR_CHANNEL_KIND_SHARD, 1, names, lens), CR_EINVAL);
  assert_error_mentions("cr_subscription_remove");
  cr_message *m = (cr_message *)(uintptr_t)1;
  assert_int_equal(cr_subscription_next(&m, NULL, 0), CR_EINVAL);
  assert_null(m);
  assert_int_equal(cr_subscription_next(NULL, NULL, 0), CR_EINVAL);
  assert_int_equal(cr_subscription_wake(NULL), CR_EINVAL);
  int64_t n = 7;
  assert_int_equal(cr_client_publish(&n, NULL, "a", 1, "b", 1), CR_EINVAL);
  assert_int_equal(n, 0);
  assert_error_mentions("cr_client_publish: client is NULL");
  assert_int_equal(cr_client_spublish(NULL, NULL, "a", 1, "b", 1), CR_EINVAL);
  assert_error_mentions("cr_client_spublish");
  cr_subscription_free(NULL);
  cr_message_free(NULL);
}

static void null_message(void **state) {
  (void)state;
  size_t len = 9;
  assert_int_equal(cr_message_get_type(NULL), CR_MESSAGE_TYPE_MESSAGE);
  assert_int_equal(cr_message_get_kind(NULL), CR_CHANNEL_KIND_CHANNEL);
  assert_null(cr_message_get_channel(NULL, &len));
  assert_int_equal(len, 0);
  len = 9;
  assert_null(cr_message_get_pattern(NULL, &len));
  assert_int_equal(len, 0);
  len = 9;
  assert_null(cr_message_get_payload(NULL, &len));
  assert_int_equal(len, 0);
  assert_null(cr_message_get_payload(NULL, NULL));
  assert_null(cr_message_get_node(NULL));
  assert_null(cr_message_get_reason(NULL));
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(null_handles),
                                     cmocka_unit_test(null_message)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
