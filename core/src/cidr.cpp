#include "cloudroute/core/cidr.hpp"

#include <arpa/inet.h>

#include <cstring>

namespace cloudroute {

namespace {

// A dotted quad as inet_pton reads one: four decimal parts of 0-255, no
// leading zeros. False for anything else, which may still be an address
// (an IPv6 literal) for inet_pton to decide. Every node of a reply has one
// or two, read two or three times (checked, then placed by a CIDR rule), so
// it is read from a NUL-padded copy with no bound check per byte. The copy
// is two fixed-size moves that overlap (n is 7 to 15), not a library call.
bool PlainIpv4(std::string_view text, IpAddress *out) {
  const size_t n = text.size();
  if (n < 7 || n > 15) return false;  // "0.0.0.0" to "255.255.255.255"
  char s[16] = {};
  if (n >= 8) {
    std::memcpy(s, text.data(), 8);
    std::memcpy(s + n - 8, text.data() + n - 8, 8);
  } else {
    std::memcpy(s, text.data(), 4);
    std::memcpy(s + 3, text.data() + 3, 4);
  }
  const char *p = s;
  // A byte below '0' wraps around: one test for a digit. The NULs after
  // the text are no digit and no '.', so each step stops at them.
  auto digit = [](char c) { return unsigned{static_cast<unsigned char>(c)} - '0'; };
  uint8_t parts[4];
  for (size_t part = 0; part < 4; ++part) {
    if (part != 0 && *p++ != '.') return false;
    unsigned value = digit(*p++), d;
    if (value >= 10) return false;
    // A part that starts with 0 is "0" (no leading zeros); else up to two
    // more digits.
    if (value != 0 && (d = digit(*p)) < 10) {
      value = value * 10 + d;
      if ((d = digit(*++p)) < 10) {
        value = value * 10 + d;
        ++p;
      }
    }
    if (value > 255) return false;
    parts[part] = static_cast<uint8_t>(value);
  }
  if (p != s + n) return false;
  out->v6 = false;
  out->bytes = {parts[0], parts[1], parts[2], parts[3]};
  return true;
}

}  // namespace

bool ParseIp(std::string_view text, IpAddress *out) {
  if (PlainIpv4(text, out)) return true;
  char buf[64];
  // inet_pton would stop at a NUL and read "10.0.0.1\0junk" as 10.0.0.1.
  if (text.empty() || text.size() >= sizeof buf || text.find('\0') != std::string_view::npos)
    return false;
  std::memcpy(buf, text.data(), text.size());
  buf[text.size()] = '\0';
  IpAddress ip;
  if (inet_pton(AF_INET, buf, ip.bytes.data()) == 1) {
    ip.v6 = false;
  } else if (inet_pton(AF_INET6, buf, ip.bytes.data()) == 1) {
    ip.v6 = true;
  } else {
    return false;
  }
  *out = ip;
  return true;
}

Result<Cidr> Cidr::Parse(std::string_view text) {
  Cidr c;
  c.text_ = std::string(text);
  const size_t slash = text.find('/');
  const std::string_view addr = text.substr(0, slash);
  if (!ParseIp(addr, &c.net_)) {
    return Error(Code::kParse, "bad CIDR '" + c.text_ + "': '" + std::string(addr) +
                                   "' is not an IPv4 or IPv6 address");
  }
  const unsigned max = c.net_.v6 ? 128 : 32;
  c.prefix_ = max;
  if (slash != std::string_view::npos) {
    const std::string_view p = text.substr(slash + 1);
    if (p.empty() || p.size() > 3)
      return Error(Code::kParse, "bad CIDR '" + c.text_ + "': prefix length");
    unsigned v = 0;  // at most 3 digits (checked above): no overflow
    for (char ch : p) {
      if (ch < '0' || ch > '9')
        return Error(Code::kParse, "bad CIDR '" + c.text_ + "': prefix length");
      v = v * 10 + static_cast<unsigned>(ch - '0');  // a digit: 0..9
    }
    if (v > max) {
      return Error(Code::kParse, "bad CIDR '" + c.text_ + "': prefix /" + std::to_string(v) +
                                     " is longer than " + std::to_string(max));
    }
    c.prefix_ = v;
  }
  // Clear host bits so Contains() compares whole bytes.
  for (unsigned bit = c.prefix_; bit < 128; ++bit) {
    c.net_.bytes[bit / 8] &= static_cast<uint8_t>(~(0x80u >> (bit % 8)));
  }
  return c;
}

bool Cidr::Contains(const IpAddress &ip) const {
  if (ip.v6 != net_.v6) return false;
  if (!ip.v6) {
    // IPv4, every node against every rule: one masked compare of the four
    // bytes (host bits of net_ are clear, see Parse).
    const uint32_t a = uint32_t{ip.bytes[0]} << 24 | uint32_t{ip.bytes[1]} << 16 |
                       uint32_t{ip.bytes[2]} << 8 | uint32_t{ip.bytes[3]};
    const uint32_t n = uint32_t{net_.bytes[0]} << 24 | uint32_t{net_.bytes[1]} << 16 |
                       uint32_t{net_.bytes[2]} << 8 | uint32_t{net_.bytes[3]};
    const uint32_t mask = prefix_ == 0 ? 0 : ~uint32_t{0} << (32 - prefix_);
    return ((a ^ n) & mask) == 0;
  }
  const size_t full = prefix_ / 8;
  // A few bytes (3 for a /24): a loop, not a call to memcmp, per node and rule.
  for (size_t i = 0; i < full; ++i) {
    if (ip.bytes[i] != net_.bytes[i]) return false;
  }
  const unsigned rest = prefix_ % 8;
  if (rest == 0) return true;
  const uint8_t mask = static_cast<uint8_t>(0xFFu << (8 - rest));
  return (ip.bytes[full] & mask) == net_.bytes[full];
}

}  // namespace cloudroute
