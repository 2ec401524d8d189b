// CLUSTER SHARDS (Redis 7+): an array of shards, each a map (RESP3) or flat
// key/value array (RESP2) with "slots" (a flat list of start, end, start,
// end …) and "nodes" (maps with id, port, tls-port, ip, endpoint, hostname,
// role, health, and on Valkey 9.1+ availability-zone). Unknown fields are
// ignored so newer servers keep working. The reply is framed flat (see
// RespFlat) and walked once.
#include <algorithm>

#include "cloudroute/core/cluster_reply.hpp"
#include "reply_fields.hpp"

namespace cloudroute {

namespace {

using reply::Each;
using reply::Nodes;

struct ShardNode {
  reply::NodeView view;
  bool master = false;
};

std::string Address(const ShardNode &n, const std::string &default_host) {
  return FormatAddress(
      reply::ResolveEndpoint(n.view.endpoint, n.view.ip, n.view.hostname, default_host),
      n.view.port);
}

// The node fields the parser reads; kOther for any other (ignored).
enum class Field { kOther, kId, kPort, kTlsPort, kIp, kEndpoint, kHostname, kRole, kHealth, kZone };

// One switch on the name's length, then a compare or two (each node has
// seven or more fields, a reply thousands of nodes).
Field FieldOf(std::string_view f) {
  switch (f.size()) {
    case 2:
      return f == "id" ? Field::kId : f == "ip" ? Field::kIp : Field::kOther;
    case 4:
      return f == "port" ? Field::kPort : f == "role" ? Field::kRole : Field::kOther;
    case 6:
      return f == "health" ? Field::kHealth : Field::kOther;
    case 8:
      return f == "tls-port"   ? Field::kTlsPort
             : f == "endpoint" ? Field::kEndpoint
             : f == "hostname" ? Field::kHostname
                               : Field::kOther;
    case 17:
      return f == "availability-zone" || f == "availability_zone" ? Field::kZone : Field::kOther;
    default:
      return Field::kOther;
  }
}

Status ReadShardNode(const Nodes &n, size_t at, reply::Where where, ShardNode *out) {
  if (!reply::IsMap(n[at])) return Error(Code::kParse, where.str() + ": node is not a map");
  reply::NodeView &v = out->view;
  std::string_view role;
  bool have_port = false, have_role = false;
  for (Each i(n, at); i; ++i) {
    const RespNode &k = n[*i];
    ++i;
    const RespNode &val = n[*i];
    if (!k.is_string())
      return Error(Code::kParse, where.str() + ": node field name is not a string");
    const Field f = FieldOf(k.str);
    if (f == Field::kPort || f == Field::kTlsPort) {
      const bool tls = f == Field::kTlsPort;
      where.field = tls ? "tls-port" : "port";
      Status s = reply::Port(val, where, tls ? &v.tls_port : &v.port);
      where.field = "";
      if (!s.ok()) return s;
      have_port = have_port || !tls;
      continue;
    }
    if (f == Field::kOther || val.type == RespType::kNull) continue;
    if (!val.is_string()) {
      return Error(Code::kParse, where.str() + ": field '" + std::string(k.str) + "' is a " +
                                     RespTypeName(val.type));
    }
    switch (f) {
      case Field::kId:
        v.id = val.str;
        break;
      case Field::kIp:
        v.ip = val.str;
        break;
      case Field::kEndpoint:
        v.endpoint = val.str;
        break;
      case Field::kHostname:
        v.hostname = val.str;
        break;
      case Field::kRole:
        role = val.str;
        have_role = true;
        break;
      case Field::kHealth:
        if (val.str == "online")
          v.health = ReportedHealth::kOnline;
        else if (val.str == "loading")
          v.health = ReportedHealth::kLoading;
        else
          v.health = ReportedHealth::kFailed;  // "fail", "failed", anything else
        break;
      default:  // kZone (the ports and kOther are handled above)
        v.zone = val.str;
    }
  }
  if (!have_role) return Error(Code::kParse, where.str() + ": node has no role");
  if (role == "master" || role == "primary")
    out->master = true;
  else if (role != "replica" && role != "slave") {
    return Error(Code::kParse, where.str() + ": unknown role " + Quote(role));
  }
  if (!have_port && v.tls_port == 0) return Error(Code::kParse, where.str() + ": node has no port");
  if (!have_port) v.port = v.tls_port;
  return Status::Ok();
}

Result<std::shared_ptr<const Topology>> ShardsToTopology(const Nodes &n,
                                                         const std::string &default_host) {
  const RespNode &v = n[0];
  if (v.type == RespType::kError) {
    return Error(Code::kParse,
                 "CLUSTER SHARDS: the server replied with an error: " + std::string(v.str));
  }
  if (!reply::IsArray(v)) {
    return Error(Code::kParse, std::string("CLUSTER SHARDS: reply is a ") + reply::KindName(v) +
                                   ", not an array");
  }
  TopologyBuilder b;
  b.Reserve(v.count, 3 * size_t{v.count});
  std::vector<ShardNode> parsed;  // reused across shards
  NodeSpecView spec;              // views of the frame's text
  size_t e = 0;
  for (Each shard(n, 0); shard; ++shard, ++e) {
    reply::Where where{"CLUSTER SHARDS shard", e};
    if (!reply::IsMap(n[*shard])) return Error(Code::kParse, where.str() + ": not a map");
    size_t slots = 0, nodes = 0;  // 0: absent (the reply itself is node 0)
    for (Each i(n, *shard); i; ++i) {
      const RespNode &k = n[*i];
      ++i;
      if (!k.is_string()) return Error(Code::kParse, where.str() + ": field name is not a string");
      if (k.str == "slots")
        slots = *i;
      else if (k.str == "nodes")
        nodes = *i;
    }
    if (slots == 0 || nodes == 0) {
      return Error(Code::kParse, where.str() + ": missing 'slots' or 'nodes'");
    }
    if (!reply::IsArray(n[slots]) || n[slots].count % 2 != 0) {
      return Error(Code::kParse, where.str() + ": 'slots' is not a list of start/end pairs");
    }
    if (!reply::IsArray(n[nodes]))
      return Error(Code::kParse, where.str() + ": 'nodes' is not a list");

    parsed.assign(n[nodes].count, ShardNode());
    const ShardNode *master = nullptr;
    const ShardNode *failed_master = nullptr;  // used when no master is healthy
    size_t k = 0;
    for (Each node(n, nodes); node; ++node, ++k) {
      where.node = k;
      // Each status is checked where it is made, never assigned over
      // another (a string move apiece, thousands of times a reply).
      if (Status s = ReadShardNode(n, *node, where, &parsed[k]); !s.ok()) return s;
      if (Status s = reply::CheckNode(parsed[k].view, where); !s.ok()) return s;
      if (!parsed[k].master) continue;
      // During a failover the failed old master may still be listed; the
      // healthy one owns the shard. Two healthy masters, or two failed ones
      // and no healthy one, leave the owner unknown.
      const ShardNode *&slot =
          parsed[k].view.health == ReportedHealth::kFailed ? failed_master : master;
      if (slot != nullptr) {
        where.node = reply::Where::kNone;
        return Status::Contradiction(where.str() + ": two masters, " +
                                     Address(*slot, default_host) + " and " +
                                     Address(parsed[k], default_host));
      }
      slot = &parsed[k];
    }
    where.node = reply::Where::kNone;
    if (master == nullptr) master = failed_master;
    if (master == nullptr) {
      if (n[slots].count == 0) continue;  // nothing routes there
      return Status::Contradiction(where.str() + ": owns slots but lists no master");
    }
    const size_t shards_before = b.shard_count();
    reply::FillSpec(master->view, default_host, &spec);
    auto idx = b.AddShard(spec);
    if (!idx.ok()) return idx.status();
    if (*idx < shards_before) {
      return Status::Contradiction(where.str() + ": master " + Address(*master, default_host) +
                                   " already heads shard " + std::to_string(*idx));
    }
    for (Each i(n, slots); i; ++i) {
      int64_t start, end;
      if (Status s = reply::Slot(n[*i], where, &start); !s.ok()) return s;
      ++i;
      if (Status s = reply::Slot(n[*i], where, &end); !s.ok()) return s;
      if (Status s = b.AddRange(*idx, static_cast<uint32_t>(start), static_cast<uint32_t>(end));
          !s.ok()) {
        return Error(s.code(), where.str() + ": " + s.message());
      }
    }
    for (const ShardNode &r : parsed) {
      if (r.master) continue;  // a failed old master is not a replica
      reply::FillSpec(r.view, default_host, &spec);
      Status s = b.AddReplica(*idx, spec);
      if (!s.ok()) return s;
    }
  }
  return b.Build();
}

}  // namespace

Result<std::shared_ptr<const Topology>> ClusterShardsToTopology(const RespValue &v,
                                                                const std::string &default_host) {
  RespFlat flat;
  FlattenResp(v, &flat);
  return ShardsToTopology(flat, default_host);
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
  RespFlat flat;
  Status s = ParseRespFlat(reply, limits, &flat);
  if (!s.ok()) return s;
  return ShardsToTopology(flat, opts.default_host);
}

}  // namespace cloudroute
