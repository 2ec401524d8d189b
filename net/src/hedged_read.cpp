// Hedged reads (see hedge.hpp and CommandExecutor::TryHedged): one read on
// two nodes' connections at once, on the caller's thread — the first leg is
// sent, waited for until its hedge delay, then the second is sent and both
// sockets are polled until one answers. Each leg keeps its own tier
// deadline; a leg that passes it failed as any timed-out read does.
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <climits>

#include "cloudroute/net/command_executor.hpp"
#include "cloudroute/net/deadline.hpp"
#include "cloudroute/net/errors.hpp"

namespace cloudroute {
namespace net {
namespace {

// One node's share of a hedged read.
struct Leg {
  NodeEntry *node = nullptr;
  Tier tier = Tier::kUnknown;
  NodePool *pool = nullptr;
  std::unique_ptr<Connection> conn;  // the command sent on it; null once handed back
  int64_t t0 = 0, t1 = 0, deadline = 0;
  ReplyPtr reply;   // the whole reply, once read
  Outcome failure;  // kNodeFailed with its status, once failed
  bool failed = false;
  LoadMark busy;  // in flight until answered or failed (load-aware selection)

  bool pending() const { return !failed && reply == nullptr; }
};

// Hands the connection back: to the idle list when nothing is left to read
// on it, else closed (a reply in flight must never reach the next user).
void Return(Leg *leg) {
  if (leg->conn == nullptr) return;
  if (leg->reply != nullptr || leg->conn->broken()) {
    leg->pool->Release(std::move(leg->conn));  // a broken one is dropped there
  } else {
    leg->pool->Discard(std::move(leg->conn));
  }
}

void Fail(NodePools *pools, Leg *leg, const Status &s) {
  Return(leg);
  leg->busy.End();
  pools->NoteFailure(leg->node, leg->pool, s);
  leg->failed = true;
  leg->failure.kind = OutcomeKind::kNodeFailed;
  leg->failure.node = leg->node;
  leg->failure.tier = leg->tier;
  leg->failure.status = NamedFailure(leg->node, s);
}

// The connection of the first leg: an idle one, else a new one dialed on
// its own thread and waited for until dial_until. Null with leg->failed when
// the pool or the dial failed; null without when the dial is still running
// at dial_until (it goes on: NodePools::DialAside).
std::unique_ptr<Connection> FirstConnection(NodePools *pools, Leg *leg, uint32_t tier_ms,
                                            int64_t dial_until) {
  bool must_dial = false;
  auto idle = leg->pool->Reserve(tier_ms, &must_dial);
  if (!idle.ok()) {
    Fail(pools, leg, idle.status());
    return nullptr;
  }
  if (!must_dial) return std::move(*idle);
  std::shared_ptr<NodePools::PendingDial> dial = pools->DialAside(leg->node, leg->pool, tier_ms);
  auto conn = NodePools::AwaitDial(dial.get(), dial_until);
  if (!conn.ok()) {
    Fail(pools, leg, conn.status());
    return nullptr;
  }
  return std::move(*conn);
}

// Sends the command on the leg's connection (conn; null: the leg failed,
// or its dial is still running) and starts its deadline; false unless sent.
bool Send(NodePools *pools, std::unique_ptr<Connection> conn, uint32_t tier_ms, const Args &args,
          const CallOptions &call, Leg *leg) {
  if (conn == nullptr) return false;
  leg->conn = std::move(conn);
  leg->t0 = SteadyNowNs();
  leg->deadline = DeadlineAfter(CommandTimeoutMs(args, call, tier_ms), leg->t0);
  const Status s = leg->conn->Send({&args}, leg->deadline);
  if (!s.ok()) Fail(pools, leg, s);
  return s.ok();
}

// The leg's node, tier and pool; its tier timeout.
uint32_t Prepare(ClientContext *ctx, NodePools *pools, const Candidate &c, Leg *leg) {
  leg->node = c.node;
  leg->tier = c.tier;
  leg->pool = &pools->For(c.node);
  leg->busy = LoadMark(&c.node->load);
  return ctx->TimeoutFor(c.tier);
}

// The second leg: a pooled connection (dialed here when none is idle) and
// the command sent; false when the leg failed.
bool StartSecond(ClientContext *ctx, NodePools *pools, const Candidate &c, const Args &args,
                 const CallOptions &call, Leg *leg) {
  const uint32_t tier_ms = Prepare(ctx, pools, c, leg);
  auto conn = leg->pool->Acquire(tier_ms);
  if (!conn.ok()) {
    Fail(pools, leg, conn.status());
    return false;
  }
  return Send(pools, std::move(*conn), tier_ms, args, call, leg);
}

// Reads what has arrived on the leg, waiting until `until` (at most its
// deadline) for the whole reply; past its deadline without one, it failed.
void Await(NodePools *pools, const Args &args, Leg *leg, int64_t until) {
  ReplyPtr r;
  Status s = leg->conn->WaitPush(std::min(until, leg->deadline), &r);
  if (s.ok() && r != nullptr) {
    s = leg->conn->EndOfReplies(1);
    if (s.ok()) s = CheckReply(args, *r, leg->conn.get());
  }
  if (!s.ok()) {
    Fail(pools, leg, s);
  } else if (r != nullptr) {
    leg->t1 = SteadyNowNs();
    leg->reply = std::move(r);
    leg->busy.End();
  } else if (SteadyNowNs() >= leg->deadline) {
    Fail(pools, leg, Error(kTimeout, leg->conn->address() + ": no reply before the deadline"));
  }
}

// Waits until either pending leg has something to read or the earlier
// deadline of the two passes.
void PollBoth(Leg legs[2]) {
  pollfd fds[2];
  nfds_t n = 0;
  int64_t until = INT64_MAX;
  for (int k = 0; k < 2; ++k) {
    if (!legs[k].pending()) continue;
    fds[n++] = pollfd{legs[k].conn->fd(), POLLIN, 0};
    until = std::min(until, legs[k].deadline);
  }
  if (n == 0) return;
  const uint32_t ms = MsLeft(until);
  if (ms == 0) return;
  // EINTR or an error on a socket: the reads below find out.
  (void)poll(fds, n, static_cast<int>(std::min<uint32_t>(ms, INT_MAX)));
}

}  // namespace

bool CommandExecutor::Hedges(const Args &args, const CallOptions &call) const {
  return ctx_->opts.hedge.mode != HedgeMode::kOff && call.script == nullptr &&
         !TimeoutIsNotAFailure(args, call);
}

Outcome CommandExecutor::TryHedged(const Candidate &first, const Candidate &next, const Args &args,
                                   const CallOptions &call, std::vector<Outcome> *failed_legs,
                                   bool *hedge_sent) {
  *hedge_sent = false;
  Leg legs[2];
  Leg &a = legs[0], &b = legs[1];
  // The leg's reply or failure as an outcome; the leg is over.
  auto settle = [&](Leg *leg) -> Outcome {
    if (leg->failed) return std::move(leg->failure);
    Return(leg);
    leg->pool->counters().hedge_losses.store(0, std::memory_order_relaxed);
    leg->failed = true;  // over: its reply is the outcome
    return Answered(pools_, leg->node, leg->tier, leg->pool, std::move(leg->reply), Access::kRead,
                    leg->t0, leg->t1);
  };
  const uint32_t tier_ms = Prepare(ctx_, pools_, first, &a);
  const int64_t start = SteadyNowNs();
  const int64_t delay_ns =
      static_cast<int64_t>(HedgeDelayUs(ctx_->opts.hedge, a.pool->counters().recent)) * 1000;
  const int64_t dial_until = HedgeDialUntil(ctx_->opts.hedge, start, delay_ns);
  std::unique_ptr<Connection> conn = FirstConnection(pools_, &a, tier_ms, dial_until);
  if (conn == nullptr && !a.failed) {
    // A handshake slower than that (a stalled node accepts TCP connections):
    // nothing was sent, so the read moves on at no extra cost.
    pools_->NoteHedgeLost(a.node, a.pool);
    Outcome o;
    o.node = a.node;
    o.tier = a.tier;
    o.status = DialNotReady(a.node->address);
    return o;
  }
  if (!Send(pools_, std::move(conn), tier_ms, args, call, &a)) return settle(&a);
  Await(pools_, args, &a, a.t0 + delay_ns);  // the delay counts from the send
  if (!a.pending()) return settle(&a);
  if (!ctx_->hedge_budget.TryTake()) {
    ctx_->stats.Add(&Stats::hedges_denied);
    Await(pools_, args, &a, a.deadline);
    return settle(&a);
  }
  ctx_->stats.Add(&Stats::hedges);
  *hedge_sent = true;
  if (!StartSecond(ctx_, pools_, next, args, call, &b)) {
    failed_legs->push_back(settle(&b));
    Await(pools_, args, &a, a.deadline);
    return settle(&a);
  }
  // Both in flight: the first answer wins (the first leg on a tie).
  bool reported[2] = {false, false};
  while (a.pending() || b.pending()) {
    PollBoth(legs);
    for (Leg &l : legs) {
      if (l.pending()) Await(pools_, args, &l, 0);
    }
    for (int k = 0; k < 2; ++k) {
      Leg &l = legs[k];
      if (reported[k] || l.pending()) continue;
      const bool answered = l.reply != nullptr;
      Outcome o = settle(&l);
      reported[k] = true;
      if (!answered || o.kind == OutcomeKind::kNodeFailed) {
        // Failed, or LOADING / MASTERDOWN: the other leg may still answer.
        failed_legs->push_back(std::move(o));
        continue;
      }
      Leg &other = legs[1 - k];
      if (k == 1 && other.pending()) {
        ctx_->stats.Add(&Stats::hedges_won);
        pools_->NoteHedgeLost(a.node, a.pool);
      }
      Return(&other);  // closed when its reply is still in flight
      if (!reported[1 - k] && other.failed && other.reply == nullptr && other.conn == nullptr &&
          other.failure.kind == OutcomeKind::kNodeFailed && !other.failure.status.ok()) {
        failed_legs->push_back(std::move(other.failure));
      }
      return o;
    }
  }
  // Both failed: the later failure is the outcome, the other is recorded.
  Outcome last = std::move(failed_legs->back());
  failed_legs->pop_back();
  return last;
}

}  // namespace net
}  // namespace cloudroute
