// Small field readers shared by the CLUSTER SLOTS and CLUSTER SHARDS parsers.
// Internal to core/src.
#pragma once

#include <string>

#include "cloudroute/core/cidr.hpp"
#include "cloudroute/core/resp.hpp"
#include "cloudroute/core/status.hpp"
#include "cloudroute/core/topology.hpp"

namespace cloudroute {
namespace reply {

// Shape caps for CLUSTER SLOTS / SHARDS (see ParseClusterSlots/Shards): the
// nesting a reply has (6 leaves room for a future node field that is a list
// of scalars), replicas per shard, and fields per node (Redis 7 and
// Valkey 8 send at most 11 node fields; room is left for future ones).
constexpr uint32_t kClusterReplyDepth = 6;
constexpr uint32_t kMaxReplicas = 1024;
constexpr uint32_t kMaxNodeFields = 32;

// An array as the reply shapes use it: not a RESP3 set (unordered) or push
// (out-of-band), which the framer also types as arrays.
inline bool IsArray(const RespValue &v) {
  return v.type == RespType::kArray && v.wire != '~' && v.wire != '>';
}

// "set", "push", or the type's name, for messages.
inline std::string KindName(const RespValue &v) {
  if (v.wire == '~') return "set";
  if (v.wire == '>') return "push";
  if (v.wire == '=') return "verbatim string";
  return RespTypeName(v.type);
}

inline Status Slot(const RespValue &v, const std::string &where, int64_t *out) {
  if (v.type != RespType::kInteger) {
    return Error(Code::kParse, where + ": slot is a " + KindName(v) + ", not an integer");
  }
  *out = v.integer;
  if (*out < 0 || *out > 16383) {
    return Error(Code::kParse, where + ": slot " + std::to_string(*out) + " is outside 0-16383");
  }
  return Status::Ok();
}

// An integer, or a bulk string of plain digits (some proxies send ports as
// strings); never a simple or verbatim string. Port 0 is refused: it would
// leave a shard without a write node.
inline Status Port(const RespValue &v, const std::string &where, uint16_t *out) {
  int64_t p = -1;
  if (v.type == RespType::kInteger) {
    p = v.integer;
  } else if (v.type == RespType::kBulkString && v.wire != '=' && !v.str.empty() &&
             v.str.size() <= 5 && (v.str[0] != '0' || v.str.size() == 1)) {
    p = 0;
    for (char c : v.str) {
      if (c < '0' || c > '9')
        return Error(Code::kParse, where + ": port " + Quote(v.str) + " is not an integer");
      p = p * 10 + (c - '0');
    }
  } else {
    return Error(Code::kParse, where + ": port is a " + KindName(v) + ", not an integer");
  }
  if (p < 1 || p > 65535) {
    return Error(Code::kParse, where + ": port " + std::to_string(p) + " is outside 1-65535");
  }
  *out = static_cast<uint16_t>(p);
  return Status::Ok();
}

// A reply's endpoint, hostname or ip: "" and "?" keep their meaning (see
// ResolveEndpoint); anything else must be a host (an IP literal for "ip").
inline Status HostField(const std::string &value, const std::string &where, const char *field,
                        bool ip_only) {
  if (value.empty() || value == "?") return Status::Ok();
  IpAddress ip;
  if (ip_only ? ParseIp(value, &ip) : IsValidHost(value)) return Status::Ok();
  return Error(Code::kParse, where + ": " + field + " " + Quote(value) +
                                 (ip_only ? " is not an IP address"
                                          : " is neither an IP address nor a hostname"));
}

inline Status IdField(const std::string &value, const std::string &where) {
  if (value.empty() || IsValidNodeId(value)) return Status::Ok();
  return Error(Code::kParse,
               where + ": node id " + Quote(value) + " is not printable ASCII without spaces");
}

// Zones are free text, but never control bytes.
inline Status ZoneField(const std::string &value, const std::string &where) {
  for (char c : value) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) {
      return Error(Code::kParse,
                   where + ": availability zone " + Quote(value) + " holds a control byte");
    }
  }
  return Status::Ok();
}

// Picks the address to use: the preferred endpoint; "" means the address
// that was asked; "?" means unknown, where a separately reported IP or
// hostname still gives a usable address.
inline void ResolveEndpoint(const std::string &endpoint, const std::string &ip,
                            const std::string &hostname, const std::string &default_host,
                            std::string *host) {
  if (!endpoint.empty() && endpoint != "?") {
    *host = endpoint;
  } else if (endpoint.empty() && !default_host.empty()) {
    *host = default_host;
  } else if (!ip.empty() && ip != "?") {
    *host = ip;
  } else if (!hostname.empty() && hostname != "?") {
    *host = hostname;
  } else {
    *host = "?";
  }
}

}  // namespace reply
}  // namespace cloudroute
