// NearerNode: whether a subscribed pub/sub name should make a planned move
// to a node of a better tier than the one it is on — the decision only,
// with no sockets, so it is tested alone (tests/net/nearer_node_test).
//
// A name lands on a worse tier when its nearer node could not be used at
// the time (after a failover the local replica is still syncing: no read
// candidate yet). Once a node of a better tier is a healthy candidate again
// — a read candidate of the current snapshot (CLUSTER SHARDS says
// "online"), its breaker closed, not avoided by the subscriber — and has
// stayed one for kReadyForMs, the name moves there. Never on a tie (the
// same tier), never twice within kMoveGapMs for one name (moves made: an
// attempt the new node refused leaves the name where it was), and when a node
// of an even better tier is healthy but not yet settled, the name waits for
// it rather than moving twice.
//
// Thread-safety: none (the subscriber's thread owns it).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cloudroute/core/locality.hpp"

namespace cloudroute {
namespace net {

// Since when each node has been seen healthy without a break. A key is a
// node's address, optionally followed by '|' and what else its readiness
// depends on (the subscriber adds its shard's master: a replica re-pointed
// to a new master starts over).
class ReadyClock {
 public:
  // A sample: the nodes healthy now keep the time they became so (or start
  // now); every other node is forgotten.
  void Sample(const std::vector<std::string> &healthy, int64_t now);
  // A node that failed (every key of that address): not ready until
  // sampled healthy again.
  void Forget(const std::string &address);
  // When it became healthy; 0 when it is not.
  int64_t Since(const std::string &key) const;
  // Healthy for at least kReadyForMs.
  bool Settled(const std::string &key, int64_t now) const;

 private:
  std::map<std::string, int64_t> since_;
};

struct NearerOption {
  std::string address;
  Tier tier = Tier::kUnknown;
  bool healthy = false;  // a candidate now, breaker closed, not avoided
};

struct NearerDecision {
  int index = -1;          // the option to move to; -1: stay
  int64_t recheck_ns = 0;  // stay, and decide again then; 0: no need
};

class NearerNode {
 public:
  // How long a node stays healthy before a name moves to it.
  static constexpr uint32_t kReadyForMs = 1000;
  // At most one planned move per name this often.
  static constexpr uint32_t kMoveGapMs = 30000;

  // current: the tier of the name's node; options: its candidates in the
  // read order; last_move_ns: its last planned move made (0: none).
  static NearerDecision Decide(Tier current, const std::vector<NearerOption> &options,
                               const ReadyClock &ready, int64_t last_move_ns, int64_t now);
};

}  // namespace net
}  // namespace cloudroute
