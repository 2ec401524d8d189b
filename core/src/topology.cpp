// TopologyBuilder: turns per-entry facts from a reply into one consistent,
// immutable Topology.
#include "cloudroute/core/topology.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "cloudroute/core/cidr.hpp"

namespace cloudroute {

namespace {

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// What a node is, for messages: "master abc" or "replica (no id)".
std::string Describe(Role role, std::string_view id) {
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
  // Eight bytes at a time (every reply carries thousands of 40-byte ids):
  // a byte below '!' or above '~' sets its top bit in `low` or `high`.
  constexpr uint64_t kOnes = 0x0101010101010101ull, kTops = 0x8080808080808080ull;
  size_t i = 0;
  for (; i + 8 <= id.size(); i += 8) {
    uint64_t x;
    std::memcpy(&x, id.data() + i, 8);
    const uint64_t low = (x - kOnes * '!') & ~x & kTops;
    const uint64_t high = ((x + kOnes * (0x7F - '~')) | x) & kTops;
    if ((low | high) != 0) return false;
  }
  for (; i < id.size(); ++i) {
    if (id[i] <= ' ' || id[i] > '~') return false;
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

std::string FormatAddress(std::string_view host, uint16_t port) {
  // Sized exactly: registry entries keep the string as long as they live.
  const bool v6 = host.find(':') != std::string_view::npos;
  // The port's digits written in place, last first (one per registry node).
  const size_t n = port >= 10000 ? 5 : port >= 1000 ? 4 : port >= 100 ? 3 : port >= 10 ? 2 : 1;
  std::string out(host.size() + (v6 ? 3 : 1) + n, ':');
  char *o = out.data();
  if (v6) *o++ = '[';
  o = std::copy(host.begin(), host.end(), o);
  if (v6) *o++ = ']';
  ++o;  // the ':'
  uint32_t p = port;
  for (char *d = o + n; d != o; p /= 10) *--d = static_cast<char>('0' + p % 10);
  return out;
}

void SetNodeText(TopoNode *n, std::string_view id, std::string_view host, std::string_view ip,
                 std::string_view zone, std::string *text) {
  const bool ip_is_host = !ip.empty() && ip == host;
  // One resize, then each part and its NUL in place (not an append each).
  const size_t at = text->size();
  text->resize(at + id.size() + host.size() + (ip_is_host ? 0 : ip.size() + 1) + zone.size() + 3);
  char *o = text->data() + at;
  auto put = [&o](std::string_view part) {
    if (!part.empty()) std::memcpy(o, part.data(), part.size());  // data() may be null
    o[part.size()] = '\0';
    o += part.size() + 1;
  };
  put(id);
  put(host);
  if (!ip_is_host) put(ip);  // else not stored twice
  put(zone);
  n->id_len = static_cast<uint16_t>(id.size());
  n->host_len = static_cast<uint8_t>(host.size());
  n->ip_len = ip_is_host ? TopoNode::kIpIsHost : static_cast<uint8_t>(ip.size());
  n->zone_len = static_cast<uint16_t>(zone.size());
}

char *TextArena::Allocate(size_t n) {
  blocks_.emplace_back(new char[n]);
  return blocks_.back().get();
}

std::string_view TextArena::Keep(std::string_view s) {
  char *p = Allocate(s.size() + 1);
  std::copy(s.begin(), s.end(), p);
  p[s.size()] = '\0';
  return std::string_view(p, s.size());
}

Status TextArena::Put(TopoNode *n, std::string_view id, std::string_view host, std::string_view ip,
                      std::string_view zone) {
  if (id.size() > 256 || host.size() > 255 || ip.size() > 254 || zone.size() > 0xFFFF) {
    return Error(Code::kInvalid, "node text too long (id " + Quote(id) + ")");
  }
  std::string text;
  SetNodeText(n, id, host, ip, zone, &text);
  char *p = Allocate(text.size());
  std::copy(text.begin(), text.end(), p);
  n->text = p;
  return Status::Ok();
}

bool SplitHostPort(std::string_view text, HostPortView *out) {
  size_t colon;
  if (!text.empty() && text.front() == '[') {
    const size_t close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return false;
    }
    out->host = text.substr(1, close - 1);
    out->bracketed = true;
    colon = close + 1;
  } else {
    colon = text.rfind(':');
    if (colon == std::string_view::npos) return false;
    out->host = text.substr(0, colon);
    out->bracketed = false;
  }
  out->port = text.substr(colon + 1);
  return true;
}

Status ParseHostPort(std::string_view text, std::string *host, uint16_t *port) {
  const std::string quoted = Quote(text);
  HostPortView split;
  if (!SplitHostPort(text, &split)) {
    const bool bracketed = !text.empty() && text.front() == '[';
    return Error(Code::kParse,
                 "bad address " + quoted + (bracketed ? " (want [v6]:port)" : " (want host:port)"));
  }
  const std::string_view h = split.host, p = split.port;
  if (split.bracketed) {
    IpAddress ip;
    if (!ParseIp(h, &ip) || !ip.v6) {
      return Error(Code::kParse, "bad address " + quoted + " (brackets hold an IPv6 literal)");
    }
  } else if (h.find(':') != std::string_view::npos) {
    return Error(Code::kParse, "bad address " + quoted + " (put IPv6 hosts in brackets)");
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

uint64_t HashKey(const NodeSpecView &spec) {
  return spec.id.empty() ? HashBytes(spec.host, spec.port) : HashBytes(spec.id, 0);
}

// Appends s and its NUL to text.
void AppendText(std::string *text, std::string_view s) {
  text->append(s.data(), s.size());
  text->push_back('\0');
}

}  // namespace

void TopologyBuilder::Reserve(size_t shards, size_t nodes) {
  t_.shards.reserve(shards);
  shard_text_.reserve(shards);
  t_.nodes.reserve(nodes);
  text_at_.reserve(nodes);
  // A 40-byte id, an IPv4 host and four NULs a node; a guess, given back
  // when the text moves into the topology's arena.
  text_.reserve(nodes * 56);
  by_key_.Reserve(nodes);
  by_address_.Reserve(nodes);
}

Result<uint32_t> TopologyBuilder::Intern(const NodeSpecView &spec, Role role) {
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
  // Valid ids, hosts and ips fit their fields; a host "?" or an ip "?" too.
  if (spec.id.size() > 256 || spec.host.size() > 255 || spec.ip.size() > 254) {
    return Error(Code::kParse, "node " + Quote(spec.id) + ": id, host or ip too long");
  }
  if (spec.zone.size() > 0xFFFF) {
    return Error(Code::kParse, "node " + Quote(spec.id) + ": availability zone " +
                                   Quote(spec.zone) + " longer than 65535 bytes");
  }
  // A node is keyed by its id, or by its address when it has none.
  const uint64_t key_hash = HashKey(spec);
  const uint32_t found = by_key_.Find(key_hash, [&](uint32_t i) {
    const TopoNode &n = t_.nodes[i];
    return spec.id.empty() ? n.id_len == 0 && n.port == spec.port && NodeHost(i) == spec.host
                           : NodeId(i) == spec.id;
  });
  if (found != HashIndex::kNone) {
    const TopoNode &n = t_.nodes[found];
    if (NodeHost(found) != spec.host || n.port != spec.port) {
      return Status::Contradiction("node id " + Quote(spec.id) + " at " + NodeAddress(found) +
                                   " and " + FormatAddress(spec.host, spec.port));
    }
    if (n.role != role) {
      return Status::Contradiction("node " + NodeAddress(found) +
                                   " is listed as both master and replica");
    }
    return found;
  }
  // A second node at a known address: two masters, a master that is also
  // another shard's replica, or a replica at its own master's address.
  const uint64_t address_hash = HashBytes(spec.host, spec.port);
  if (known) {
    const uint32_t a = by_address_.Find(address_hash, [&](uint32_t i) {
      return t_.nodes[i].port == spec.port && NodeHost(i) == spec.host;
    });
    if (a != HashIndex::kNone) {
      return Status::Contradiction(
          "address " + FormatAddress(spec.host, spec.port) + " is given to two nodes: " +
          Describe(t_.nodes[a].role, NodeId(a)) + " and " + Describe(role, spec.id));
    }
  }
  // Node indices fit 16 bits with 0xFFFF left free (kNoTopoNode, a
  // snapshot's placement index): the reply itself is refused past that.
  if (t_.nodes.size() >= 0xFFFEu) return Error(Code::kLimit, "more than 65534 nodes");
  const uint32_t index = static_cast<uint32_t>(t_.nodes.size());
  t_.nodes.emplace_back();
  TopoNode &n = t_.nodes.back();
  text_at_.push_back(static_cast<uint32_t>(text_.size()));
  SetNodeText(&n, spec.id, spec.host, spec.ip, spec.zone, &text_);
  n.port = spec.port;
  n.tls_port = spec.tls_port;
  n.role = role;
  n.health = spec.health;
  by_key_.Insert(key_hash, index);
  if (known) by_address_.Insert(address_hash, index);
  return index;
}

Result<uint32_t> TopologyBuilder::AddShard(const NodeSpecView &master) {
  auto idx = Intern(master, Role::kMaster);
  if (!idx.ok()) return idx.status();
  TopoNode &n = t_.nodes[*idx];
  if (n.shard != kNoNode) return n.shard;
  if (t_.shards.size() >= kNoShard) return Error(Code::kLimit, "more than 65534 shards");
  TopoShard s;
  s.master = *idx;
  if (n.id_len != 0) {
    shard_text_.emplace_back(text_at_[*idx], n.id_len);  // the master's id
  } else {
    const std::string address = NodeAddress(*idx);
    shard_text_.emplace_back(static_cast<uint32_t>(text_.size()),
                             static_cast<uint32_t>(address.size()));
    AppendText(&text_, address);
  }
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

Status TopologyBuilder::AddReplica(uint32_t shard, const NodeSpecView &replica) {
  if (shard >= t_.shards.size()) return Error(Code::kInvalid, "no such shard");
  auto idx = Intern(replica, Role::kReplica);
  if (!idx.ok()) return idx.status();
  TopoNode &n = t_.nodes[*idx];
  if (n.shard == kNoNode) {
    n.shard = shard;
    t_.shards[shard].replicas.push_back(*idx);
  } else if (n.shard != shard) {
    return Status::Contradiction("replica " + NodeAddress(*idx) + " is listed under two masters");
  }
  return Status::Ok();
}

uint16_t Topology::ShardOfSlot(uint32_t slot) const {
  auto after = std::upper_bound(slot_runs.begin(), slot_runs.end(), slot,
                                [](uint32_t v, const SlotRun &r) { return v < r.start; });
  if (after == slot_runs.begin()) return kNoShard;
  const SlotRun &run = *(after - 1);
  return slot <= run.end ? run.shard : kNoShard;
}

namespace {

// t[from, to) = v, four slots to a 64-bit store between the edges (every
// snapshot build fills all 16384 slots).
void FillSlots(uint16_t *t, uint32_t from, uint32_t to, uint16_t v) {
  for (; from < to && (from & 3) != 0; ++from) t[from] = v;
  const uint64_t four = uint64_t{v} * 0x0001000100010001ull;
  for (; from + 4 <= to; from += 4) std::memcpy(t + from, &four, sizeof four);
  for (; from < to; ++from) t[from] = v;
}

}  // namespace

void Topology::FillSlotTable(std::array<uint16_t, kSlotCount> *table) const {
  // The runs are sorted and disjoint: each slot is written once.
  uint32_t next = 0;
  for (const SlotRun &r : slot_runs) {
    FillSlots(table->data(), next, r.start, kNoShard);
    FillSlots(table->data(), r.start, r.end + 1u, r.shard);
    next = r.end + 1u;
  }
  FillSlots(table->data(), next, kSlotCount, kNoShard);
}

Status TopologyBuilder::SlotConflict() const {
  // Slot by slot, shard by shard: the first slot a shard claims that an
  // earlier one holds.
  std::vector<uint16_t> slot_to_shard(kSlotCount, kNoShard);
  for (uint32_t s = 0; s < t_.shards.size(); ++s) {
    for (const SlotRange &r : t_.shards[s].ranges) {
      for (uint32_t slot = r.start; slot <= r.end; ++slot) {
        const uint16_t prev = slot_to_shard[slot];
        if (prev != kNoShard && prev != s) {
          return Status::Contradiction("slot " + std::to_string(slot) + " is claimed by shards " +
                                       std::string(ShardId(prev)) + " and " +
                                       std::string(ShardId(s)));
        }
        slot_to_shard[slot] = static_cast<uint16_t>(s);
      }
    }
  }
  return Status::Ok();
}

Result<std::shared_ptr<const Topology>> TopologyBuilder::Build() {
  // Each shard's ranges sorted and merged in place; then every shard's
  // ranges sorted by start: disjoint unless two neighbours overlap, and then
  // the runs (adjacent ranges of one shard were merged already). Per range,
  // not per slot; a conflict is named slot by slot (SlotConflict).
  size_t total = 0;
  for (TopoShard &shard : t_.shards) {
    auto &ranges = shard.ranges;
    std::sort(ranges.begin(), ranges.end(),
              [](const SlotRange &a, const SlotRange &b) { return a.start < b.start; });
    size_t kept = 0;
    for (const SlotRange &r : ranges) {
      if (kept != 0 && r.start <= static_cast<uint32_t>(ranges[kept - 1].end) + 1) {
        ranges[kept - 1].end = std::max(ranges[kept - 1].end, r.end);
      } else {
        ranges[kept++] = r;
      }
    }
    ranges.Truncate(kept);
    total += kept;
  }
  t_.slot_runs.reserve(total);  // kept as long as the topology: sized exactly
  for (uint32_t s = 0; s < t_.shards.size(); ++s) {
    for (const SlotRange &r : t_.shards[s].ranges) {
      t_.slot_runs.push_back(SlotRun{r.start, r.end, static_cast<uint16_t>(s)});
    }
  }
  std::sort(t_.slot_runs.begin(), t_.slot_runs.end(),
            [](const SlotRun &a, const SlotRun &b) { return a.start < b.start; });
  for (size_t i = 1; i < t_.slot_runs.size(); ++i) {
    if (t_.slot_runs[i].start <= t_.slot_runs[i - 1].end) {
      Status conflict = SlotConflict();
      if (conflict.ok())
        conflict = Status::Contradiction("overlapping slot ranges");  // unreachable
      return conflict;
    }
  }
  // What is kept is sized to what was used (growth and Reserve() hints
  // leave spare capacity that would otherwise live as long as the topology).
  t_.nodes.shrink_to_fit();
  t_.shards.shrink_to_fit();
  // The text moves into one block of the topology's arena, sized to what
  // was used, and the views are pointed at it.
  char *text = t_.text.Allocate(text_.size());
  std::copy(text_.begin(), text_.end(), text);
  for (size_t i = 0; i < t_.nodes.size(); ++i) t_.nodes[i].text = text + text_at_[i];
  for (size_t s = 0; s < t_.shards.size(); ++s) {
    t_.shards[s].id = std::string_view(text + shard_text_[s].first, shard_text_[s].second);
  }
  auto out = std::make_shared<const Topology>(std::move(t_));
  t_ = Topology();
  std::string().swap(text_);
  std::vector<uint32_t>().swap(text_at_);
  std::vector<std::pair<uint32_t, uint32_t>>().swap(shard_text_);
  by_key_.Clear();
  by_address_.Clear();
  return std::shared_ptr<const Topology>(std::move(out));
}

}  // namespace cloudroute
