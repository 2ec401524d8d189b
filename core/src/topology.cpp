// TopologyBuilder: turns per-entry facts from a reply into one consistent,
// immutable Topology.
#include "cloudroute/core/topology.hpp"

#include <algorithm>

namespace cloudroute {

std::string FormatAddress(const std::string &host, uint16_t port) {
  if (host.find(':') != std::string::npos) return "[" + host + "]:" + std::to_string(port);
  return host + ":" + std::to_string(port);
}

Status ParseHostPort(std::string_view text, std::string *host, uint16_t *port) {
  std::string_view h, p;
  if (!text.empty() && text.front() == '[') {
    const size_t close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return Error(Code::kParse, "bad address '" + std::string(text) + "' (want [v6]:port)");
    }
    h = text.substr(1, close - 1);
    p = text.substr(close + 2);
  } else {
    const size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) {
      return Error(Code::kParse, "bad address '" + std::string(text) + "' (want host:port)");
    }
    h = text.substr(0, colon);
    p = text.substr(colon + 1);
    if (h.find(':') != std::string_view::npos) {
      return Error(Code::kParse,
                   "bad address '" + std::string(text) + "' (put IPv6 hosts in brackets)");
    }
  }
  if (h.empty()) return Error(Code::kParse, "bad address '" + std::string(text) + "' (no host)");
  uint32_t v = 0;
  if (p.empty() || p.size() > 5) {
    return Error(Code::kParse, "bad port in '" + std::string(text) + "'");
  }
  for (char c : p) {
    if (c < '0' || c > '9') return Error(Code::kParse, "bad port in '" + std::string(text) + "'");
    v = v * 10 + static_cast<uint32_t>(c - '0');
  }
  if (v == 0 || v > 65535)
    return Error(Code::kParse, "port out of range in '" + std::string(text) + "'");
  host->assign(h);
  *port = static_cast<uint16_t>(v);
  return Status::Ok();
}

Result<uint32_t> TopologyBuilder::Intern(const NodeSpec &spec, Role role) {
  if (spec.host.empty() && spec.id.empty()) {
    return Error(Code::kParse, "a node has neither an endpoint nor an id");
  }
  const std::string key =
      !spec.id.empty() ? "id:" + spec.id : "addr:" + FormatAddress(spec.host, spec.port);
  auto it = by_key_.find(key);
  if (it != by_key_.end()) {
    TopoNode &n = t_.nodes[it->second];
    if (n.role != role) {
      return Error(Code::kParse, "node " + n.address() + " is listed as both master and replica");
    }
    return it->second;
  }
  if (t_.nodes.size() >= 0xFFFFu) return Error(Code::kLimit, "more than 65535 nodes");
  TopoNode n;
  n.id = spec.id;
  n.host = spec.host;
  n.ip = spec.ip;
  n.port = spec.port;
  n.tls_port = spec.tls_port;
  n.role = role;
  n.health = spec.health;
  n.zone = spec.zone;
  const uint32_t index = static_cast<uint32_t>(t_.nodes.size());
  t_.nodes.push_back(std::move(n));
  by_key_.emplace(key, index);
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
    return Error(Code::kParse, "replica " + n.address() + " is listed under two masters");
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
          return Error(Code::kParse, "slot " + std::to_string(slot) + " is claimed by shards " +
                                         t_.shards[prev].id + " and " + t_.shards[s].id);
        }
        t_.slot_to_shard[slot] = static_cast<uint16_t>(s);
      }
    }
  }
  auto out = std::make_shared<const Topology>(std::move(t_));
  t_ = Topology();
  by_key_.clear();
  return std::shared_ptr<const Topology>(std::move(out));
}

}  // namespace cloudroute
