#include "capi_test.h"

static void known_values(void **state) {
  (void)state;
  assert_int_equal(cr_crc16("123456789", 9), 0x31C3);
  assert_int_equal(cr_keyslot("foo", 3), 12182);
  assert_int_equal(cr_keyslot("{user1000}.following", 21), cr_keyslot("user1000", 8));
  assert_int_equal(cr_keyslot("a\0b", 3), cr_keyslot("a\0b", 3));
  assert_int_not_equal(cr_keyslot("a\0b", 3), cr_keyslot("a", 1));
  assert_int_equal(cr_keyslot(NULL, 0), 0);
  assert_int_equal(cr_keyslot(NULL, 5), 0); /* NULL is the empty key, never a crash */
  assert_int_equal(cr_crc16(NULL, 3), 0);
}

static void batch(void **state) {
  (void)state;
  const void *keys[3] = {"foo", "bar", ""};
  const size_t lens[3] = {3, 3, 0};
  uint16_t slots[3];
  assert_int_equal(cr_keyslot_batch(slots, keys, lens, 3), CR_OK);
  assert_int_equal(slots[0], 12182);
  assert_int_equal(slots[1], 5061);
  assert_int_equal(slots[2], 0);
  assert_int_equal(cr_keyslot_batch(NULL, NULL, NULL, 0), CR_OK);
  assert_int_equal(cr_keyslot_batch(NULL, keys, lens, 3), CR_EINVAL);
  assert_int_equal(cr_keyslot_batch(slots, NULL, lens, 3), CR_EINVAL);
  assert_int_equal(cr_keyslot_batch(slots, keys, NULL, 3), CR_EINVAL);
  const void *bad[2] = {"x", NULL};
  const size_t badlens[2] = {1, 4};
  assert_int_equal(cr_keyslot_batch(slots, bad, badlens, 2), CR_EINVAL);
  assert_error_mentions("keys[1]");
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(known_values), cmocka_unit_test(batch)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
