/* The router's node registry through the C API: a node that left the current
 * and previous topology is reclaimed, its handle refused with CR_ENOTFOUND
 * (never applied to the node that reuses its slot), and a router whose
 * nodes move on every update keeps working past the old registry limit's
 * pace of growth. */
#include "capi_test.h"
#include "common/sanitizers.h"

/* One shard owning every slot, its master at 10.a.b.c:6379 for n. */
static cr_topology *moved_to(unsigned n) {
  char text[128];
  snprintf(text, sizeof text, "shard slots=0-16383 master=10.%u.%u.%u:6379\n", (n >> 16) & 255,
           (n >> 8) & 255, n & 255);
  cr_topology *t = NULL;
  assert_int_equal(cr_topology_parse_static(&t, text, strlen(text)), CR_OK);
  return t;
}

static void update(cr_router *r, unsigned n) {
  cr_topology *t = moved_to(n);
  assert_int_equal(cr_router_update(r, t), CR_OK);
  cr_topology_free(t);
}

static void stale_handles_are_refused(void **state) {
  (void)state;
  cr_router *r = NULL;
  assert_int_equal(cr_router_new(&r, NULL), CR_OK);
  update(r, 1);
  cr_route first = CR_ROUTE_INIT;
  assert_int_equal(cr_router_route_write(&first, r, "k", 1), CR_OK);
  assert_string_equal(first.host, "10.0.0.1");

  update(r, 2); /* 10.0.0.1 is in the previous topology: still served */
  assert_int_equal(cr_router_report_failure(r, first.node_handle), CR_OK);
  uint32_t found = 0;
  assert_int_equal(cr_router_find_node(&found, r, "10.0.0.1", 6379), CR_OK);
  assert_int_equal(found, first.node_handle);

  update(r, 3); /* …and now in neither: reclaimed */
  assert_int_equal(cr_router_report_failure(r, first.node_handle), CR_ENOTFOUND);
  assert_non_null(strstr(cr_last_error(), "reclaimed"));
  assert_int_equal(cr_router_report_success(r, first.node_handle), CR_ENOTFOUND);
  assert_int_equal(cr_router_set_rtt(r, first.node_handle, 10), CR_ENOTFOUND);
  assert_int_equal(cr_router_find_node(&found, r, "10.0.0.1", 6379), CR_ENOTFOUND);

  /* Churn until the slot is reused: the old handle still names nothing.
   * Its slot is taken again near update 1030 (once 1024 others are free), so
   * a sanitizer tree, where each update costs ~10 ms, stops at 1100. */
  cr_route now = CR_ROUTE_INIT;
  int reused = 0; /* a handle's low 20 bits are its registry slot */
  for (unsigned n = 4; n < CR_TEST_LOOPS(2000u, 1100u); ++n) {
    update(r, n);
    assert_int_equal(cr_router_route_write(&now, r, "k", 1), CR_OK);
    assert_int_not_equal(now.node_handle, first.node_handle);
    reused |= (now.node_handle & 0xFFFFFu) == (first.node_handle & 0xFFFFFu);
    assert_int_equal(cr_router_report_failure(r, first.node_handle), CR_ENOTFOUND);
  }
  assert_true(reused);
  assert_int_equal(cr_router_report_success(r, now.node_handle), CR_OK);
  cr_router_free(r);
}

/* A held snapshot keeps its nodes: its routes' handles and hosts stay valid. */
static void held_snapshot_keeps_its_nodes(void **state) {
  (void)state;
  cr_router *r = NULL;
  assert_int_equal(cr_router_new(&r, NULL), CR_OK);
  update(r, 1);
  cr_snapshot *s = NULL;
  assert_int_equal(cr_router_get_snapshot(&s, r), CR_OK);
  for (unsigned n = 2; n < 10; ++n) update(r, n);
  cr_route out = CR_ROUTE_INIT;
  assert_int_equal(cr_snapshot_route_write(&out, s, "k", 1), CR_OK);
  assert_string_equal(out.host, "10.0.0.1");
  assert_int_equal(cr_router_report_failure(r, out.node_handle), CR_OK);
  cr_snapshot_free(s);
  update(r, 10);
  assert_int_equal(cr_router_report_failure(r, out.node_handle), CR_ENOTFOUND);
  cr_router_free(r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(stale_handles_are_refused),
      cmocka_unit_test(held_snapshot_keeps_its_nodes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
