// libFuzzer target: any sequence of cr_config_* calls with any text, then a
// router and shard groups made from that config. Every call either succeeds
// or fails with a status and a message; a config that was accepted always
// makes a router that routes a fixed topology.
#include <fuzzer/FuzzedDataProvider.h>

#include <string>

#include "fuzz_common.hpp"

namespace {

// A fixed two-shard topology in the static format (routing must work with
// whatever config the fuzzer built).
constexpr char kTopology[] =
    "shard slots=0-8191 master=127.0.0.1:7000 replicas=10.1.0.1:7001,node-b.example:7002\n"
    "shard slots=8192-16383 master=[::1]:7003 replicas=127.0.1.9:7004\n";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FuzzedDataProvider in(data, size);
  cr_config *cfg = nullptr;
  CRFUZZ_REQUIRE(cr_config_new(&cfg) == CR_OK);
  for (int op = 0; op < 32 && in.remaining_bytes() > 0; ++op) {
    const std::string a = in.ConsumeRandomLengthString(64);
    const std::string b = in.ConsumeRandomLengthString(64);
    cr_status s = CR_OK;
    switch (in.ConsumeIntegralInRange<int>(0, 8)) {
      case 0:
        s = cr_config_set_client_location(cfg, a.c_str());
        break;
      case 1:
        s = cr_config_add_local_cidr(cfg, a.c_str());
        break;
      case 2:
        s = cr_config_add_location_rule(cfg, a.c_str(), b.c_str());
        break;
      case 3:
        s = cr_config_add_node_location(cfg, a.c_str(), b.c_str());
        break;
      case 4:
        s = cr_config_add_zone(cfg, a.c_str(), b.c_str());
        break;
      case 5:
        s = cr_config_set_weight(cfg, a.c_str(), in.ConsumeIntegral<uint32_t>());
        break;
      case 6:
        s = cr_config_add_address_remap(cfg, a.c_str(), b.c_str());
        break;
      case 7: {
        cr_router_options o = CR_ROUTER_OPTIONS_INIT;
        // Raw values: an enum the library does not know must be refused.
        const int policy = in.ConsumeIntegralInRange<int>(-2, 12);
        std::memcpy(&o.policy, &policy, sizeof policy);
        o.nearest_margin_us = in.ConsumeIntegral<uint32_t>();
        o.failure_threshold = in.ConsumeIntegral<uint32_t>();
        o.down_cooldown_ms = in.ConsumeIntegral<uint32_t>();
        o.seed = in.ConsumeIntegral<uint64_t>();
        s = cr_config_set_router_options(cfg, &o);
        break;
      }
      default: {
        cr_policy p = CR_POLICY_LOCAL;
        s = cr_policy_from_name(&p, a.c_str());
        if (s == CR_OK) CRFUZZ_REQUIRE(std::string(cr_policy_name(p)) != "?");
        break;
      }
    }
    crfuzz::RequireExplained(s);
  }
  cr_router *r = nullptr;
  CRFUZZ_REQUIRE(cr_router_new(&r, cfg) == CR_OK);
  cr_topology *t = nullptr;
  CRFUZZ_REQUIRE(cr_topology_parse_static(&t, kTopology, sizeof kTopology - 1) == CR_OK);
  CRFUZZ_REQUIRE(cr_router_update(r, t) == CR_OK);
  for (uint32_t slot = 0; slot < 16384; slot += 1021) {
    cr_route w = CR_ROUTE_INIT;
    CRFUZZ_REQUIRE(cr_router_route_write_slot(&w, r, static_cast<uint16_t>(slot)) == CR_OK);
    CRFUZZ_REQUIRE(w.role == CR_ROLE_MASTER);
    cr_route rd = CR_ROUTE_INIT;
    CRFUZZ_REQUIRE(cr_router_route_read_slot(&rd, r, static_cast<uint16_t>(slot)) == CR_OK);
    CRFUZZ_REQUIRE(rd.tier >= CR_TIER_LOCAL && rd.tier <= CR_TIER_UNKNOWN);
  }
  cr_shard_groups *g = nullptr;
  CRFUZZ_REQUIRE(cr_shard_groups_new(&g, cfg) == CR_OK);
  cr_shard_groups_free(g);
  cr_topology_free(t);
  cr_router_free(r);
  cr_config_free(cfg);
  return 0;
}
