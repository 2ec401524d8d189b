// Locality: where each node is (cloud / region / zone, any level unknown) and
// how far that is from the client, as a tier.
//
// Sources, lowest precedence first; a higher one overrides field by field:
//   1. CIDR rules (longest prefix wins); a "local" rule puts the node in the
//      client's own zone.
//   2. The zone the server reports (CLUSTER SHARDS/SLOTS, or HELLO/INFO via
//      the net layer), mapped through the zone map when it has an entry.
//      Without an entry, and with a client zone set (client_zone, the zone
//      name the servers report for the client's own zone): a node reporting
//      that zone is LOCAL, a node reporting any other zone is SAME_REGION —
//      a cluster's zones are taken as zones of one region, the client's
//      (as for ElastiCache, MemoryDB or one Valkey cluster over a region's
//      availability zones). A cluster over several regions needs the zone
//      map, whose entries win.
//   3. An exact map by "host:port" or node id.
//
// Thread-safety: LocalityConfig is a plain value, read-only once a router
// owns it.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cloudroute/core/cidr.hpp"
#include "cloudroute/core/status.hpp"
#include "cloudroute/core/topology.hpp"

namespace cloudroute {

struct Location {
  std::string cloud, region, zone;
  bool empty() const { return cloud.empty() && region.empty() && zone.empty(); }
  std::string ToString() const;  // "aws/us-east-1/use1-az1", "?" levels for unknown
};

// "cloud[/region[/zone]]"; empty levels are unknown ("//use1-az1" is a zone
// name only). At most three levels, no NUL bytes, not empty.
Result<Location> ParseLocation(std::string_view text);

enum class Tier : uint8_t {
  kLocal = 0,
  kSameRegion = 1,
  kSameCloud = 2,
  kOtherCloud = 3,
  kUnknown = 4,
};
const char *TierName(Tier tier);

struct LocationRule {
  Cidr cidr;
  Location location;
  bool local = false;  // from --local-cidr: "the client's own zone"
};

struct LocalityConfig {
  Location client;
  std::vector<LocationRule> rules;
  std::unordered_map<std::string, Location> by_node;  // "host:port" or node id
  std::unordered_map<std::string, Location> by_zone;  // reported zone name → location
  std::string client_zone;  // reported zone name of the client's own zone; "" = none
};

struct Placement {
  Location location;
  bool local = false;  // matched a local CIDR and nothing overrode it, or reports client_zone
  bool client_region = false;  // reports a zone other than client_zone (not in the zone map)
  std::string source;          // what decided it, for explain()
};

// Where a node is. reported_zone is the server-reported zone (the topology's,
// or a newer one the net layer learned); "" when none.
Placement Locate(const LocalityConfig &cfg, const TopoNode &node, std::string_view reported_zone);

// The CIDR rule that places node (the longest prefix matching its reported
// IP, else its endpoint): an index into cfg.rules, or kNoRule.
constexpr size_t kNoRule = static_cast<size_t>(-1);
size_t MatchRule(const LocalityConfig &cfg, const TopoNode &node);
// Locate() for a node whose rule is already known (MatchRule's answer).
// Without a node map (cfg.by_node empty) the placement depends on the rule
// and reported_zone only, so nodes that share both share one placement: a
// snapshot locates each such pair once, not each node.
Placement LocateByRule(const LocalityConfig &cfg, const TopoNode &node, size_t rule,
                       std::string_view reported_zone);

// The first level at which the node's location differs from the client's.
Tier TierOf(const Location &client, const Placement &p);

}  // namespace cloudroute
