// CLUSTER SLOTS: an array of [start, end, master, replica…], where each node
// is [endpoint, port, id?, metadata?] and metadata (Redis 7+) is a map (RESP3)
// or flat key/value array (RESP2) of hostname / ip / availability-zone.
// A master with several ranges appears in several entries, each time with
// its replicas; they are merged into one shard.
#include <algorithm>

#include "cloudroute/core/cluster_reply.hpp"
#include "reply_fields.hpp"

namespace cloudroute {

namespace {

Status NodeFromSlotsEntry(const RespValue &v, const std::string &default_host, size_t entry,
                          NodeSpec *out) {
  const std::string where = "CLUSTER SLOTS entry " + std::to_string(entry);
  if (!reply::IsArray(v) || v.elements.size() < 2) {
    return Error(Code::kParse, where + ": a node is not an array of at least [host, port]");
  }
  const RespValue &host = v.elements[0];
  std::string endpoint;
  if (host.is_string()) {
    endpoint = host.str;
  } else if (host.type != RespType::kNull) {
    return Error(Code::kParse, where + ": node endpoint is a " + RespTypeName(host.type));
  }
  Status s = reply::Port(v.elements[1], where, &out->port);
  if (!s.ok()) return s;
  if (v.elements.size() >= 3) {
    if (!v.elements[2].is_string()) return Error(Code::kParse, where + ": node id is not a string");
    out->id = v.elements[2].str;
    s = reply::IdField(out->id, where);
    if (!s.ok()) return s;
  }
  std::string hostname;
  if (v.elements.size() >= 4) {
    const RespValue &meta = v.elements[3];
    if (!meta.is_map_like() || meta.wire == '~' || meta.wire == '>')
      return Error(Code::kParse, where + ": node metadata is not a map");
    for (size_t i = 0; i + 1 < meta.elements.size(); i += 2) {
      const RespValue &k = meta.elements[i];
      const RespValue &val = meta.elements[i + 1];
      if (!k.is_string()) return Error(Code::kParse, where + ": metadata key is not a string");
      if (!val.is_string()) continue;  // unknown future fields may be any type
      if (k.str == "ip")
        out->ip = val.str;
      else if (k.str == "hostname")
        hostname = val.str;
      else if (k.str == "availability-zone" || k.str == "availability_zone")
        out->zone = val.str;
    }
  }
  s = reply::HostField(endpoint, where, "endpoint", false);
  if (s.ok()) s = reply::HostField(out->ip, where, "ip", true);
  if (s.ok()) s = reply::HostField(hostname, where, "hostname", false);
  if (s.ok()) s = reply::ZoneField(out->zone, where);
  if (!s.ok()) return s;
  reply::ResolveEndpoint(endpoint, out->ip, hostname, default_host, &out->host);
  return Status::Ok();
}

}  // namespace

Result<std::shared_ptr<const Topology>> ClusterSlotsToTopology(const RespValue &v,
                                                               const std::string &default_host) {
  if (v.type == RespType::kError) {
    return Error(Code::kParse, "CLUSTER SLOTS: the server replied with an error: " + v.str);
  }
  if (!reply::IsArray(v)) {
    return Error(Code::kParse,
                 std::string("CLUSTER SLOTS: reply is a ") + reply::KindName(v) + ", not an array");
  }
  TopologyBuilder b;
  for (size_t e = 0; e < v.elements.size(); ++e) {
    const RespValue &entry = v.elements[e];
    const std::string where = "CLUSTER SLOTS entry " + std::to_string(e);
    if (!reply::IsArray(entry) || entry.elements.size() < 3) {
      return Error(Code::kParse, where + ": not an array of [start, end, master, …]");
    }
    int64_t start, end;
    Status s = reply::Slot(entry.elements[0], where, &start);
    if (!s.ok()) return s;
    s = reply::Slot(entry.elements[1], where, &end);
    if (!s.ok()) return s;
    NodeSpec master;
    s = NodeFromSlotsEntry(entry.elements[2], default_host, e, &master);
    if (!s.ok()) return s;
    auto shard = b.AddShard(master);
    if (!shard.ok()) return shard.status();
    s = b.AddRange(*shard, static_cast<uint32_t>(start), static_cast<uint32_t>(end));
    if (!s.ok()) return Error(s.code(), where + ": " + s.message());
    for (size_t r = 3; r < entry.elements.size(); ++r) {
      NodeSpec replica;
      s = NodeFromSlotsEntry(entry.elements[r], default_host, e, &replica);
      if (!s.ok()) return s;
      s = b.AddReplica(*shard, replica);
      if (!s.ok()) return s;
    }
  }
  return b.Build();
}

Result<std::shared_ptr<const Topology>> ParseClusterSlots(std::string_view reply,
                                                          const ClusterReplyOptions &opts) {
  // The shape: reply > entries [start, end, master, replicas…] > nodes
  // [endpoint, port, id, metadata, future fields] > metadata map > values >
  // the elements of a future field that is itself a list.
  RespLimits limits = opts.limits;
  limits.max_depth = std::min(limits.max_depth, reply::kClusterReplyDepth);
  limits.max_elements_at_depth = {0,
                                  kSlotCount,
                                  3 + reply::kMaxReplicas,
                                  reply::kMaxNodeFields,
                                  reply::kMaxNodeFields * 2,
                                  reply::kMaxNodeFields * 2};
  auto v = ParseResp(reply, limits);
  if (!v.ok()) return v.status();
  return ClusterSlotsToTopology(*v, opts.default_host);
}

}  // namespace cloudroute
