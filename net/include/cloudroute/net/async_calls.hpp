// AsyncCalls: single-key commands submitted without waiting, completed by
// a callback — no thread per call.
//
// The first attempt is one request on the node's shared connections
// (shared_link.hpp), planned on the submitting thread as the blocking path
// would route it (CommandExecutor::PlanFirst: the read order's first
// admitted candidate, or the master) and judged on the engine thread when
// its reply comes: an answer, or an error reply other than a redirect or a
// retry, completes the call there. Everything else — a failed attempt
// (a read moves to its next candidate, a write that may have been sent
// reports so), MOVED / ASK, TRYAGAIN and the rest with their backoff, a
// write its master did not execute, and whatever the blocking path does
// that one round trip cannot (a script to load, a hedged read, a blocking
// command, a read that follows the client's own write) — goes to a small
// pool of worker threads (at most kMaxWorkers) that run the blocking path
// from where the first attempt left it (CommandExecutor::Continue), so the
// routing is the blocking call's. A client whose shared_connections is 0
// gets one shared connection per node for its asynchronous calls
// (NodePools::LinkFor); its blocking calls keep the pool.
//
// Completion: `done` runs exactly once for every call Submit() accepted —
// on the engine thread (first attempt settled it) or a worker (the rest)
// — or, once CompletionFd() turned the queue on, on whichever thread calls
// RunCompletions(): the eventfd it returns is readable while completions
// are ready. A call's own timeout (CallOptions::timeout_ms) abandons only
// it: its reply is dropped when it comes and the connection serves on.
//
// Close(): every call not yet completed completes with kConnError
// ("cancelled: …") before it returns — abandoned on the engine thread, on a
// worker (whose blocking wait ends through its interrupt check), or, for
// queued completions, on the closing thread. Submit() after Close() began
// is refused.
//
// Fan-outs (SubmitJobs: a pipeline's commands; SubmitMulti: MGET, MSET,
// DEL, EXISTS over many places) run on FanOut (fan_out.hpp) in steps: the
// first round is planned on the submitting thread and every node's leg is
// one request on its shared connections, all in flight at once; when the
// last leg settles, the engine thread settles the legs and completes the
// call if that was conclusive (every leg answered, no redirect, retry,
// LOADING or READONLY among the replies: FanOut::Conclusive) and no job is
// left open. Everything else — a leg that failed (its reads go to their
// next candidates, its writes that may have been sent say so), a redirect,
// a retry and its backoff, a hedged fan-out (hedging on: the whole run) —
// goes to a worker, which runs the blocking fan-out's rounds from there
// (FanOut::Absorb, Resume, Continue). So a fan-out routes, retries and
// fails exactly as the blocking call does. Close() abandons the legs in
// flight and completes the call cancelled, as for a single call.
//
// Thread-safety: safe for concurrent use; Close() once, from a thread that
// is none of the above (not from a `done`).
#pragma once

#include <sys/types.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "cloudroute/net/command_executor.hpp"
#include "cloudroute/net/fan_out.hpp"

namespace cloudroute {
namespace net {

class AsyncCalls {
 public:
  // Runs once with the call's reply, or its error (a server's error reply
  // is kServerError with its text).
  using Done = std::function<void(Result<ReplyPtr>)>;
  static constexpr size_t kMaxWorkers = 4;

  AsyncCalls(ClientContext *ctx, CommandExecutor *executor);
  ~AsyncCalls();  // Close()
  AsyncCalls(const AsyncCalls &) = delete;
  AsyncCalls &operator=(const AsyncCalls &) = delete;

  // OK: done will run. An error (a command no shared connection may carry,
  // the client closing): done never runs.
  Status Submit(Access access, std::string_view key, Args args, const CallOptions &call, Done done);
  // Runs once with the jobs, each with its reply or its status (once
  // Close() began, every job's status says "cancelled").
  using JobsDone = std::function<void(std::vector<Job> &jobs)>;
  // Any jobs at once, as CommandExecutor::Run (a command that would change
  // a connection's state fails in its place).
  // REQUIRES: jobs non-empty; what their argv view stays valid until done
  // returns (done may own it). Errors (done never runs): the client closing.
  Status SubmitJobs(std::vector<Job> jobs, JobsDone done);
  // A multi-key call (key_batch.hpp's kinds; values for kMSet only):
  // done gets CommandExecutor::MultiResult. Errors (done never runs): as
  // SplitMulti, and the client closing.
  Status SubmitMulti(KeyBatchKind kind, std::vector<std::string> keys,
                     std::vector<std::string> values, Done done);
  // Turns the completion queue on (for calls completing from now on) and
  // returns its eventfd (owned here; readable while completions wait).
  Result<int> CompletionFd();
  // Runs up to max ready completions (0: every one ready now) on this
  // thread; how many ran.
  size_t RunCompletions(size_t max);
  // Whether this thread runs a `done` of this object now.
  bool InCompletion() const;
  void Close();

 private:
  struct Call;
  struct Fan;
  using CallPtr = std::shared_ptr<Call>;
  void LegsSettled(const CallPtr &call);  // engine thread: a fan-out's last leg settled
  void RunFan(Call &call);                // worker: the rest of a fan-out, blocking
  void FirstSettled(const CallPtr &call, LinkRequest &r);              // engine thread
  void ToWorker(const CallPtr &call, std::function<Outcome()> first);  // any thread
  void Deliver(const CallPtr &call, Result<ReplyPtr> result);          // any thread
  void Run(const CallPtr &call, Result<ReplyPtr> result);              // done, then counted
  void Work();                                                         // a worker's loop
  static int Interrupted(void *self);

  ClientContext *const ctx_;
  CommandExecutor *const executor_;
  mutable std::mutex mu_;
  std::condition_variable cv_;  // outstanding_ down, queue_ or tasks_ grown, closing_
  bool closing_ = false;
  size_t outstanding_ = 0;  // accepted calls whose done has not returned
  // First attempts (a fan-out's: one per leg) on the engine thread, to
  // abandon on Close().
  std::unordered_multimap<Call *, std::pair<std::shared_ptr<NodeLink>, LinkRequestPtr>> in_flight_;
  // Workers and their tasks.
  std::deque<std::pair<CallPtr, std::function<Outcome()>>> tasks_;
  std::vector<std::thread> workers_;
  size_t idle_workers_ = 0;
  // The completion queue (CompletionFd).
  int queue_fd_ = -1;
  std::deque<std::pair<CallPtr, Result<ReplyPtr>>> queue_;
};

}  // namespace net
}  // namespace cloudroute
