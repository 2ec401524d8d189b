// Asynchronous single-key calls: the first attempt on the engine thread,
// the rest on a worker (see async_calls.hpp).
#include "cloudroute/net/async_calls.hpp"

#include <errno.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <system_error>
#include <utility>

#include "cloudroute/net/command_rules.hpp"
#include "cloudroute/net/deadline.hpp"
#include "cloudroute/net/errors.hpp"
#include "cloudroute/net/interrupt.hpp"
#include "cloudroute/net/key_batch.hpp"

namespace cloudroute {
namespace net {

namespace {

// The AsyncCalls whose `done` this thread runs now.
thread_local const AsyncCalls *t_completing = nullptr;

Status Cancelled() {
  return Error(kConnError,
               "cancelled: the client was freed with the call in flight (a write already sent "
               "may have run)");
}

}  // namespace

// A fan-out's state (SubmitJobs): its jobs, the FanOut on them, and its
// first round's legs until they are absorbed.
struct AsyncCalls::Fan {
  std::vector<Job> jobs;
  std::unique_ptr<FanOut> run;
  bool exchanged = false;     // the first round went out as requests
  FanOut::Requests requests;  // those requests, until absorbed
  std::atomic<size_t> left{0};
  JobsDone done;
};

struct AsyncCalls::Call {
  Access access = Access::kRead;
  uint16_t slot = 0;
  Args args;
  CallOptions call;
  CommandExecutor::FirstAttempt plan;
  Done done;
  std::unique_ptr<Fan> fan;  // a fan-out: the rest is unused
};

AsyncCalls::AsyncCalls(ClientContext *ctx, CommandExecutor *executor)
    : ctx_(ctx), executor_(executor) {}

AsyncCalls::~AsyncCalls() { Close(); }

Status AsyncCalls::Submit(Access access, std::string_view key, Args args, const CallOptions &call,
                          Done done) {
  if (args.empty()) return Error(Code::kInvalid, "empty command");
  if (call.script != nullptr) {
    // The script body is the caller's: it would not outlive this call.
    return Error(Code::kInvalid, "a script cannot be submitted (use the blocking call)");
  }
  auto c = std::make_shared<Call>();
  c->access = access;
  c->slot = ctx_->topo->Place(key.data(), key.size());
  c->args = std::move(args);
  c->call = call;
  c->done = std::move(done);
  if (Status s = executor_->PlanFirst(access, c->slot, c->args, c->call, &c->plan); !s.ok()) {
    return s;
  }
  const Status closing = Error(Code::kInvalid, "the client is closing: nothing was sent");
  if (c->plan.node == nullptr) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (closing_) return closing;
      ++outstanding_;
    }
    ToWorker(c, nullptr);
    return Status::Ok();
  }
  auto r = std::make_shared<LinkRequest>();
  AppendCommand(c->args, &r->wire);
  r->expected = 1;
  r->deadline_ns = DeadlineAfter(c->plan.timeout_ms);
  r->abandon_on_deadline = c->call.timeout_ms != 0;
  const Call *raw = c.get();  // alive while r is: r->done holds it
  r->check = [raw](const std::vector<ReplyPtr> &got) {
    return ReplyMismatch(std::string_view(raw->args[0]), ExpectedReplyOf(raw->args), *got.back());
  };
  r->done = [this, c](LinkRequest &settled) { FirstSettled(c, settled); };
  {
    // Counted and listed at once, so that Close() abandons every request
    // it waits for.
    std::lock_guard<std::mutex> lock(mu_);
    if (closing_) return closing;
    ++outstanding_;
    in_flight_.emplace(c.get(), std::make_pair(c->plan.link, r));
  }
  c->plan.link->Submit(std::move(r));
  return Status::Ok();
}

Status AsyncCalls::SubmitJobs(std::vector<Job> jobs, JobsDone done) {
  if (jobs.empty()) return Error(Code::kInvalid, "no command to submit");
  CommandExecutor::RefuseStateChanges(&jobs);
  auto c = std::make_shared<Call>();
  c->fan = std::make_unique<Fan>();
  Fan &f = *c->fan;
  f.jobs = std::move(jobs);
  f.done = std::move(done);
  f.run = executor_->FanOutFor(&f.jobs);
  f.exchanged = f.run->Begin(&f.requests);
  // Submitted from a copy: the engine thread may absorb (and drop) f's
  // requests as soon as the last one is submitted.
  const FanOut::Requests legs = f.requests;
  f.left.store(legs.size());
  for (const auto &leg : legs) {
    leg.second->done = [this, c](LinkRequest &) {
      if (c->fan->left.fetch_sub(1) == 1) LegsSettled(c);
    };
  }
  {
    // Counted and listed at once, so that Close() abandons every leg it
    // waits for.
    std::lock_guard<std::mutex> lock(mu_);
    if (closing_) {
      f.requests.clear();  // their done holds c
      return Error(Code::kInvalid, "the client is closing: nothing was sent");
    }
    ++outstanding_;
    for (const auto &leg : legs) in_flight_.emplace(c.get(), leg);
  }
  if (!f.exchanged) {
    ToWorker(c, nullptr);
    return Status::Ok();
  }
  // Every node's share goes out before any reply is read: all in flight.
  for (const auto &leg : legs) leg.first->Submit(leg.second);
  return Status::Ok();
}

Status AsyncCalls::SubmitMulti(KeyBatchKind kind, std::vector<std::string> keys,
                               std::vector<std::string> values, Done done) {
  auto batches = std::make_shared<std::vector<Batch>>();
  const bool with_values = kind == KeyBatchKind::kMSet || !values.empty();
  if (Status s = executor_->SplitMulti(kind, keys, with_values ? &values : nullptr, batches.get());
      !s.ok()) {
    return s;
  }
  // The jobs view the batches, which the completion keeps.
  std::vector<Job> jobs = JobsFor(*batches, KeyBatchAccess(kind));
  const size_t key_count = keys.size();
  return SubmitJobs(std::move(jobs), [this, kind, batches, key_count,
                                      done = std::move(done)](std::vector<Job> &settled) {
    done(executor_->MultiResult(kind, *batches, &settled, key_count));
  });
}

void AsyncCalls::LegsSettled(const CallPtr &c) {
  bool closing = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    in_flight_.erase(c.get());
    closing = closing_;
  }
  Fan &f = *c->fan;
  if (closing) {
    Deliver(c, Cancelled());
    return;
  }
  if (FanOut::Conclusive(f.requests)) {
    // Every leg answered, nothing to follow: settled here, as the blocking
    // fan-out would (nothing of it logs, sleeps or re-routes).
    f.run->Absorb(f.requests);
    f.requests.clear();
    if (f.run->Ended()) {
      Deliver(c, ReplyPtr());
      return;
    }
  }
  ToWorker(c, nullptr);
}

void AsyncCalls::RunFan(Call &c) {
  Fan &f = *c.fan;
  if (!f.exchanged) {
    f.run->Continue();  // planned, not sent (hedging on, no engine thread)
    return;
  }
  if (!f.requests.empty()) {
    f.run->Absorb(f.requests);
    f.requests.clear();
  }
  f.run->Resume();
}

void AsyncCalls::FirstSettled(const CallPtr &c, LinkRequest &r) {
  bool closing = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    in_flight_.erase(c.get());
    closing = closing_;
  }
  if (closing) {
    Deliver(c, Cancelled());
    return;
  }
  const int64_t t0 = r.sent_ns != 0 ? r.sent_ns : r.done_ns;
  if (!r.status.ok()) {
    // Judged on a worker: noting the node's failure may log, and a read
    // moves on to its next candidate there.
    auto s = std::make_shared<Status>(r.status);
    const bool sent = r.sent;
    const int64_t t1 = r.done_ns;
    ToWorker(c, [this, c, s, sent, t0, t1] {
      return executor_->Conclude(c->plan.node, c->plan.tier, c->access, c->args, false, c->call, *s,
                                 {}, sent, t0, t1);
    });
    return;
  }
  Outcome o = executor_->Conclude(c->plan.node, c->plan.tier, c->access, c->args, false, c->call,
                                  Status::Ok(), std::move(r.replies), true, t0, r.done_ns);
  const bool readonly = o.kind == OutcomeKind::kErrorReply && c->access == Access::kWrite &&
                        ErrorPrefix(*o.reply) == "READONLY";
  if (o.kind == OutcomeKind::kDone || (o.kind == OutcomeKind::kErrorReply && !readonly)) {
    if (c->access == Access::kWrite) ctx_->recent_writes.NoteWrite(c->slot);
    if (o.kind == OutcomeKind::kDone) {
      Deliver(c, std::move(o.reply));
    } else {
      ctx_->stats.Add(&Stats::server_errors);
      Deliver(c, Error(kServerError, o.reply->str));
    }
    return;
  }
  // A redirect, a retry, a demoted master: the blocking path's business.
  auto first = std::make_shared<Outcome>(std::move(o));
  ToWorker(c, [first] { return std::move(*first); });
}

void AsyncCalls::ToWorker(const CallPtr &c, std::function<Outcome()> first) {
  std::unique_lock<std::mutex> lock(mu_);
  if (closing_) {
    lock.unlock();
    Deliver(c, Cancelled());
    return;
  }
  tasks_.emplace_back(c, std::move(first));
  if (idle_workers_ > 0 || workers_.size() >= kMaxWorkers) {
    cv_.notify_all();
    return;
  }
  try {
    workers_.emplace_back([this] { Work(); });
  } catch (const std::system_error &e) {
    if (!workers_.empty()) return;  // the running ones take it
    // No thread to be had and none running: the task fails here.
    tasks_.pop_back();
    lock.unlock();
    Deliver(c, Error(Code::kNoMemory,
                     std::string("no worker thread for the call's retry: ") + e.what()));
  }
}

int AsyncCalls::Interrupted(void *self) {
  auto *a = static_cast<AsyncCalls *>(self);
  std::lock_guard<std::mutex> lock(a->mu_);
  return a->closing_ ? 1 : 0;
}

void AsyncCalls::Work() {
  // Close() ends a blocking wait of the call in hand (interrupt.hpp).
  SetInterruptCheck(&AsyncCalls::Interrupted, this);
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    if (tasks_.empty()) {
      if (closing_) return;
      ++idle_workers_;
      cv_.wait_for(lock, std::chrono::milliseconds(200));
      --idle_workers_;
      continue;
    }
    auto task = std::move(tasks_.front());
    tasks_.pop_front();
    const bool closing = closing_;
    lock.unlock();
    if (closing) {
      Deliver(task.first, Cancelled());
    } else {
      Call &c = *task.first;
      if (c.fan != nullptr) {
        RunFan(c);
        Deliver(task.first, ReplyPtr());
      } else if (task.second == nullptr) {
        Deliver(task.first, executor_->ExecuteSlot(c.access, c.slot, c.args, c.call));
      } else {
        Deliver(task.first,
                executor_->Continue(c.access, c.slot, c.args, c.call, c.plan, task.second()));
      }
    }
    lock.lock();
  }
}

void AsyncCalls::Deliver(const CallPtr &c, Result<ReplyPtr> result) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    // Once Close() began, every call completes cancelled, whatever it got.
    if (closing_) result = Cancelled();
    if (queue_fd_ >= 0) {
      queue_.emplace_back(c, std::move(result));
      if (queue_.size() == 1) {
        const uint64_t one = 1;
        // A full counter (never: it is read whenever the queue empties)
        // still leaves the fd readable, so the result needs no check.
        (void)!write(queue_fd_, &one, sizeof one);
      }
      cv_.notify_all();
      return;
    }
  }
  Run(c, std::move(result));
}

void AsyncCalls::Run(const CallPtr &c, Result<ReplyPtr> result) {
  const AsyncCalls *outer = t_completing;
  t_completing = this;
  if (c->fan != nullptr) {
    std::vector<Job> &jobs = c->fan->jobs;
    if (!result.ok()) {  // cancelled: every job says so
      for (Job &j : jobs) {
        j.reply.reset();
        j.status = result.status();
      }
    }
    c->fan->done(jobs);
    c->fan->requests.clear();  // their done holds c: not kept past the call
  } else {
    c->done(std::move(result));
  }
  t_completing = outer;
  std::lock_guard<std::mutex> lock(mu_);
  --outstanding_;
  cv_.notify_all();
}

bool AsyncCalls::InCompletion() const { return t_completing == this; }

Result<int> AsyncCalls::CompletionFd() {
  std::lock_guard<std::mutex> lock(mu_);
  if (queue_fd_ < 0) {
    const int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (fd < 0) {
      return Error(Code::kInternal,
                   std::string("completion queue: eventfd: ") + std::strerror(errno));
    }
    queue_fd_ = fd;
  }
  return queue_fd_;
}

size_t AsyncCalls::RunCompletions(size_t max) {
  std::deque<std::pair<CallPtr, Result<ReplyPtr>>> ready;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (max == 0 || max >= queue_.size()) {
      ready.swap(queue_);
    } else {
      for (size_t i = 0; i < max; ++i) {
        ready.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
    }
    if (queue_.empty() && queue_fd_ >= 0) {
      uint64_t count = 0;
      (void)!read(queue_fd_, &count, sizeof count);  // not readable until the next one
    }
  }
  const size_t n = ready.size();
  for (auto &item : ready) Run(item.first, std::move(item.second));
  return n;
}

void AsyncCalls::Close() {
  std::vector<std::pair<std::shared_ptr<NodeLink>, LinkRequestPtr>> abandon;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closing_) return;
    closing_ = true;
    for (auto &f : in_flight_) abandon.push_back(f.second);
    cv_.notify_all();
  }
  for (auto &a : abandon) a.first->Abandon(a.second, Cancelled());
  std::unique_lock<std::mutex> lock(mu_);
  while (outstanding_ != 0) {
    if (!queue_.empty()) {
      // Queued completions run here, cancelled (whatever they got).
      std::deque<std::pair<CallPtr, Result<ReplyPtr>>> ready;
      ready.swap(queue_);
      lock.unlock();
      for (auto &item : ready) Run(item.first, Cancelled());
      lock.lock();
      continue;
    }
    cv_.wait_for(lock, std::chrono::milliseconds(100));
  }
  std::vector<std::thread> workers;
  workers.swap(workers_);
  lock.unlock();
  for (std::thread &w : workers) w.join();
  lock.lock();
  if (queue_fd_ >= 0) {
    close(queue_fd_);
    queue_fd_ = -1;
  }
}

}  // namespace net
}  // namespace cloudroute
