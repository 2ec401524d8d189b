// The body of the topology targets: parse one input in one format through
// the public C API; when it is accepted, route every slot through a router
// and check what a caller relies on:
//  - every node read back has a host that is a whole C string (no NUL was
//    truncated into it) and a shard inside the topology;
//  - a write goes to a master, and the handle found by its address is the
//    handle the route named (feedback lands on the node that was routed);
//  - no address appears twice in a read order, and each candidate's handle
//    is the one its address resolves to;
//  - a read goes to one of the slot's candidates;
//  - explain's `needed` is the length of the text it wrote plus its NUL;
//  - a slot the topology says is served routes, and one it does not, fails
//    with CR_ESLOT_UNCOVERED.
#pragma once

#include <cstring>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "fuzz_common.hpp"

namespace crfuzz {

enum class Format { kClusterSlots, kClusterShards, kStatic };

inline cr_router *FuzzRouter() {
  cr_config *cfg = nullptr;
  CRFUZZ_REQUIRE(cr_config_new(&cfg) == CR_OK);
  CRFUZZ_REQUIRE(cr_config_set_client_location(cfg, "aws/us-east-1/use1-az1") == CR_OK);
  CRFUZZ_REQUIRE(cr_config_add_local_cidr(cfg, "127.0.0.0/16") == CR_OK);
  CRFUZZ_REQUIRE(cr_config_add_location_rule(cfg, "10.0.0.0/8", "gcp/us-central1/a") == CR_OK);
  CRFUZZ_REQUIRE(cr_config_add_zone(cfg, "use1-az2", "aws/us-east-1/use1-az2") == CR_OK);
  cr_router *r = nullptr;
  CRFUZZ_REQUIRE(cr_router_new(&r, cfg) == CR_OK);
  cr_config_free(cfg);
  return r;
}

inline void CheckSlot(const cr_router *r, const cr_topology *t, uint16_t slot) {
  uint32_t shard = 0;
  const bool served = cr_topology_get_slot_shard(&shard, t, slot) == CR_OK;
  cr_route w = CR_ROUTE_INIT;
  const cr_status ws = cr_router_route_write_slot(&w, r, slot);
  if (!served) {
    CRFUZZ_REQUIRE(ws == CR_ESLOT_UNCOVERED);
    return;
  }
  RequireExplained(ws);
  if (ws == CR_OK) {
    CRFUZZ_REQUIRE(w.role == CR_ROLE_MASTER);
    CRFUZZ_REQUIRE(w.shard == shard);
    uint32_t found = 0;
    CRFUZZ_REQUIRE(cr_router_find_node(&found, r, w.host, w.port) == CR_OK);
    CRFUZZ_REQUIRE(found == w.node_handle);
  }
  std::vector<cr_candidate> cands(8, cr_candidate(CR_CANDIDATE_INIT));
  size_t needed = 0;
  cr_status cs = cr_router_candidates_slot(cands.data(), cands.size(), &needed, r, slot);
  if (cs == CR_EBUFS) {
    cands.assign(needed, cr_candidate(CR_CANDIDATE_INIT));
    cs = cr_router_candidates_slot(cands.data(), cands.size(), &needed, r, slot);
  }
  RequireExplained(cs);
  if (cs != CR_OK) return;
  cands.resize(needed);
  std::set<std::pair<std::string, uint16_t>> seen;
  std::set<uint32_t> handles;
  for (const cr_candidate &c : cands) {
    CRFUZZ_REQUIRE(seen.emplace(c.host, c.port).second);  // no address twice
    CRFUZZ_REQUIRE(handles.insert(c.node_handle).second);
    uint32_t found = 0;
    CRFUZZ_REQUIRE(cr_router_find_node(&found, r, c.host, c.port) == CR_OK);
    CRFUZZ_REQUIRE(found == c.node_handle);
  }
  cr_route rd = CR_ROUTE_INIT;
  const cr_status rs = cr_router_route_read_slot(&rd, r, slot);
  RequireExplained(rs);
  if (rs == CR_OK) CRFUZZ_REQUIRE(handles.count(rd.node_handle) == 1);

  const std::string &key = KeyPerSlot()[slot];
  char text[4096];
  needed = 0;
  const cr_status es = cr_router_explain(text, sizeof text, &needed, r, key.data(), key.size());
  RequireExplained(es);
  if (es == CR_OK) CRFUZZ_REQUIRE(needed == std::strlen(text) + 1);
  if (es == CR_EBUFS) CRFUZZ_REQUIRE(needed > sizeof text && text[0] == '\0');
}

inline void CheckTopology(const uint8_t *data, size_t size, Format format) {
  cr_topology *t = nullptr;
  cr_status s;
  if (format == Format::kStatic) {
    s = cr_topology_parse_static(&t, reinterpret_cast<const char *>(data), size);
  } else {
    cr_parse_options opts = CR_PARSE_OPTIONS_INIT;
    opts.max_total_bytes = 1u << 20;  // keep each run small; the caps are tested as they are
    s = cr_topology_parse(&t, data, size,
                          format == Format::kClusterSlots ? CR_TOPOLOGY_FORMAT_CLUSTER_SLOTS
                                                          : CR_TOPOLOGY_FORMAT_CLUSTER_SHARDS,
                          &opts);
  }
  RequireExplained(s);
  if (s != CR_OK) {
    CRFUZZ_REQUIRE(t == nullptr);
    return;
  }
  const size_t nodes = cr_topology_get_node_count(t);
  const size_t shards = cr_topology_get_shard_count(t);
  for (uint32_t i = 0; i < nodes; ++i) {
    cr_node_info info = CR_NODE_INFO_INIT;
    CRFUZZ_REQUIRE(cr_topology_get_node(&info, t, i) == CR_OK);
    CRFUZZ_REQUIRE(info.host != nullptr && info.host[0] != '\0');
    CRFUZZ_REQUIRE(info.shard < shards);
  }
  cr_router *r = FuzzRouter();
  const cr_status us = cr_router_update(r, t);
  RequireExplained(us);
  if (us == CR_OK) {
    // Every shard's first and last slot, and a spread of others.
    for (uint32_t sh = 0; sh < shards; ++sh) {
      size_t n = 0;
      const cr_status size_s = cr_topology_get_shard_ranges(nullptr, nullptr, 0, &n, t, sh);
      CRFUZZ_REQUIRE(size_s == (n == 0 ? CR_OK : CR_EBUFS));
      std::vector<uint16_t> starts(n), ends(n);
      CRFUZZ_REQUIRE(cr_topology_get_shard_ranges(starts.data(), ends.data(), n, &n, t, sh) ==
                     CR_OK);
      for (size_t i = 0; i < n; ++i) {
        CRFUZZ_REQUIRE(starts[i] <= ends[i]);
        CheckSlot(r, t, starts[i]);
        CheckSlot(r, t, ends[i]);
      }
    }
    for (uint32_t slot = 0; slot < 16384; slot += 509) CheckSlot(r, t, static_cast<uint16_t>(slot));
  }
  cr_router_free(r);
  cr_topology_free(t);
}

}  // namespace crfuzz
