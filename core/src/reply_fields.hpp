// Small field readers shared by the CLUSTER SLOTS and CLUSTER SHARDS parsers.
// Internal to core/src.
#pragma once

#include <string>

#include "cloudroute/core/resp.hpp"
#include "cloudroute/core/status.hpp"

namespace cloudroute {
namespace reply {

// An integer, or a string holding one (some proxies send ports as strings).
inline bool ToInt(const RespValue &v, int64_t *out) {
  if (v.type == RespType::kInteger) {
    *out = v.integer;
    return true;
  }
  if (!v.is_string() || v.str.empty() || v.str.size() > 18) return false;
  int64_t n = 0;
  for (char c : v.str) {
    if (c < '0' || c > '9') return false;
    n = n * 10 + (c - '0');
  }
  *out = n;
  return true;
}

inline Status Slot(const RespValue &v, const std::string &where, int64_t *out) {
  if (!ToInt(v, out)) return Error(Code::kParse, where + ": slot is not an integer");
  if (*out < 0 || *out > 16383) {
    return Error(Code::kParse, where + ": slot " + std::to_string(*out) + " is outside 0-16383");
  }
  return Status::Ok();
}

inline Status Port(const RespValue &v, const std::string &where, uint16_t *out) {
  int64_t p = 0;
  if (!ToInt(v, &p)) return Error(Code::kParse, where + ": port is not an integer");
  if (p < 0 || p > 65535) {
    return Error(Code::kParse, where + ": port " + std::to_string(p) + " is outside 0-65535");
  }
  *out = static_cast<uint16_t>(p);
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
