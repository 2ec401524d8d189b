// C API: topology parsing and inspection.
#include "api.hpp"
#include "cloudroute/core/cluster_reply.hpp"

using namespace cloudroute::capi;  // NOLINT: the C API's own vocabulary

namespace {

constexpr cr_parse_options kParseDefaults = CR_PARSE_OPTIONS_INIT;

cr_status Wrap(cr_topology **out,
               cloudroute::Result<std::shared_ptr<const cloudroute::Topology>> r) {
  if (!r.ok()) return Fail(r.status());
  auto *t = new cr_topology;
  t->t = std::move(*r);
  *out = t;
  return CR_OK;
}

cr_status Shard(const cr_topology *t, uint32_t shard, const char *fn) {
  if (shard >= t->t->shards.size()) {
    return Fail(CR_ENOTFOUND, std::string(fn) + ": no shard " + std::to_string(shard) +
                                  " (the topology has " + std::to_string(t->t->shards.size()) +
                                  ")");
  }
  return CR_OK;
}

}  // namespace

extern "C" {

cr_status cr_parse_options_init(cr_parse_options *opts, size_t size) {
  return Guard([&] { return InitOptions(opts, size, kParseDefaults, "cr_parse_options_init"); });
}

cr_status cr_topology_parse(cr_topology **out, const void *reply, size_t len,
                            cr_topology_format format, const cr_parse_options *opts) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_topology_parse";
    if (cr_status s = NotNull(out, fn, "out"); s != CR_OK) return s;
    *out = nullptr;
    if (cr_status s = Bytes(reply, len, fn, "reply"); s != CR_OK) return s;
    if (cr_status s = EnumInRange(format, CR_TOPOLOGY_FORMAT_CLUSTER_SHARDS, fn, "format");
        s != CR_OK)
      return s;
    cr_parse_options o;
    if (cr_status s = ReadInput(&o, opts, kParseDefaults, fn, "opts"); s != CR_OK) return s;
    if (o.max_elements == 0 || o.max_depth == 0 || o.max_total_bytes == 0) {
      return Fail(CR_EINVAL, std::string(fn) + ": caps must be non-zero");
    }
    if (o.max_depth > cloudroute::kRespMaxDepthBound) {
      return Fail(CR_EINVAL, std::string(fn) + ": max_depth " + std::to_string(o.max_depth) +
                                 " is above the bound of " +
                                 std::to_string(cloudroute::kRespMaxDepthBound));
    }
    cloudroute::ClusterReplyOptions co;
    co.limits.max_elements = o.max_elements;
    co.limits.max_depth = o.max_depth;
    co.limits.max_bulk_len = o.max_bulk_len;
    co.limits.max_total_bytes = o.max_total_bytes;
    if (o.default_host != nullptr) co.default_host = o.default_host;
    std::string_view bytes(static_cast<const char *>(reply), reply == nullptr ? 0 : len);
    return Wrap(out, RawEnum(format) == CR_TOPOLOGY_FORMAT_CLUSTER_SLOTS
                         ? cloudroute::ParseClusterSlots(bytes, co)
                         : cloudroute::ParseClusterShards(bytes, co));
  });
}

cr_status cr_topology_parse_static(cr_topology **out, const char *text, size_t len) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_topology_parse_static";
    if (cr_status s = NotNull(out, fn, "out"); s != CR_OK) return s;
    *out = nullptr;
    if (cr_status s = NotNull(text, fn, "text"); s != CR_OK) return s;
    return Wrap(out, cloudroute::ParseStaticTopology(std::string_view(text, len)));
  });
}

void cr_topology_ref(cr_topology *t) {
  if (t != nullptr) t->refs.fetch_add(1, std::memory_order_relaxed);
}

void cr_topology_free(cr_topology *t) {
  if (t != nullptr && t->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete t;
}

size_t cr_topology_get_shard_count(const cr_topology *t) {
  return t == nullptr ? 0 : t->t->shards.size();
}
size_t cr_topology_get_node_count(const cr_topology *t) {
  return t == nullptr ? 0 : t->t->nodes.size();
}

cr_status cr_topology_get_node(cr_node_info *info, const cr_topology *t, uint32_t node_index) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_topology_get_node";
    if (cr_status s = CheckOutput(info, fn, "info"); s != CR_OK) return s;
    if (cr_status s = NotNull(t, fn, "topology"); s != CR_OK) return s;
    if (node_index >= t->t->nodes.size()) {
      return Fail(CR_ENOTFOUND, std::string(fn) + ": no node " + std::to_string(node_index) +
                                    " (the topology has " + std::to_string(t->t->nodes.size()) +
                                    ")");
    }
    const cloudroute::TopoNode &n = t->t->nodes[node_index];
    cr_node_info v = CR_NODE_INFO_INIT;
    v.id = n.id_c();
    v.host = n.host_c();
    v.ip = n.ip_c();
    v.port = n.port;
    v.tls_port = n.tls_port;
    v.role = n.role == cloudroute::Role::kMaster ? CR_ROLE_MASTER : CR_ROLE_REPLICA;
    v.health = static_cast<cr_reported_health>(n.health);
    v.zone = n.zone_c();
    v.shard = n.shard;
    WriteOutput(info, v);
    return CR_OK;
  });
}

cr_status cr_topology_get_shard_id(const char **out_id, const cr_topology *t, uint32_t shard) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_topology_get_shard_id";
    if (cr_status s = NotNull(out_id, fn, "out_id"); s != CR_OK) return s;
    if (cr_status s = NotNull(t, fn, "topology"); s != CR_OK) return s;
    if (cr_status s = Shard(t, shard, fn); s != CR_OK) return s;
    *out_id = t->t->shards[shard].id.data();  // NUL-terminated in the topology's text
    return CR_OK;
  });
}

cr_status cr_topology_get_shard_ranges(uint16_t *starts, uint16_t *ends, size_t cap, size_t *needed,
                                       const cr_topology *t, uint32_t shard) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_topology_get_shard_ranges";
    if (cr_status s = OutBuffer(starts, cap, needed, fn); s != CR_OK) return s;
    if (cr_status s = OutBuffer(ends, cap, needed, fn); s != CR_OK) return s;
    if (cr_status s = NotNull(t, fn, "topology"); s != CR_OK) return s;
    if (cr_status s = Shard(t, shard, fn); s != CR_OK) return s;
    const auto &ranges = t->t->shards[shard].ranges;
    *needed = ranges.size();
    for (size_t i = 0; i < ranges.size() && i < cap; ++i) {
      starts[i] = ranges[i].start;
      ends[i] = ranges[i].end;
    }
    if (cap < ranges.size()) return TooSmall(ranges.size(), cap, fn, "ranges");
    return CR_OK;
  });
}

cr_status cr_topology_get_slot_shard(uint32_t *out_shard, const cr_topology *t, uint16_t slot) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_topology_get_slot_shard";
    if (cr_status s = NotNull(out_shard, fn, "out_shard"); s != CR_OK) return s;
    if (cr_status s = NotNull(t, fn, "topology"); s != CR_OK) return s;
    if (cr_status s = Slot(slot, fn); s != CR_OK) return s;
    const uint16_t s = t->t->ShardOfSlot(slot);
    if (s == cloudroute::kNoShard)
      return Fail(CR_ESLOT_UNCOVERED, "slot " + std::to_string(slot) + " is served by no shard");
    *out_shard = s;
    return CR_OK;
  });
}

}  // extern "C"
