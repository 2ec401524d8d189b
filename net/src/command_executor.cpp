// Single-slot execution: routing, redirects, retries, read fallback (see
// command_executor.hpp). Multi-key fan-out is in fan_out.cpp.
#include "cloudroute/net/command_executor.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

#include "cloudroute/core/keyslot.hpp"
#include "cloudroute/core/selector.hpp"
#include "cloudroute/net/backoff.hpp"
#include "cloudroute/net/command_rules.hpp"
#include "cloudroute/net/deadline.hpp"
#include "cloudroute/net/errors.hpp"
#include "cloudroute/net/fan_out.hpp"
#include "cloudroute/net/interrupt.hpp"
#include "cloudroute/net/key_batch.hpp"

namespace cloudroute {
namespace net {
namespace {

// A command's round trip on the node's shared connections (shared_link.hpp):
// its status, its replies, whether it was sent, and when.
Status RunShared(NodeLink *link, const Args &args, const Args *prefix, uint32_t timeout_ms,
                 bool own_deadline, std::vector<ReplyPtr> *replies, bool *sent, int64_t *t0,
                 int64_t *t1) {
  auto r = std::make_shared<LinkRequest>();
  if (prefix != nullptr) AppendCommand(*prefix, &r->wire);
  AppendCommand(args, &r->wire);
  r->expected = prefix != nullptr ? 2 : 1;
  *t0 = SteadyNowNs();
  r->deadline_ns = DeadlineAfter(timeout_ms, *t0);
  r->abandon_on_deadline = own_deadline;
  r->check = [&args](const std::vector<ReplyPtr> &got) {
    return ReplyMismatch(std::string_view(args[0]), ExpectedReplyOf(args), *got.back());
  };
  auto waiter = std::make_shared<LinkWaiter>();
  LinkWaiter::Attach(waiter, r.get());
  link->Submit(r);
  waiter->Wait({{link, r}});
  *sent = r->sent;
  if (r->sent_ns != 0) *t0 = r->sent_ns;
  *t1 = r->done_ns;
  *replies = std::move(r->replies);
  return r->status;
}

}  // namespace

Outcome CommandExecutor::TryNode(NodeEntry *node, Tier tier, Access access, const Args &args,
                                 const Args *prefix, const CallOptions &call) {
  NodePool &pool = pools_->For(node);
  // In flight from here to the node's answer or failure (load-aware selection).
  LoadMark busy(&node->load);
  const uint32_t tier_ms = ctx_->TimeoutFor(tier);
  std::vector<ReplyPtr> replies;
  int64_t t0 = 0, t1 = 0;
  bool sent = true;
  Status s;
  // A blocking command waits on the server: it keeps a connection of its own.
  std::shared_ptr<NodeLink> link = BlockingWaitMs(args) < 0 ? pools_->LinkFor(node) : nullptr;
  if (link != nullptr) {
    if (link->OnEngineThread()) {
      // A completion callback (async_calls.hpp) making a blocking call: it
      // would wait for its own thread.
      Outcome o;
      o.node = node;
      o.tier = tier;
      o.kind = OutcomeKind::kNodeFailed;
      o.waited = true;  // no other candidate, no retry: the call fails here
      o.status = Error(Code::kInvalid,
                       "a blocking call from a completion callback on the engine thread "
                       "(submit instead: the callback would wait for its own thread)");
      return o;
    }
    s = RunShared(link.get(), args, prefix, CommandTimeoutMs(args, call, tier_ms),
                  call.timeout_ms != 0, &replies, &sent, &t0, &t1);
  } else {
    auto conn = pool.Acquire(tier_ms);
    if (!conn.ok()) {
      pools_->NoteFailure(node, &pool, conn.status());
      Outcome o;
      o.node = node;
      o.tier = tier;
      o.status = NamedFailure(node, conn.status());
      o.unsent = true;
      return o;
    }
    std::vector<const Args *> cmds;
    if (prefix != nullptr) cmds.push_back(prefix);
    cmds.push_back(&args);
    t0 = SteadyNowNs();
    s = (*conn)->Pipeline(cmds, CommandTimeoutMs(args, call, tier_ms), &replies);
    t1 = SteadyNowNs();
    if (s.ok()) s = CheckReply(args, *replies.back(), conn->get());
    pool.Release(std::move(*conn));  // a broken connection is dropped here
  }
  return Conclude(node, tier, access, args, prefix != nullptr, call, std::move(s),
                  std::move(replies), sent, t0, t1);
}

Outcome CommandExecutor::Conclude(NodeEntry *node, Tier tier, Access access, const Args &args,
                                  bool prefixed, const CallOptions &call, Status s,
                                  std::vector<ReplyPtr> replies, bool sent, int64_t t0,
                                  int64_t t1) {
  NodePool &pool = pools_->For(node);
  Outcome o;
  o.node = node;
  o.tier = tier;
  if (!s.ok()) {
    if (access == Access::kWrite && sent) s = MaySentWrite(s);
    o.unsent = !sent;  // no byte of it left: a write may go again (AskAbout)
    if (s.code() == kConnError && InterruptAsked()) {
      // The caller's interrupt check ended the wait (interrupt.hpp): not the
      // node's failure, and no other candidate is tried.
      o.waited = true;
      o.status = NamedFailure(node, s);
      return o;
    }
    if (s.code() == kTimeout && TimeoutIsNotAFailure(args, call)) {
      // The node waited as the command (or the caller) asked: its health
      // and its other sockets are not in question.
      ctx_->stats.Add(&Stats::timeouts);
      o.waited = true;
      o.status = NamedFailure(
          node,
          Error(kTimeout, s.message() + " (the call's own deadline; the node is not marked)"));
      return o;
    }
    pools_->NoteFailure(node, &pool, s);
    o.status = NamedFailure(node, s);
    return o;
  }
  ReplyPtr answer = std::move(replies.back());
  if (prefixed && replies.front()->is_error()) answer = std::move(replies.front());
  return Answered(pools_, node, tier, &pool, std::move(answer), access, t0, t1);
}

Outcome Answered(NodePools *pools, NodeEntry *node, Tier tier, NodePool *pool, ReplyPtr answer,
                 Access access, int64_t t0_ns, int64_t t1_ns) {
  pools->NoteSuccess(node);
  pool->counters().AddSample(t0_ns, t1_ns);
  Outcome c = Classify(std::move(answer), node, access);
  c.node = node;
  c.tier = tier;
  if (c.kind == OutcomeKind::kDone || c.kind == OutcomeKind::kErrorReply) {
    pools->NoteServed(access, tier, pool);
  }
  return c;
}

void CommandExecutor::LogRedirect(const char *kind, const Outcome &o) {
  if (!ctx_->log.Enabled(LogLevel::kInfo)) return;
  const std::string target = FormatAddress(o.host, o.port);
  ctx_->log.EmitLimited(LogLevel::kInfo, std::string(kind) + " " + target,
                        std::string(kind) + " redirect",
                        {{"slot", std::to_string(o.slot)}, {"node", target}});
}

Outcome CommandExecutor::TryRead(const CandidateSet &set, const Args &args, uint16_t slot,
                                 const CallOptions &call, Outcome *first) {
  NodeRegistry &reg = ctx_->topo->registry();
  Outcome result;
  uint32_t tried = 0, failed = 0;
  std::string why;  // "addr: reason; addr: reason"
  // What one node's attempt came to; true when it settles the read.
  auto settle = [&](Outcome o) {
    if (o.kind == OutcomeKind::kNodeFailed && !o.waited) {
      ++failed;
      if (!why.empty()) why += "; ";
      why += o.status.message();  // names the node (NamedFailure)
      result = std::move(o);
      return false;
    }
    if (failed > 0 && o.kind != OutcomeKind::kNodeFailed) {
      ctx_->stats.Add(&Stats::fallbacks);
      if (ctx_->log.Enabled(LogLevel::kWarn)) {
        ctx_->log.EmitLimited(LogLevel::kWarn, "fallback " + o.node->address,
                              "read fell back to a later candidate",
                              {{"node", o.node->address},
                               {"tier", TierName(o.tier)},
                               {ctx_->topo->place_kind(), std::to_string(slot)},
                               {"failed", std::to_string(failed)}});
      }
    }
    result = std::move(o);
    return true;
  };
  auto attempt = [&](const Candidate &c) {
    ++tried;
    return settle(TryNode(c.node, c.tier, Access::kRead, args, nullptr, call));
  };
  // An asynchronous call's first attempt (PlanFirst): its node was the first
  // of the read order; the rest of the order follows it, as here.
  const NodeEntry *done_node = nullptr;
  if (first != nullptr) {
    ++tried;
    done_node = first->node;
    if (settle(std::move(*first))) return result;
  }
  if (!Hedges(args, call)) {
    VisitReadOrder(set, reg, [&](const Candidate &c) {
      if (c.node == done_node) return false;
      // Admit() claims a half-open probe: only ask it of a node we will try.
      if (!c.node->health.Admit(reg.clock(), reg.health_config())) return false;
      return attempt(c);
    });
  } else {
    ctx_->hedge_budget.OnRead();
    // The read order first (one draw, as above), then each candidate in it,
    // hedged with the next one that is up.
    std::vector<const Candidate *> order;
    order.reserve(set.list.size());
    VisitReadOrder(set, reg, [&](const Candidate &c) {
      order.push_back(&c);
      return false;
    });
    std::vector<bool> hedged(order.size(), false);
    for (size_t i = 0; i < order.size(); ++i) {
      const Candidate &c = *order[i];
      if (hedged[i] || !c.node->health.Admit(reg.clock(), reg.health_config())) continue;
      size_t j = i + 1;
      while (j < order.size() &&
             (hedged[j] || order[j]->node == c.node || order[j]->node->health.open())) {
        ++j;
      }
      if (j == order.size()) {
        if (attempt(c)) break;
        continue;
      }
      std::vector<Outcome> failed_legs;
      bool sent = false;
      Outcome o = TryHedged(c, *order[j], args, call, &failed_legs, &sent);
      tried += sent ? 2 : 1;
      hedged[j] = sent;
      for (Outcome &f : failed_legs) settle(std::move(f));
      if (settle(std::move(o))) break;
    }
  }
  if (tried == 0) {
    // Every breaker is open, but breakers can be stale (a node back up
    // before its cooldown ends): try each anyway, in candidate order.
    for (const Candidate &c : set.list) {
      if (attempt(c)) break;
    }
    if (tried == 0) {
      result.kind = OutcomeKind::kNodeFailed;
      result.status = Error(Code::kUnavailable, ctx_->topo->Where(slot) + " has no read candidate");
    } else if (result.kind == OutcomeKind::kNodeFailed && !result.waited) {
      result.status =
          Error(Code::kUnavailable, "every read candidate of " + ctx_->topo->Where(slot) +
                                        " is marked down; tried each in candidate order: " + why);
    }
  } else if (result.kind == OutcomeKind::kNodeFailed && !result.waited) {
    result.status = Error(result.status.code(), "all " + std::to_string(tried) +
                                                    " reachable read candidates of " +
                                                    ctx_->topo->Where(slot) + " failed: " + why);
  }
  return result;
}

Result<ReplyPtr> CommandExecutor::Execute(Access access, std::string_view key, const Args &args,
                                          const CallOptions &call) {
  if (args.empty()) return Error(Code::kInvalid, "empty command");
  return ExecuteSlot(access, ctx_->topo->Place(key.data(), key.size()), args, call);
}

Result<ReplyPtr> CommandExecutor::ExecuteSlot(Access access, uint16_t slot, const Args &args,
                                              const CallOptions &call) {
  if (Status s = RefuseStateChange(args, ConnectionUse::kShared); !s.ok()) return s;
  RecentWrites &recent = ctx_->recent_writes;
  if (access == Access::kRead) return Route(access, recent.MasterOnly(slot), slot, args, call);
  Result<ReplyPtr> r = Route(access, false, slot, args, call);
  recent.NoteWrite(slot);  // failed too: it may have arrived
  return r;
}

Status CommandExecutor::PlanFirst(Access access, uint16_t slot, const Args &args,
                                  const CallOptions &call, FirstAttempt *out) {
  if (args.empty()) return Error(Code::kInvalid, "empty command");
  if (Status s = RefuseStateChange(args, ConnectionUse::kShared); !s.ok()) return s;
  *out = FirstAttempt{};
  // What the blocking path does otherwise (a script to load, a hedged read,
  // a blocking command, a read that follows the client's own write) stays
  // on the blocking path: the caller runs it from the start.
  if (call.script != nullptr || BlockingWaitMs(args) >= 0) return Status::Ok();
  if (access == Access::kRead && (Hedges(args, call) || ctx_->recent_writes.MasterOnly(slot))) {
    return Status::Ok();
  }
  std::shared_ptr<const Snapshot> snap = ctx_->topo->Current();
  if (snap == nullptr) return Status::Ok();
  const CandidateSet *set = snap->SetForSlot(slot);
  if (set == nullptr) return Status::Ok();
  NodeEntry *node = nullptr;
  Tier tier = Tier::kUnknown;
  if (access == Access::kWrite) {
    node = set->master;
    tier = set->master_tier;
  } else {
    NodeRegistry &reg = ctx_->topo->registry();
    VisitReadOrder(*set, reg, [&](const Candidate &c) {
      if (!c.node->health.Admit(reg.clock(), reg.health_config())) return false;
      node = c.node;
      tier = c.tier;
      return true;
    });
  }
  if (node == nullptr) return Status::Ok();
  std::shared_ptr<NodeLink> link = pools_->LinkFor(node, true);
  if (link == nullptr) return Status::Ok();
  out->snap = std::move(snap);
  out->node = node;
  out->tier = tier;
  out->link = std::move(link);
  out->timeout_ms = CommandTimeoutMs(args, call, ctx_->TimeoutFor(tier));
  return Status::Ok();
}

Result<ReplyPtr> CommandExecutor::Continue(Access access, uint16_t slot, const Args &args,
                                           const CallOptions &call, const FirstAttempt &plan,
                                           Outcome first) {
  if (plan.node == nullptr) return ExecuteSlot(access, slot, args, call);
  Result<ReplyPtr> r = Route(access, false, slot, args, call, &first, plan.snap);
  if (access == Access::kWrite) ctx_->recent_writes.NoteWrite(slot);
  return r;
}

Result<ReplyPtr> CommandExecutor::Route(Access access, bool master_only, uint16_t slot,
                                        const Args &args, const CallOptions &call, Outcome *first,
                                        std::shared_ptr<const Snapshot> first_snap) {
  static const Args kAsking{"ASKING"};
  TopologySource *const topo = ctx_->topo;
  const ClientOptions &opts = ctx_->opts;
  NodeEntry *pinned = nullptr;  // the next attempt's node, when a reply named it
  Tier pinned_tier = Tier::kUnknown;
  const Args *prefix = nullptr;
  Args load;  // SCRIPT LOAD <call.script>, sent at most once
  uint32_t redirects = 0, retries = 0;
  bool rerouted = false;   // a failed read routed again on a newer topology
  bool confirmed = false;  // a replica's nil asked again at the master (NilToConfirm)
  // A write its place's master did not execute (none known, not dialed,
  // READONLY): when the source says so (TopologySource::AskAbout), it is
  // tried again after a backoff, as a retry; else (or past max_retries)
  // `why` is the call's error.
  auto again = [&](const Status &why) {
    if (access != Access::kWrite || !topo->AskAbout(slot)) return false;
    if (++retries > opts.max_retries) return false;
    ctx_->stats.Add(&Stats::retries);
    const uint32_t ms = BackoffMs(retries - 1, opts.retry_base_ms, opts.retry_cap_ms,
                                  topo->registry().NextRandom());
    if (ctx_->log.Enabled(LogLevel::kDebug)) {
      ctx_->log.Emit(LogLevel::kDebug, "write not executed: tried again",
                     {{topo->place_kind(), std::to_string(slot)}, {"error", why.message()}});
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    return true;
  };
  // Pin the nodes tried until the call returns, so none is reclaimed (nor
  // its pool dropped) under it: the snapshot of the last route (a NOSCRIPT
  // retry goes to one of its nodes) and the ASK targets.
  std::shared_ptr<const Snapshot> snap = std::move(first_snap);
  NodePins asked;
  for (;;) {
    Outcome o;
    const CandidateSet *read_set = nullptr;  // the set a read was routed on
    if (first != nullptr && access == Access::kWrite) {
      o = std::move(*first);  // the master's answer to an asynchronous call
      first = nullptr;
    } else if (pinned != nullptr) {
      o = TryNode(pinned, pinned_tier, access, args, prefix, call);
      pinned = nullptr;
    } else {
      if (first == nullptr) snap = topo->Current();
      if (snap == nullptr) return Error(Code::kNoTopology, "no topology installed");
      const CandidateSet *set = snap->SetForSlot(slot);
      if (set == nullptr) {
        ctx_->TriggerRefresh();
        return Error(Code::kSlotUncovered, topo->Where(slot) + " is served by no shard");
      }
      if (access == Access::kWrite || master_only) {
        if (set->master == nullptr) {
          Status none = Error(Code::kUnavailable,
                              "the master of " + topo->Where(slot) + " has no known endpoint");
          if (again(none)) continue;
          return none;
        }
        o = TryNode(set->master, set->master_tier, access, args, nullptr, call);
      } else {
        // A migrating slot's set is master-first (see Snapshot::slot_to_set).
        read_set = set;
        o = TryRead(*set, args, slot, call, first);
        first = nullptr;
      }
    }
    switch (o.kind) {
      case OutcomeKind::kDone:
        if (!confirmed && read_set != nullptr) {
          if (NodeEntry *m = NilToConfirm(read_set, o.node, *o.reply, *topo, slot)) {
            confirmed = true;  // the slot moved a moment ago: its master decides
            pinned = m;
            pinned_tier = read_set->master_tier;
            prefix = nullptr;
            break;
          }
        }
        return std::move(o.reply);
      case OutcomeKind::kErrorReply:
        if (call.script != nullptr && load.empty() && o.node != nullptr &&
            ErrorPrefix(*o.reply) == "NOSCRIPT") {
          // The script is not cached on that node (restarted, SCRIPT FLUSH,
          // a new replica): load it there and send the command once more.
          load = {"SCRIPT", "LOAD", *call.script};
          pinned = o.node;
          pinned_tier = o.tier;
          prefix = &load;
          break;
        }
        if (ErrorPrefix(*o.reply) == "READONLY" &&
            again(Error(kServerError, o.node->address + ": " + o.reply->str))) {
          break;  // a demoted master refused it: not executed
        }
        ctx_->stats.Add(&Stats::server_errors);
        return Error(kServerError, o.reply->str);
      case OutcomeKind::kNodeFailed:
        if (master_only && !o.status.ok()) {
          return Error(o.status.code(), o.status.message() + "; the read of " + topo->Where(slot) +
                                            " follows this client's write to it "
                                            "(read_your_writes_ms) and is served by its master "
                                            "only");
        }
        if (o.unsent && again(o.status)) break;  // never sent: not executed
        // A read whose candidates all failed while a new topology was
        // installed (a shard moved to new servers, a failover): routed once
        // more, on the new one — reads are safe to repeat.
        if (access == Access::kRead && !rerouted && snap != nullptr && topo->Current() != snap) {
          rerouted = true;
          break;
        }
        return o.status;
      case OutcomeKind::kMoved:
      case OutcomeKind::kAsk: {
        if (++redirects > opts.max_redirects) {
          return Error(kServerError, "too many redirects for slot " + std::to_string(slot) +
                                         "; last: " + o.reply->str);
        }
        if (o.kind == OutcomeKind::kMoved) {
          ctx_->stats.Add(&Stats::moved);
          LogRedirect("MOVED", o);
          if (NodeEntry *m = MasterToAsk(read_set, o.node, redirects)) {
            pinned = m;  // the replica's view may lag: its master decides
            pinned_tier = read_set->master_tier;
            prefix = nullptr;
            ctx_->TriggerRefresh();
            break;
          }
          Status s = topo->ReportMoved(o.slot, o.host, o.port);
          if (!s.ok()) return s;
          ctx_->TriggerRefresh();
        } else {
          ctx_->stats.Add(&Stats::ask);
          LogRedirect("ASK", o);
          auto target = topo->ReportAsk(o.slot, o.host, o.port);  // marks it migrating
          if (!target.ok()) return target.status();
          pinned = *target;
          asked.Add(pinned);  // the router pins it now (until its second update)
          pinned_tier = Tier::kUnknown;
          prefix = &kAsking;
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
                                      topo->registry().NextRandom());
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
        break;
      }
    }
  }
}

Status CommandExecutor::SplitMulti(KeyBatchKind kind, const std::vector<std::string> &keys,
                                   const std::vector<std::string> *values,
                                   std::vector<Batch> *batches) const {
  const std::string cmd = KeyBatchCommand(kind);
  if (keys.empty()) return Error(Code::kInvalid, cmd + " needs at least one key");
  if ((kind == KeyBatchKind::kMSet) != (values != nullptr) ||
      (values != nullptr && values->size() != keys.size())) {
    return Error(Code::kInvalid, values == nullptr || kind == KeyBatchKind::kMSet
                                     ? cmd + " needs as many values as keys, and at least one"
                                     : cmd + " takes no values");
  }
  *batches = SplitBySlot(*ctx_->topo, keys, cmd, values);
  return Status::Ok();
}

Result<ReplyPtr> CommandExecutor::MultiResult(KeyBatchKind kind, const std::vector<Batch> &batches,
                                              std::vector<Job> *jobs, size_t key_count) const {
  for (const Job &j : *jobs) {
    if (!j.status.ok()) return j.status;
  }
  auto out = std::make_unique<Reply>();
  switch (kind) {
    case KeyBatchKind::kMGet:
      out->type = RespType::kArray;
      out->elements.resize(key_count);
      for (size_t i = 0; i < batches.size(); ++i) {
        const Batch &b = batches[i];
        Reply &r = *(*jobs)[i].reply;
        if (r.type != RespType::kArray || r.elements.size() != b.idx.size()) {
          return Error(Code::kParse,
                       "MGET reply for " + ctx_->topo->Where(b.slot) + " has the wrong shape");
        }
        for (size_t j = 0; j < b.idx.size(); ++j) {
          out->elements[b.idx[j]] = std::move(r.elements[j]);
        }
      }
      break;
    case KeyBatchKind::kMSet:
      out->type = RespType::kSimpleString;
      out->str = "OK";
      break;
    case KeyBatchKind::kDel:
    case KeyBatchKind::kExists:
      out->type = RespType::kInteger;
      for (const Job &j : *jobs) out->integer += j.reply->integer;
      break;
  }
  return out;
}

Result<ReplyPtr> CommandExecutor::Multi(KeyBatchKind kind, const std::vector<std::string> &keys,
                                        const std::vector<std::string> *values) {
  std::vector<Batch> batches;
  if (Status s = SplitMulti(kind, keys, values, &batches); !s.ok()) return s;
  std::vector<Job> jobs = JobsFor(batches, KeyBatchAccess(kind));
  FanOut(ctx_, pools_, &jobs).Run();
  return MultiResult(kind, batches, &jobs, keys.size());
}

Result<ReplyPtr> CommandExecutor::MGet(const std::vector<std::string> &keys) {
  return Multi(KeyBatchKind::kMGet, keys, nullptr);
}

Status CommandExecutor::MSet(const std::vector<std::string> &keys,
                             const std::vector<std::string> &values) {
  Result<ReplyPtr> r = Multi(KeyBatchKind::kMSet, keys, &values);
  return r.ok() ? Status::Ok() : r.status();
}

Result<int64_t> CommandExecutor::Del(const std::vector<std::string> &keys) {
  Result<ReplyPtr> r = Multi(KeyBatchKind::kDel, keys, nullptr);
  if (!r.ok()) return r.status();
  return (*r)->integer;
}

Result<int64_t> CommandExecutor::Exists(const std::vector<std::string> &keys) {
  Result<ReplyPtr> r = Multi(KeyBatchKind::kExists, keys, nullptr);
  if (!r.ok()) return r.status();
  return (*r)->integer;
}

void CommandExecutor::RefuseStateChanges(std::vector<Job> *jobs) {
  for (Job &j : *jobs) {
    if (j.status.ok()) j.status = RefuseStateChange(j.argv, ConnectionUse::kShared);
  }
}

void CommandExecutor::Run(std::vector<Job> *jobs) {
  RefuseStateChanges(jobs);
  FanOut(ctx_, pools_, jobs).Run();
}

}  // namespace net
}  // namespace cloudroute
