#include "capi_test.h"

static void builder_validates_every_setting(void **state) {
  (void)state;
  cr_config *c = NULL;
  assert_int_equal(cr_config_new(&c), CR_OK);
  assert_int_equal(cr_config_new(NULL), CR_EINVAL);
  assert_int_equal(cr_config_set_client_location(c, "aws/us-east-1/use1-az1"), CR_OK);
  assert_int_equal(cr_config_set_client_location(c, ""), CR_EPARSE);
  assert_int_equal(cr_config_set_client_location(c, "a/b/c/d"), CR_EPARSE);
  assert_int_equal(cr_config_set_client_location(c, NULL), CR_EINVAL);
  assert_int_equal(cr_config_set_client_location(c, "aws\r\n"), CR_EINVAL);
  assert_error_mentions("location 'aws\\x0d\\x0a' contains a control character");
  assert_int_equal(cr_config_add_location_rule(c, "10.0.0.0/8", "gcp/\nx"), CR_EINVAL);
  assert_int_equal(cr_config_add_zone(c, "use1\r", "aws/us-east-1"), CR_EINVAL);
  assert_error_mentions("zone 'use1\\x0d' contains a control character");
  assert_int_equal(cr_config_set_client_location(NULL, "aws"), CR_EINVAL);
  assert_int_equal(cr_config_add_local_cidr(c, "10.0.0.0/24"), CR_OK);
  assert_int_equal(cr_config_add_local_cidr(c, "fd00::/8"), CR_OK);
  assert_int_equal(cr_config_add_local_cidr(c, "10.0.0.0/33"), CR_EPARSE);
  assert_error_mentions("10.0.0.0/33");
  assert_int_equal(cr_config_add_local_cidr(c, NULL), CR_EINVAL);
  assert_int_equal(cr_config_add_location_rule(c, "192.1.0.0/24", "alibaba"), CR_OK);
  assert_int_equal(cr_config_add_location_rule(c, "192.1.0.0/24", ""), CR_EPARSE);
  assert_int_equal(cr_config_add_location_rule(c, "nope", "aws"), CR_EPARSE);
  assert_int_equal(cr_config_add_node_location(c, "10.0.0.1:6379", "aws/us-east-1"), CR_OK);
  assert_int_equal(cr_config_add_node_location(c, "", "aws"), CR_EINVAL);
  assert_int_equal(cr_config_add_zone(c, "use1-az1", "aws/us-east-1/use1-az1"), CR_OK);
  assert_int_equal(cr_config_add_zone(c, "", "aws"), CR_EINVAL);
  assert_int_equal(cr_config_set_client_zone(c, "use1-az2"), CR_OK);
  assert_int_equal(cr_config_set_client_zone(c, ""), CR_EINVAL);
  assert_error_mentions("cr_config_set_client_zone: zone is empty");
  assert_int_equal(cr_config_set_client_zone(c, NULL), CR_EINVAL);
  assert_int_equal(cr_config_set_client_zone(NULL, "use1-az2"), CR_EINVAL);
  assert_int_equal(cr_config_set_client_zone(c, "use1\n"), CR_EINVAL);
  assert_error_mentions("zone 'use1\\x0a' contains a control character");
  assert_int_equal(cr_config_set_weight(c, "10.0.0.1:6379", 5), CR_OK);
  assert_int_equal(cr_config_set_weight(c, "10.0.0.1:6379", 0), CR_OK);
  assert_int_equal(cr_config_set_weight(c, "10.0.0.1:6379", 2000000), CR_EINVAL);
  assert_int_equal(cr_config_set_weight(c, NULL, 1), CR_EINVAL);
  /* A node is host:port or a node id; text with ':' or '[' must be a valid
   * address (a typo must not become an id that matches nothing). */
  assert_int_equal(cr_config_set_weight(c, "[fd00::1]:6379", 2), CR_OK);
  assert_int_equal(cr_config_set_weight(c, "0f1e2d3c4b5a69788796a5b4c3d2e1f0a1b2c3d4", 2), CR_OK);
  assert_int_equal(cr_config_set_weight(c, "10.0.0.1:99999", 2), CR_EPARSE);
  assert_error_mentions("10.0.0.1:99999");
  assert_int_equal(cr_config_set_weight(c, "10.0.0.1:", 2), CR_EPARSE);
  assert_int_equal(cr_config_set_weight(c, "fd00::1:6379", 2), CR_EPARSE);
  assert_int_equal(cr_config_set_weight(c, "my node", 2), CR_EPARSE);
  assert_error_mentions("neither host:port nor a node id");
  assert_int_equal(cr_config_set_weight(c, "bad\r\nid", 2), CR_EPARSE);
  assert_int_equal(cr_config_add_node_location(c, "[::1]:7000", "aws/us-east-1"), CR_OK);
  assert_int_equal(cr_config_add_node_location(c, "host_name:7000", "aws"), CR_EPARSE);

  assert_int_equal(cr_config_add_address_remap(c, "127.0.2.4:7304", "127.0.2.104:7304"), CR_OK);
  assert_int_equal(cr_config_add_address_remap(c, "[fd00::1]:6379", "10.0.0.1:6380"), CR_OK);
  assert_int_equal(cr_config_add_address_remap(c, "127.0.2.4", "127.0.2.104:7304"), CR_EPARSE);
  assert_error_mentions("127.0.2.4");
  assert_int_equal(cr_config_add_address_remap(c, "127.0.2.4:7304", "x:0"), CR_EPARSE);
  assert_int_equal(cr_config_add_address_remap(c, NULL, "a:1"), CR_EINVAL);
  assert_int_equal(cr_config_add_address_remap(NULL, "a:1", "a:1"), CR_EINVAL);

  cr_router_options o;
  cr_router_options_init(&o, sizeof o);
  assert_int_equal(o.struct_size, sizeof o);
  assert_int_equal(o.policy, CR_POLICY_LOCAL);
  assert_int_equal(cr_config_set_router_options(c, &o), CR_OK);
  o.policy = (cr_policy)42;
  assert_int_equal(cr_config_set_router_options(c, &o), CR_EINVAL);
  assert_error_mentions("policy 42");
  o.policy = CR_POLICY_NEAREST;
  o.failure_threshold = 0;
  assert_int_equal(cr_config_set_router_options(c, &o), CR_EINVAL);
  o.failure_threshold = 1;
  o.struct_size = 8;
  assert_int_equal(cr_config_set_router_options(c, &o), CR_EINVAL);
  assert_int_equal(cr_config_set_router_options(c, NULL), CR_EINVAL);
  assert_int_equal(cr_router_options_init(NULL, sizeof(cr_router_options)), CR_EINVAL);
  cr_config_free(c);
  cr_config_free(NULL);
}

static void policy_names(void **state) {
  (void)state;
  cr_policy p;
  assert_int_equal(cr_policy_from_name(&p, "LOCAL_REPLICAS_FIRST"), CR_OK);
  assert_int_equal(p, CR_POLICY_LOCAL_REPLICAS_FIRST);
  assert_int_equal(cr_policy_from_name(&p, "prefer-replica"), CR_OK);
  assert_int_equal(p, CR_POLICY_PREFER_REPLICA);
  assert_int_equal(cr_policy_from_name(&p, "fastest"), CR_EINVAL);
  assert_error_mentions("fastest");
  assert_int_equal(cr_policy_from_name(NULL, "local"), CR_EINVAL);
  assert_int_equal(cr_policy_from_name(&p, NULL), CR_EINVAL);
  assert_string_equal(cr_policy_name(CR_POLICY_NEAREST), "nearest");
  assert_string_equal(cr_policy_name((cr_policy)99), "?");
  assert_string_equal(cr_policy_name((cr_policy)-1), "?");
  assert_string_equal(cr_tier_name(CR_TIER_OTHER_CLOUD), "other-cloud");
  assert_string_equal(cr_tier_name((cr_tier)9), "?");
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(builder_validates_every_setting),
                                     cmocka_unit_test(policy_names)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
