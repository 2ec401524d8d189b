/* The hedged-read fields of cr_client_options without a server: their
 * defaults, their checks (CR_EINVAL naming the field, before any connect),
 * and an older caller's struct that ends before them (hedging stays off).
 * With a real cluster: tests/integration/hedge_test.cc. */
#include <math.h>
#include <stddef.h>

#include "capi_test.h"

/* Port 1 on loopback: nothing listens. CR_ECONN means the options passed. */
static cr_status try_new(const cr_client_options *o) {
  cr_client *c = (cr_client *)0x1;
  const cr_status s = cr_client_new(&c, NULL, o, "127.0.0.1:1");
  assert_null(c);
  return s;
}

static cr_client_options fixed(void) {
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  o.connect_timeout_ms = 200;
  o.hedge_mode = CR_HEDGE_MODE_FIXED;
  return o;
}

static void defaults_leave_hedging_off(void **state) {
  (void)state;
  cr_client_options a = CR_CLIENT_OPTIONS_INIT, b;
  memset(&b, 0xAB, sizeof b);
  assert_int_equal(cr_client_options_init(&b, sizeof b), CR_OK);
  assert_int_equal(a.hedge_mode, CR_HEDGE_MODE_OFF);
  assert_int_equal(b.hedge_mode, CR_HEDGE_MODE_OFF);
  assert_int_equal(b.hedge_delay_ms, 20);
  assert_int_equal(b.hedge_min_delay_ms, 2);
  assert_int_equal(b.hedge_budget_percent, 10);
  assert_true(b.hedge_percentile == 99.0);
  cr_client_stats st = CR_CLIENT_STATS_INIT;
  assert_int_equal(st.struct_size, sizeof st);
  assert_int_equal(st.hedges + st.hedges_won + st.hedges_denied, 0);
}

/* The names before the rename still compile, as the same values. */
static void deprecated_names_are_the_same_values(void **state) {
  (void)state;
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  o.hedge_mode = CR_HEDGE_ADAPTIVE;
  assert_int_equal(o.hedge_mode, CR_HEDGE_MODE_ADAPTIVE);
  assert_int_equal(CR_HEDGE_OFF, CR_HEDGE_MODE_OFF);
  assert_int_equal(CR_HEDGE_FIXED, CR_HEDGE_MODE_FIXED);
}

static void bad_fields_are_refused_by_name(void **state) {
  (void)state;
  cr_client_options o = fixed();
  assert_int_equal(try_new(&o), CR_ECONN);
  o.hedge_mode = (cr_hedge_mode)3;
  assert_int_equal(try_new(&o), CR_EINVAL);
  assert_error_mentions("hedge_mode");
  /* Each uint32_t field just outside its range, in the mode that reads it. */
  static const struct {
    cr_hedge_mode mode;
    size_t offset;
    uint32_t value;
    const char *name;
  } out_of_range[] = {
      {CR_HEDGE_MODE_FIXED, offsetof(cr_client_options, hedge_delay_ms), 0, "hedge_delay_ms"},
      {CR_HEDGE_MODE_FIXED, offsetof(cr_client_options, hedge_delay_ms), 60001, "hedge_delay_ms"},
      {CR_HEDGE_MODE_FIXED, offsetof(cr_client_options, hedge_budget_percent), 0,
       "hedge_budget_percent"},
      {CR_HEDGE_MODE_FIXED, offsetof(cr_client_options, hedge_budget_percent), 101,
       "hedge_budget_percent"},
      {CR_HEDGE_MODE_ADAPTIVE, offsetof(cr_client_options, hedge_min_delay_ms), 60001,
       "hedge_min_delay_ms"},
  };
  for (size_t i = 0; i < sizeof out_of_range / sizeof out_of_range[0]; ++i) {
    o = fixed();
    o.hedge_mode = out_of_range[i].mode;
    memcpy((char *)&o + out_of_range[i].offset, &out_of_range[i].value, sizeof(uint32_t));
    assert_int_equal(try_new(&o), CR_EINVAL);
    assert_error_mentions(out_of_range[i].name);
  }
  o = fixed();
  o.hedge_mode = CR_HEDGE_MODE_ADAPTIVE;
  assert_int_equal(try_new(&o), CR_ECONN);
  const double bad[] = {0.0, -1.0, 100.5, NAN};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    o.hedge_percentile = bad[i];
    assert_int_equal(try_new(&o), CR_EINVAL);
    assert_error_mentions("hedge_percentile");
  }
}

/* With hedging off the other fields are not looked at: zeroed is fine. */
static void off_ignores_the_other_fields(void **state) {
  (void)state;
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  o.connect_timeout_ms = 200;
  o.hedge_delay_ms = 0;
  o.hedge_budget_percent = 0;
  o.hedge_percentile = 0.0;
  assert_int_equal(try_new(&o), CR_ECONN);
}

/* A caller from a header before hedging: its struct ends at
 * replica_max_lag_s; what lies past it is never read. */
static void older_struct_leaves_hedging_off(void **state) {
  (void)state;
  cr_client_options o = fixed();
  o.struct_size = (uint32_t)offsetof(cr_client_options, hedge_mode);
  o.hedge_mode = (cr_hedge_mode)77; /* past struct_size: not refused */
  o.hedge_delay_ms = 0;
  assert_int_equal(try_new(&o), CR_ECONN);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(defaults_leave_hedging_off),
      cmocka_unit_test(deprecated_names_are_the_same_values),
      cmocka_unit_test(bad_fields_are_refused_by_name),
      cmocka_unit_test(off_ignores_the_other_fields),
      cmocka_unit_test(older_struct_leaves_hedging_off),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
