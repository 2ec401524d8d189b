// Commands sent to named nodes (see node_commands.hpp).
#include "cloudroute/net/node_commands.hpp"

#include <algorithm>
#include <memory>
#include <unordered_set>

#include "cloudroute/net/command_rules.hpp"
#include "cloudroute/net/deadline.hpp"
#include "cloudroute/net/errors.hpp"

namespace cloudroute {
namespace net {

Result<std::vector<NodeReply>> ResolveTargets(const Snapshot *snap, NodeTarget target,
                                              const std::string &address) {
  if (snap == nullptr) return Error(Code::kNoTopology, "no topology installed");
  std::vector<NodeReply> out;
  std::unordered_set<const NodeEntry *> seen;
  auto add = [&](NodeEntry *n, Role role, Tier tier) {
    if (n == nullptr || !seen.insert(n).second) return;
    if (target == NodeTarget::kNode && n->address != address) return;
    NodeReply r;
    r.node = n;
    r.address = n->address;
    r.role = role;
    r.tier = tier;
    out.push_back(std::move(r));
  };
  // A cluster's shards in slot order (the order of their first range; none
  // last); shard groups (no cluster topology) in group order.
  std::vector<size_t> order;
  for (size_t i = 0; i < snap->sets.size(); ++i) order.push_back(i);
  if (snap->topology != nullptr) {
    const std::vector<TopoShard> &shards = snap->topology->shards;
    order.resize(std::min(order.size(), shards.size()));
    auto first_slot = [&](size_t i) {
      return shards[i].ranges.empty() ? kSlotCount : uint32_t{shards[i].ranges.front().start};
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return first_slot(a) < first_slot(b); });
  }
  for (size_t i : order) {
    const CandidateSet &set = snap->sets[i];
    add(set.master, Role::kMaster, set.master_tier);
    if (target == NodeTarget::kMasters) continue;
    for (const Candidate &c : set.list) add(c.node, c.role, c.tier);
  }
  if (target == NodeTarget::kNode && out.empty()) {
    return Error(Code::kNotFound, "no node at " + address + " in the current topology");
  }
  return out;
}

void RunOnNodes(ClientContext *ctx, NodePools *pools, const Args &args, const CallOptions &call,
                std::vector<NodeReply> *targets) {
  struct Leg {
    NodePool *pool = nullptr;
    std::unique_ptr<Connection> conn;
    int64_t t0 = 0, deadline = 0;
  };
  std::vector<Leg> legs(targets->size());
  const std::vector<const Args *> cmds{&args};
  for (size_t i = 0; i < targets->size(); ++i) {
    NodeReply &t = (*targets)[i];
    Leg &leg = legs[i];
    const uint32_t tier_ms = ctx->TimeoutFor(t.tier);
    const uint32_t timeout = CommandTimeoutMs(args, call, tier_ms);
    leg.pool = &pools->For(t.node);
    auto conn = leg.pool->Acquire(tier_ms);
    if (!conn.ok()) {
      pools->NoteFailure(t.node, leg.pool, conn.status());
      t.status = conn.status();
      continue;
    }
    leg.conn = std::move(*conn);
    leg.t0 = SteadyNowNs();
    leg.deadline = DeadlineAfter(timeout, leg.t0);
    Status s = leg.conn->Send(cmds, leg.deadline);
    if (!s.ok()) {
      pools->NoteFailure(t.node, leg.pool, s);
      t.status = s;
      leg.pool->Release(std::move(leg.conn));
    }
  }
  for (size_t i = 0; i < targets->size(); ++i) {
    NodeReply &t = (*targets)[i];
    Leg &leg = legs[i];
    if (leg.conn == nullptr) continue;
    std::vector<ReplyPtr> replies;
    Status s = leg.conn->Receive(1, leg.deadline, &replies);
    leg.pool->Release(std::move(leg.conn));
    if (!s.ok()) {
      if (s.code() == kTimeout && TimeoutIsNotAFailure(args, call)) {
        ctx->stats.Add(&Stats::timeouts);
      } else {
        pools->NoteFailure(t.node, leg.pool, s);
      }
      t.status = s;
      continue;
    }
    pools->NoteSuccess(t.node);
    leg.pool->counters().AddSample(leg.t0, SteadyNowNs());
    t.reply = std::move(replies.front());
    if (t.reply->is_error()) {
      ctx->stats.Add(&Stats::server_errors);
      t.status = Error(kServerError, t.node->address + ": " + t.reply->str);
    } else {
      t.status = Status::Ok();
    }
  }
}

Result<std::vector<NodeReply>> ExecuteOnNodes(ClientContext *ctx, NodePools *pools,
                                              NodeTarget target, const std::string &address,
                                              const Args &args, const CallOptions &call) {
  if (args.empty()) return Error(Code::kInvalid, "empty command");
  if (Status s = RefuseStateChange(args, ConnectionUse::kShared); !s.ok()) return s;
  const std::shared_ptr<const Snapshot> snap = ctx->topo->Current();  // pins the targets
  auto targets = ResolveTargets(snap.get(), target, address);
  if (!targets.ok()) return targets.status();
  RunOnNodes(ctx, pools, args, call, &*targets);
  return targets;
}

}  // namespace net
}  // namespace cloudroute
