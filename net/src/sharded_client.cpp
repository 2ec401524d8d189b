// ShardedClient: pre-sharded standalone servers as a topology source of the
// engine (see sharded.hpp).
#include <algorithm>
#include <unordered_set>
#include <utility>

#include "cloudroute/core/topology.hpp"
#include "cloudroute/net/discovery.hpp"
#include "cloudroute/net/sharded.hpp"

namespace cloudroute {
namespace net {

Result<GroupInstances> ParseShardServers(std::string_view text) {
  const std::string s(text);
  auto parsed = ParseSeeds(s);
  if (!parsed.ok()) {
    return Error(Code::kInvalid, "shard servers \"" + s + "\": " + parsed.status().message());
  }
  GroupInstances g;
  g.master = GroupAddress{(*parsed)[0].host, (*parsed)[0].port};
  for (size_t i = 1; i < parsed->size(); ++i) {
    g.replicas.push_back(GroupAddress{(*parsed)[i].host, (*parsed)[i].port});
  }
  return g;
}

Status AddRingGroups(ShardGroups *groups, std::shared_ptr<const Ring> ring) {
  if (groups == nullptr || ring == nullptr) return Error(Code::kInvalid, "groups or ring is NULL");
  if (groups->group_count() != 0) return Error(Code::kInvalid, "the groups table is not empty");
  for (size_t i = 0; i < ring->shard_count(); ++i) {
    const RingShard &shard = ring->shard(i);
    auto g = groups->AddGroup(shard.named ? shard.name : "shard #" + std::to_string(i));
    if (!g.ok()) return g.status();
  }
  return groups->SetRing(std::move(ring));
}

ShardedClient::ShardedClient(ShardGroups *groups, ClientOptions opts)
    : groups_(groups),
      // Nothing tells a ring of standalone servers where a master went: a
      // write its master did not execute is not tried again.
      source_(groups, nullptr),
      ctx_(nullptr, &source_, std::move(opts)),
      // Standalone servers: no zone probe or readiness check on a new
      // connection.
      pools_(&ctx_,
             [](const std::string &, uint16_t, Connection *, uint32_t) { return Status::Ok(); }),
      executor_(&ctx_, &pools_) {}

Result<std::unique_ptr<ShardedClient>> ShardedClient::Create(ShardGroups *groups,
                                                             std::vector<GroupInstances> servers,
                                                             ClientOptions opts) {
  if (groups == nullptr) return Error(Code::kInvalid, "groups is NULL");
  if (servers.size() != groups->group_count()) {
    return Error(Code::kInvalid, std::to_string(servers.size()) + " server entries for a ring of " +
                                     std::to_string(groups->group_count()) +
                                     " shards (servers[i] serves ring shard i)");
  }
  // One budget for every reply this client reads (reader.hpp), unless given.
  if (opts.conn.reply_budget == nullptr) {
    opts.conn.reply_budget = std::make_shared<ReplyBudget>(ClientBudgetFor(opts.conn.limits));
  }
  std::unique_ptr<ShardedClient> c(new ShardedClient(groups, std::move(opts)));
  if (Status s = c->source_.Check(); !s.ok()) return s;
  if (Status s = groups->SetAllInstances(servers); !s.ok()) return s;
  c->prober_ = std::make_unique<RecoveryProber>(&c->ctx_, &c->pools_);
  return c;
}

ShardedClient::~ShardedClient() {
  async_.Close();  // every call in flight completes (cancelled) while the engine is whole
  prober_.reset();
}

Result<ReplyPtr> ShardedClient::ExecuteKeys(Access access, const std::vector<std::string> &keys,
                                            const Args &args, const CallOptions &call) {
  if (args.empty()) return Error(Code::kInvalid, "empty command");
  uint16_t place = 0;
  if (keys.empty()) {
    const size_t n = groups_->group_count();
    place = static_cast<uint16_t>(groups_->registry().NextRandom() % std::max<size_t>(n, 1));
  } else {
    place = source_.Place(keys[0].data(), keys[0].size());
    for (const std::string &k : keys) {
      if (source_.Place(k.data(), k.size()) != place) {
        return Error(Code::kInvalid, "the keys of " + args[0] +
                                         " are on different shards of the ring (a script or "
                                         "function runs on one server); nothing was sent");
      }
    }
  }
  return executor_.ExecuteSlot(access, place, args, call);
}

Result<ReplyPtr> ShardedClient::EvalScript(const Script &script, bool read_only,
                                           const std::vector<std::string> &keys,
                                           const std::vector<std::string> &args,
                                           const CallOptions &call) {
  CallOptions c = call;
  c.script = &script.body();
  return ExecuteKeys(read_only ? Access::kRead : Access::kWrite, keys,
                     script.Command(read_only, keys, args), c);
}

Result<std::vector<NodeReply>> ShardedClient::ExecuteOnNodes(NodeTarget target,
                                                             const std::string &address,
                                                             const Args &args,
                                                             const CallOptions &call) {
  return net::ExecuteOnNodes(&ctx_, &pools_, target, address, args, call);
}

Status ShardedClient::SetServers(const std::vector<GroupInstances> &servers) {
  if (servers.size() != groups_->group_count()) {
    return Error(Code::kInvalid, std::to_string(servers.size()) + " server entries for a ring of " +
                                     std::to_string(groups_->group_count()) + " shards");
  }
  const std::shared_ptr<const Snapshot> before = source_.Current();
  if (Status s = groups_->SetAllInstances(servers); !s.ok()) return s;
  const std::shared_ptr<const Snapshot> after = source_.Current();
  if (before == nullptr || after == before) return Status::Ok();
  // The pools of the instances the change reclaimed (gone for two changes).
  pools_.Sweep();
  // The instances no group names any more: their idle connections go now
  // (their entries stay one more change, pinned by `before` meanwhile).
  std::unordered_set<const NodeEntry *> kept;
  for (const CandidateSet &set : after->sets) {
    for (const Candidate &cand : set.list) kept.insert(cand.node);
  }
  for (const CandidateSet &set : before->sets) {
    for (const Candidate &cand : set.list) {
      if (kept.insert(cand.node).second) pools_.For(cand.node).DropIdle();
    }
  }
  return Status::Ok();
}

}  // namespace net
}  // namespace cloudroute
