// CLUSTER SHARDS (Redis 7+): an array of shards, each a map (RESP3) or flat
// key/value array (RESP2) with "slots" (a flat list of start, end, start,
// end …) and "nodes" (maps with id, port, tls-port, ip, endpoint, hostname,
// role, health, and on Valkey 9.1+ availability-zone). Unknown fields are
// ignored so newer servers keep working.
#include <algorithm>

#include "cloudroute/core/cluster_reply.hpp"
#include "reply_fields.hpp"

namespace cloudroute {

namespace {

struct ShardNode {
  NodeSpec spec;
  bool master = false;
};

std::string Address(const ShardNode &n) { return FormatAddress(n.spec.host, n.spec.port); }

Status ReadShardNode(const RespValue &v, const std::string &where, const std::string &default_host,
                     ShardNode *out) {
  if (!v.is_map_like() || v.wire == '~' || v.wire == '>')
    return Error(Code::kParse, where + ": node is not a map");
  std::string endpoint, hostname, role;
  bool have_port = false, have_role = false;
  for (size_t i = 0; i + 1 < v.elements.size(); i += 2) {
    const RespValue &k = v.elements[i];
    const RespValue &val = v.elements[i + 1];
    if (!k.is_string()) return Error(Code::kParse, where + ": node field name is not a string");
    const std::string &f = k.str;
    if (f == "port" || f == "tls-port") {
      uint16_t p = 0;
      Status s = reply::Port(val, where + " " + f, &p);
      if (!s.ok()) return s;
      if (f == "port") {
        out->spec.port = p;
        have_port = true;
      } else {
        out->spec.tls_port = p;
      }
      continue;
    }
    if (val.type == RespType::kNull) continue;
    if (f == "id" || f == "ip" || f == "endpoint" || f == "hostname" || f == "role" ||
        f == "health" || f == "availability-zone" || f == "availability_zone") {
      if (!val.is_string()) {
        return Error(Code::kParse, where + ": field '" + f + "' is a " + RespTypeName(val.type));
      }
      if (f == "id")
        out->spec.id = val.str;
      else if (f == "ip")
        out->spec.ip = val.str;
      else if (f == "endpoint")
        endpoint = val.str;
      else if (f == "hostname")
        hostname = val.str;
      else if (f == "role") {
        role = val.str;
        have_role = true;
      } else if (f == "health") {
        if (val.str == "online")
          out->spec.health = ReportedHealth::kOnline;
        else if (val.str == "loading")
          out->spec.health = ReportedHealth::kLoading;
        else
          out->spec.health = ReportedHealth::kFailed;  // "fail", "failed", anything else
      } else {
        out->spec.zone = val.str;
      }
    }
  }
  if (!have_role) return Error(Code::kParse, where + ": node has no role");
  if (role == "master" || role == "primary")
    out->master = true;
  else if (role != "replica" && role != "slave") {
    return Error(Code::kParse, where + ": unknown role " + Quote(role));
  }
  if (!have_port && out->spec.tls_port == 0)
    return Error(Code::kParse, where + ": node has no port");
  if (!have_port) out->spec.port = out->spec.tls_port;
  Status s = reply::IdField(out->spec.id, where);
  if (s.ok()) s = reply::HostField(endpoint, where, "endpoint", false);
  if (s.ok()) s = reply::HostField(out->spec.ip, where, "ip", true);
  if (s.ok()) s = reply::HostField(hostname, where, "hostname", false);
  if (s.ok()) s = reply::ZoneField(out->spec.zone, where);
  if (!s.ok()) return s;
  reply::ResolveEndpoint(endpoint, out->spec.ip, hostname, default_host, &out->spec.host);
  return Status::Ok();
}

}  // namespace

Result<std::shared_ptr<const Topology>> ClusterShardsToTopology(const RespValue &v,
                                                                const std::string &default_host) {
  if (v.type == RespType::kError) {
    return Error(Code::kParse, "CLUSTER SHARDS: the server replied with an error: " + v.str);
  }
  if (!reply::IsArray(v)) {
    return Error(Code::kParse, std::string("CLUSTER SHARDS: reply is a ") + reply::KindName(v) +
                                   ", not an array");
  }
  TopologyBuilder b;
  for (size_t e = 0; e < v.elements.size(); ++e) {
    const std::string where = "CLUSTER SHARDS shard " + std::to_string(e);
    const RespValue &shard = v.elements[e];
    if (!shard.is_map_like() || shard.wire == '~' || shard.wire == '>')
      return Error(Code::kParse, where + ": not a map");
    const RespValue *slots = nullptr;
    const RespValue *nodes = nullptr;
    for (size_t i = 0; i + 1 < shard.elements.size(); i += 2) {
      const RespValue &k = shard.elements[i];
      if (!k.is_string()) return Error(Code::kParse, where + ": field name is not a string");
      if (k.str == "slots")
        slots = &shard.elements[i + 1];
      else if (k.str == "nodes")
        nodes = &shard.elements[i + 1];
    }
    if (slots == nullptr || nodes == nullptr) {
      return Error(Code::kParse, where + ": missing 'slots' or 'nodes'");
    }
    if (!reply::IsArray(*slots) || slots->elements.size() % 2 != 0) {
      return Error(Code::kParse, where + ": 'slots' is not a list of start/end pairs");
    }
    if (!reply::IsArray(*nodes)) return Error(Code::kParse, where + ": 'nodes' is not a list");

    std::vector<ShardNode> parsed(nodes->elements.size());
    const ShardNode *master = nullptr;
    const ShardNode *failed_master = nullptr;  // used when no master is healthy
    for (size_t n = 0; n < nodes->elements.size(); ++n) {
      Status s = ReadShardNode(nodes->elements[n], where + " node " + std::to_string(n),
                               default_host, &parsed[n]);
      if (!s.ok()) return s;
      if (!parsed[n].master) continue;
      // During a failover the failed old master may still be listed; the
      // healthy one owns the shard. Two healthy masters, or two failed ones
      // and no healthy one, leave the owner unknown.
      const ShardNode *&slot =
          parsed[n].spec.health == ReportedHealth::kFailed ? failed_master : master;
      if (slot != nullptr) {
        return Error(Code::kParse,
                     where + ": two masters, " + Address(*slot) + " and " + Address(parsed[n]));
      }
      slot = &parsed[n];
    }
    if (master == nullptr) master = failed_master;
    if (master == nullptr) {
      if (slots->elements.empty()) continue;  // nothing routes there
      return Error(Code::kParse, where + ": owns slots but lists no master");
    }
    const size_t shards_before = b.shard_count();
    auto idx = b.AddShard(master->spec);
    if (!idx.ok()) return idx.status();
    if (*idx < shards_before) {
      return Error(Code::kParse, where + ": master " + Address(*master) + " already heads shard " +
                                     std::to_string(*idx));
    }
    for (size_t i = 0; i < slots->elements.size(); i += 2) {
      int64_t start, end;
      Status s = reply::Slot(slots->elements[i], where, &start);
      if (!s.ok()) return s;
      s = reply::Slot(slots->elements[i + 1], where, &end);
      if (!s.ok()) return s;
      s = b.AddRange(*idx, static_cast<uint32_t>(start), static_cast<uint32_t>(end));
      if (!s.ok()) return Error(s.code(), where + ": " + s.message());
    }
    for (size_t n = 0; n < parsed.size(); ++n) {
      if (parsed[n].master) continue;  // a failed old master is not a replica
      Status s = b.AddReplica(*idx, parsed[n].spec);
      if (!s.ok()) return s;
    }
  }
  return b.Build();
}

Result<std::shared_ptr<const Topology>> ParseClusterShards(std::string_view reply,
                                                           const ClusterReplyOptions &opts) {
  // The shape: reply > shard maps > "slots" (start/end pairs) and "nodes"
  // lists > node maps > values > the elements of a future field that is a
  // list. A cluster has at most 16384 shards that own slots.
  RespLimits limits = opts.limits;
  limits.max_depth = std::min(limits.max_depth, reply::kClusterReplyDepth);
  limits.max_elements_at_depth = {0,
                                  kSlotCount,
                                  reply::kMaxNodeFields * 2,
                                  2 * kSlotCount,
                                  reply::kMaxNodeFields * 2,
                                  reply::kMaxNodeFields * 2};
  auto v = ParseResp(reply, limits);
  if (!v.ok()) return v.status();
  return ClusterShardsToTopology(*v, opts.default_host);
}

}  // namespace cloudroute
