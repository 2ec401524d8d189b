// Shared connections: requests written back to back, replies matched in
// order, on the engine thread (see shared_link.hpp).
#include "cloudroute/net/shared_link.hpp"

#include <sys/epoll.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <string_view>
#include <utility>

#include "cloudroute/core/health.hpp"
#include "cloudroute/net/deadline.hpp"
#include "cloudroute/net/errors.hpp"
#include "cloudroute/net/interrupt.hpp"

namespace cloudroute {
namespace net {

namespace {

// Settles r once: its status now, its done when finished is run (after the
// link's lock is released).
void Settle(const LinkRequestPtr &r, Status status, Finished *finished) {
  if (r->settled) return;
  r->settled = true;
  r->done_ns = SteadyNowNs();
  r->status = std::move(status);
  if (!r->status.ok()) r->replies.clear();
  finished->push_back(r);
}

void RunDone(Finished *finished) {
  for (const LinkRequestPtr &r : *finished) {
    if (r->done) r->done(*r);
  }
  finished->clear();
}

// Holds a link's mutex; on release runs the done of what was settled under it.
class LinkLock {
 public:
  LinkLock(std::mutex *mu, Finished *finished) : lock_(*mu), finished_(finished) {}
  ~LinkLock() {
    Finished done;
    done.swap(*finished_);
    lock_.unlock();
    RunDone(&done);
  }
  LinkLock(const LinkLock &) = delete;
  LinkLock &operator=(const LinkLock &) = delete;

 private:
  std::unique_lock<std::mutex> lock_;
  Finished *const finished_;
};

}  // namespace

// ---------------------------------------------------------------- SharedConnection

SharedConnection::SharedConnection(EventLoop *loop, std::unique_ptr<Connection> conn,
                                   OnClosed on_closed, std::mutex *mu, Finished *finished)
    : loop_(loop),
      conn_(std::move(conn)),
      on_closed_(std::move(on_closed)),
      mu_(mu),
      finished_(finished),
      fd_(conn_->fd()) {
  loop_->Watch(fd_, EPOLLIN, [this](uint32_t events) {
    LinkLock lock(mu_, finished_);
    OnEvents(events);
  });
  interest_ = EPOLLIN;
}

SharedConnection::~SharedConnection() { Close(Error(kConnError, "the connection was dropped")); }

void SharedConnection::Settle(const LinkRequestPtr &r, Status status) {
  net::Settle(r, std::move(status), finished_);
}

void SharedConnection::Add(LinkRequestPtr r) {
  if (conn_ == nullptr) {
    Settle(r, Error(kConnError, "connection is closed"));
    return;
  }
  Queue(std::move(r));
  Service();
}

void SharedConnection::Service() {
  if (conn_ == nullptr) return;
  if (!send_failed_.ok()) {
    const Status why = send_failed_;
    Close(why);
    return;
  }
  Arm();
}

bool SharedConnection::Queue(LinkRequestPtr r) {
  const int64_t deadline = r->deadline_ns;
  r->wire_start = queued_;
  if (out_pos_ == out_.size()) {
    out_.clear();
    out_pos_ = 0;
  }
  const size_t before = out_.size();
  out_.append(r->wire);
  // The request's marker: PING with a tag no other request on this
  // connection has; its echo must close the request's replies.
  r->marker = "cr:" + std::to_string(++markers_);
  AppendCommand(std::array<std::string_view, 2>{"PING", r->marker}, &out_);
  queued_ += out_.size() - before;
  r->wire.clear();
  r->wire.shrink_to_fit();
  fifo_.push_back(std::move(r));
  if (send_failed_.ok()) {
    Status s = Flush();
    if (!s.ok()) send_failed_ = std::move(s);
  }
  // Left for the engine thread: closing after a failed send, the rest of a
  // write (EPOLLOUT), or a timer that fires no later than this deadline.
  return !send_failed_.ok() || out_pos_ < out_.size() ||
         (deadline != 0 && (timer_ == 0 || timer_at_ > deadline));
}

Status SharedConnection::Flush() {
  while (out_pos_ < out_.size()) {
    size_t n = 0;
    Status s = conn_->TrySend(out_.data() + out_pos_, out_.size() - out_pos_, &n);
    if (!s.ok()) return s;
    if (n == 0) break;
    out_pos_ += n;
    written_ += n;
  }
  // Mark what went out: a request is sent once any byte of it is.
  const int64_t now = SteadyNowNs();
  for (const LinkRequestPtr &r : fifo_) {
    if (r->wire_start >= written_) break;
    // A settled (abandoned) request's caller may be reading it already.
    if (!r->sent && !r->settled) {
      r->sent = true;
      r->sent_ns = now;
    }
  }
  if (out_pos_ == out_.size()) {
    out_.clear();
    out_pos_ = 0;
  }
  return Status::Ok();
}

Status SharedConnection::ReadReplies() {
  for (;;) {
    ReplyPtr reply;
    Status s = conn_->TryReceive(&reply);
    if (!s.ok()) return s;
    if (reply == nullptr) return Status::Ok();
    if (fifo_.empty() || fifo_.front()->wire_start >= written_) {
      // Nothing was asked on this connection that this could answer.
      return conn_->Poison("a reply arrived that no request on the connection asked for");
    }
    LinkRequest *front = fifo_.front().get();
    if (partial_.size() < front->expected) {
      partial_.push_back(std::move(reply));
      continue;
    }
    // The marker's echo.
    if (!reply->is_string() || reply->str != front->marker) {
      Status poisoned =
          conn_->Poison("the reply closing a request's " + std::to_string(front->expected) +
                        " was not its marker (a reply was added or lost on the way)");
      return poisoned;
    }
    LinkRequestPtr r = std::move(fifo_.front());
    fifo_.pop_front();
    std::vector<ReplyPtr> replies;
    replies.swap(partial_);
    if (r->abandoned) continue;  // settled already: its replies are dropped
    if (r->check) {
      const std::string bad = r->check(replies);
      if (!bad.empty()) {
        Status poisoned = conn_->Poison(bad);
        Settle(r, poisoned);
        return poisoned;
      }
    }
    r->replies = std::move(replies);
    Settle(r, Status::Ok());
  }
}

void SharedConnection::OnEvents(uint32_t events) {
  if (conn_ == nullptr) return;
  if (!send_failed_.ok()) {
    Service();
    return;
  }
  Status s;
  if (events & EPOLLOUT) s = Flush();
  if (s.ok() && (events & (EPOLLIN | EPOLLERR | EPOLLHUP))) s = ReadReplies();
  if (!s.ok()) {
    Close(s);
    return;
  }
  Arm();
}

void SharedConnection::Arm() {
  if (conn_ == nullptr) return;
  const uint32_t want = EPOLLIN | (out_pos_ < out_.size() ? EPOLLOUT : 0u);
  if (want != interest_) {
    loop_->Modify(fd_, want);
    interest_ = want;
  }
  // The earliest deadline of a request still waiting for its replies. A
  // timer armed earlier stays (it finds nothing late and re-arms), so the
  // next request rarely needs a new one.
  int64_t at = 0;
  for (const LinkRequestPtr &r : fifo_) {
    if (r->settled || r->deadline_ns == 0) continue;
    if (at == 0 || r->deadline_ns < at) at = r->deadline_ns;
  }
  if (at == 0 || (timer_ != 0 && timer_at_ <= at)) return;
  if (timer_ != 0) loop_->CancelTimer(timer_);
  timer_at_ = at;
  timer_ = loop_->AddTimer(at, [this] {
    LinkLock lock(mu_, finished_);
    timer_ = 0;
    timer_at_ = 0;
    OnDeadline();
  });
}

void SharedConnection::OnDeadline() {
  if (conn_ == nullptr) return;
  const int64_t now = SteadyNowNs();
  std::string late;  // why the connection closes, when a late node closes it
  for (const LinkRequestPtr &r : fifo_) {
    if (r->settled || r->deadline_ns == 0 || r->deadline_ns > now) continue;
    if (r->abandon_on_deadline) {
      r->abandoned = true;
      Settle(r, Error(kTimeout, conn_->address() + ": no reply before the call's deadline"));
    } else if (late.empty()) {
      late = conn_->address() + ": no reply before the deadline";
      Settle(r, Error(kTimeout, late));
    } else {
      Settle(r, Error(kTimeout, late));
    }
  }
  if (!late.empty()) {
    Close(Error(kConnError,
                late + " (another request on this shared connection timed out: the node is "
                       "late, the connection is closed)"));
    return;
  }
  Arm();
}

void SharedConnection::Close(const Status &why) {
  if (conn_ == nullptr) return;
  if (timer_ != 0) loop_->CancelTimer(timer_);
  timer_ = 0;
  loop_->Unwatch(fd_);
  // Poisoned: every request gets the poison status (conn_ says why).
  const bool poisoned = conn_->poisoned();
  const Status status = poisoned ? conn_->poison_status() : why;
  conn_.reset();
  std::deque<LinkRequestPtr> fifo;
  fifo.swap(fifo_);
  partial_.clear();
  out_.clear();
  out_pos_ = 0;
  for (const LinkRequestPtr &r : fifo) Settle(r, status);
  send_failed_ = Status::Ok();
  if (on_closed_) on_closed_(poisoned, status);
}

// ---------------------------------------------------------------- DialThreads

void DialThreads::Spawn(std::function<void()> fn) {
  auto finished = std::make_shared<std::atomic<bool>>(false);
  std::lock_guard<std::mutex> lock(mu_);
  dials_.erase(std::remove_if(dials_.begin(), dials_.end(),
                              [](Dial &d) {
                                if (!d.finished->load(std::memory_order_acquire)) return false;
                                d.thread.join();
                                return true;
                              }),
               dials_.end());
  Dial d;
  d.finished = finished;
  d.thread = std::thread([fn = std::move(fn), finished] {
    fn();
    finished->store(true, std::memory_order_release);
  });
  dials_.push_back(std::move(d));
}

void DialThreads::JoinAll() {
  std::vector<Dial> dials;
  {
    std::lock_guard<std::mutex> lock(mu_);
    dials.swap(dials_);
  }
  for (Dial &d : dials) d.thread.join();
}

// ---------------------------------------------------------------- NodeLink

NodeLink::NodeLink(EventLoop *loop, DialThreads *dials, Dialer dial, uint32_t max_connections,
                   uint32_t dial_timeout_ms, OnPoisoned on_poisoned)
    : loop_(loop),
      dials_(dials),
      dial_(std::move(dial)),
      on_poisoned_(std::move(on_poisoned)),
      max_connections_(std::max<uint32_t>(max_connections, 1)),
      dial_timeout_ms_(dial_timeout_ms) {}

NodeLink::~NodeLink() {
  Finished finished;
  {
    std::lock_guard<std::mutex> lock(mu_);
    conns_.clear();
    finished.swap(finished_);
  }
  RunDone(&finished);
}

template <typename Fn>
void NodeLink::Locked(Fn &&fn) {
  LinkLock lock(&mu_, &finished_);
  fn();
}

void NodeLink::Submit(LinkRequestPtr r) {
  // A caller's thread writes the request itself when it can: the engine
  // thread is then woken only by the reply (one thread switch, not three).
  if (loop_->InLoop()) {
    std::lock_guard<std::mutex> lock(mu_);
    ++placing_;
  } else if (SubmitDirect(r)) {
    return;
  }
  std::weak_ptr<NodeLink> self = weak_from_this();
  loop_->Post([self, r = std::move(r)]() mutable {
    if (auto link = self.lock()) {
      link->Locked([&] {
        --link->placing_;
        link->Place(std::move(r));
      });
    } else {
      Finished finished;
      net::Settle(r, Error(kConnError, "the client is closing"), &finished);
      RunDone(&finished);
    }
  });
}

bool NodeLink::SubmitDirect(const LinkRequestPtr &r) {
  bool engine_needed = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    SharedConnection *best = LeastLoaded();
    // Closed, none open, or a busy one and room for another (the engine
    // thread dials), or an earlier request not yet placed: the engine
    // thread places this one after it.
    if (closed_ || r->settled || placing_ > 0 || best == nullptr ||
        (best->load() > 0 && conns_.size() < max_connections_ && !dialing_)) {
      ++placing_;
      return false;
    }
    engine_needed = best->Queue(r);
  }
  if (engine_needed) {
    std::weak_ptr<NodeLink> self = weak_from_this();
    loop_->Post([self] {
      auto link = self.lock();
      if (link == nullptr) return;
      link->Locked([&] {
        for (const auto &c : link->conns_) c->Service();
      });
    });
  }
  return true;
}

SharedConnection *NodeLink::LeastLoaded() {
  SharedConnection *best = nullptr;
  for (const auto &c : conns_) {
    if (c->open() && (best == nullptr || c->load() < best->load())) best = c.get();
  }
  return best;
}

void NodeLink::Abandon(LinkRequestPtr r, Status status) {
  std::weak_ptr<NodeLink> self = weak_from_this();
  loop_->Post([self, r, status = std::move(status)]() mutable {
    auto abandon = [&](Finished *finished) {
      if (r->settled) return;
      r->abandoned = true;
      net::Settle(r, std::move(status), finished);
    };
    if (auto link = self.lock()) {
      link->Locked([&] { abandon(&link->finished_); });
    } else {
      Finished finished;
      abandon(&finished);
      RunDone(&finished);
    }
  });
}

void NodeLink::Place(LinkRequestPtr r) {
  if (r->settled) return;  // abandoned before it got here
  if (closed_) {
    net::Settle(r, Error(kConnError, "the client is closing"), &finished_);
    return;
  }
  // Closed connections go here, outside any of their own handlers.
  conns_.erase(
      std::remove_if(conns_.begin(), conns_.end(),
                     [](const std::unique_ptr<SharedConnection> &x) { return !x->open(); }),
      conns_.end());
  SharedConnection *best = LeastLoaded();
  if (best == nullptr) {
    waiting_.push_back(std::move(r));
    if (!dialing_) StartDial();
    ArmWaiting();
    return;
  }
  // A busy connection and room for another: dial it for the next requests.
  if (best->load() > 0 && conns_.size() < max_connections_ && !dialing_) StartDial();
  best->Add(std::move(r));
}

void NodeLink::ArmWaiting() {
  int64_t at = 0;
  for (const LinkRequestPtr &r : waiting_) {
    if (!r->settled && r->deadline_ns != 0 && (at == 0 || r->deadline_ns < at)) at = r->deadline_ns;
  }
  if (at == waiting_timer_at_) return;
  if (waiting_timer_ != 0) loop_->CancelTimer(waiting_timer_);
  waiting_timer_ = 0;
  waiting_timer_at_ = at;
  if (at == 0) return;
  std::weak_ptr<NodeLink> self = weak_from_this();
  waiting_timer_ = loop_->AddTimer(at, [self] {
    auto link = self.lock();
    if (link == nullptr) return;
    LinkLock lock(&link->mu_, &link->finished_);
    link->waiting_timer_ = 0;
    link->waiting_timer_at_ = 0;
    // A request's deadline passed while its connection is still being
    // dialed: it fails now (not sent); the dial goes on for the next ones.
    const int64_t now = SteadyNowNs();
    for (const LinkRequestPtr &r : link->waiting_) {
      if (r->settled || r->deadline_ns == 0 || r->deadline_ns > now) continue;
      net::Settle(r,
                  Error(kTimeout,
                        "no connection to the node before the deadline (the "
                        "dial is still under way)"),
                  &link->finished_);
    }
    link->waiting_.erase(std::remove_if(link->waiting_.begin(), link->waiting_.end(),
                                        [](const LinkRequestPtr &r) { return r->settled; }),
                         link->waiting_.end());
    link->ArmWaiting();
  });
}

void NodeLink::StartDial() {
  dialing_ = true;
  std::weak_ptr<NodeLink> self = weak_from_this();
  EventLoop *loop = loop_;
  Dialer dial = dial_;
  // The dial's budget: the longest wait of a request that needs it (the
  // caller's tier timeout, as a pooled dial gets), else the link's default.
  uint32_t timeout = 0;
  for (const LinkRequestPtr &r : waiting_) {
    if (r->deadline_ns != 0) timeout = std::max(timeout, MsLeft(r->deadline_ns));
  }
  if (timeout == 0) timeout = dial_timeout_ms_;
  dials_->Spawn([self, loop, dial, timeout] {
    auto c = std::make_shared<Result<std::unique_ptr<Connection>>>(dial(timeout));
    loop->Post([self, c] {
      if (auto link = self.lock()) link->Locked([&] { link->Dialed(std::move(*c)); });
    });
  });
}

void NodeLink::Dialed(Result<std::unique_ptr<Connection>> c) {
  dialing_ = false;
  if (waiting_timer_ != 0) loop_->CancelTimer(waiting_timer_);
  waiting_timer_ = 0;
  waiting_timer_at_ = 0;
  if (closed_) return;  // the connection, if any, closes with c
  if (!c.ok()) {
    std::deque<LinkRequestPtr> waiting;
    waiting.swap(waiting_);
    for (const LinkRequestPtr &r : waiting) net::Settle(r, c.status(), &finished_);
    return;
  }
  conns_.push_back(std::make_unique<SharedConnection>(
      loop_, std::move(*c),
      [this](bool poisoned, const Status &why) {
        open_.fetch_sub(1, std::memory_order_relaxed);
        if (poisoned && on_poisoned_) on_poisoned_(why);
      },
      &mu_, &finished_));
  open_.fetch_add(1, std::memory_order_relaxed);
  SharedConnection *conn = conns_.back().get();
  std::deque<LinkRequestPtr> waiting;
  waiting.swap(waiting_);
  const int64_t now = SteadyNowNs();
  for (LinkRequestPtr &r : waiting) {
    if (r->settled) continue;
    if (r->deadline_ns != 0 && r->deadline_ns <= now) {
      net::Settle(r, Error(kTimeout, "no connection to the node before the deadline"), &finished_);
      continue;
    }
    conn->Add(std::move(r));
  }
}

void NodeLink::Close(const Status &why) {
  Locked([&] {
    closed_ = true;
    if (waiting_timer_ != 0) loop_->CancelTimer(waiting_timer_);
    waiting_timer_ = 0;
    std::deque<LinkRequestPtr> waiting;
    waiting.swap(waiting_);
    for (const LinkRequestPtr &r : waiting) net::Settle(r, why, &finished_);
    for (const auto &c : conns_) c->Close(why);
    conns_.clear();
  });
}

// ---------------------------------------------------------------- LinkWaiter

void LinkWaiter::Signal() {
  std::lock_guard<std::mutex> lock(mu_);
  if (left_ > 0 && --left_ == 0) cv_.notify_all();
}

void LinkWaiter::Wait() {
  std::unique_lock<std::mutex> lock(mu_);
  // wait_for, not wait: condition_variable::wait is a libstdc++ symbol of
  // GCC 12 (GLIBCXX_3.4.30), which would raise the wheel's manylinux tag.
  while (left_ != 0) cv_.wait_for(lock, std::chrono::milliseconds(100));
}

void LinkWaiter::Wait(const std::vector<std::pair<NodeLink *, LinkRequestPtr>> &requests) {
  if (!HasInterruptCheck()) {
    Wait();
    return;
  }
  std::unique_lock<std::mutex> lock(mu_);
  while (left_ != 0) {
    cv_.wait_for(lock, std::chrono::milliseconds(kInterruptSliceMs));
    if (left_ == 0) return;
    lock.unlock();
    const bool stop = InterruptAsked();
    if (stop) {
      for (const auto &lr : requests) {
        lr.first->Abandon(lr.second, Error(kConnError,
                                           "interrupted by the caller while waiting (a command "
                                           "already sent may have run)"));
      }
    }
    lock.lock();
    if (stop) {
      while (left_ != 0) cv_.wait_for(lock, std::chrono::milliseconds(100));
      return;
    }
  }
}

}  // namespace net
}  // namespace cloudroute
