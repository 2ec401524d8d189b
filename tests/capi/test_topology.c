#include "capi_test.h"

static void parse_and_inspect(void **state) {
  (void)state;
  cr_topology *t = two_shards();
  assert_int_equal(cr_topology_get_shard_count(t), 2);
  assert_int_equal(cr_topology_get_node_count(t), 6);
  cr_node_info n = CR_NODE_INFO_INIT;
  assert_int_equal(cr_topology_get_node(&n, t, 0), CR_OK);
  assert_string_equal(n.host, "127.0.1.1");
  assert_int_equal(n.port, 7001);
  assert_string_equal(n.id, "m1");
  assert_int_equal(n.role, CR_ROLE_MASTER);
  assert_int_equal(n.health, CR_REPORTED_HEALTH_ONLINE);
  assert_int_equal(cr_topology_get_node(&n, t, 6), CR_ENOTFOUND);
  assert_int_equal(cr_topology_get_node(NULL, t, 0), CR_EINVAL);
  cr_node_info small = CR_NODE_INFO_INIT;
  small.struct_size = 4;
  assert_int_equal(cr_topology_get_node(&small, t, 0), CR_EINVAL);
  assert_error_mentions("struct_size");

  const char *id = NULL;
  assert_int_equal(cr_topology_get_shard_id(&id, t, 1), CR_OK);
  assert_string_equal(id, "m2");
  assert_int_equal(cr_topology_get_shard_id(&id, t, 2), CR_ENOTFOUND);

  uint16_t starts[1], ends[1];
  size_t count = 0;
  assert_int_equal(cr_topology_get_shard_ranges(starts, ends, 1, &count, t, 0), CR_OK);
  assert_int_equal(count, 1);
  assert_int_equal(starts[0], 0);
  assert_int_equal(ends[0], 8191);
  assert_int_equal(cr_topology_get_shard_ranges(NULL, NULL, 0, &count, t, 0), CR_EBUFS);
  assert_int_equal(count, 1);
  assert_int_equal(cr_topology_get_shard_ranges(NULL, NULL, 1, &count, t, 0), CR_EINVAL);

  uint32_t shard = 99;
  assert_int_equal(cr_topology_get_slot_shard(&shard, t, 8192), CR_OK);
  assert_int_equal(shard, 1);
  assert_int_equal(cr_topology_get_slot_shard(&shard, t, 16384), CR_EINVAL);
  assert_int_equal(cr_topology_get_slot_shard(NULL, t, 1), CR_EINVAL);

  /* reference counting: an extra ref survives one free */
  cr_topology_ref(t);
  cr_topology_free(t);
  assert_int_equal(cr_topology_get_shard_count(t), 2);
  cr_topology_free(t);
  cr_topology_free(NULL);
  cr_topology_ref(NULL);
  assert_int_equal(cr_topology_get_shard_count(NULL), 0);
}

static void hostile_and_truncated_replies(void **state) {
  (void)state;
  cr_topology *t = (cr_topology *)0x1;
  assert_int_equal(
      cr_topology_parse(&t, "*268435456\r\n", 12, CR_TOPOLOGY_FORMAT_CLUSTER_SLOTS, NULL),
      CR_ELIMIT);
  assert_null(t);
  assert_error_mentions("exceeds the cap");
  assert_int_equal(
      cr_topology_parse(&t, "$9223372036854775807\r\n", 22, CR_TOPOLOGY_FORMAT_CLUSTER_SLOTS, NULL),
      CR_ELIMIT);
  for (size_t n = 0; n + 1 < sizeof kTwoShards - 1; ++n) {
    cr_status s = cr_topology_parse(&t, kTwoShards, n, CR_TOPOLOGY_FORMAT_CLUSTER_SLOTS, NULL);
    assert_int_equal(s, CR_EINCOMPLETE);
    assert_null(t);
  }
  static const char bad_slot[] = "*1\r\n*3\r\n:0\r\n:16384\r\n*2\r\n$1\r\na\r\n:1\r\n";
  assert_int_equal(
      cr_topology_parse(&t, bad_slot, sizeof bad_slot - 1, CR_TOPOLOGY_FORMAT_CLUSTER_SLOTS, NULL),
      CR_EPARSE);
  assert_error_mentions("outside 0-16383");
  assert_int_equal(cr_topology_parse(&t, "-ERR unknown command\r\n", 22,
                                     CR_TOPOLOGY_FORMAT_CLUSTER_SHARDS, NULL),
                   CR_EPARSE);
  assert_error_mentions("unknown command");
}

static void bad_arguments(void **state) {
  (void)state;
  cr_topology *t = NULL;
  assert_int_equal(cr_topology_parse(NULL, kTwoShards, 4, CR_TOPOLOGY_FORMAT_CLUSTER_SLOTS, NULL),
                   CR_EINVAL);
  assert_int_equal(cr_topology_parse(&t, NULL, 4, CR_TOPOLOGY_FORMAT_CLUSTER_SLOTS, NULL),
                   CR_EINVAL);
  assert_int_equal(
      cr_topology_parse(&t, kTwoShards, sizeof kTwoShards - 1, (cr_topology_format)7, NULL),
      CR_EINVAL);
  assert_error_mentions("format 7 is not one of 0-1");
  cr_parse_options o = CR_PARSE_OPTIONS_INIT;
  o.struct_size = 3;
  assert_int_equal(cr_topology_parse(&t, kTwoShards, sizeof kTwoShards - 1,
                                     CR_TOPOLOGY_FORMAT_CLUSTER_SLOTS, &o),
                   CR_EINVAL);
  cr_parse_options_init(&o, sizeof o);
  o.max_elements = 0;
  assert_int_equal(cr_topology_parse(&t, kTwoShards, sizeof kTwoShards - 1,
                                     CR_TOPOLOGY_FORMAT_CLUSTER_SLOTS, &o),
                   CR_EINVAL);
  cr_parse_options_init(&o, sizeof o);
  o.max_elements = 2;
  assert_int_equal(cr_topology_parse(&t, kTwoShards, sizeof kTwoShards - 1,
                                     CR_TOPOLOGY_FORMAT_CLUSTER_SLOTS, &o),
                   CR_ELIMIT);
  assert_int_equal(cr_parse_options_init(NULL, sizeof(cr_parse_options)), CR_EINVAL);
  /* empty reply bytes */
  assert_int_equal(cr_topology_parse(&t, NULL, 0, CR_TOPOLOGY_FORMAT_CLUSTER_SLOTS, NULL),
                   CR_EINCOMPLETE);
}

static void default_host_and_empty_topology(void **state) {
  (void)state;
  static const char reply[] = "*1\r\n*3\r\n:0\r\n:16383\r\n*3\r\n$0\r\n\r\n:7000\r\n$1\r\nm\r\n";
  cr_parse_options o = CR_PARSE_OPTIONS_INIT;
  o.default_host = "10.1.2.3";
  cr_topology *t = NULL;
  assert_int_equal(
      cr_topology_parse(&t, reply, sizeof reply - 1, CR_TOPOLOGY_FORMAT_CLUSTER_SLOTS, &o), CR_OK);
  cr_node_info n = CR_NODE_INFO_INIT;
  assert_int_equal(cr_topology_get_node(&n, t, 0), CR_OK);
  assert_string_equal(n.host, "10.1.2.3");
  cr_topology_free(t);
  assert_int_equal(cr_topology_parse(&t, "*0\r\n", 4, CR_TOPOLOGY_FORMAT_CLUSTER_SLOTS, NULL),
                   CR_OK);
  assert_int_equal(cr_topology_get_shard_count(t), 0);
  uint32_t shard;
  assert_int_equal(cr_topology_get_slot_shard(&shard, t, 0), CR_ESLOT_UNCOVERED);
  cr_topology_free(t);
}

static void static_topology(void **state) {
  (void)state;
  const char text[] = "shard master=127.0.0.1:6379 replicas=127.0.0.2:6379\n";
  cr_topology *t = NULL;
  assert_int_equal(cr_topology_parse_static(&t, text, sizeof text - 1), CR_OK);
  assert_int_equal(cr_topology_get_node_count(t), 2);
  cr_topology_free(t);
  assert_int_equal(cr_topology_parse_static(&t, "shard\n", 6), CR_EPARSE);
  assert_error_mentions("line 1");
  assert_int_equal(cr_topology_parse_static(NULL, text, 3), CR_EINVAL);
  assert_int_equal(cr_topology_parse_static(&t, NULL, 3), CR_EINVAL);
}

/* Contradictions and non-hosts are refused through the C API too,
 * and max_depth has a bound (the framer recurses once per level). */
static void refused_replies_and_depth_bound(void **state) {
  (void)state;
  cr_topology *t = NULL;
  static const char nul_host[] =
      "*1\r\n*3\r\n:0\r\n:16383\r\n*3\r\n$10\r\n10.0.0.1\0a\r\n:7000\r\n$1\r\nm\r\n";
  assert_int_equal(
      cr_topology_parse(&t, nul_host, sizeof nul_host - 1, CR_TOPOLOGY_FORMAT_CLUSTER_SLOTS, NULL),
      CR_EPARSE);
  assert_null(t);
  assert_error_mentions("endpoint '10.0.0.1\\x00a'");
  static const char id_twice[] =
      "*2\r\n*3\r\n:0\r\n:99\r\n*3\r\n$8\r\n10.0.0.1\r\n:7000\r\n$1\r\nm\r\n"
      "*3\r\n:100\r\n:16383\r\n*3\r\n$8\r\n10.0.0.2\r\n:7000\r\n$1\r\nm\r\n";
  assert_int_equal(
      cr_topology_parse(&t, id_twice, sizeof id_twice - 1, CR_TOPOLOGY_FORMAT_CLUSTER_SLOTS, NULL),
      CR_EPARSE);
  assert_error_mentions("node id 'm' at 10.0.0.1:7000 and 10.0.0.2:7000");
  const char twice[] = "shard master=127.0.0.1:6379 replicas=127.0.0.1:6379 id=a\n";
  assert_int_equal(cr_topology_parse_static(&t, twice, sizeof twice - 1), CR_EPARSE);
  assert_error_mentions("is given to two nodes");

  cr_parse_options o = CR_PARSE_OPTIONS_INIT;
  o.max_depth = 65;
  assert_int_equal(cr_topology_parse(&t, kTwoShards, sizeof kTwoShards - 1,
                                     CR_TOPOLOGY_FORMAT_CLUSTER_SLOTS, &o),
                   CR_EINVAL);
  assert_error_mentions("above the bound of 64");
  o.max_depth = 64;
  char deep[4 * 4000 + 5];
  for (int i = 0; i < 4000; ++i) memcpy(deep + 4 * i, "*1\r\n", 4);
  memcpy(deep + 4 * 4000, ":1\r\n", 4);
  assert_int_equal(cr_topology_parse(&t, deep, 4 * 4000 + 4, CR_TOPOLOGY_FORMAT_CLUSTER_SLOTS, &o),
                   CR_ELIMIT);
  assert_error_mentions("nesting deeper than");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(parse_and_inspect), cmocka_unit_test(hostile_and_truncated_replies),
      cmocka_unit_test(bad_arguments),     cmocka_unit_test(default_host_and_empty_topology),
      cmocka_unit_test(static_topology),   cmocka_unit_test(refused_replies_and_depth_bound),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
