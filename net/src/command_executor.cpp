// Single-slot execution: routing, redirects, retries, read fallback (see
// command_executor.hpp). Multi-key fan-out is in fan_out.cpp.
#include "cloudroute/net/command_executor.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

#include "cloudroute/core/keyslot.hpp"
#include "cloudroute/core/selector.hpp"
#include "cloudroute/net/backoff.hpp"
#include "cloudroute/net/errors.hpp"
#include "cloudroute/net/fan_out.hpp"

namespace cloudroute {
namespace net {

Outcome CommandExecutor::TryNode(NodeEntry *node, Tier tier, Access access, const Args &args,
                                 bool asking) {
  static const Args kAsking{"ASKING"};
  NodePool &pool = pools_->For(node);
  const uint32_t timeout = ctx_->TimeoutFor(tier);
  Outcome o;
  auto conn = pool.Acquire(timeout);
  if (!conn.ok()) {
    pools_->NoteFailure(node, &pool, conn.status());
    o.status = conn.status();
    return o;
  }
  std::vector<const Args *> cmds;
  if (asking) cmds.push_back(&kAsking);
  cmds.push_back(&args);
  std::vector<ReplyPtr> replies;
  const int64_t t0 = SteadyNowNs();
  Status s = (*conn)->Pipeline(cmds, timeout, &replies);
  const int64_t t1 = SteadyNowNs();
  pool.Release(std::move(*conn));
  if (!s.ok()) {
    pools_->NoteFailure(node, &pool, s);
    o.status = s;
    return o;
  }
  pools_->NoteSuccess(node);
  pool.counters().AddSample(t0, t1);
  o = Classify(std::move(replies.back()), node, access);
  if (o.kind == OutcomeKind::kDone || o.kind == OutcomeKind::kServerError) {
    pools_->NoteServed(access, tier, &pool);
  }
  return o;
}

Outcome CommandExecutor::TryRead(const CandidateSet &set, const Args &args, uint16_t slot) {
  NodeRegistry &reg = ctx_->router->registry();
  Outcome result;
  uint32_t tried = 0, failed = 0;
  VisitInPollOrder(
      set, [&reg]() { return reg.NextRandom(); },
      [&](const Candidate &c) {
        // Admit() claims a half-open probe: only ask it of a node we will try.
        if (!c.node->health.Admit(reg.clock(), reg.health_config())) return false;
        ++tried;
        Outcome o = TryNode(c.node, c.tier, Access::kRead, args, false);
        if (o.kind == OutcomeKind::kNodeFailed) {
          ++failed;
          result = std::move(o);
          return false;
        }
        if (failed > 0) ctx_->stats.Add(&Stats::fallbacks);
        result = std::move(o);
        return true;
      });
  if (tried == 0) {
    result.kind = OutcomeKind::kNodeFailed;
    result.status = Error(Code::kUnavailable, "every read candidate of slot " +
                                                  std::to_string(slot) + " is marked down");
  } else if (result.kind == OutcomeKind::kNodeFailed) {
    result.status = Error(result.status.code(),
                          "all " + std::to_string(tried) + " reachable read candidates of slot " +
                              std::to_string(slot) + " failed; last: " + result.status.message());
  }
  return result;
}

Result<ReplyPtr> CommandExecutor::Execute(Access access, std::string_view key, const Args &args) {
  if (args.empty()) return Error(Code::kInvalid, "empty command");
  return ExecuteSlot(access, KeySlot(key.data(), key.size()), args);
}

Result<ReplyPtr> CommandExecutor::ExecuteSlot(Access access, uint16_t slot, const Args &args) {
  Router *const router = ctx_->router;
  const ClientOptions &opts = ctx_->opts;
  NodeEntry *ask = nullptr;
  uint32_t redirects = 0, retries = 0;
  for (;;) {
    Outcome o;
    if (ask != nullptr) {
      o = TryNode(ask, Tier::kUnknown, access, args, /*asking=*/true);
      ask = nullptr;
    } else {
      std::shared_ptr<const Snapshot> snap = router->Current();
      if (snap == nullptr) return Error(Code::kNoTopology, "no topology installed");
      const CandidateSet *set = snap->SetForSlot(slot);
      if (set == nullptr) {
        ctx_->TriggerRefresh();
        return Error(Code::kSlotUncovered,
                     "slot " + std::to_string(slot) + " is served by no shard");
      }
      if (access == Access::kWrite) {
        if (set->master == nullptr) {
          return Error(Code::kUnavailable,
                       "the master of slot " + std::to_string(slot) + " has no known endpoint");
        }
        o = TryNode(set->master, set->master_tier, access, args, false);
      } else {
        // A migrating slot's set is master-first (see Snapshot::slot_to_set).
        o = TryRead(*set, args, slot);
      }
    }
    switch (o.kind) {
      case OutcomeKind::kDone:
        return std::move(o.reply);
      case OutcomeKind::kServerError:
        ctx_->stats.Add(&Stats::server_errors);
        return Error(kServerError, o.reply->str);
      case OutcomeKind::kNodeFailed:
        return o.status;
      case OutcomeKind::kMoved:
      case OutcomeKind::kAsk: {
        if (++redirects > opts.max_redirects) {
          return Error(kServerError, "too many redirects for slot " + std::to_string(slot) +
                                         "; last: " + o.reply->str);
        }
        if (o.kind == OutcomeKind::kMoved) {
          ctx_->stats.Add(&Stats::moved);
          Status s = router->ReportMoved(o.slot, o.host, o.port);
          if (!s.ok()) return s;
          ctx_->TriggerRefresh();
        } else {
          ctx_->stats.Add(&Stats::ask);
          auto target = router->ReportAsk(o.slot, o.host, o.port);  // marks it migrating
          if (!target.ok()) return target.status();
          ask = *target;
        }
        break;
      }
      case OutcomeKind::kRetry: {
        if (++retries > opts.max_retries) {
          ctx_->stats.Add(&Stats::server_errors);
          return Error(kServerError, o.reply != nullptr ? o.reply->str : o.status.message());
        }
        ctx_->stats.Add(&Stats::retries);
        const uint32_t ms = BackoffMs(retries - 1, opts.retry_base_ms, opts.retry_cap_ms,
                                      router->registry().NextRandom());
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        break;
      }
    }
  }
}

namespace {

// Runs one job per batch; the first failed job's status, if any.
Status RunBatches(ClientContext *ctx, NodePools *pools, const std::vector<Batch> &batches,
                  Access access, std::vector<Job> *jobs) {
  *jobs = JobsFor(batches, access);
  FanOut(ctx, pools, jobs).Run();
  for (const Job &j : *jobs) {
    if (!j.status.ok()) return j.status;
  }
  return Status::Ok();
}

}  // namespace

Result<ReplyPtr> CommandExecutor::MGet(const std::vector<std::string> &keys) {
  if (keys.empty()) return Error(Code::kInvalid, "MGET needs at least one key");
  std::vector<Batch> batches = SplitBySlot(keys, "MGET", nullptr);
  std::vector<Job> jobs;
  Status s = RunBatches(ctx_, pools_, batches, Access::kRead, &jobs);
  if (!s.ok()) return s;
  auto out = std::make_unique<Reply>();
  out->type = RespType::kArray;
  out->elements.resize(keys.size());
  for (size_t i = 0; i < batches.size(); ++i) {
    const Batch &b = batches[i];
    Reply &r = *jobs[i].reply;
    if (r.type != RespType::kArray || r.elements.size() != b.idx.size()) {
      return Error(Code::kParse,
                   "MGET reply for slot " + std::to_string(b.slot) + " has the wrong shape");
    }
    for (size_t j = 0; j < b.idx.size(); ++j) out->elements[b.idx[j]] = std::move(r.elements[j]);
  }
  return out;
}

Status CommandExecutor::MSet(const std::vector<std::string> &keys,
                             const std::vector<std::string> &values) {
  if (keys.empty() || keys.size() != values.size()) {
    return Error(Code::kInvalid, "MSET needs as many values as keys, and at least one");
  }
  std::vector<Batch> batches = SplitBySlot(keys, "MSET", &values);
  std::vector<Job> jobs;
  return RunBatches(ctx_, pools_, batches, Access::kWrite, &jobs);
}

Result<int64_t> CommandExecutor::Del(const std::vector<std::string> &keys) {
  if (keys.empty()) return Error(Code::kInvalid, "DEL needs at least one key");
  std::vector<Batch> batches = SplitBySlot(keys, "DEL", nullptr);
  std::vector<Job> jobs;
  Status s = RunBatches(ctx_, pools_, batches, Access::kWrite, &jobs);
  if (!s.ok()) return s;
  int64_t n = 0;
  for (const Job &j : jobs) n += j.reply->integer;
  return n;
}

void CommandExecutor::Run(std::vector<Job> *jobs) { FanOut(ctx_, pools_, jobs).Run(); }

}  // namespace net
}  // namespace cloudroute
