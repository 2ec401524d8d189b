// CLUSTER SLOTS: an array of [start, end, master, replica…], where each node
// is [endpoint, port, id?, metadata?] and metadata (Redis 7+) is a map (RESP3)
// or flat key/value array (RESP2) of hostname / ip / availability-zone.
// A master with several ranges appears in several entries, each time with
// its replicas; they are merged into one shard. The reply's bytes are walked
// once directly (DirectSlots) when it holds only the plain forms; any other
// reply, every refused one among them, is framed flat (see RespFlat) and
// walked once, which gives its result or refusal.
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
      reply::SetSlotsMetadata(k.str, val.str, &node);
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

// The deepest value the direct walk reads itself: a metadata key or value
// (reply > entry > node > metadata > values).
constexpr uint32_t kSlotsDirectDepth = 5;

// NodeFromSlotsEntry, from the node at depth 3 of the reply's bytes: false
// where the framer or NodeFromSlotsEntry would refuse it, and for a null
// endpoint (not a plain form).
bool DirectSlotsNode(RespPlainReader *r, const std::string &default_host, const reply::Where &where,
                     NodeSpecView *out) {
  reply::PlainValue v, f;
  if (!r->Read(3, &v) || v.wire != '*' || v.n < 2) return false;
  reply::NodeView node;
  if (!r->Begin(&v) || !r->Read(4, &f) || !reply::IsString(f)) return false;
  node.endpoint = f.str;
  if (!r->Begin(&v) || !r->Read(4, &f) || !reply::PlainPort(f, &node.port)) return false;
  if (v.n > 2) {
    if (!r->Begin(&v) || !r->Read(4, &f) || !reply::IsString(f)) return false;
    node.id = f.str;
    if (!reply::IdField(node.id, where).ok()) return false;
  }
  if (v.n > 3) {
    reply::PlainValue meta;
    if (!r->Begin(&v) || !r->Read(4, &meta)) return false;
    if (!reply::IsMap(meta)) return false;
    for (uint64_t i = 0; i < meta.n; i += 2) {
      reply::PlainValue k;
      if (!r->Begin(&meta) || !r->Read(5, &k) || !reply::IsString(k)) return false;
      if (!r->Begin(&meta) || !r->Read(5, &f)) return false;
      if (!reply::IsString(f)) {  // unknown future fields may be any type
        if (!r->SkipElements(&f, 6)) return false;
        continue;
      }
      reply::SetSlotsMetadata(k.str, f.str, &node);
    }
  }
  for (uint64_t i = 4; i < v.n; ++i) {  // future fields, which the walk ignores
    if (!r->Begin(&v) || !r->Skip(4)) return false;
  }
  if (!reply::CheckEndpoint(node, where).ok()) return false;
  reply::FillSpec(node, default_host, out);
  return true;
}

// SlotsToTopology over the reply's bytes, without framing them: true, with
// *out, for a reply of plain forms that the framer and SlotsToTopology
// accept (the same builder calls in the same order, so the same topology);
// false for any other, which the caller gives to the general path.
bool DirectSlots(std::string_view bytes, const RespLimits &limits, const std::string &default_host,
                 std::shared_ptr<const Topology> *out) {
  RespPlainReader r(bytes, limits, kSlotsDirectDepth);
  reply::PlainValue top;
  if (!r.usable() || !r.Read(1, &top) || top.wire != '*') return false;
  TopologyBuilder b;
  b.Reserve(top.n, 3 * top.n);
  NodeSpecView spec;  // views of the reply's text
  for (uint64_t e = 0; e < top.n; ++e) {
    const reply::Where where{"CLUSTER SLOTS entry", e};
    reply::PlainValue entry, f;
    uint32_t start, end;
    if (!r.Begin(&top) || !r.Read(2, &entry) || entry.wire != '*' || entry.n < 3) return false;
    if (!r.Begin(&entry) || !r.Read(3, &f) || !reply::PlainSlot(f, &start)) return false;
    if (!r.Begin(&entry) || !r.Read(3, &f) || !reply::PlainSlot(f, &end)) return false;
    if (!r.Begin(&entry) || !DirectSlotsNode(&r, default_host, where, &spec)) return false;
    auto shard = b.AddShard(spec);
    if (!shard.ok() || !b.AddRange(*shard, start, end).ok()) return false;
    for (uint64_t i = 3; i < entry.n; ++i) {
      if (!r.Begin(&entry) || !DirectSlotsNode(&r, default_host, where, &spec) ||
          !b.AddReplica(*shard, spec).ok()) {
        return false;
      }
    }
  }
  if (!r.at_end()) return false;
  auto t = b.Build();
  if (!t.ok()) return false;
  *out = std::move(*t);
  return true;
}

// The shape: reply > entries [start, end, master, replicas…] > nodes
// [endpoint, port, id, metadata, future fields] > metadata map > values >
// the elements of a future field that is itself a list.
RespLimits SlotsLimits(const ClusterReplyOptions &opts) {
  RespLimits limits = opts.limits;
  limits.max_depth = std::min(limits.max_depth, reply::kClusterReplyDepth);
  limits.max_elements_at_depth = {0,
                                  kSlotCount,
                                  3 + reply::kMaxReplicas,
                                  reply::kMaxNodeFields,
                                  reply::kMaxNodeFields * 2,
                                  reply::kMaxNodeFields * 2};
  return limits;
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
  return reply::ParseReply(reply, SlotsLimits(opts), opts.default_host, DirectSlots,
                           SlotsToTopology);
}

Result<std::shared_ptr<const Topology>> ParseClusterSlotsFramed(std::string_view reply,
                                                                const ClusterReplyOptions &opts) {
  return reply::ParseReply(reply, SlotsLimits(opts), opts.default_host, nullptr, SlotsToTopology);
}

}  // namespace cloudroute
