// Commands fanned out over the nodes in pipelined rounds (see fan_out.hpp).
#include "cloudroute/net/fan_out.hpp"

#include <algorithm>
#include <bitset>
#include <chrono>
#include <map>
#include <thread>

#include "cloudroute/core/keyslot.hpp"
#include "cloudroute/core/selector.hpp"
#include "cloudroute/net/backoff.hpp"
#include "cloudroute/net/command_rules.hpp"
#include "cloudroute/net/deadline.hpp"
#include "cloudroute/net/errors.hpp"

namespace cloudroute {
namespace net {

namespace {

constexpr char kAsking[] = "*1\r\n$6\r\nASKING\r\n";

// A write routed by its slot (not sent to a named node).
bool SlotWrite(const Job &j) { return j.pinned == nullptr && j.access == Access::kWrite; }

// A master-only read (read your writes) whose master failed: not read from a
// replica, which may not have the write yet.
Status MasterOnlyFailed(const Status &s, const std::string &slot) {
  return Error(s.code(), s.message() + "; the read of " + slot +
                             " follows a write to it and is served by its master only");
}

}  // namespace

std::vector<Batch> SplitBySlot(const TopologySource &topo, const std::vector<std::string> &keys,
                               const std::string &cmd, const std::vector<std::string> *values) {
  std::map<uint16_t, size_t> by_slot;
  std::vector<Batch> batches;
  for (size_t i = 0; i < keys.size(); ++i) {
    const uint16_t slot = topo.Place(keys[i].data(), keys[i].size());
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

std::vector<Job> JobsFor(const std::vector<Batch> &batches, Access access) {
  std::vector<Job> jobs(batches.size());
  for (size_t i = 0; i < batches.size(); ++i) {
    jobs[i].access = access;
    jobs[i].slot = batches[i].slot;
    jobs[i].argv.assign(batches[i].args.begin(), batches[i].args.end());
  }
  return jobs;
}

void FanOut::MarkReadsAfterWrites() {
  const RecentWrites &recent = ctx_->recent_writes;
  // Reads alone (an MGET) with the window off: nothing to mark, no set to clear.
  if (!recent.enabled() && std::none_of(jobs_->begin(), jobs_->end(), SlotWrite)) return;
  std::bitset<kSlotCount> written;
  for (Job &job : *jobs_) {
    if (job.pinned != nullptr) continue;  // no slot of its own
    if (SlotWrite(job)) {
      written.set(job.slot);
    } else {
      job.master_only = written.test(job.slot) || recent.MasterOnly(job.slot);
    }
  }
}

void FanOut::NoteWrites() {
  RecentWrites &recent = ctx_->recent_writes;
  if (!recent.enabled()) return;
  for (const Job &job : *jobs_) {
    if (SlotWrite(job)) recent.NoteWrite(job.slot);
  }
}

void FanOut::Run() {
  MarkReadsAfterWrites();
  for (;;) {
    Plan();
    if (legs_.empty()) {  // every job settled
      NoteWrites();
      return;
    }
    Connect();
    // Every node's share goes out before any reply is read: all in flight.
    for (Leg &leg : legs_) Send(&leg);
    for (Leg &leg : legs_) Receive(&leg);
    if (backoff_retries_ > 0) {
      const uint32_t ms = BackoffMs(backoff_retries_ - 1, ctx_->opts.retry_base_ms,
                                    ctx_->opts.retry_cap_ms, ctx_->topo->registry().NextRandom());
      std::this_thread::sleep_for(std::chrono::milliseconds(ms));
      backoff_retries_ = 0;
    }
  }
}

void FanOut::Plan() {
  legs_.clear();
  snap_ = ctx_->topo->Current();
  const std::shared_ptr<const Snapshot> &snap = snap_;
  for (Job &job : *jobs_) {
    if (job.done()) continue;
    if (job.pinned != nullptr) {
      AddToLeg(&job, job.pinned, Tier::kUnknown, false);
    } else if (job.ask != nullptr) {
      AddToLeg(&job, job.ask, Tier::kUnknown, true);
      job.ask = nullptr;
    } else if (snap == nullptr) {
      job.status = Error(Code::kNoTopology, "no topology installed");
    } else {
      Place(&job, *snap);
    }
  }
  // Send() takes each leg's connection and holds it until Receive(): legs
  // go in one global order (node handle), so two fan-outs that need the
  // same busy nodes wait for each other in the same order and never each
  // hold what the other waits for (in key order, 16 concurrent MGETs over
  // pools of 8 deadlocked until the pool wait timed out, ~500 ms).
  std::sort(legs_.begin(), legs_.end(),
            [](const Leg &a, const Leg &b) { return a.node->handle < b.node->handle; });
}

void FanOut::Place(Job *job, const Snapshot &snap) {
  const std::string slot = ctx_->topo->Where(job->slot);
  const CandidateSet *set = snap.SetForSlot(job->slot);
  if (set == nullptr) {
    ctx_->TriggerRefresh();
    job->status = Error(Code::kSlotUncovered, slot + " is served by no shard");
    return;
  }
  if (job->access == Access::kWrite || job->master_only) {
    if (set->master == nullptr) {
      job->status = Error(Code::kUnavailable, "the master of " + slot + " has no known endpoint");
    } else if (!job->failed.empty()) {  // a master-only read whose master failed (LOADING)
      job->status = MasterOnlyFailed(job->last_failure, slot);
    } else {
      AddToLeg(job, set->master, set->master_tier, false);
    }
    return;
  }
  // A migrating slot's set is master-first (see Snapshot::slot_to_set).
  NodeRegistry &reg = ctx_->topo->registry();
  const Candidate *c = VisitReadOrder(*set, reg, [&](const Candidate &cand) {
    if (std::find(job->failed.begin(), job->failed.end(), cand.node) != job->failed.end())
      return false;
    // Admit() claims a half-open probe: only ask it of a node we will try.
    return cand.node->health.Admit(reg.clock(), reg.health_config());
  });
  if (c != nullptr) {
    AddToLeg(job, c->node, c->tier, false);
  } else if (job->failed.empty()) {
    job->status = Error(Code::kUnavailable, "every read candidate of " + slot + " is marked down");
  } else {
    job->status =
        Error(job->last_failure.code(), "all " + std::to_string(job->failed.size()) +
                                            " reachable read candidates of " + slot +
                                            " failed; last: " + job->last_failure.message());
  }
}

void FanOut::AddToLeg(Job *job, NodeEntry *node, Tier tier, bool asking) {
  auto it =
      std::find_if(legs_.begin(), legs_.end(), [node](const Leg &l) { return l.node == node; });
  if (it == legs_.end()) {
    legs_.emplace_back();
    it = legs_.end() - 1;
    it->node = node;
    it->tier = tier;
  }
  it->entries.push_back({job, asking});
  it->replies += asking ? 2 : 1;
}

void FanOut::Failed(Job *job, const Leg &leg, const Status &s, bool sent) {
  if (job->master_only) {
    job->status = MasterOnlyFailed(s, ctx_->topo->Where(job->slot));
    return;
  }
  if (job->pinned != nullptr || job->access == Access::kWrite) {
    job->status = sent ? MaySentWrite(s) : s;
    return;
  }
  job->failed.push_back(leg.node);
  job->last_failure = s;
}

void FanOut::Connect() {
  // Connections are taken in the legs' order (see Plan); the legs that need
  // a new one only hold a slot of their pool here.
  std::vector<Leg *> dials;
  for (Leg &leg : legs_) {
    leg.pool = &pools_->For(leg.node);
    bool must_dial = false;
    auto conn = leg.pool->Reserve(ctx_->TimeoutFor(leg.tier), &must_dial);
    if (!conn.ok()) {
      LegFailed(&leg, conn.status(), /*sent=*/false);
    } else if (must_dial) {
      dials.push_back(&leg);
    } else {
      leg.conn = std::move(*conn);
    }
  }
  // Then every new connection is dialed at once: a stalled node's handshake
  // (up to its tier timeout) holds up no other leg — the legs of a round
  // that redoes a failed leg's commands on their next candidates included.
  std::vector<Status> failed(dials.size());
  auto dial = [this, &dials, &failed](size_t i) {
    Leg *leg = dials[i];
    auto conn = leg->pool->Dial(ctx_->TimeoutFor(leg->tier));
    if (conn.ok())
      leg->conn = std::move(*conn);
    else
      failed[i] = conn.status();
  };
  std::vector<std::thread> threads;
  for (size_t i = 1; i < dials.size(); ++i) threads.emplace_back(dial, i);
  if (!dials.empty()) dial(0);
  for (std::thread &t : threads) t.join();
  for (size_t i = 0; i < dials.size(); ++i) {
    if (!failed[i].ok()) LegFailed(dials[i], failed[i], /*sent=*/false);
  }
}

void FanOut::LegFailed(Leg *leg, const Status &s, bool sent) {
  pools_->NoteFailure(leg->node, leg->pool, s);
  for (Entry &e : leg->entries) Failed(e.job, *leg, s, sent);
}

void FanOut::Send(Leg *leg) {
  if (leg->conn == nullptr) return;  // no connection: its jobs are settled or go again
  const uint32_t timeout = ctx_->TimeoutFor(leg->tier);
  leg->t0 = SteadyNowNs();
  leg->deadline = DeadlineAfter(timeout, leg->t0);
  std::string wire;
  for (const Entry &e : leg->entries) {
    if (e.asking) wire.append(kAsking, sizeof kAsking - 1);
    AppendCommand(e.job->argv, &wire);
  }
  Status s = leg->conn->SendBytes(wire, leg->deadline);
  if (!s.ok()) {
    LegFailed(leg, s, /*sent=*/true);
    leg->pool->Release(std::move(leg->conn));
  }
}

void FanOut::Receive(Leg *leg) {
  if (leg->conn == nullptr) return;
  std::vector<ReplyPtr> replies;
  Status s = leg->conn->Receive(leg->replies, leg->deadline, &replies);
  const int64_t t1 = SteadyNowNs();
  // A reply of a shape its command cannot produce (among those that came,
  // all of them or the ones before a failure): the stream is off, and every
  // reply of the leg may be another command's.
  size_t next = 0;
  for (const Entry &e : leg->entries) {
    if (e.asking) ++next;
    if (next >= replies.size()) break;
    Status bad = CheckReply(e.job->argv, *replies[next++], leg->conn.get());
    if (!bad.ok()) {
      s = std::move(bad);
      replies.clear();
      break;
    }
  }
  leg->pool->Release(std::move(leg->conn));
  if (!s.ok())
    pools_->NoteFailure(leg->node, leg->pool, s);
  else
    pools_->NoteSuccess(leg->node);
  if (!replies.empty()) leg->pool->counters().AddSample(leg->t0, t1);
  size_t r = 0;
  for (Entry &e : leg->entries) {
    if (e.asking) ++r;  // ASKING's +OK; an error there shows in the command's own reply
    if (r >= replies.size()) {
      Failed(e.job, *leg, s, /*sent=*/true);
      continue;
    }
    Settle(e.job, leg, std::move(replies[r++]));
  }
}

void FanOut::Settle(Job *job, Leg *leg, ReplyPtr reply) {
  Outcome o = Classify(std::move(reply), leg->node, job->access);
  const bool served = o.kind == OutcomeKind::kDone || o.kind == OutcomeKind::kServerError;
  if (served) pools_->NoteServed(job->access, leg->tier, leg->pool);
  if (o.kind == OutcomeKind::kDone) {
    if (!job->failed.empty()) ctx_->stats.Add(&Stats::fallbacks);
    job->reply = std::move(o.reply);
    return;
  }
  if (served || job->pinned != nullptr) {
    ctx_->stats.Add(&Stats::server_errors);
    job->status = Error(kServerError, o.reply->str);
    return;
  }
  const ClientOptions &opts = ctx_->opts;
  switch (o.kind) {
    case OutcomeKind::kMoved:
    case OutcomeKind::kAsk: {
      if (++job->redirects > opts.max_redirects) {
        job->status =
            Error(kServerError, "too many redirects for slot " + std::to_string(job->slot) +
                                    "; last: " + o.reply->str);
        return;
      }
      if (o.kind == OutcomeKind::kMoved) {
        ctx_->stats.Add(&Stats::moved);
        Status s = ctx_->topo->ReportMoved(o.slot, o.host, o.port);
        if (!s.ok()) job->status = s;
        ctx_->TriggerRefresh();
      } else {
        ctx_->stats.Add(&Stats::ask);
        auto target = ctx_->topo->ReportAsk(o.slot, o.host, o.port);  // marks it migrating
        if (target.ok()) {
          job->ask = *target;
          asked_.Add(job->ask);  // the router pins it now (until its second update)
        } else {
          job->status = target.status();
        }
      }
      return;
    }
    case OutcomeKind::kRetry:
      if (++job->retries > opts.max_retries) {
        ctx_->stats.Add(&Stats::server_errors);
        job->status = Error(kServerError, o.reply->str);
        return;
      }
      ctx_->stats.Add(&Stats::retries);
      backoff_retries_ = std::max(backoff_retries_, job->retries);
      return;
    case OutcomeKind::kNodeFailed:  // a replica still LOADING: the next candidate
      job->failed.push_back(leg->node);
      job->last_failure = o.status;
      return;
    case OutcomeKind::kDone:
    case OutcomeKind::kServerError:
      return;  // handled above
  }
}

}  // namespace net
}  // namespace cloudroute
