// Follow-up refreshes after a change (see refresh_episode.hpp).
#include "cloudroute/net/refresh_episode.hpp"

#include <vector>

namespace cloudroute {
namespace net {

std::string TopologySignature(const Topology &t) {
  std::string out;
  for (const TopoShard &sh : t.shards) {
    for (const SlotRange &r : sh.ranges)
      out += std::to_string(r.start) + "-" + std::to_string(r.end) + ",";
    std::vector<uint32_t> members(sh.replicas.begin(), sh.replicas.end());
    if (sh.master != kNoNode) members.insert(members.begin(), sh.master);
    for (uint32_t i : members) {
      const TopoNode &n = t.nodes[i];
      out += n.address() + (n.role == Role::kMaster ? "M" : "R") +
             std::to_string(static_cast<int>(n.health)) + ";";
    }
    out += "|";
  }
  return out;
}

bool RefreshEpisode::Observe(const Topology &t) {
  const std::string sig = TopologySignature(t);
  bool unsettled = !signature_.empty() && sig != signature_;
  std::unordered_set<std::string> present, owners;
  for (const TopoNode &n : t.nodes) {
    present.insert(n.address());
    unsettled |= n.health == ReportedHealth::kLoading;
  }
  for (const std::string &a : settled_nodes_) unsettled |= present.count(a) == 0;
  for (const TopoShard &sh : t.shards) {
    if (sh.master == kNoNode) continue;
    const std::string master = t.nodes[sh.master].address();
    // A master that lost all its slots: a demoted one whose replicas are
    // listed under it, not under the new master, until the nodes follow.
    if (!sh.ranges.empty()) {
      owners.insert(master);
    } else if (settled_owners_.count(master) != 0) {
      unsettled = true;
    }
  }
  signature_ = sig;
  if (unsettled && left_ == 0 && !running_) {
    left_ = kMaxFollowUps;  // a new episode
    running_ = true;
  }
  if (unsettled && left_ > 0) {
    --left_;
    return true;
  }
  running_ = false;
  left_ = 0;
  settled_nodes_ = std::move(present);
  settled_owners_ = std::move(owners);
  return false;
}

}  // namespace net
}  // namespace cloudroute
