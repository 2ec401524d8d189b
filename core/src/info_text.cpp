// INFO text (see info_text.hpp).
#include "cloudroute/core/info_text.hpp"

#include <charconv>

namespace cloudroute {

namespace {

std::optional<int64_t> ToInt(std::string_view s) {
  int64_t v = 0;
  const char *end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, v);
  if (s.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return v;
}

// "ip=127.0.1.2,port=7002,state=online,offset=3962,lag=0"
bool ParseReplica(std::string_view v, ReplicaInfo *out) {
  while (!v.empty()) {
    const size_t comma = v.find(',');
    const std::string_view item = v.substr(0, comma);
    const size_t eq = item.find('=');
    if (eq != std::string_view::npos) {
      const std::string_view k = item.substr(0, eq), val = item.substr(eq + 1);
      if (k == "ip") {
        out->ip = std::string(val);
      } else if (k == "port") {
        const std::optional<int64_t> p = ToInt(val);
        out->port = p && *p > 0 && *p <= 65535 ? static_cast<uint16_t>(*p) : 0;
      } else if (k == "state") {
        out->state = std::string(val);
      } else if (k == "offset") {
        out->offset = ToInt(val).value_or(-1);
      } else if (k == "lag") {
        out->lag_s = ToInt(val).value_or(-1);
      }
    }
    if (comma == std::string_view::npos) break;
    v.remove_prefix(comma + 1);
  }
  return !out->ip.empty() && out->port != 0;
}

}  // namespace

InfoText InfoText::Parse(std::string_view text) {
  InfoText out;
  std::string section;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty() && line.front() == '#') {
      line.remove_prefix(1);
      while (!line.empty() && line.front() == ' ') line.remove_prefix(1);
      section = std::string(line);
    } else if (const size_t colon = line.find(':'); colon != std::string_view::npos && colon > 0) {
      out.fields_.push_back(InfoField{section, std::string(line.substr(0, colon)),
                                      std::string(line.substr(colon + 1))});
    }
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return out;
}

const std::string *InfoText::Find(std::string_view key) const {
  for (const InfoField &f : fields_) {
    if (f.key == key) return &f.value;
  }
  return nullptr;
}

std::optional<int64_t> InfoText::FindInt(std::string_view key) const {
  const std::string *v = Find(key);
  if (v == nullptr) return std::nullopt;
  return ToInt(*v);
}

ReplicationInfo ParseReplicationInfo(std::string_view info_text) {
  const InfoText info = InfoText::Parse(info_text);
  ReplicationInfo out;
  if (const std::string *v = info.Find("role")) out.role = *v;
  if (const std::string *v = info.Find("master_link_status")) out.master_link_status = *v;
  if (const std::string *v = info.Find("master_sync_in_progress")) out.master_sync_in_progress = *v;
  out.master_repl_offset = info.FindInt("master_repl_offset").value_or(-1);
  for (const InfoField &f : info.fields()) {
    // "slave0", "slave1", …: the word and a number, nothing else.
    if (f.key.size() <= 5 || f.key.compare(0, 5, "slave") != 0 ||
        f.key.find_first_not_of("0123456789", 5) != std::string::npos) {
      continue;
    }
    ReplicaInfo r;
    if (ParseReplica(f.value, &r)) out.replicas.push_back(std::move(r));
  }
  return out;
}

}  // namespace cloudroute
