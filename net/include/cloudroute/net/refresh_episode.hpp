// RefreshEpisode: whether a refresh should be followed by another one soon.
//
// A topology read mid-transition is incomplete: during a failover the
// replicas of the old master are listed under no shard until they follow
// the new one (which takes gossip, up to about a node timeout), or, by a
// node that learnt of the new master before the old one moved, under the old
// master listed as a shard of its own with no slots; and a syncing replica is
// "loading". All of them are left out of the read candidates. So after a
// change, the client refreshes again at the triggered pace while a node of
// the last settled topology is missing, a master that owned slots then owns
// none, a replica is loading, or the reply still changes — at most
// kMaxFollowUps times per episode — instead of leaving reads (and pub/sub
// names) on a remote node for a whole refresh interval.
//
// Thread-safety: none; the client calls it under its refresh mutex.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_set>

#include "cloudroute/core/topology.hpp"

namespace cloudroute {
namespace net {

class RefreshEpisode {
 public:
  static constexpr uint32_t kMaxFollowUps = 10;

  // Records the topology a refresh just installed; true when a follow-up
  // refresh is wanted.
  bool Observe(const Topology &t);

 private:
  std::string signature_;                           // of the last installed topology
  uint32_t left_ = 0;                               // follow-up refreshes left in this episode
  bool running_ = false;                            // an episode is running
  std::unordered_set<std::string> settled_nodes_;   // addresses when last settled
  std::unordered_set<std::string> settled_owners_;  // masters owning slots when last settled
};

// What the read candidates depend on, as text: every shard's slot ranges and
// its nodes' addresses, roles and health.
std::string TopologySignature(const Topology &t);

}  // namespace net
}  // namespace cloudroute
