// CIDR blocks over IPv4 and IPv6, for classifying nodes by address.
//
// Thread-safety: plain values.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "cloudroute/core/status.hpp"

namespace cloudroute {

struct IpAddress {
  bool v6 = false;
  std::array<uint8_t, 16> bytes{};  // IPv4 uses the first 4
};

// Parses a literal IPv4 or IPv6 address (no brackets, no zone id).
bool ParseIp(std::string_view text, IpAddress *out);

class Cidr {
 public:
  // "10.0.0.0/24", "fd00::/8"; a bare address is a /32 or /128. Host bits
  // below the prefix are ignored.
  static Result<Cidr> Parse(std::string_view text);

  bool Contains(const IpAddress &ip) const;
  unsigned prefix() const { return prefix_; }
  const std::string &text() const { return text_; }

 private:
  IpAddress net_;
  unsigned prefix_ = 0;
  std::string text_;
};

}  // namespace cloudroute
