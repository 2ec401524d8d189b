// Small field readers shared by the CLUSTER SLOTS and CLUSTER SHARDS parsers.
// Internal to core/src.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cloudroute/core/cidr.hpp"
#include "cloudroute/core/resp.hpp"
#include "cloudroute/core/status.hpp"
#include "cloudroute/core/topology.hpp"
#include "resp_plain.hpp"

namespace cloudroute {
namespace reply {

// Shape caps for CLUSTER SLOTS / SHARDS (see ParseClusterSlots/Shards): the
// nesting a reply has (6 leaves room for a future node field that is a list
// of scalars), replicas per shard, and fields per node (Redis 7 and
// Valkey 8 send at most 11 node fields; room is left for future ones).
constexpr uint32_t kClusterReplyDepth = 6;
constexpr uint32_t kMaxReplicas = 1024;
constexpr uint32_t kMaxNodeFields = 32;

using Nodes = RespFlat;

// Where a value sits, for messages: "CLUSTER SHARDS shard 3 node 1 port".
// Made into text only when something is wrong.
struct Where {
  static constexpr size_t kNone = ~size_t{0};

  Where(const char *reply_name, size_t at) : reply(reply_name), index(at) {}

  const char *reply;       // "CLUSTER SLOTS entry", "CLUSTER SHARDS shard"
  size_t index;            // of the entry or shard
  size_t node = kNone;     // SHARDS: the node's position in the shard
  const char *field = "";  // SHARDS: the field being read, if any

  std::string str() const {
    std::string s = std::string(reply) + " " + std::to_string(index);
    if (node != kNone) s += " node " + std::to_string(node);
    if (*field != '\0') s += std::string(" ") + field;
    return s;
  }
};

// Walks the elements of nodes[at]: `for (Each e(n, at); e; ++e) … n[*e] …`.
class Each {
 public:
  Each(const Nodes &n, size_t at) : n_(n), i_(at + 1), left_(n[at].count) {}
  explicit operator bool() const { return left_ != 0; }
  size_t operator*() const { return i_; }
  void operator++() {
    i_ = n_[i_].next;
    --left_;
  }

 private:
  const Nodes &n_;
  size_t i_;
  uint32_t left_;
};

// An array as the reply shapes use it: not a RESP3 set (unordered) or push
// (out-of-band), which the framer also types as arrays.
inline bool IsArray(const RespNode &v) {
  return v.type == RespType::kArray && v.wire != '~' && v.wire != '>';
}

// A map, or a flat key/value array; never a set or push.
inline bool IsMap(const RespNode &v) { return v.is_map_like() && v.wire != '~' && v.wire != '>'; }

// "set", "push", or the type's name, for messages.
inline std::string KindName(const RespNode &v) {
  if (v.wire == '~') return "set";
  if (v.wire == '>') return "push";
  if (v.wire == '=') return "verbatim string";
  return RespTypeName(v.type);
}

inline Status Slot(const RespNode &v, const Where &where, int64_t *out) {
  if (v.type != RespType::kInteger) {
    return Error(Code::kParse, where.str() + ": slot is a " + KindName(v) + ", not an integer");
  }
  *out = v.integer;
  if (*out < 0 || *out > 16383) {
    return Error(Code::kParse,
                 where.str() + ": slot " + std::to_string(*out) + " is outside 0-16383");
  }
  return Status::Ok();
}

// An integer, or a bulk string of plain digits (some proxies send ports as
// strings); never a simple or verbatim string. Port 0 is refused: it would
// leave a shard without a write node.
inline Status Port(const RespNode &v, const Where &where, uint16_t *out) {
  int64_t p = -1;
  if (v.type == RespType::kInteger) {
    p = v.integer;
  } else if (v.type == RespType::kBulkString && v.wire != '=' && !v.str.empty() &&
             v.str.size() <= 5 && (v.str[0] != '0' || v.str.size() == 1)) {
    p = 0;
    for (char c : v.str) {
      if (c < '0' || c > '9')
        return Error(Code::kParse, where.str() + ": port " + Quote(v.str) + " is not an integer");
      p = p * 10 + (c - '0');
    }
  } else {
    return Error(Code::kParse, where.str() + ": port is a " + KindName(v) + ", not an integer");
  }
  if (p < 1 || p > 65535) {
    return Error(Code::kParse, where.str() + ": port " + std::to_string(p) + " is outside 1-65535");
  }
  *out = static_cast<uint16_t>(p);
  return Status::Ok();
}

// The direct walkers' reading of the same fields from a RespPlainReader
// value: true exactly where the framed walk's check of the framed value
// passes (and with the same result); false where that check refuses, and
// the reply then takes the general path, which says why.
using PlainValue = RespPlainReader::Value;

// A string as RespNode::is_string (the reader reads no verbatim strings).
inline bool IsString(const PlainValue &v) { return v.wire == '$' || v.wire == '+'; }

// As IsMap: a map, or a flat key/value array.
inline bool IsMap(const PlainValue &v) { return v.wire == '%' || (v.wire == '*' && v.n % 2 == 0); }

// As Slot.
inline bool PlainSlot(const PlainValue &v, uint32_t *out) {
  if (v.wire != ':' || v.n > 16383) return false;
  *out = static_cast<uint32_t>(v.n);
  return true;
}

// As Port: an integer, or a bulk string of plain digits.
inline bool PlainPort(const PlainValue &v, uint16_t *out) {
  uint64_t p;
  if (v.wire == ':') {
    p = v.n;
  } else if (v.wire == '$' && !v.str.empty() && v.str.size() <= 5 &&
             (v.str[0] != '0' || v.str.size() == 1)) {
    p = 0;
    for (char c : v.str) {
      if (c < '0' || c > '9') return false;
      p = p * 10 + static_cast<uint64_t>(c - '0');
    }
  } else {
    return false;
  }
  if (p < 1 || p > 65535) return false;
  *out = static_cast<uint16_t>(p);
  return true;
}

// A reply's endpoint, hostname or ip: "" and "?" keep their meaning (see
// ResolveEndpoint); anything else must be a host (an IP literal for "ip").
inline Status HostField(std::string_view value, const Where &where, const char *field,
                        bool ip_only) {
  if (value.empty() || value == "?") return Status::Ok();
  IpAddress ip;
  if (ip_only ? ParseIp(value, &ip) : IsValidHost(value)) return Status::Ok();
  return Error(Code::kParse, where.str() + ": " + field + " " + Quote(value) +
                                 (ip_only ? " is not an IP address"
                                          : " is neither an IP address nor a hostname"));
}

inline Status IdField(std::string_view value, const Where &where) {
  if (value.empty() || IsValidNodeId(value)) return Status::Ok();
  return Error(Code::kParse, where.str() + ": node id " + Quote(value) +
                                 " is not printable ASCII without spaces");
}

// Zones are free text, but never control bytes.
inline Status ZoneField(std::string_view value, const Where &where) {
  for (char c : value) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
      return Error(Code::kParse,
                   where.str() + ": availability zone " + Quote(value) + " holds a control byte");
    }
  }
  return Status::Ok();
}

// Picks the address to use: the preferred endpoint; "" means the address
// that was asked; "?" means unknown, where a separately reported IP or
// hostname still gives a usable address. A view of one of its arguments,
// or of a literal "?".
inline std::string_view ResolveEndpoint(std::string_view endpoint, std::string_view ip,
                                        std::string_view hostname,
                                        const std::string &default_host) {
  if (!endpoint.empty() && endpoint != "?") return endpoint;
  if (endpoint.empty() && !default_host.empty()) return default_host;
  if (!ip.empty() && ip != "?") return ip;
  if (!hostname.empty() && hostname != "?") return hostname;
  return "?";
}

// One node as a reply describes it, viewing the reply's bytes.
struct NodeView {
  std::string_view id, ip, endpoint, hostname, zone;
  uint16_t port = 0;
  uint16_t tls_port = 0;
  ReportedHealth health = ReportedHealth::kOnline;
};

// A CLUSTER SLOTS node's metadata pair (ip, hostname, availability-zone),
// kept when known; other keys are ignored.
inline void SetSlotsMetadata(std::string_view key, std::string_view value, NodeView *node) {
  if (key == "ip")
    node->ip = value;
  else if (key == "hostname")
    node->hostname = value;
  else if (key == "availability-zone" || key == "availability_zone")
    node->zone = value;
}

// Checks the node's host and zone fields: hosts and ips as IsValidHost /
// ParseIp want them, zones without control bytes (CheckNode adds the id).
inline Status CheckEndpoint(const NodeView &v, const Where &where) {
  // CLUSTER SHARDS gives most nodes' IP as both endpoint and ip: an IP
  // literal is a valid host, so one check covers both when it passes.
  // Each check's status is returned as made (never assigned over another:
  // a node's checks ran a string move apiece).
  IpAddress parsed;
  if (v.ip != v.endpoint || v.ip.empty() || v.ip == "?" || !ParseIp(v.ip, &parsed)) {
    if (Status s = HostField(v.endpoint, where, "endpoint", false); !s.ok()) return s;
    if (Status s = HostField(v.ip, where, "ip", true); !s.ok()) return s;
  }
  if (Status s = HostField(v.hostname, where, "hostname", false); !s.ok()) return s;
  return ZoneField(v.zone, where);
}

// Checks the node's text fields: its id as IsValidNodeId wants it, then
// CheckEndpoint.
inline Status CheckNode(const NodeView &v, const Where &where) {
  if (Status s = IdField(v.id, where); !s.ok()) return s;
  return CheckEndpoint(v, where);
}

// Fills `spec` from a checked node: views of the reply's text (or of
// default_host), which the caller keeps while it uses them.
inline void FillSpec(const NodeView &v, const std::string &default_host, NodeSpecView *spec) {
  spec->id = v.id;
  spec->ip = v.ip;
  spec->zone = v.zone;
  spec->port = v.port;
  spec->tls_port = v.tls_port;
  spec->health = v.health;
  // CheckNode ran on every value the host may come from, except the
  // caller's default_host.
  spec->checked = !(v.endpoint.empty() && !default_host.empty());
  spec->host = ResolveEndpoint(v.endpoint, v.ip, v.hostname, default_host);
}

// A CLUSTER SLOTS / SHARDS reply parsed: walked straight from its bytes
// (direct: false when it holds anything but the plain forms, or anything
// to refuse), else framed and then walked (walk over the framed values),
// which gives every refusal. direct == nullptr: the framed path only.
using TopologyResult = Result<std::shared_ptr<const Topology>>;
using DirectWalk = bool (*)(std::string_view, const RespLimits &, const std::string &,
                            std::shared_ptr<const Topology> *);
using FramedWalk = TopologyResult (*)(const RespFlat &, const std::string &);
inline TopologyResult ParseReply(std::string_view bytes, const RespLimits &limits,
                                 const std::string &default_host, DirectWalk direct,
                                 FramedWalk walk) {
  std::shared_ptr<const Topology> t;
  if (direct != nullptr && direct(bytes, limits, default_host, &t))
    return TopologyResult(std::move(t));
  RespFlat flat;
  Status s = ParseRespFlat(bytes, limits, &flat);
  if (!s.ok()) return s;
  return walk(flat, default_host);
}

}  // namespace reply
}  // namespace cloudroute
