// Commands fanned out over the nodes in pipelined rounds (see fan_out.hpp).
#include "cloudroute/net/fan_out.hpp"

#include <poll.h>

#include <algorithm>
#include <bitset>
#include <chrono>
#include <climits>
#include <map>
#include <thread>
#include <utility>

#include "cloudroute/core/keyslot.hpp"
#include "cloudroute/core/selector.hpp"
#include "cloudroute/net/backoff.hpp"
#include "cloudroute/net/call_options.hpp"
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

// A script runs its own commands (it may write, and must not run twice)
// and a blocking read waits by design: neither is hedged.
bool ScriptOrBlocking(const std::vector<std::string_view> &argv) {
  if (argv.empty()) return false;
  const std::string_view cmd = argv[0];
  return ArgIs(cmd, "EVAL") || ArgIs(cmd, "EVALSHA") || ArgIs(cmd, "EVAL_RO") ||
         ArgIs(cmd, "EVALSHA_RO") || ArgIs(cmd, "FCALL") || ArgIs(cmd, "FCALL_RO") ||
         IsBlocking(argv);
}

// A read any candidate of its slot may serve (see fan_out.hpp, "Hedged legs").
bool HedgeableRead(const Job &j, bool asking) {
  return !asking && j.access == Access::kRead && j.pinned == nullptr && !j.master_only &&
         !ScriptOrBlocking(j.argv);
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
  Plan();
  Continue();
}

void FanOut::Continue() {
  for (;;) {
    // No leg and no write waiting to be tried again (AskAgain): every job settled.
    if (legs_.empty() && backoff_retries_ == 0) {
      NoteWrites();
      return;
    }
    if (!legs_.empty() && !Exchange()) {
      Connect();
      // Every node's share goes out before any reply is read: all in flight.
      for (Leg &leg : legs_) Send(&leg);
      if (std::any_of(legs_.begin(), legs_.end(), [](const Leg &l) { return l.hedge_at != 0; })) {
        Collect();
      } else {
        for (Leg &leg : legs_) Receive(&leg);
      }
    }
    Backoff();
    Plan();
  }
}

void FanOut::Backoff() {
  if (backoff_retries_ == 0) return;
  const uint32_t ms = BackoffMs(backoff_retries_ - 1, ctx_->opts.retry_base_ms,
                                ctx_->opts.retry_cap_ms, ctx_->topo->registry().NextRandom());
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  backoff_retries_ = 0;
}

bool FanOut::Begin(Requests *out) {
  MarkReadsAfterWrites();
  Plan();
  return !legs_.empty() && BuildRequests(/*for_async=*/true, out);
}

void FanOut::Resume() {
  Backoff();
  Plan();
  Continue();
}

bool FanOut::Ended() {
  if (backoff_retries_ > 0 ||
      !std::all_of(jobs_->begin(), jobs_->end(), [](const Job &j) { return j.done(); })) {
    return false;
  }
  NoteWrites();
  return true;
}

void FanOut::Plan() {
  legs_.clear();
  snap_ = ctx_->topo->Current();
  const std::shared_ptr<const Snapshot> &snap = snap_;
  for (Job &job : *jobs_) {
    if (job.done()) continue;
    job.answered = false;
    if (job.pinned != nullptr) {
      AddToLeg(&job, job.pinned, Tier::kUnknown, false);
    } else if (job.ask != nullptr) {
      AddToLeg(&job, job.ask, Tier::kUnknown, true);
      job.ask = nullptr;
    } else if (job.confirm != nullptr) {
      AddToLeg(&job, job.confirm, job.confirm_tier, false);
      job.confirm = nullptr;
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
      Status none = Error(Code::kUnavailable, "the master of " + slot + " has no known endpoint");
      if (!job->master_only && AskAgain(job, none)) return;
      job->status = std::move(none);
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
    it->busy = LoadMark(&node->load);
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
    if (!sent && AskAgain(job, s)) return;  // never sent: not executed
    job->status = sent ? MaySentWrite(s) : s;
    return;
  }
  job->failed.push_back(leg.node);
  job->last_failure = s;
}

// The fan-out side of CommandExecutor::Route's `again`: the same rule for a
// write its place's master did not execute (TopologySource::AskAbout), so
// batches on Sentinel groups survive a master moving. A cluster's source
// says no (its signals are MOVED and refreshes): nothing changes there.
bool FanOut::AskAgain(Job *job, const Status &why) {
  if (job->pinned != nullptr || job->access != Access::kWrite) return false;
  if (job->retries >= ctx_->opts.max_retries || !ctx_->topo->AskAbout(job->slot)) return false;
  ++job->retries;
  ctx_->stats.Add(&Stats::retries);
  job->last_failure = why;
  backoff_retries_ = std::max(backoff_retries_, job->retries);  // the next round waits
  return true;
}

void FanOut::Connect() {
  const HedgeOptions &hedge = ctx_->opts.hedge;
  const int64_t start = SteadyNowNs();
  // Connections are taken in the legs' order (see Plan); the legs that need
  // a new one only hold a slot of their pool here.
  std::vector<std::pair<Leg *, std::shared_ptr<NodePools::PendingDial>>> dials;
  for (Leg &leg : legs_) {
    leg.pool = &pools_->For(leg.node);
    leg.hedgeable = hedge.mode != HedgeMode::kOff &&
                    std::all_of(leg.entries.begin(), leg.entries.end(),
                                [](const Entry &e) { return HedgeableRead(*e.job, e.asking); });
    if (leg.hedgeable) {
      ctx_->hedge_budget.OnRead();  // a hedged leg spends one hedge: each leg earns its share
      leg.delay_ns = static_cast<int64_t>(HedgeDelayUs(hedge, leg.pool->counters().recent)) * 1000;
    }
    const uint32_t tier_ms = ctx_->TimeoutFor(leg.tier);
    bool must_dial = false;
    auto conn = leg.pool->Reserve(tier_ms, &must_dial);
    if (!conn.ok()) {
      LegFailed(&leg, conn.status(), /*sent=*/false);
    } else if (must_dial) {
      dials.emplace_back(&leg, pools_->DialAside(leg.node, leg.pool, tier_ms));
    } else {
      leg.conn = std::move(*conn);
    }
  }
  // Then every new connection is dialed at once: a stalled node's handshake
  // (up to its tier timeout) holds up no other leg — the legs of a round
  // that redoes a failed leg's commands on their next candidates included.
  // A hedgeable leg waits for its dial only until its hedge delay.
  for (auto &d : dials) {
    Leg *leg = d.first;
    auto conn = NodePools::AwaitDial(
        d.second.get(), leg->hedgeable ? HedgeDialUntil(hedge, start, leg->delay_ns) : INT64_MAX);
    if (!conn.ok()) {
      LegFailed(leg, conn.status(), /*sent=*/false);
    } else if (*conn != nullptr) {
      leg->conn = std::move(*conn);
    } else {
      // A slower handshake (a stalled node accepts TCP connections): nothing
      // was sent, so its reads move on to their next candidates at no cost.
      pools_->NoteHedgeLost(leg->node, leg->pool);
      FailEntries(leg, DialNotReady(leg->node->address), /*sent=*/false);
    }
  }
}

void FanOut::LegFailed(Leg *leg, const Status &s, bool sent) {
  pools_->NoteFailure(leg->node, leg->pool, s);
  FailEntries(leg, s, sent);
}

void FanOut::FailEntries(Leg *leg, const Status &s, bool sent) {
  for (size_t i = leg->settled; i < leg->entries.size(); ++i) {
    Job *job = leg->entries[i].job;
    if (!job->answered) Failed(job, *leg, s, sent);
  }
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
  } else if (leg->hedgeable) {
    leg->hedge_at = leg->t0 + leg->delay_ns;  // the delay counts from the send
  }
}

void FanOut::Receive(Leg *leg) {
  if (leg->conn == nullptr) return;
  Finish(leg, leg->conn->Receive(leg->replies, leg->deadline, &leg->got));
}

void FanOut::Collect() {
  std::vector<pollfd> fds;
  for (;;) {
    fds.clear();
    int64_t wake = INT64_MAX;
    bool moved = false;  // a leg ended or a hedge went out: look at every leg again
    bool dialing = false;
    // By index: Hedge() adds legs (a deque keeps the others in place).
    for (size_t i = 0; i < legs_.size(); ++i) {
      Leg &leg = legs_[i];
      if (leg.dial != nullptr) {
        moved = Dialed(&leg) || moved;
        dialing = dialing || leg.dial != nullptr;
      }
      if (leg.conn == nullptr) continue;
      if (Drain(&leg)) {
        moved = true;
        continue;
      }
      if (leg.hedge_at != 0 && SteadyNowNs() >= leg.hedge_at) {
        Hedge(&leg);
        moved = true;
        if (leg.conn == nullptr) continue;
      }
      fds.push_back(pollfd{leg.conn->fd(), POLLIN, 0});
      wake = std::min(wake, leg.deadline);
      if (leg.hedge_at != 0) wake = std::min(wake, leg.hedge_at);
    }
    if (fds.empty() && !dialing) return;
    if (moved) continue;
    // A dial ends on its own thread: look again within a millisecond.
    if (dialing) wake = std::min(wake, DeadlineAfter(1));
    // EINTR or an error on a socket: the reads above find out.
    (void)poll(fds.data(), fds.size(), static_cast<int>(std::min<uint32_t>(MsLeft(wake), INT_MAX)));
  }
}

bool FanOut::Drain(Leg *leg) {
  while (leg->got.size() < leg->replies) {
    ReplyPtr r;
    Status s = leg->conn->WaitPush(/*deadline_ns=*/0, &r);  // what has arrived, no wait
    if (!s.ok()) {
      Finish(leg, std::move(s));
      return true;
    }
    if (r == nullptr) break;
    leg->got.push_back(std::move(r));
  }
  if (leg->got.size() == leg->replies) {
    Status s = leg->conn->EndOfReplies(leg->replies);
    if (!s.ok()) leg->got.resize(leg->used);  // any of those not settled may be another request's
    Finish(leg, std::move(s));
    return true;
  }
  if (!Open(*leg)) {
    // Every read was answered on another leg: the rest of the replies are
    // still in flight, so the connection is closed, never pooled.
    leg->pool->Discard(std::move(leg->conn));
    return true;
  }
  if (SteadyNowNs() >= leg->deadline) {
    Finish(leg, Error(kTimeout, leg->conn->address() + ": no reply before the deadline"));
    return true;
  }
  return false;
}

bool FanOut::Open(const Leg &leg) {
  return std::any_of(leg.entries.begin() + static_cast<std::ptrdiff_t>(leg.settled),
                     leg.entries.end(), [](const Entry &e) { return !e.job->answered; });
}

bool FanOut::Dialed(Leg *leg) {
  const bool wanted = Open(*leg);
  auto conn = NodePools::AwaitDial(leg->dial.get(), 0, /*abandon=*/!wanted);
  if (conn.ok() && *conn == nullptr && wanted) return false;  // still dialing
  leg->dial.reset();
  if (!conn.ok()) {
    LegFailed(leg, conn.status(), /*sent=*/false);
  } else if (*conn != nullptr && !wanted) {
    leg->pool->Release(std::move(*conn));  // every read answered meanwhile: kept for later
  } else if (*conn != nullptr) {
    leg->conn = std::move(*conn);
    Send(leg);
  }
  return true;
}

const Candidate *FanOut::NextCandidate(const Job &job, const NodeEntry *node) {
  const CandidateSet *set = snap_ == nullptr ? nullptr : snap_->SetForSlot(job.slot);
  if (set == nullptr) return nullptr;
  return VisitReadOrder(*set, ctx_->topo->registry(), [&](const Candidate &c) {
    return c.node != node && !c.node->health.open() &&
           std::find(job.failed.begin(), job.failed.end(), c.node) == job.failed.end();
  });
}

void FanOut::Hedge(Leg *leg) {
  leg->hedge_at = 0;
  Status s;
  SettleArrived(leg, &s);  // the replies that came stand
  if (!s.ok()) {
    Finish(leg, std::move(s));
    return;
  }
  // The reads still open, by their next candidate (in the order first seen).
  std::vector<std::pair<const Candidate *, std::vector<Job *>>> to;
  for (size_t i = leg->settled; i < leg->entries.size(); ++i) {
    Job *job = leg->entries[i].job;
    if (job->answered) continue;
    const Candidate *c = NextCandidate(*job, leg->node);
    if (c == nullptr) continue;  // no other candidate: it waits on this leg
    auto it =
        std::find_if(to.begin(), to.end(), [c](const auto &t) { return t.first->node == c->node; });
    if (it == to.end()) it = to.insert(to.end(), {c, {}});
    it->second.push_back(job);
  }
  if (to.empty()) return;
  if (!ctx_->hedge_budget.TryTake()) {
    ctx_->stats.Add(&Stats::hedges_denied);
    return;
  }
  ctx_->stats.Add(&Stats::hedges);
  for (auto &t : to) {
    legs_.emplace_back();
    Leg &h = legs_.back();
    h.node = t.first->node;
    h.busy = LoadMark(&h.node->load);
    h.tier = t.first->tier;
    h.pool = &pools_->For(h.node);
    h.hedge_of = leg;
    for (Job *job : t.second) h.entries.push_back({job, false});
    h.replies = h.entries.size();
    // An idle connection, or a new one dialed on its own thread (Collect
    // sends the leg when it is there: a stalled node's handshake holds up
    // no other leg); a pool with none free is not waited for (the reads
    // stay on their leg).
    bool must_dial = false;
    auto conn = h.pool->Reserve(0, &must_dial);
    if (!conn.ok()) {
      legs_.pop_back();
    } else if (must_dial) {
      h.dial = pools_->DialAside(h.node, h.pool, ctx_->TimeoutFor(h.tier));
    } else {
      h.conn = std::move(*conn);
      Send(&h);
    }
  }
}

void FanOut::Finish(Leg *leg, Status s) {
  const int64_t t1 = SteadyNowNs();
  SettleArrived(leg, &s);
  if (s.ok() || leg->conn->broken()) {
    leg->pool->Release(std::move(leg->conn));  // a broken one is dropped there
  } else {
    leg->pool->Discard(std::move(leg->conn));  // past its deadline: replies may still come
  }
  Conclude(leg, s, /*sent=*/true, t1);
}

namespace {

// "" when every reply of the leg's commands (among those that came) has a
// shape its command can produce; else what was wrong. ASKING's +OK is not
// checked (an error there shows in the command's own reply).
template <typename Entries>
std::string LegMismatch(const Entries &entries, const std::vector<ReplyPtr> &replies) {
  size_t next = 0;
  for (const auto &e : entries) {
    if (e.asking) ++next;
    if (next >= replies.size()) break;
    const auto &argv = e.job->argv;
    const std::string bad = argv.empty()
                                ? std::string()
                                : ReplyMismatch(argv[0], ExpectedReplyOf(argv), *replies[next]);
    ++next;
    if (!bad.empty()) return bad;
  }
  return std::string();
}

}  // namespace

bool FanOut::BuildRequests(bool for_async, Requests *out) {
  // Hedged legs read their sockets themselves (Collect): with hedging on,
  // the pooled path serves every round.
  if ((ctx_->opts.pool.shared == 0 && !for_async) || ctx_->opts.hedge.mode != HedgeMode::kOff) {
    return false;
  }
  Requests requests;
  for (Leg &leg : legs_) {
    std::shared_ptr<NodeLink> link = pools_->LinkFor(leg.node, for_async);
    if (link == nullptr) return false;  // no engine thread: the pooled path
    leg.pool = &pools_->For(leg.node);
    auto r = std::make_shared<LinkRequest>();
    for (const Entry &e : leg.entries) {
      if (e.asking) r->wire.append(kAsking, sizeof kAsking - 1);
      AppendCommand(e.job->argv, &r->wire);
    }
    r->expected = leg.replies;
    leg.t0 = SteadyNowNs();
    r->deadline_ns = DeadlineAfter(ctx_->TimeoutFor(leg.tier), leg.t0);
    // The leg's entries outlive the request's check: the requests are
    // settled before the legs are planned again (Absorb).
    const std::vector<Entry> *entries = &leg.entries;
    r->check = [entries](const std::vector<ReplyPtr> &replies) {
      return LegMismatch(*entries, replies);
    };
    requests.emplace_back(std::move(link), std::move(r));
  }
  *out = std::move(requests);
  return true;
}

bool FanOut::Exchange() {
  Requests requests;
  if (!BuildRequests(/*for_async=*/false, &requests)) return false;
  std::vector<std::pair<NodeLink *, LinkRequestPtr>> waited;
  auto waiter = std::make_shared<LinkWaiter>(requests.size());
  for (auto &lr : requests) {
    LinkWaiter::Attach(waiter, lr.second.get());
    waited.emplace_back(lr.first.get(), lr.second);
  }
  // Every node's share goes out before any reply is read: all in flight.
  for (auto &lr : requests) lr.first->Submit(lr.second);
  waiter->Wait(waited);
  Absorb(requests);
  return true;
}

void FanOut::Absorb(const Requests &requests) {
  for (size_t i = 0; i < legs_.size(); ++i) {
    Leg &leg = legs_[i];
    LinkRequest &r = *requests[i].second;
    if (r.sent_ns != 0) leg.t0 = r.sent_ns;
    leg.got = std::move(r.replies);  // checked on the engine thread
    Status s = r.status;
    SettleArrived(&leg, &s);
    Conclude(&leg, s, r.sent, r.done_ns);
  }
}

bool FanOut::Conclusive(const Requests &requests) {
  for (const auto &lr : requests) {
    const LinkRequest &r = *lr.second;
    if (!r.status.ok()) return false;
    for (const ReplyPtr &reply : r.replies) {
      if (!reply->is_error()) continue;
      const std::string prefix = ErrorPrefix(*reply);
      // An ordinary error reply is a command's result; READONLY may be a
      // write its demoted master did not execute (AskAgain), LOADING a
      // read's next candidate or a write's retry (judged as a write's: the
      // worker's business either way).
      if (prefix == "READONLY" || ErrorKind(prefix, Access::kWrite) != OutcomeKind::kErrorReply) {
        return false;
      }
    }
  }
  return true;
}

void FanOut::Conclude(Leg *leg, const Status &s, bool sent, int64_t t1) {
  leg->busy.End();
  if (!s.ok()) {
    pools_->NoteFailure(leg->node, leg->pool, s);
  } else {
    pools_->NoteSuccess(leg->node);
    if (leg->hedgeable) leg->pool->counters().hedge_losses.store(0, std::memory_order_relaxed);
  }
  if (!leg->got.empty()) leg->pool->counters().AddSample(leg->t0, t1);
  FailEntries(leg, s, sent);
}

void FanOut::SettleArrived(Leg *leg, Status *s) {
  std::vector<ReplyPtr> &got = leg->got;
  // A reply of a shape its command cannot produce (among those that came):
  // the stream is off, and every reply not settled may be another command's.
  // (Shared connections check the replies on the engine thread: no conn.)
  size_t next = leg->used;
  for (size_t i = leg->settled; leg->conn != nullptr && i < leg->entries.size(); ++i) {
    if (leg->entries[i].asking) ++next;
    if (next >= got.size()) break;
    Status bad = CheckReply(leg->entries[i].job->argv, *got[next++], leg->conn.get());
    if (!bad.ok()) {
      *s = std::move(bad);
      got.resize(leg->used);
      break;
    }
  }
  for (; leg->settled < leg->entries.size(); ++leg->settled) {
    const Entry &e = leg->entries[leg->settled];
    // ASKING's +OK; an error there shows in the command's own reply.
    const size_t r = leg->used + (e.asking ? 1 : 0);
    if (r >= got.size()) break;
    leg->used = r + 1;
    if (e.job->answered) continue;  // the other leg's answer came first
    Leg *origin = leg->hedge_of;
    if (origin != nullptr && origin->conn != nullptr && !origin->lost_a_hedge) {
      origin->lost_a_hedge = true;  // once per hedged leg
      ctx_->stats.Add(&Stats::hedges_won);
      pools_->NoteHedgeLost(origin->node, origin->pool);
    }
    Settle(e.job, leg, std::move(got[r]));
  }
}

void FanOut::Settle(Job *job, Leg *leg, ReplyPtr reply) {
  Outcome o = Classify(std::move(reply), leg->node, job->access);
  // LOADING / MASTERDOWN answer nothing: a hedge's other leg may still.
  job->answered = o.kind != OutcomeKind::kNodeFailed;
  const bool served = o.kind == OutcomeKind::kDone || o.kind == OutcomeKind::kErrorReply;
  if (served) pools_->NoteServed(job->access, leg->tier, leg->pool);
  if (o.kind == OutcomeKind::kDone) {
    if (job->access == Access::kRead && !job->master_only && !job->confirmed && snap_ != nullptr) {
      const CandidateSet *set = snap_->SetForSlot(job->slot);
      if (NodeEntry *m = NilToConfirm(set, leg->node, *o.reply, *ctx_->topo, job->slot)) {
        job->confirmed = true;  // the slot moved a moment ago: its master decides
        job->confirm = m;
        job->confirm_tier = set->master_tier;
        asked_.Add(m);  // pinned past the snapshot that named it
        return;
      }
    }
    if (!job->failed.empty()) ctx_->stats.Add(&Stats::fallbacks);
    job->reply = std::move(o.reply);
    return;
  }
  if (o.kind == OutcomeKind::kErrorReply && ErrorPrefix(*o.reply) == "READONLY" &&
      AskAgain(job, Error(kServerError, leg->node->address + ": " + o.reply->str))) {
    return;  // a demoted master refused the write: not executed
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
        const CandidateSet *set = job->access == Access::kRead && !job->master_only && snap_
                                      ? snap_->SetForSlot(job->slot)
                                      : nullptr;
        if (NodeEntry *m = MasterToAsk(set, leg->node, job->redirects)) {
          job->confirm = m;  // the replica's view may lag: its master decides
          job->confirm_tier = set->master_tier;
          asked_.Add(m);  // pinned past the snapshot that named it
          ctx_->TriggerRefresh();
          return;
        }
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
    case OutcomeKind::kErrorReply:
      return;  // handled above
  }
}

}  // namespace net
}  // namespace cloudroute
