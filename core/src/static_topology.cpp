// The static topology text form, for deployments without cluster mode (a
// master with replicas, or a fixed set of shards):
//
//   # comment
//   shard slots=0-8191,10000 master=10.0.0.1:6379 replicas=10.1.0.1:6379 id=orders
//
// One shard per line; `slots=` may be left out when the file has a single
// shard (it then owns all 16384 slots). Every error names its line.

#include <unordered_map>

#include "cloudroute/core/topology.hpp"

namespace cloudroute {

namespace {

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(sep, start);
    if (end == std::string_view::npos) end = s.size();
    out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

bool ParseSlot(std::string_view s, uint32_t *out) {
  if (s.empty() || s.size() > 5) return false;
  uint32_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<uint32_t>(c - '0');
  }
  *out = v;
  return true;
}

struct Line {
  size_t number = 0;
  std::string id;
  std::vector<std::pair<uint32_t, uint32_t>> ranges;
  bool has_slots = false;
  NodeSpec master;
  bool has_master = false;
  std::vector<NodeSpec> replicas;
};

std::string LineName(const Line &l) { return "static topology line " + std::to_string(l.number); }

Status ParseLine(std::string_view text, const std::string &where, Line *line) {
  std::vector<std::string_view> words;
  for (std::string_view w : Split(text, ' ')) {
    for (std::string_view t : Split(w, '\t')) {
      if (!t.empty()) words.push_back(t);
    }
  }
  if (words.empty()) return Status::Ok();
  if (words[0] != "shard") {
    return Error(Code::kParse, where + ": expected 'shard', got " + Quote(words[0]));
  }
  std::vector<std::string_view> keys;
  for (size_t i = 1; i < words.size(); ++i) {
    const std::string_view w = words[i];
    const size_t eq = w.find('=');
    if (eq == std::string_view::npos) {
      return Error(Code::kParse, where + ": expected key=value, got " + Quote(w));
    }
    const std::string_view key = w.substr(0, eq), val = w.substr(eq + 1);
    // A repeated key would silently keep one of its values.
    for (std::string_view seen : keys) {
      if (seen == key) return Error(Code::kParse, where + ": " + Quote(key) + " is given twice");
    }
    keys.push_back(key);
    if (key == "id") {
      if (!IsValidNodeId(val)) {
        return Error(Code::kParse,
                     where + ": id " + Quote(val) + " is not printable ASCII without spaces");
      }
      line->id.assign(val);
    } else if (key == "slots") {
      line->has_slots = true;
      for (std::string_view r : Split(val, ',')) {
        const size_t dash = r.find('-');
        uint32_t a, b;
        bool ok = dash == std::string_view::npos
                      ? ParseSlot(r, &a) && (b = a, true)
                      : ParseSlot(r.substr(0, dash), &a) && ParseSlot(r.substr(dash + 1), &b);
        if (!ok || a > b || b >= kSlotCount) {
          return Error(Code::kParse,
                       where + ": bad slot range " + Quote(r) + " (want N or N-M within 0-16383)");
        }
        line->ranges.emplace_back(a, b);
      }
    } else if (key == "master") {
      Status s = ParseHostPort(val, &line->master.host, &line->master.port);
      if (!s.ok()) return Error(Code::kParse, where + ": " + s.message());
      line->has_master = true;
    } else if (key == "replicas") {
      for (std::string_view r : Split(val, ',')) {
        NodeSpec n;
        Status s = ParseHostPort(r, &n.host, &n.port);
        if (!s.ok()) return Error(Code::kParse, where + ": " + s.message());
        line->replicas.push_back(std::move(n));
      }
    } else {
      return Error(Code::kParse, where + ": unknown key " + Quote(key));
    }
  }
  if (!line->has_master) return Error(Code::kParse, where + ": shard has no master=");
  return Status::Ok();
}

}  // namespace

Result<std::shared_ptr<const Topology>> ParseStaticTopology(std::string_view text) {
  if (text.find('\0') != std::string_view::npos) {
    return Error(Code::kParse, "static topology: NUL byte in the text");
  }
  std::vector<Line> lines;
  size_t lineno = 0;
  for (std::string_view raw : Split(text, '\n')) {
    ++lineno;
    const size_t hash = raw.find('#');
    if (hash != std::string_view::npos) raw = raw.substr(0, hash);
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    Line line;
    line.number = lineno;
    Status s = ParseLine(raw, "static topology line " + std::to_string(lineno), &line);
    if (!s.ok()) return s;
    if (line.has_master) lines.push_back(std::move(line));
  }
  if (lines.empty()) return Error(Code::kParse, "static topology: no shard lines");
  TopologyBuilder b;
  std::vector<std::string> ids;
  std::unordered_map<std::string, size_t> master_line;
  for (size_t i = 0; i < lines.size(); ++i) {
    Line &l = lines[i];
    if (!l.id.empty()) {
      for (const std::string &seen : ids) {
        if (seen == l.id)
          return Error(Code::kParse, "static topology: duplicate shard id '" + l.id + "'");
      }
      ids.push_back(l.id);
    }
    if (!l.has_slots) {
      if (lines.size() > 1) {
        return Error(Code::kParse, "static topology: shard " + std::to_string(i + 1) +
                                       " has no slots= (required when there are several shards)");
      }
      l.ranges.emplace_back(0, kSlotCount - 1);
    }
    // Two lines with one master would merge into one shard without a word.
    const std::string master = FormatAddress(l.master.host, l.master.port);
    auto [seen, fresh] = master_line.emplace(master, l.number);
    if (!fresh) {
      return Error(Code::kParse, "static topology: master " + master + " is on lines " +
                                     std::to_string(seen->second) + " and " +
                                     std::to_string(l.number));
    }
    l.master.id = l.id;
    auto shard = b.AddShard(l.master);
    if (!shard.ok()) return Error(Code::kParse, LineName(l) + ": " + shard.status().message());
    for (auto [a, z] : l.ranges) {
      Status s = b.AddRange(*shard, a, z);
      if (!s.ok()) return s;
    }
    for (const NodeSpec &r : l.replicas) {
      Status s = b.AddReplica(*shard, r);
      if (!s.ok()) return Error(Code::kParse, LineName(l) + ": " + s.message());
    }
  }
  return b.Build();
}

}  // namespace cloudroute
