// CLUSTER SHARDS (Redis 7+): an array of shards, each a map (RESP3) or flat
// key/value array (RESP2) with "slots" (a flat list of start, end, start,
// end …) and "nodes" (maps with id, port, tls-port, ip, endpoint, hostname,
// role, health, and on Valkey 9.1+ availability-zone). Unknown fields are
// ignored so newer servers keep working. The reply's bytes are walked once
// directly (DirectShards) when it holds only the plain forms; any other
// reply, every refused one among them, is framed flat (see RespFlat) and
// walked once, which gives its result or refusal.
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

// A node's field f (neither a port nor kOther) with a string value.
void SetField(Field f, std::string_view value, reply::NodeView *v, std::string_view *role,
              bool *have_role) {
  switch (f) {
    case Field::kId:
      v->id = value;
      break;
    case Field::kIp:
      v->ip = value;
      break;
    case Field::kEndpoint:
      v->endpoint = value;
      break;
    case Field::kHostname:
      v->hostname = value;
      break;
    case Field::kRole:
      *role = value;
      *have_role = true;
      break;
    case Field::kHealth:
      if (value == "online")
        v->health = ReportedHealth::kOnline;
      else if (value == "loading")
        v->health = ReportedHealth::kLoading;
      else
        v->health = ReportedHealth::kFailed;  // "fail", "failed", anything else
      break;
    default:  // kZone (the ports and kOther are the callers')
      v->zone = value;
  }
}

// After a node's fields: its role, and its port (the TLS port when it
// gives no other).
Status FinishShardNode(const reply::Where &where, std::string_view role, bool have_role,
                       bool have_port, ShardNode *out) {
  if (!have_role) return Error(Code::kParse, where.str() + ": node has no role");
  if (role == "master" || role == "primary")
    out->master = true;
  else if (role != "replica" && role != "slave") {
    return Error(Code::kParse, where.str() + ": unknown role " + Quote(role));
  }
  reply::NodeView &v = out->view;
  if (!have_port && v.tls_port == 0) return Error(Code::kParse, where.str() + ": node has no port");
  if (!have_port) v.port = v.tls_port;
  return Status::Ok();
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
    SetField(f, val.str, &v, &role, &have_role);
  }
  return FinishShardNode(where, role, have_role, have_port, out);
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

// The deepest value the direct walk reads itself: a node's field name or
// value (reply > shard > "nodes" list > node map > values).
constexpr uint32_t kShardsDirectDepth = 5;

// ReadShardNode, from the node at depth 4 of the reply's bytes: false where
// the framer or ReadShardNode would refuse it, and for a null value (not a
// plain form).
bool DirectShardNode(RespPlainReader *r, const reply::Where &where, ShardNode *out) {
  reply::PlainValue m, k, val;
  if (!r->Read(4, &m) || !reply::IsMap(m)) return false;
  reply::NodeView &v = out->view;
  std::string_view role;
  bool have_port = false, have_role = false;
  for (uint64_t i = 0; i < m.n; i += 2) {
    if (!r->Begin(&m) || !r->Read(5, &k) || !reply::IsString(k)) return false;
    if (!r->Begin(&m) || !r->Read(5, &val)) return false;
    const Field f = FieldOf(k.str);
    if (f == Field::kPort || f == Field::kTlsPort) {
      const bool tls = f == Field::kTlsPort;
      if (!reply::PlainPort(val, tls ? &v.tls_port : &v.port)) return false;
      have_port = have_port || !tls;
      continue;
    }
    if (f == Field::kOther) {
      if (!r->SkipElements(&val, 6)) return false;
      continue;
    }
    if (!reply::IsString(val)) return false;
    SetField(f, val.str, &v, &role, &have_role);
  }
  return FinishShardNode(where, role, have_role, have_port, out).ok();
}

// ShardsToTopology over the reply's bytes, without framing them: true, with
// *out, for a reply of plain forms that the framer and ShardsToTopology
// accept (the same builder calls in the same order, so the same topology);
// false for any other, which the caller gives to the general path. A shard
// that names "slots" or "nodes" twice is left to the general path too.
bool DirectShards(std::string_view bytes, const RespLimits &limits, const std::string &default_host,
                  std::shared_ptr<const Topology> *out) {
  RespPlainReader r(bytes, limits, kShardsDirectDepth);
  reply::PlainValue top;
  if (!r.usable() || !r.Read(1, &top) || top.wire != '*') return false;
  TopologyBuilder b;
  b.Reserve(top.n, 3 * top.n);
  std::vector<ShardNode> parsed;  // reused across shards
  std::vector<uint32_t> slots;    // a shard's start, end, start, end …; reused
  NodeSpecView spec;              // views of the reply's text
  constexpr size_t kNone = ~size_t{0};
  for (uint64_t e = 0; e < top.n; ++e) {
    reply::Where where{"CLUSTER SHARDS shard", e};
    reply::PlainValue shard, k, val;
    if (!r.Begin(&top) || !r.Read(2, &shard) || !reply::IsMap(shard)) return false;
    bool have_slots = false, have_nodes = false;
    size_t master = kNone, failed_master = kNone;  // in parsed
    for (uint64_t i = 0; i < shard.n; i += 2) {
      if (!r.Begin(&shard) || !r.Read(3, &k) || !reply::IsString(k) || !r.Begin(&shard)) {
        return false;
      }
      if (k.str == "slots") {
        if (have_slots || !r.Read(3, &val) || val.wire != '*' || val.n % 2 != 0) return false;
        have_slots = true;
        slots.clear();
        for (uint64_t j = 0; j < val.n; ++j) {
          reply::PlainValue f;
          uint32_t slot;
          if (!r.Begin(&val) || !r.Read(4, &f) || !reply::PlainSlot(f, &slot)) return false;
          slots.push_back(slot);
        }
      } else if (k.str == "nodes") {
        if (have_nodes || !r.Read(3, &val) || val.wire != '*') return false;
        have_nodes = true;
        // Grown as nodes are read (never from the declared count).
        parsed.clear();
        for (uint64_t j = 0; j < val.n; ++j) {
          where.node = j;
          ShardNode &node = parsed.emplace_back();
          if (!r.Begin(&val) || !DirectShardNode(&r, where, &node) ||
              !reply::CheckNode(node.view, where).ok()) {
            return false;
          }
          if (!node.master) continue;
          // As ShardsToTopology: one healthy master, or failing that one
          // failed one (two of either leave the owner unknown).
          size_t &slot = node.view.health == ReportedHealth::kFailed ? failed_master : master;
          if (slot != kNone) return false;
          slot = j;
        }
        where.node = reply::Where::kNone;
      } else if (!r.Skip(3)) {
        return false;
      }
    }
    if (!have_slots || !have_nodes) return false;
    if (master == kNone) master = failed_master;
    if (master == kNone) {
      if (slots.empty()) continue;  // nothing routes there
      return false;
    }
    const size_t shards_before = b.shard_count();
    reply::FillSpec(parsed[master].view, default_host, &spec);
    auto idx = b.AddShard(spec);
    if (!idx.ok() || *idx < shards_before) return false;
    for (size_t i = 0; i < slots.size(); i += 2) {
      if (!b.AddRange(*idx, slots[i], slots[i + 1]).ok()) return false;
    }
    for (const ShardNode &n : parsed) {
      if (n.master) continue;  // a failed old master is not a replica
      reply::FillSpec(n.view, default_host, &spec);
      if (!b.AddReplica(*idx, spec).ok()) return false;
    }
  }
  if (!r.at_end()) return false;
  auto t = b.Build();
  if (!t.ok()) return false;
  *out = std::move(*t);
  return true;
}

// The shape: reply > shard maps > "slots" (start/end pairs) and "nodes"
// lists > node maps > values > the elements of a future field that is a
// list. A cluster has at most 16384 shards that own slots.
RespLimits ShardsLimits(const ClusterReplyOptions &opts) {
  RespLimits limits = opts.limits;
  limits.max_depth = std::min(limits.max_depth, reply::kClusterReplyDepth);
  limits.max_elements_at_depth = {0,
                                  kSlotCount,
                                  reply::kMaxNodeFields * 2,
                                  2 * kSlotCount,
                                  reply::kMaxNodeFields * 2,
                                  reply::kMaxNodeFields * 2};
  return limits;
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
  return reply::ParseReply(reply, ShardsLimits(opts), opts.default_host, DirectShards,
                           ShardsToTopology);
}

Result<std::shared_ptr<const Topology>> ParseClusterShardsFramed(std::string_view reply,
                                                                 const ClusterReplyOptions &opts) {
  return reply::ParseReply(reply, ShardsLimits(opts), opts.default_host, nullptr, ShardsToTopology);
}

}  // namespace cloudroute
