// CLUSTER SLOTS: an array of [start, end, master, replica…], where each node
// is [endpoint, port, id?, metadata?] and metadata (Redis 7+) is a map (RESP3)
// or flat key/value array (RESP2) of hostname / ip / availability-zone.
// A master with several ranges appears in several entries, each time with
// its replicas; they are merged into one shard. The reply is framed flat
// (see RespFlat) and walked once.
#include <algorithm>

#include "cloudroute/core/cluster_reply.hpp"
#include "reply_fields.hpp"

namespace cloudroute {

namespace {

using reply::Each;
using reply::Nodes;

Status NodeFromSlotsEntry(const Nodes &n, size_t at, const std::string &default_host,
                          const reply::Where &where, NodeSpecView *out) {
  const RespNode &v = n[at];
  if (!reply::IsArray(v) || v.count < 2) {
    return Error(Code::kParse, where.str() + ": a node is not an array of at least [host, port]");
  }
  reply::NodeView node;
  Each f(n, at);
  const RespNode &host = n[*f];
  if (host.is_string()) {
    node.endpoint = host.str;
  } else if (host.type != RespType::kNull) {
    return Error(Code::kParse, where.str() + ": node endpoint is a " + RespTypeName(host.type));
  }
  ++f;
  if (Status s = reply::Port(n[*f], where, &node.port); !s.ok()) return s;
  ++f;
  if (f) {
    if (!n[*f].is_string()) return Error(Code::kParse, where.str() + ": node id is not a string");
    node.id = n[*f].str;
    if (Status s = reply::IdField(node.id, where); !s.ok()) return s;
    ++f;
  }
  if (f) {
    const RespNode &meta = n[*f];
    if (!reply::IsMap(meta))
      return Error(Code::kParse, where.str() + ": node metadata is not a map");
    for (Each m(n, *f); m; ++m) {
      const RespNode &k = n[*m];
      ++m;
      const RespNode &val = n[*m];
      if (!k.is_string())
        return Error(Code::kParse, where.str() + ": metadata key is not a string");
      if (!val.is_string()) continue;  // unknown future fields may be any type
      if (k.str == "ip")
        node.ip = val.str;
      else if (k.str == "hostname")
        node.hostname = val.str;
      else if (k.str == "availability-zone" || k.str == "availability_zone")
        node.zone = val.str;
    }
  }
  // The id was checked above.
  if (Status s = reply::CheckEndpoint(node, where); !s.ok()) return s;
  reply::FillSpec(node, default_host, out);
  return Status::Ok();
}

Result<std::shared_ptr<const Topology>> SlotsToTopology(const Nodes &n,
                                                        const std::string &default_host) {
  const RespNode &v = n[0];
  if (v.type == RespType::kError) {
    return Error(Code::kParse,
                 "CLUSTER SLOTS: the server replied with an error: " + std::string(v.str));
  }
  if (!reply::IsArray(v)) {
    return Error(Code::kParse,
                 std::string("CLUSTER SLOTS: reply is a ") + reply::KindName(v) + ", not an array");
  }
  TopologyBuilder b;
  b.Reserve(v.count, 3 * size_t{v.count});
  NodeSpecView spec;  // views of the frame's text
  size_t e = 0;
  for (Each entry(n, 0); entry; ++entry, ++e) {
    const RespNode &ev = n[*entry];
    const reply::Where where{"CLUSTER SLOTS entry", e};
    if (!reply::IsArray(ev) || ev.count < 3) {
      return Error(Code::kParse, where.str() + ": not an array of [start, end, master, …]");
    }
    Each f(n, *entry);
    int64_t start, end;
    // Each status is checked where it is made, never assigned over
    // another (a string move apiece, thousands of times a reply).
    if (Status s = reply::Slot(n[*f], where, &start); !s.ok()) return s;
    ++f;
    if (Status s = reply::Slot(n[*f], where, &end); !s.ok()) return s;
    ++f;
    if (Status s = NodeFromSlotsEntry(n, *f, default_host, where, &spec); !s.ok()) return s;
    auto shard = b.AddShard(spec);
    if (!shard.ok()) return shard.status();
    if (Status s = b.AddRange(*shard, static_cast<uint32_t>(start), static_cast<uint32_t>(end));
        !s.ok()) {
      return Error(s.code(), where.str() + ": " + s.message());
    }
    for (++f; f; ++f) {
      if (Status s = NodeFromSlotsEntry(n, *f, default_host, where, &spec); !s.ok()) return s;
      if (Status s = b.AddReplica(*shard, spec); !s.ok()) return s;
    }
  }
  return b.Build();
}

}  // namespace

Result<std::shared_ptr<const Topology>> ClusterSlotsToTopology(const RespValue &v,
                                                               const std::string &default_host) {
  RespFlat flat;
  FlattenResp(v, &flat);
  return SlotsToTopology(flat, default_host);
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
  RespFlat flat;
  Status s = ParseRespFlat(reply, limits, &flat);
  if (!s.ok()) return s;
  return SlotsToTopology(flat, opts.default_host);
}

}  // namespace cloudroute
