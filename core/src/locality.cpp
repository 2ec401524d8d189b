#include "cloudroute/core/locality.hpp"

#include "cloudroute/core/topology.hpp"

namespace cloudroute {

std::string Location::ToString() const {
  auto part = [](const std::string &s) { return s.empty() ? std::string("?") : s; };
  return part(cloud) + "/" + part(region) + "/" + part(zone);
}

Result<Location> ParseLocation(std::string_view text) {
  if (text.empty()) return Error(Code::kParse, "empty location (want cloud[/region[/zone]])");
  if (Status st = CheckPrintable(text, "location"); !st.ok()) return st;
  Location loc;
  std::string *levels[] = {&loc.cloud, &loc.region, &loc.zone};
  size_t level = 0, start = 0;
  while (true) {
    const size_t slash = text.find('/', start);
    const std::string_view part = text.substr(
        start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (level >= 3) {
      return Error(Code::kParse, "location '" + std::string(text) +
                                     "' has more than three levels (cloud/region/zone)");
    }
    levels[level++]->assign(part);
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  if (loc.empty())
    return Error(Code::kParse, "location '" + std::string(text) + "' names no level");
  return loc;
}

const char *TierName(Tier tier) {
  switch (tier) {
    case Tier::kLocal:
      return "local";
    case Tier::kSameRegion:
      return "same-region";
    case Tier::kSameCloud:
      return "same-cloud";
    case Tier::kOtherCloud:
      return "other-cloud";
    case Tier::kUnknown:
      return "unknown";
  }
  return "?";
}

namespace {

void Overlay(const Location &src, Location *dst) {
  if (!src.cloud.empty()) dst->cloud = src.cloud;
  if (!src.region.empty()) dst->region = src.region;
  if (!src.zone.empty()) dst->zone = src.zone;
}

}  // namespace

size_t MatchRule(const LocalityConfig &cfg, const TopoNode &node) {
  // CIDR rules, on the separately reported IP first, then the endpoint.
  IpAddress ip;
  if (cfg.rules.empty() || !(ParseIp(node.ip(), &ip) || ParseIp(node.host(), &ip))) return kNoRule;
  size_t best = kNoRule;
  for (size_t i = 0; i < cfg.rules.size(); ++i) {
    const Cidr &c = cfg.rules[i].cidr;
    if (c.Contains(ip) && (best == kNoRule || c.prefix() > cfg.rules[best].cidr.prefix())) best = i;
  }
  return best;
}

Placement Locate(const LocalityConfig &cfg, const TopoNode &node, std::string_view reported_zone) {
  return LocateByRule(cfg, node, MatchRule(cfg, node), reported_zone);
}

Placement LocateByRule(const LocalityConfig &cfg, const TopoNode &node, size_t rule,
                       std::string_view reported_zone) {
  Placement p;
  p.source = "none";
  // 1. The CIDR rule.
  if (rule != kNoRule) {
    const LocationRule &best = cfg.rules[rule];
    p.local = best.local;
    p.location = best.local ? cfg.client : best.location;
    p.source = (best.local ? "local-cidr " : "cidr ") + best.cidr.text();
  }
  // 2. The server-reported zone.
  if (!reported_zone.empty()) {
    auto z = cfg.by_zone.find(std::string(reported_zone));
    const bool mapped = z != cfg.by_zone.end();
    if (mapped) {
      Overlay(z->second, &p.location);
    } else {
      p.location.zone = std::string(reported_zone);
    }
    p.local = false;
    p.source = "server zone " + std::string(reported_zone);
    if (!mapped && !cfg.client_zone.empty()) {
      // The client zone: this zone is the client's, or another of its region.
      p.local = reported_zone == cfg.client_zone;
      p.client_region = !p.local;
      p.source += p.local ? " (the client zone)" : " (not the client zone " + cfg.client_zone + ")";
    }
  }
  // 3. The exact node map.
  if (cfg.by_node.empty()) return p;  // spares formatting the address
  auto n = cfg.by_node.find(node.address());
  if (n == cfg.by_node.end() && !node.id().empty()) n = cfg.by_node.find(std::string(node.id()));
  if (n != cfg.by_node.end()) {
    p.location = n->second;
    p.local = false;
    p.client_region = false;
    p.source = "node map " + n->first;
  }
  return p;
}

Tier TierOf(const Location &client, const Placement &p) {
  if (p.local) return Tier::kLocal;
  if (p.client_region) return Tier::kSameRegion;
  const Location &n = p.location;
  auto compatible = [](const std::string &a, const std::string &b) {
    return a.empty() || b.empty() || a == b;
  };
  if (!client.zone.empty() && client.zone == n.zone && compatible(client.cloud, n.cloud) &&
      compatible(client.region, n.region)) {
    return Tier::kLocal;
  }
  if (client.cloud.empty() || n.cloud.empty()) return Tier::kUnknown;
  if (client.cloud != n.cloud) return Tier::kOtherCloud;
  if (client.region.empty() || n.region.empty() || client.region != n.region) {
    return Tier::kSameCloud;
  }
  return Tier::kSameRegion;
}

}  // namespace cloudroute
