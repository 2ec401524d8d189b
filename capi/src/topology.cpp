// C API: topology parsing and inspection.
#include "api.hpp"
#include "cloudroute/core/cluster_reply.hpp"

using cloudroute::capi::Check;
using cloudroute::capi::Fail;
using cloudroute::capi::Guard;

namespace {

cr_status Wrap(cr_topology **out, cloudroute::Result<std::shared_ptr<const cloudroute::Topology>> r) {
  if (!r.ok()) return Fail(r.status());
  auto *t = new cr_topology;
  t->t = std::move(*r);
  *out = t;
  return CR_OK;
}

}  // namespace

extern "C" {

void cr_parse_options_init(cr_parse_options *opts) {
  if (opts == nullptr) return;
  *opts = cr_parse_options CR_PARSE_OPTIONS_INIT;
}

cr_status cr_topology_parse(cr_topology **out, const void *reply, size_t len, cr_reply_kind kind,
                            const cr_parse_options *opts) {
  return Guard([&]() -> cr_status {
    if (out == nullptr) return Fail(CR_EINVAL, "cr_topology_parse: out is NULL");
    *out = nullptr;
    if (reply == nullptr && len != 0) return Fail(CR_EINVAL, "cr_topology_parse: reply is NULL");
    const int raw_kind = cloudroute::capi::RawEnum(kind);
    if (raw_kind != CR_REPLY_CLUSTER_SLOTS && raw_kind != CR_REPLY_CLUSTER_SHARDS) {
      return Fail(CR_EINVAL, "cr_topology_parse: unknown reply kind " + std::to_string(raw_kind));
    }
    cloudroute::ClusterReplyOptions o;
    if (opts != nullptr) {
      if (opts->struct_size < sizeof(cr_parse_options)) {
        return Fail(CR_EINVAL, "cr_topology_parse: opts->struct_size is too small (use CR_PARSE_OPTIONS_INIT)");
      }
      if (opts->max_elements == 0 || opts->max_depth == 0 || opts->max_total_bytes == 0) {
        return Fail(CR_EINVAL, "cr_topology_parse: caps must be non-zero");
      }
      o.limits.max_elements = opts->max_elements;
      o.limits.max_depth = opts->max_depth;
      o.limits.max_bulk_len = opts->max_bulk_len;
      o.limits.max_total_bytes = opts->max_total_bytes;
      if (opts->default_host != nullptr) o.default_host = opts->default_host;
    }
    std::string_view bytes(static_cast<const char *>(reply), reply == nullptr ? 0 : len);
    return Wrap(out, raw_kind == CR_REPLY_CLUSTER_SLOTS ? cloudroute::ParseClusterSlots(bytes, o)
                                                    : cloudroute::ParseClusterShards(bytes, o));
  });
}

cr_status cr_topology_parse_static(cr_topology **out, const char *text, size_t len) {
  return Guard([&]() -> cr_status {
    if (out == nullptr) return Fail(CR_EINVAL, "cr_topology_parse_static: out is NULL");
    *out = nullptr;
    if (text == nullptr) return Fail(CR_EINVAL, "cr_topology_parse_static: text is NULL");
    return Wrap(out, cloudroute::ParseStaticTopology(std::string_view(text, len)));
  });
}

void cr_topology_ref(cr_topology *t) {
  if (t != nullptr) t->refs.fetch_add(1, std::memory_order_relaxed);
}

void cr_topology_free(cr_topology *t) {
  if (t != nullptr && t->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete t;
}

size_t cr_topology_shard_count(const cr_topology *t) { return t == nullptr ? 0 : t->t->shards.size(); }
size_t cr_topology_node_count(const cr_topology *t) { return t == nullptr ? 0 : t->t->nodes.size(); }

cr_status cr_topology_node(cr_node_info *info, const cr_topology *t, size_t i) {
  return Guard([&]() -> cr_status {
    if (!cloudroute::capi::SizeOk(info)) {
      return Fail(CR_EINVAL, "cr_topology_node: info is NULL or its struct_size is too small");
    }
    if (t == nullptr) return Fail(CR_EINVAL, "cr_topology_node: topology is NULL");
    if (i >= t->t->nodes.size()) {
      return Fail(CR_EINVAL, "cr_topology_node: node " + std::to_string(i) + " of " +
                                 std::to_string(t->t->nodes.size()));
    }
    const cloudroute::TopoNode &n = t->t->nodes[i];
    cr_node_info v = CR_NODE_INFO_INIT;
    v.id = n.id.c_str();
    v.host = n.host.c_str();
    v.ip = n.ip.c_str();
    v.port = n.port;
    v.tls_port = n.tls_port;
    v.role = n.role == cloudroute::Role::kMaster ? CR_ROLE_MASTER : CR_ROLE_REPLICA;
    v.health = static_cast<cr_reported_health>(n.health);
    v.zone = n.zone.c_str();
    v.shard = n.shard;
    v.struct_size = info->struct_size;
    std::memcpy(info, &v, sizeof v);
    return CR_OK;
  });
}

cr_status cr_topology_shard_id(const char **out_id, const cr_topology *t, size_t shard) {
  return Guard([&]() -> cr_status {
    if (out_id == nullptr || t == nullptr) return Fail(CR_EINVAL, "cr_topology_shard_id: NULL argument");
    if (shard >= t->t->shards.size()) return Fail(CR_EINVAL, "cr_topology_shard_id: no shard " + std::to_string(shard));
    *out_id = t->t->shards[shard].id.c_str();
    return CR_OK;
  });
}

cr_status cr_topology_shard_ranges(uint16_t *starts, uint16_t *ends, size_t cap, size_t *count,
                                   const cr_topology *t, size_t shard) {
  return Guard([&]() -> cr_status {
    if (count == nullptr || t == nullptr) return Fail(CR_EINVAL, "cr_topology_shard_ranges: NULL argument");
    if (cap > 0 && (starts == nullptr || ends == nullptr)) {
      return Fail(CR_EINVAL, "cr_topology_shard_ranges: starts/ends are NULL with cap > 0");
    }
    if (shard >= t->t->shards.size()) return Fail(CR_EINVAL, "cr_topology_shard_ranges: no shard " + std::to_string(shard));
    const auto &ranges = t->t->shards[shard].ranges;
    *count = ranges.size();
    for (size_t i = 0; i < ranges.size() && i < cap; ++i) {
      starts[i] = ranges[i].start;
      ends[i] = ranges[i].end;
    }
    if (cap < ranges.size()) {
      return Fail(CR_EBUFS, "cr_topology_shard_ranges: " + std::to_string(ranges.size()) +
                                " ranges, room for " + std::to_string(cap));
    }
    return CR_OK;
  });
}

cr_status cr_topology_slot_shard(uint32_t *out_shard, const cr_topology *t, uint32_t slot) {
  return Guard([&]() -> cr_status {
    if (out_shard == nullptr || t == nullptr) return Fail(CR_EINVAL, "cr_topology_slot_shard: NULL argument");
    if (slot >= CR_SLOT_COUNT) return Fail(CR_EINVAL, "slot " + std::to_string(slot) + " is outside 0-16383");
    const uint16_t s = t->t->slot_to_shard[slot];
    if (s == cloudroute::kNoShard) return Fail(CR_ESLOT_UNCOVERED, "slot " + std::to_string(slot) + " is served by no shard");
    *out_shard = s;
    return CR_OK;
  });
}

}  // extern "C"
