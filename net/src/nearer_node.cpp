// Planned moves of pub/sub names to nearer nodes (see nearer_node.hpp).
#include "cloudroute/net/nearer_node.hpp"

#include <algorithm>

#include "cloudroute/net/deadline.hpp"

namespace cloudroute {
namespace net {

void ReadyClock::Sample(const std::vector<std::string> &healthy, int64_t now) {
  std::map<std::string, int64_t> next;
  for (const std::string &a : healthy) {
    auto it = since_.find(a);
    next.emplace(a, it != since_.end() ? it->second : now);
  }
  since_.swap(next);
}

int64_t ReadyClock::Since(const std::string &address) const {
  auto it = since_.find(address);
  return it != since_.end() ? it->second : 0;
}

NearerDecision NearerNode::Decide(Tier current, const std::vector<NearerOption> &options,
                                  const ReadyClock &ready, int64_t last_move_ns, int64_t now) {
  NearerDecision d;
  bool better = false;
  Tier best = Tier::kUnknown;
  for (const NearerOption &o : options) {
    if (o.tier >= current) continue;  // a tie is no reason to move
    better = true;
    if (o.healthy && ready.Since(o.address) != 0) best = std::min(best, o.tier);
  }
  if (!better) return d;
  if (last_move_ns != 0 && now - last_move_ns < MsToNs(kMoveGapMs)) {
    d.recheck_ns = last_move_ns + MsToNs(kMoveGapMs);
    return d;
  }
  if (best >= current) {  // nearer nodes exist, none healthy now: look again soon
    d.recheck_ns = DeadlineAfter(kReadyForMs, now);
    return d;
  }
  // The best healthy tier: its first settled node, else wait for the
  // earliest to settle (not a move to a worse one meanwhile).
  int64_t settle = 0;
  for (size_t i = 0; i < options.size(); ++i) {
    const NearerOption &o = options[i];
    if (o.tier != best || !o.healthy) continue;
    const int64_t since = ready.Since(o.address);
    if (since == 0) continue;
    const int64_t at = since + MsToNs(kReadyForMs);
    if (at <= now) {
      d.index = static_cast<int>(i);
      return d;
    }
    settle = settle == 0 ? at : std::min(settle, at);
  }
  d.recheck_ns = settle;
  return d;
}

}  // namespace net
}  // namespace cloudroute
