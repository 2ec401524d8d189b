// A connection pinned to one slot's master (see pinned.hpp).
#include "cloudroute/net/pinned.hpp"

#include "cloudroute/core/keyslot.hpp"
#include "cloudroute/net/command_rules.hpp"
#include "cloudroute/net/errors.hpp"

namespace cloudroute {
namespace net {

Result<std::unique_ptr<Pinned>> Pinned::Acquire(ClientContext *ctx, NodePools *pools,
                                                uint16_t slot) {
  std::shared_ptr<const Snapshot> snap = ctx->router->Current();
  if (snap == nullptr) return Error(Code::kNoTopology, "no topology installed");
  const CandidateSet *set = snap->SetForSlot(slot);
  if (set == nullptr)
    return Error(Code::kSlotUncovered, "slot " + std::to_string(slot) + " is served by no shard");
  if (set->master == nullptr) {
    return Error(Code::kUnavailable,
                 "the master of slot " + std::to_string(slot) + " has no known endpoint");
  }
  std::unique_ptr<Pinned> p(new Pinned(ctx, pools, set->master, set->master_tier, slot));
  p->pin_.Add(p->node_);  // snap pins it now
  p->pool_ = &pools->For(p->node_);
  auto conn = p->pool_->Acquire(ctx->TimeoutFor(p->tier_));
  if (!conn.ok()) {
    pools->NoteFailure(p->node_, p->pool_, conn.status());
    return conn.status();
  }
  p->conn_ = std::move(*conn);
  return p;
}

Pinned::~Pinned() {
  if (conn_ == nullptr) return;
  // Any command of the pin may have written: with read_your_writes_ms, the
  // slot's reads go to its master for the window from here.
  ctx_->recent_writes.NoteWrite(slot_);
  // DISCARD also drops a WATCH. A failure breaks the connection, and the
  // pool closes a broken one instead of handing it out again.
  static const Args kDiscard{"DISCARD"}, kUnwatch{"UNWATCH"};
  if (in_multi_ || watching_) {
    std::vector<ReplyPtr> replies;
    (void)conn_->Pipeline({in_multi_ ? &kDiscard : &kUnwatch}, ctx_->TimeoutFor(tier_), &replies);
  }
  pool_->Release(std::move(conn_));
}

Result<ReplyPtr> Pinned::Command(const std::vector<std::string> &keys, const Args &args,
                                 const CallOptions &call) {
  if (args.empty()) return Error(Code::kInvalid, "empty command");
  if (Status s = RefuseStateChange(args, ConnectionUse::kPinned); !s.ok()) return s;
  for (const std::string &k : keys) {
    const uint16_t s = KeySlot(k.data(), k.size());
    if (s != slot_) {
      return Error(Code::kInvalid, "CROSSSLOT: key of slot " + std::to_string(s) +
                                       " on a connection pinned to slot " + std::to_string(slot_) +
                                       "; " + args[0] + " was not sent");
    }
  }
  if (conn_ == nullptr || conn_->broken()) {
    return Error(kConnError, "the pinned connection to " + node_->address +
                                 " is broken; release it and pin again");
  }
  const std::vector<const Args *> cmds{&args};
  std::vector<ReplyPtr> replies;
  Status s = conn_->Pipeline(cmds, CommandTimeoutMs(args, call, ctx_->TimeoutFor(tier_)), &replies);
  // Inside MULTI every command answers +QUEUED: its shape is EXEC's business.
  if (s.ok() && !in_multi_) s = CheckReply(args, *replies.front(), conn_.get());
  if (!s.ok()) {
    if (s.code() == kTimeout && TimeoutIsNotAFailure(args, call)) {
      ctx_->stats.Add(&Stats::timeouts);
    } else {
      pools_->NoteFailure(node_, pool_, s);
    }
    return s;
  }
  pools_->NoteSuccess(node_);
  ReplyPtr r = std::move(replies.front());
  const std::string &cmd = args[0];
  if (ArgIs(cmd, "MULTI") && !r->is_error()) in_multi_ = true;
  if (ArgIs(cmd, "WATCH") && !r->is_error()) watching_ = true;
  if (ArgIs(cmd, "EXEC") || ArgIs(cmd, "DISCARD")) in_multi_ = watching_ = false;
  if (ArgIs(cmd, "UNWATCH")) watching_ = false;
  pools_->NoteServed(Access::kWrite, tier_, pool_);
  if (r->is_error()) {
    ctx_->stats.Add(&Stats::server_errors);
    return Error(kServerError, r->str);
  }
  return r;
}

}  // namespace net
}  // namespace cloudroute
