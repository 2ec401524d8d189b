// CommandExecutor: runs commands through the router — reads to the key's
// read candidates in order, writes to the master — and deals with what the
// nodes answer (see client.hpp for the rules): MOVED / ASK redirects,
// TRYAGAIN / CLUSTERDOWN / LOADING retries with backoff, a failed read
// moving on to the next candidate, a write never re-sent once it may have
// arrived. Multi-key commands are split by slot and fanned out, and pipelines
// run, on FanOut (fan_out.hpp).
//
// Thread-safety: safe for concurrent use; the context and pools it is given
// must outlive it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cloudroute/net/call_options.hpp"
#include "cloudroute/net/client_context.hpp"
#include "cloudroute/net/fan_out.hpp"
#include "cloudroute/net/node_pools.hpp"
#include "cloudroute/net/outcome.hpp"

namespace cloudroute {
namespace net {

enum class KeyBatchKind : uint8_t;  // key_batch.hpp

// What a node's reply means once it arrived (sent at t0_ns, read by
// t1_ns): the node's success, its latency sample and, for an answer, the
// served count are recorded; the outcome names the node and tier.
Outcome Answered(NodePools *pools, NodeEntry *node, Tier tier, NodePool *pool, ReplyPtr answer,
                 Access access, int64_t t0_ns, int64_t t1_ns);

class CommandExecutor {
 public:
  CommandExecutor(ClientContext *ctx, NodePools *pools) : ctx_(ctx), pools_(pools) {}
  CommandExecutor(const CommandExecutor &) = delete;
  CommandExecutor &operator=(const CommandExecutor &) = delete;

  // Any command on one key (args is the whole command, binary-safe).
  Result<ReplyPtr> Execute(Access access, std::string_view key, const Args &args,
                           const CallOptions &call = {});
  // The same for a slot: follows redirects, retries, falls back. With
  // call.script, a NOSCRIPT reply is answered by SCRIPT LOAD of it on the
  // node that gave it and the command is sent once more (it did not run).
  // With read_your_writes_ms (recent_writes.hpp), a write notes its slot
  // when it ends, and a read of a slot written within the window goes to
  // the slot's master only (failing, not falling back, if the master does).
  Result<ReplyPtr> ExecuteSlot(Access access, uint16_t slot, const Args &args,
                               const CallOptions &call = {});

  // One attempt on a node the caller chose (no redirect, retry or
  // fallback): for commands bound to one node, like a shard's SCAN.
  Outcome RunOn(NodeEntry *node, Tier tier, Access access, const Args &args,
                const CallOptions &call) {
    return TryNode(node, tier, access, args, nullptr, call);
  }

  // Asynchronous calls (async_calls.hpp) run their first attempt on the
  // engine thread and the rest here, so they route as ExecuteSlot does.
  struct FirstAttempt {
    std::shared_ptr<const Snapshot> snap;  // routed on; pins node until the call ends
    NodeEntry *node = nullptr;             // null: run ExecuteSlot from the start
    Tier tier = Tier::kUnknown;
    std::shared_ptr<NodeLink> link;  // node's shared connections
    uint32_t timeout_ms = 0;         // the attempt's deadline
  };
  // Where ExecuteSlot's first attempt would go, when it would be one plain
  // round trip (no script, hedge, blocking command or read-your-writes
  // read): *out names the node (the read order's first admitted candidate,
  // or the master) and its link. A command no connection may carry is
  // refused (kInvalid). Any thread.
  Status PlanFirst(Access access, uint16_t slot, const Args &args, const CallOptions &call,
                   FirstAttempt *out);
  // What a round trip on a node came to, as TryNode judges it: node health,
  // statistics, MaySentWrite, the outcome (notes may log: never on the
  // engine thread).
  Outcome Conclude(NodeEntry *node, Tier tier, Access access, const Args &args, bool prefixed,
                   const CallOptions &call, Status s, std::vector<ReplyPtr> replies, bool sent,
                   int64_t t0, int64_t t1);
  // ExecuteSlot after plan's first attempt came to first: the next read
  // candidates, redirects, retries and their backoff (blocking).
  Result<ReplyPtr> Continue(Access access, uint16_t slot, const Args &args, const CallOptions &call,
                            const FirstAttempt &plan, Outcome first);

  // Multi-key, split by slot and fanned out.
  Result<ReplyPtr> MGet(const std::vector<std::string> &keys);  // array in key order
  Status MSet(const std::vector<std::string> &keys, const std::vector<std::string> &values);
  Result<int64_t> Del(const std::vector<std::string> &keys);
  // How many of the keys exist (a key named twice counts twice, as EXISTS).
  Result<int64_t> Exists(const std::vector<std::string> &keys);

  // A multi-key call in its two halves, for the blocking calls above and
  // the asynchronous ones (async_calls.hpp): SplitMulti checks the keys
  // (at least one; values, one per key, for kMSet only: else kInvalid) and
  // splits them by place, a command per place (run as JobsFor(*batches,
  // KeyBatchAccess(kind))); MultiResult makes the call's result of the
  // jobs once run — the first failed place's status, else kMGet an array
  // in key order, kMSet a +OK status, kDel / kExists the sum as an
  // integer. Any thread.
  Status SplitMulti(KeyBatchKind kind, const std::vector<std::string> &keys,
                    const std::vector<std::string> *values, std::vector<Batch> *batches) const;
  Result<ReplyPtr> MultiResult(KeyBatchKind kind, const std::vector<Batch> &batches,
                               std::vector<Job> *jobs, size_t key_count) const;

  // Any commands at once (a pipeline): each job gets its reply or its
  // error in place (see fan_out.hpp).
  void Run(std::vector<Job> *jobs);
  // What Run does before the fan-out: a command no shared connection may
  // carry fails in its place (RefuseStateChange).
  static void RefuseStateChanges(std::vector<Job> *jobs);
  // The fan-out Run runs jobs on, for a caller that drives it in steps
  // (async_calls.hpp). REQUIRES: jobs outlive it.
  std::unique_ptr<FanOut> FanOutFor(std::vector<Job> *jobs) {
    return std::make_unique<FanOut>(ctx_, pools_, jobs);
  }

 private:
  // SplitMulti, the fan-out and MultiResult, on this thread.
  Result<ReplyPtr> Multi(KeyBatchKind kind, const std::vector<std::string> &keys,
                         const std::vector<std::string> *values);
  // ExecuteSlot's routing loop; master_only: a read served by the master only.
  // first: the outcome of an asynchronous call's first attempt on
  // first_snap (Continue).
  Result<ReplyPtr> Route(Access access, bool master_only, uint16_t slot, const Args &args,
                         const CallOptions &call, Outcome *first = nullptr,
                         std::shared_ptr<const Snapshot> first_snap = nullptr);
  // One attempt on one node (prefix: ASKING or SCRIPT LOAD first, in the
  // same round trip; an error reply to it is the outcome).
  Outcome TryNode(NodeEntry *node, Tier tier, Access access, const Args &args, const Args *prefix,
                  const CallOptions &call);
  // The read candidates of the slot in poll order until one answers; when
  // every one is marked down, each is still tried, in candidate order. A
  // failure names every node tried and why.
  // first: the outcome of the read order's first node, already tried.
  Outcome TryRead(const CandidateSet &set, const Args &args, uint16_t slot, const CallOptions &call,
                  Outcome *first = nullptr);
  // Whether this read may be hedged: hedging is on, and the command neither
  // blocks nor has a call-level deadline or a script to load (hedge.hpp).
  bool Hedges(const Args &args, const CallOptions &call) const;
  // A read sent to first and, if first has not answered within its hedge
  // delay and the budget allows, to next as well (*hedge_sent): the first
  // answer (a reply, an error reply or a redirect) is the outcome; the
  // other leg's connection is closed, its reply unread. Each leg that failed
  // is appended to *failed_legs; when both failed, the outcome is the last
  // failure (hedged_read.cpp).
  Outcome TryHedged(const Candidate &first, const Candidate &next, const Args &args,
                    const CallOptions &call, std::vector<Outcome> *failed_legs, bool *hedge_sent);
  // A MOVED or ASK for the operator's log (rate-limited per target).
  void LogRedirect(const char *kind, const Outcome &o);

  ClientContext *const ctx_;
  NodePools *const pools_;
};

}  // namespace net
}  // namespace cloudroute
