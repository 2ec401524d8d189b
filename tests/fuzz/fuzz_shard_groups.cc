// libFuzzer target: call sequences on shard groups (the Sentinel layer's
// table): groups, rings, masters and replicas with any text, health
// feedback, then routing. Invariants: a write goes to the group's master,
// a read to one of the group's candidates, and no address is listed twice.
#include <fuzzer/FuzzedDataProvider.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "fuzz_common.hpp"

namespace {

void CheckKey(const cr_shard_groups *g, const std::string &key) {
  uint32_t group = 0;
  const cr_status ls = cr_shard_groups_locate(&group, g, key.data(), key.size());
  crfuzz::RequireExplained(ls);
  if (ls != CR_OK) return;
  CRFUZZ_REQUIRE(group < cr_shard_groups_get_count(g));
  cr_candidate cands[40];
  for (cr_candidate &c : cands) c = CR_CANDIDATE_INIT;
  size_t needed = 0;
  const cr_status cs = cr_shard_groups_candidates(cands, 40, &needed, g, key.data(), key.size());
  crfuzz::RequireExplained(cs);
  std::set<uint32_t> handles;
  std::set<std::pair<std::string, uint16_t>> seen;
  if (cs == CR_OK) {
    for (size_t i = 0; i < needed; ++i) {
      CRFUZZ_REQUIRE(seen.emplace(cands[i].host, cands[i].port).second);
      handles.insert(cands[i].node_handle);
    }
  }
  cr_route w = CR_ROUTE_INIT;
  const cr_status ws = cr_shard_groups_route_write(&w, g, key.data(), key.size());
  crfuzz::RequireExplained(ws);
  if (ws == CR_OK) CRFUZZ_REQUIRE(w.role == CR_ROLE_MASTER && w.shard == group);
  cr_route r = CR_ROUTE_INIT;
  const cr_status rs = cr_shard_groups_route_read(&r, g, key.data(), key.size());
  crfuzz::RequireExplained(rs);
  if (rs == CR_OK && cs == CR_OK) CRFUZZ_REQUIRE(handles.count(r.node_handle) == 1);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  FuzzedDataProvider in(data, size);
  cr_config *cfg = nullptr;
  CRFUZZ_REQUIRE(cr_config_new(&cfg) == CR_OK);
  CRFUZZ_REQUIRE(cr_config_set_client_location(cfg, "aws/us-east-1/use1-az1") == CR_OK);
  CRFUZZ_REQUIRE(cr_config_add_local_cidr(cfg, "127.0.0.0/16") == CR_OK);
  cr_shard_groups *g = nullptr;
  CRFUZZ_REQUIRE(cr_shard_groups_new(&g, cfg) == CR_OK);
  cr_config_free(cfg);
  std::vector<uint32_t> handles;
  for (int op = 0; op < 48 && in.remaining_bytes() > 0; ++op) {
    const uint32_t group = in.ConsumeIntegralInRange<uint32_t>(0, 6);
    switch (in.ConsumeIntegralInRange<int>(0, 7)) {
      case 0: {
        const std::string name = in.ConsumeRandomLengthString(24);
        uint32_t out = 0;
        crfuzz::RequireExplained(cr_shard_groups_add(&out, g, name.c_str()));
        break;
      }
      case 1: {
        cr_ring *ring = nullptr;
        CRFUZZ_REQUIRE(cr_ring_new(&ring, nullptr) == CR_OK);
        const size_t n = in.ConsumeIntegralInRange<size_t>(1, 6);
        for (size_t i = 0; i < n; ++i) CRFUZZ_REQUIRE(cr_ring_add_shard(ring, nullptr, 1) == CR_OK);
        CRFUZZ_REQUIRE(cr_ring_build(ring) == CR_OK);
        crfuzz::RequireExplained(cr_shard_groups_set_ring(g, ring));
        cr_ring_free(ring);
        break;
      }
      case 2: {
        const std::string host = in.ConsumeRandomLengthString(24);
        crfuzz::RequireExplained(
            cr_shard_groups_set_master(g, group, host.c_str(), in.ConsumeIntegral<uint16_t>()));
        break;
      }
      case 3: {
        std::vector<std::string> hosts(in.ConsumeIntegralInRange<size_t>(0, 5));
        std::vector<cr_address> addrs;
        for (std::string &h : hosts) {
          h = in.ConsumeRandomLengthString(24);
          addrs.push_back(cr_address{h.c_str(), in.ConsumeIntegral<uint16_t>()});
        }
        crfuzz::RequireExplained(
            cr_shard_groups_set_replicas(g, group, addrs.data(), addrs.size()));
        break;
      }
      case 4:
      case 5: {
        const uint32_t handle = in.ConsumeIntegralInRange<uint32_t>(0, 40);
        crfuzz::RequireExplained(in.ConsumeBool() ? cr_shard_groups_report_failure(g, handle)
                                                  : cr_shard_groups_report_success(g, handle));
        break;
      }
      default:
        CheckKey(g, in.ConsumeRandomLengthString(32));
        break;
    }
  }
  for (int i = 0; i < 8; ++i) CheckKey(g, "key-" + std::to_string(i));
  cr_shard_groups_free(g);
  return 0;
}
