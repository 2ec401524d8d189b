// CLUSTER SHARDS (Redis 7+): an array of shards, each a map (RESP3) or flat
// key/value array (RESP2) with "slots" (a flat list of start, end, start,
// end …) and "nodes" (maps with id, port, tls-port, ip, endpoint, hostname,
// role, health, and on Valkey 9.1+ availability-zone). Unknown fields are
// ignored so newer servers keep working.
#include "cloudroute/core/cluster_reply.hpp"
#include "reply_fields.hpp"

namespace cloudroute {

namespace {

struct ShardNode {
  NodeSpec spec;
  bool master = false;
};

Status ReadShardNode(const RespValue &v, const std::string &where, const std::string &default_host,
                     ShardNode *out) {
  if (!v.is_map_like()) return Error(Code::kParse, where + ": node is not a map");
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
    return Error(Code::kParse, where + ": unknown role '" + role.substr(0, 32) + "'");
  }
  if (!have_port && out->spec.tls_port == 0)
    return Error(Code::kParse, where + ": node has no port");
  if (!have_port) out->spec.port = out->spec.tls_port;
  reply::ResolveEndpoint(endpoint, out->spec.ip, hostname, default_host, &out->spec.host);
  return Status::Ok();
}

}  // namespace

Result<std::shared_ptr<const Topology>> ClusterShardsToTopology(const RespValue &v,
                                                                const std::string &default_host) {
  if (v.type == RespType::kError) {
    return Error(Code::kParse, "CLUSTER SHARDS: the server replied with an error: " + v.str);
  }
  if (v.type != RespType::kArray) {
    return Error(Code::kParse, std::string("CLUSTER SHARDS: reply is a ") + RespTypeName(v.type) +
                                   ", not an array");
  }
  TopologyBuilder b;
  for (size_t e = 0; e < v.elements.size(); ++e) {
    const std::string where = "CLUSTER SHARDS shard " + std::to_string(e);
    const RespValue &shard = v.elements[e];
    if (!shard.is_map_like()) return Error(Code::kParse, where + ": not a map");
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
    if (slots->type != RespType::kArray || slots->elements.size() % 2 != 0) {
      return Error(Code::kParse, where + ": 'slots' is not a list of start/end pairs");
    }
    if (nodes->type != RespType::kArray)
      return Error(Code::kParse, where + ": 'nodes' is not a list");

    std::vector<ShardNode> parsed(nodes->elements.size());
    const ShardNode *master = nullptr;
    for (size_t n = 0; n < nodes->elements.size(); ++n) {
      Status s = ReadShardNode(nodes->elements[n], where + " node " + std::to_string(n),
                               default_host, &parsed[n]);
      if (!s.ok()) return s;
      if (!parsed[n].master) continue;
      // During a failover a failed old master may still be listed; the
      // healthy one owns the shard.
      if (master == nullptr || (master->spec.health == ReportedHealth::kFailed &&
                                parsed[n].spec.health != ReportedHealth::kFailed)) {
        master = &parsed[n];
      }
    }
    if (master == nullptr) {
      if (slots->elements.empty()) continue;  // nothing routes there
      return Error(Code::kParse, where + ": owns slots but lists no master");
    }
    auto idx = b.AddShard(master->spec);
    if (!idx.ok()) return idx.status();
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
      if (parsed[n].master) continue;  // the chosen master, or a failed old one
      Status s = b.AddReplica(*idx, parsed[n].spec);
      if (!s.ok()) return s;
    }
  }
  return b.Build();
}

Result<std::shared_ptr<const Topology>> ParseClusterShards(std::string_view reply,
                                                           const ClusterReplyOptions &opts) {
  auto v = ParseResp(reply, opts.limits);
  if (!v.ok()) return v.status();
  return ClusterShardsToTopology(*v, opts.default_host);
}

}  // namespace cloudroute
