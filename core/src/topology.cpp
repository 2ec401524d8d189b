// TopologyBuilder: turns per-entry facts from a reply into one consistent,
// immutable Topology.
#include "cloudroute/core/topology.hpp"

#include <algorithm>
#include <cstdio>
#include <functional>

#include "cloudroute/core/cidr.hpp"

namespace cloudroute {

namespace {

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// What a node is, for messages: "master abc" or "replica (no id)".
std::string Describe(Role role, const std::string &id) {
  return std::string(role == Role::kMaster ? "master " : "replica ") +
         (id.empty() ? std::string("(no id)") : Quote(id));
}

}  // namespace

bool IsValidHost(std::string_view host) {
  IpAddress ip;
  if (ParseIp(host, &ip)) return true;
  if (host.empty() || host.size() > 253) return false;
  bool all_digits = true;
  size_t label = 0;
  for (size_t i = 0; i <= host.size(); ++i) {
    if (i == host.size() || host[i] == '.') {
      // Empty labels (a leading, doubled or trailing dot) and labels ending
      // in '-' are refused.
      if (label == 0 || label > 63 || host[i - 1] == '-') return false;
      label = 0;
      continue;
    }
    const char c = host[i];
    if (c == '-') {
      if (label == 0) return false;
    } else if (!IsAlnum(c)) {
      return false;
    }
    if (c < '0' || c > '9') all_digits = false;
    ++label;
  }
  return !all_digits;  // all digits and dots, yet not an IPv4 literal
}

bool IsValidNodeId(std::string_view id) {
  if (id.empty() || id.size() > 256) return false;
  for (char c : id) {
    if (c <= ' ' || c > '~') return false;
  }
  return true;
}

std::string Quote(std::string_view text) {
  std::string out = "'";
  const size_t n = std::min<size_t>(text.size(), 64);
  for (size_t i = 0; i < n; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7F && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  if (text.size() > n) out += "...";
  return out + "'";
}

Status CheckHost(std::string_view host, std::string_view what) {
  if (IsValidHost(host)) return Status::Ok();
  return Error(Code::kInvalid,
               std::string(what) + " " + Quote(host) + " is neither an IP address nor a hostname");
}

Status CheckPrintable(std::string_view text, std::string_view what) {
  for (char ch : text) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7F) {
      return Error(Code::kInvalid, std::string(what) + " " + Quote(text) +
                                       " contains a control character (CR, LF, NUL, ...)");
    }
  }
  return Status::Ok();
}

std::string FormatAddress(const std::string &host, uint16_t port) {
  if (host.find(':') != std::string::npos) return "[" + host + "]:" + std::to_string(port);
  return host + ":" + std::to_string(port);
}

Status ParseHostPort(std::string_view text, std::string *host, uint16_t *port) {
  const std::string quoted = Quote(text);
  std::string_view h, p;
  if (!text.empty() && text.front() == '[') {
    const size_t close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return Error(Code::kParse, "bad address " + quoted + " (want [v6]:port)");
    }
    h = text.substr(1, close - 1);
    p = text.substr(close + 2);
    IpAddress ip;
    if (!ParseIp(h, &ip) || !ip.v6) {
      return Error(Code::kParse, "bad address " + quoted + " (brackets hold an IPv6 literal)");
    }
  } else {
    const size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) {
      return Error(Code::kParse, "bad address " + quoted + " (want host:port)");
    }
    h = text.substr(0, colon);
    p = text.substr(colon + 1);
    if (h.find(':') != std::string_view::npos) {
      return Error(Code::kParse, "bad address " + quoted + " (put IPv6 hosts in brackets)");
    }
  }
  if (h.empty()) return Error(Code::kParse, "bad address " + quoted + " (no host)");
  if (!IsValidHost(h)) {
    return Error(Code::kParse,
                 "bad address " + quoted + " (the host is neither an IP address nor a hostname)");
  }
  uint32_t v = 0;
  if (p.empty() || p.size() > 5) {
    return Error(Code::kParse, "bad port in " + quoted);
  }
  for (char c : p) {
    if (c < '0' || c > '9') return Error(Code::kParse, "bad port in " + quoted);
    v = v * 10 + static_cast<uint32_t>(c - '0');
  }
  if (v == 0 || v > 65535) return Error(Code::kParse, "port out of range in " + quoted);
  host->assign(h);
  *port = static_cast<uint16_t>(v);
  return Status::Ok();
}

namespace {

uint64_t HashAddress(const std::string &host, uint16_t port) {
  return std::hash<std::string>()(host) * 0x9E3779B97F4A7C15ull + port;
}

uint64_t HashKey(const NodeSpec &spec) {
  return spec.id.empty() ? HashAddress(spec.host, spec.port) : std::hash<std::string>()(spec.id);
}

}  // namespace

void TopologyBuilder::Reserve(size_t shards, size_t nodes) {
  t_.shards.reserve(shards);
  t_.nodes.reserve(nodes);
  by_key_.Reserve(nodes);
  by_address_.Reserve(nodes);
}

Result<uint32_t> TopologyBuilder::Intern(const NodeSpec &spec, Role role) {
  if (spec.host.empty() && spec.id.empty()) {
    return Error(Code::kParse, "a node has neither an endpoint nor an id");
  }
  if (!spec.checked && !spec.id.empty() && !IsValidNodeId(spec.id)) {
    return Error(Code::kParse,
                 "node id " + Quote(spec.id) + " is not printable ASCII without spaces");
  }
  const bool known = !spec.host.empty() && spec.host != "?";
  if (!spec.checked && known && !IsValidHost(spec.host)) {
    return Error(Code::kParse,
                 "node host " + Quote(spec.host) + " is neither an IP address nor a hostname");
  }
  IpAddress ip;
  if (!spec.checked && !spec.ip.empty() && spec.ip != "?" && !ParseIp(spec.ip, &ip)) {
    return Error(Code::kParse, "node ip " + Quote(spec.ip) + " is not an IP address");
  }
  // A node is keyed by its id, or by its address when it has none.
  const uint64_t key_hash = HashKey(spec);
  const uint32_t found = by_key_.Find(key_hash, [&](uint32_t i) {
    const TopoNode &n = t_.nodes[i];
    return spec.id.empty() ? n.id.empty() && n.host == spec.host && n.port == spec.port
                           : n.id == spec.id;
  });
  if (found != HashIndex::kNone) {
    TopoNode &n = t_.nodes[found];
    if (n.host != spec.host || n.port != spec.port) {
      return Status::Contradiction("node id " + Quote(spec.id) + " at " + n.address() + " and " +
                                   FormatAddress(spec.host, spec.port));
    }
    if (n.role != role) {
      return Status::Contradiction("node " + n.address() + " is listed as both master and replica");
    }
    return found;
  }
  // A second node at a known address: two masters, a master that is also
  // another shard's replica, or a replica at its own master's address.
  const uint64_t address_hash = HashAddress(spec.host, spec.port);
  if (known) {
    const uint32_t a = by_address_.Find(address_hash, [&](uint32_t i) {
      return t_.nodes[i].host == spec.host && t_.nodes[i].port == spec.port;
    });
    if (a != HashIndex::kNone) {
      const TopoNode &n = t_.nodes[a];
      return Status::Contradiction("address " + FormatAddress(spec.host, spec.port) +
                                   " is given to two nodes: " + Describe(n.role, n.id) + " and " +
                                   Describe(role, spec.id));
    }
  }
  if (t_.nodes.size() >= 0xFFFFu) return Error(Code::kLimit, "more than 65535 nodes");
  const uint32_t index = static_cast<uint32_t>(t_.nodes.size());
  t_.nodes.emplace_back();
  TopoNode &n = t_.nodes.back();
  n.id = spec.id;
  n.host = spec.host;
  n.ip = spec.ip;
  n.port = spec.port;
  n.tls_port = spec.tls_port;
  n.role = role;
  n.health = spec.health;
  n.zone = spec.zone;
  by_key_.Insert(key_hash, index);
  if (known) by_address_.Insert(address_hash, index);
  return index;
}

Result<uint32_t> TopologyBuilder::AddShard(const NodeSpec &master) {
  auto idx = Intern(master, Role::kMaster);
  if (!idx.ok()) return idx.status();
  TopoNode &n = t_.nodes[*idx];
  if (n.shard != kNoNode) return n.shard;
  if (t_.shards.size() >= kNoShard) return Error(Code::kLimit, "more than 65534 shards");
  TopoShard s;
  s.id = !n.id.empty() ? n.id : n.address();
  s.master = *idx;
  n.shard = static_cast<uint32_t>(t_.shards.size());
  t_.shards.push_back(std::move(s));
  return n.shard;
}

Status TopologyBuilder::AddRange(uint32_t shard, uint32_t start, uint32_t end) {
  if (shard >= t_.shards.size()) return Error(Code::kInvalid, "no such shard");
  if (start > end || end >= kSlotCount) {
    return Error(Code::kParse, "invalid slot range " + std::to_string(start) + "-" +
                                   std::to_string(end) + " (slots are 0-16383)");
  }
  t_.shards[shard].ranges.push_back({static_cast<uint16_t>(start), static_cast<uint16_t>(end)});
  return Status::Ok();
}

Status TopologyBuilder::AddReplica(uint32_t shard, const NodeSpec &replica) {
  if (shard >= t_.shards.size()) return Error(Code::kInvalid, "no such shard");
  auto idx = Intern(replica, Role::kReplica);
  if (!idx.ok()) return idx.status();
  TopoNode &n = t_.nodes[*idx];
  if (n.shard == kNoNode) {
    n.shard = shard;
    t_.shards[shard].replicas.push_back(*idx);
  } else if (n.shard != shard) {
    return Status::Contradiction("replica " + n.address() + " is listed under two masters");
  }
  return Status::Ok();
}

Result<std::shared_ptr<const Topology>> TopologyBuilder::Build() {
  for (uint32_t s = 0; s < t_.shards.size(); ++s) {
    auto &ranges = t_.shards[s].ranges;
    std::sort(ranges.begin(), ranges.end(),
              [](const SlotRange &a, const SlotRange &b) { return a.start < b.start; });
    std::vector<SlotRange> merged;
    for (const SlotRange &r : ranges) {
      if (!merged.empty() && r.start <= static_cast<uint32_t>(merged.back().end) + 1) {
        merged.back().end = std::max(merged.back().end, r.end);
      } else {
        merged.push_back(r);
      }
    }
    ranges = std::move(merged);
    for (const SlotRange &r : ranges) {
      for (uint32_t slot = r.start; slot <= r.end; ++slot) {
        const uint16_t prev = t_.slot_to_shard[slot];
        if (prev != kNoShard && prev != s) {
          return Status::Contradiction("slot " + std::to_string(slot) + " is claimed by shards " +
                                       t_.shards[prev].id + " and " + t_.shards[s].id);
        }
        t_.slot_to_shard[slot] = static_cast<uint16_t>(s);
      }
    }
  }
  // What is kept is sized to what was used (growth and Reserve() hints
  // leave spare capacity that would otherwise live as long as the topology).
  t_.nodes.shrink_to_fit();
  t_.shards.shrink_to_fit();
  auto out = std::make_shared<const Topology>(std::move(t_));
  t_ = Topology();
  by_key_.Clear();
  by_address_.Clear();
  return std::shared_ptr<const Topology>(std::move(out));
}

}  // namespace cloudroute
