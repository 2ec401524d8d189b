#include "cloudroute/core/read_policy.hpp"

#include "cloudroute/core/names.hpp"

namespace cloudroute {

namespace {
constexpr const char *kNames[kPolicyCount] = {
    "master",  "prefer-replica", "local",       "local-replicas-first",
    "nearest", "local-spread",   "replica-only"};
constexpr const char *kSelectionNames[kSelectionCount] = {"random", "round-robin", "least-loaded"};

template <typename E, size_t N>
bool FromName(std::string_view name, const char *const (&names)[N], E *out) {
  const int i = IndexOfName(name, names);
  if (i >= 0) *out = static_cast<E>(i);
  return i >= 0;
}
}  // namespace

const char *PolicyName(Policy p) {
  const int i = static_cast<int>(p);
  return i >= 0 && i < kPolicyCount ? kNames[i] : "?";
}

bool PolicyFromName(std::string_view name, Policy *out) { return FromName(name, kNames, out); }

const char *SelectionName(Selection s) {
  const int i = static_cast<int>(s);
  return i >= 0 && i < kSelectionCount ? kSelectionNames[i] : "?";
}

bool SelectionFromName(std::string_view name, Selection *out) {
  return FromName(name, kSelectionNames, out);
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
    case Policy::kLocalSpread:
    case Policy::kReplicaOnly:  // only replicas are admitted: one rank per tier
      return tier << 8;
    case Policy::kNearest:
      // Measured nodes by band; unmeasured ones after them, by tier.
      if (in.rtt_us != 0) return static_cast<uint64_t>(band);
      return (1ull << 40) | (tier << 8) | master_first;
  }
  return 0;
}

}  // namespace cloudroute
