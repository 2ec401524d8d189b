// Multi-key fan-out (see fan_out.hpp).
#include "cloudroute/net/fan_out.hpp"

#include <map>
#include <unordered_map>

#include "cloudroute/core/keyslot.hpp"
#include "cloudroute/net/deadline.hpp"
#include "cloudroute/net/errors.hpp"

namespace cloudroute {
namespace net {

std::vector<Batch> SplitBySlot(const std::vector<std::string> &keys, const std::string &cmd,
                               const std::vector<std::string> *values) {
  std::map<uint16_t, size_t> by_slot;
  std::vector<Batch> batches;
  for (size_t i = 0; i < keys.size(); ++i) {
    const uint16_t slot = KeySlot(keys[i].data(), keys[i].size());
    auto it = by_slot.find(slot);
    if (it == by_slot.end()) {
      it = by_slot.emplace(slot, batches.size()).first;
      batches.emplace_back();
      batches.back().slot = slot;
      batches.back().args.push_back(cmd);
    }
    Batch &b = batches[it->second];
    b.args.push_back(keys[i]);
    if (values != nullptr) b.args.push_back((*values)[i]);
    b.idx.push_back(i);
  }
  return batches;
}

Status FanOut::Run() {
  Status s = Plan();
  if (!s.ok()) return s;
  // Every node's share goes out before any reply is read: all in flight.
  for (Leg &leg : legs_) Send(&leg);
  for (Leg &leg : legs_) Receive(&leg);
  Redo();
  for (Batch &b : *batches_) {
    if (!b.status.ok()) return b.status;
  }
  return Status::Ok();
}

Status FanOut::Plan() {
  std::shared_ptr<const Snapshot> snap = ctx_->router->Current();
  if (snap == nullptr) return Error(Code::kNoTopology, "no topology installed");
  std::unordered_map<uint32_t, size_t> leg_of;  // node handle -> index in legs_
  for (Batch &b : *batches_) {
    Route r;
    const Code c =
        access_ == Access::kRead ? snap->RouteRead(b.slot, &r) : snap->RouteWrite(b.slot, &r);
    if (c != Code::kOk) {
      b.redo = true;  // the single-key path produces the precise error
      continue;
    }
    auto it = leg_of.find(r.node->handle);
    if (it == leg_of.end()) {
      it = leg_of.emplace(r.node->handle, legs_.size()).first;
      legs_.emplace_back();
      legs_.back().node = r.node;
      legs_.back().tier = r.tier;
    }
    legs_[it->second].batches.push_back(&b);
  }
  return Status::Ok();
}

void FanOut::Unfinished(Batch *b, const Status &s) const {
  if (access_ == Access::kRead)
    b->redo = true;
  else
    b->status = s;  // a write that may have arrived is never re-sent
}

void FanOut::Send(Leg *leg) {
  leg->pool = &pools_->For(leg->node);
  const uint32_t timeout = ctx_->TimeoutFor(leg->tier);
  auto conn = leg->pool->Acquire(timeout);
  if (!conn.ok()) {
    pools_->NoteFailure(leg->node, leg->pool, conn.status());
    for (Batch *b : leg->batches) b->redo = true;  // nothing was sent: safe to redo
    return;
  }
  leg->conn = std::move(*conn);
  leg->t0 = SteadyNowNs();
  leg->deadline = DeadlineAfter(timeout, leg->t0);
  std::vector<const Args *> cmds;
  for (Batch *b : leg->batches) cmds.push_back(&b->args);
  Status s = leg->conn->Send(cmds, leg->deadline);
  if (!s.ok()) {
    pools_->NoteFailure(leg->node, leg->pool, s);
    for (Batch *b : leg->batches) Unfinished(b, s);
    leg->pool->Release(std::move(leg->conn));
  }
}

void FanOut::Receive(Leg *leg) {
  if (leg->conn == nullptr) return;
  std::vector<ReplyPtr> replies;
  Status s = leg->conn->Receive(leg->batches.size(), leg->deadline, &replies);
  const int64_t t1 = SteadyNowNs();
  leg->pool->Release(std::move(leg->conn));
  if (!s.ok())
    pools_->NoteFailure(leg->node, leg->pool, s);
  else
    pools_->NoteSuccess(leg->node);
  if (!replies.empty()) leg->pool->counters().AddSample(leg->t0, t1);
  for (size_t i = 0; i < leg->batches.size(); ++i) {
    Batch *b = leg->batches[i];
    if (i >= replies.size()) {
      Unfinished(b, s);
      continue;
    }
    Outcome o = Classify(std::move(replies[i]), leg->node, access_);
    if (o.kind == OutcomeKind::kDone || o.kind == OutcomeKind::kServerError) {
      pools_->NoteServed(access_, leg->tier, leg->pool);
      if (o.kind == OutcomeKind::kServerError) {
        ctx_->stats.Add(&Stats::server_errors);
        b->status = Error(kServerError, o.reply->str);
      } else {
        b->reply = std::move(o.reply);
      }
    } else {
      // MOVED / ASK / TRYAGAIN / LOADING: not executed; the single-key
      // path follows the redirect or retries. An ASK marks the slot
      // migrating first, so the redo reads it from the master.
      if (o.kind == OutcomeKind::kAsk) (void)ctx_->router->ReportMigrating(o.slot, true);
      b->redo = true;
    }
  }
}

void FanOut::Redo() {
  for (Batch &b : *batches_) {
    if (!b.redo) continue;
    Result<ReplyPtr> r = exec_->ExecuteSlot(access_, b.slot, b.args);
    if (r.ok())
      b.reply = std::move(*r);
    else
      b.status = r.status();
  }
}

}  // namespace net
}  // namespace cloudroute
