#include "cloudroute/core/read_policy.hpp"

#include <cctype>
#include <string>

namespace cloudroute {

namespace {
constexpr const char *kNames[kPolicyCount] = {"master", "prefer-replica", "local",
                                              "local-replicas-first", "nearest"};
}

const char *PolicyName(Policy p) {
  const int i = static_cast<int>(p);
  return i >= 0 && i < kPolicyCount ? kNames[i] : "?";
}

bool PolicyFromName(std::string_view name, Policy *out) {
  std::string norm;
  for (char c : name) {
    norm.push_back(c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  for (int i = 0; i < kPolicyCount; ++i) {
    if (norm == kNames[i]) {
      *out = static_cast<Policy>(i);
      return true;
    }
  }
  return false;
}

uint64_t RankKey(Policy p, const RankInput &in, uint32_t band) {
  const uint64_t tier = static_cast<uint64_t>(in.tier);
  const uint64_t master_first = in.role == Role::kMaster ? 0 : 1;
  const uint64_t replica_first = 1 - master_first;
  switch (p) {
    case Policy::kMaster:
      return 0;
    case Policy::kPreferReplica:
      return (replica_first << 8) | tier;
    case Policy::kLocal:
      return (tier << 8) | master_first;
    case Policy::kLocalReplicasFirst:
      return (tier << 8) | replica_first;
    case Policy::kNearest:
      // Measured nodes by band; unmeasured ones after them, by tier.
      if (in.rtt_us != 0) return static_cast<uint64_t>(band);
      return (1ull << 40) | (tier << 8) | master_first;
  }
  return 0;
}

}  // namespace cloudroute
