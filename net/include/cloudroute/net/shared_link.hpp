// Shared connections: a few connections per node that every calling thread
// uses at once, their requests written back to back and their replies
// matched in order (RESP answers in the order it is asked).
//
// A LinkRequest is one caller's commands for one node, encoded. NodeLink::
// Submit() hands it to the engine thread (event_loop.hpp), which appends it
// to the least loaded of the node's connections (dialing the first one, and
// a second when the first is busy, up to max_connections), writes as much
// as the socket takes, reads replies as they come and gives each request
// its own — never another's. A connection's requests sit in one queue in
// wire order, and each is followed on the wire by a marker, `PING <tag>`
// with a tag unique on the connection: a request takes as many replies as
// it sent commands, and the next reply must be its marker's echo. So a
// reply added or lost anywhere in the stream (an unsolicited reply, a
// proxy's bug) is caught at the next marker, before the request it would
// shift is answered, instead of shifting every later caller's replies
// (RESP2 replies carry nothing else that says which request they answer).
// That reply, a reply nobody is waiting for, and one the request's check
// refuses (a reply of a shape its command cannot produce) poison the
// connection. The marker costs one small command per request (not per
// command): a fan-out's leg of 60 GETs carries one.
//
// When something goes wrong the rules are:
//  - the connection fails (reset, closed, refused reply, poisoned): it is
//    closed, and every request on it fails with that status. `sent` tells
//    a caller whether any byte of its request was written (a write that
//    was sent may have run; one that was not can be sent again);
//  - a request's deadline passes: the node is late, so its connection is
//    treated as failed (kTimeout for the late request, kConnError naming
//    the timeout for the others on it) — unless the request says
//    abandon_on_deadline (a caller's own deadline, an interrupted wait, a
//    hedge's loser): then only it fails; its replies are read and dropped
//    when they come, and the connection keeps serving the others;
//  - no connection can be dialed: the requests waiting for it fail with
//    the dial's status, not sent.
//
// Threads: Submit() from any thread. A thread other than the engine's
// writes its request itself when a connection is open and can take it (the
// engine thread reads every reply; it is woken only to arm a timer or to
// finish a write the socket did not take), else the request is posted to the
// engine thread. A link's state (its connections, their queues and output)
// is guarded by the link's mutex; `done` runs after it is released, on the
// engine thread when a reply or a deadline settles the request (it must not
// block; see Wait() for callers that do). Commands that change a
// connection's state (blocking commands, MULTI/WATCH, subscriptions) never
// come here: they keep dedicated connections (pool.hpp).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cloudroute/core/status.hpp"
#include "cloudroute/net/connection.hpp"
#include "cloudroute/net/event_loop.hpp"
#include "cloudroute/net/reply.hpp"

namespace cloudroute {
namespace net {

struct LinkRequest {
  // In: set before Submit().
  std::string wire;     // the commands, encoded (AppendCommand)
  size_t expected = 0;  // replies to read: one per command
  int64_t deadline_ns = 0;
  bool abandon_on_deadline = false;  // see the file comment
  // Optional, run on the engine thread once the replies are in: "" accepts
  // them; anything else poisons the connection, saying why.
  std::function<std::string(const std::vector<ReplyPtr> &)> check;
  // Runs once, on the engine thread, when the request is settled.
  std::function<void(LinkRequest &)> done;

  // Out: valid when done runs.
  Status status;                  // OK: replies holds `expected` replies
  std::vector<ReplyPtr> replies;  // in order; server errors are replies
  bool sent = false;              // some of its bytes were written
  int64_t sent_ns = 0;            // when its first byte was written (0: never)
  int64_t done_ns = 0;            // when it was settled

  // The engine thread's own bookkeeping.
  uint64_t wire_start = 0;  // its first byte's position in its connection's stream
  std::string marker;       // the tag its marker PING echoes
  bool settled = false;     // done has run (or is running)
  bool abandoned = false;   // settled early; its replies are dropped when they come
};
using LinkRequestPtr = std::shared_ptr<LinkRequest>;

class NodeLink;

// The threads that dial shared connections (a dial blocks: connect, TLS,
// handshake), owned apart from the links so that a link can be dropped on
// the engine thread without waiting for a dial. Thread-safety: safe for
// concurrent use.
class DialThreads {
 public:
  DialThreads() = default;
  ~DialThreads() { JoinAll(); }
  DialThreads(const DialThreads &) = delete;
  DialThreads &operator=(const DialThreads &) = delete;
  // Runs fn on a new thread (finished ones are joined first).
  void Spawn(std::function<void()> fn);
  // Waits for every dial. The owner calls it before stopping the engine
  // thread the dials report to.
  void JoinAll();

 private:
  struct Dial {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> finished;
  };
  std::mutex mu_;
  std::vector<Dial> dials_;
};

// Requests settled under a link's lock, whose `done` runs once it is
// released (a done may submit again, to this link too).
using Finished = std::vector<LinkRequestPtr>;

// One connection of a NodeLink: every member under the link's mutex; the
// socket's events and timers on the engine thread.
class SharedConnection {
 public:
  // Told once, when the connection closes (poisoned: its replies stopped
  // matching its requests).
  using OnClosed = std::function<void(bool poisoned, const Status &why)>;
  // mu and finished are the owning link's (they outlive the connection).
  SharedConnection(EventLoop *loop, std::unique_ptr<Connection> conn, OnClosed on_closed,
                   std::mutex *mu, Finished *finished);
  ~SharedConnection();
  SharedConnection(const SharedConnection &) = delete;
  SharedConnection &operator=(const SharedConnection &) = delete;

  // Engine thread: queues r, writes what the socket takes, arms.
  void Add(LinkRequestPtr r);
  // Any thread (a caller's direct submit): queues r and writes what the
  // socket takes; true when the engine thread must still act — arm a timer
  // that covers r's deadline, finish the write, or close the connection
  // after a failed send (Service()).
  bool Queue(LinkRequestPtr r);
  // Engine thread: what Queue() left to do.
  void Service();
  // Fails every request on it with why and closes the socket (engine thread;
  // idempotent).
  void Close(const Status &why);
  bool open() const { return conn_ != nullptr; }
  size_t load() const { return fifo_.size(); }

 private:
  void OnEvents(uint32_t events);
  Status Flush();
  Status ReadReplies();
  void Arm();  // epoll interest and the deadline timer, from the state
  void OnDeadline();
  void Settle(const LinkRequestPtr &r, Status status);

  EventLoop *const loop_;
  std::unique_ptr<Connection> conn_;
  const OnClosed on_closed_;
  std::mutex *const mu_;
  Finished *const finished_;
  const int fd_;
  Status send_failed_;               // a direct submit's failed send, for Service() to close on
  std::string out_;                  // bytes not yet written
  size_t out_pos_ = 0;               // how much of out_ is written
  uint64_t written_ = 0;             // bytes written since the connection opened
  uint64_t queued_ = 0;              // bytes handed to out_ since it opened
  uint64_t markers_ = 0;             // marker tags handed out
  std::deque<LinkRequestPtr> fifo_;  // in wire order, settled or not
  std::vector<ReplyPtr> partial_;    // replies of fifo_.front() so far
  uint32_t interest_ = 0;
  // The deadline timer. It may fire before the earliest deadline still open
  // (it is left armed when its request settles, so that a direct submit
  // rarely needs the engine thread), never after it.
  uint64_t timer_ = 0;
  int64_t timer_at_ = 0;
};

// The shared connections of one node.
class NodeLink : public std::enable_shared_from_this<NodeLink> {
 public:
  // Dials and hands over a ready connection (handshake done) within
  // timeout_ms — the longest wait among the requests that need it, else
  // dial_timeout_ms — on a dial thread (never the engine thread). A request
  // whose deadline passes while it waits for the dial fails then, unsent.
  using Dialer = std::function<Result<std::unique_ptr<Connection>>(uint32_t timeout_ms)>;
  // Told, on the engine thread, of each connection closed because its
  // replies stopped matching its requests (the status says why).
  using OnPoisoned = std::function<void(const Status &why)>;
  // REQUIRES: loop and dials outlive the link.
  NodeLink(EventLoop *loop, DialThreads *dials, Dialer dial, uint32_t max_connections,
           uint32_t dial_timeout_ms, OnPoisoned on_poisoned = nullptr);
  // REQUIRES: Close() ran, on the engine thread (or the loop has stopped).
  ~NodeLink();
  NodeLink(const NodeLink &) = delete;
  NodeLink &operator=(const NodeLink &) = delete;

  // Any thread. r->done runs on the engine thread (or, once the loop has
  // stopped, on this thread).
  void Submit(LinkRequestPtr r);
  // Settles r now with status (kTimeout, or an interrupt's kConnError) if it
  // is not settled yet; its replies are dropped when they come. Any thread.
  void Abandon(LinkRequestPtr r, Status status);
  // Engine thread: fails every request and closes every connection.
  void Close(const Status &why);

  // Whether this thread is the engine thread (a call from there must not
  // wait for a request: it would wait for itself).
  bool OnEngineThread() const { return loop_->InLoop(); }

  // How many connections are open and how many requests are on them
  // (engine-thread values, read for statistics).
  uint32_t open() const { return open_.load(std::memory_order_relaxed); }

 private:
  // Runs fn under the link's mutex, then the done of every request it settled.
  template <typename Fn>
  void Locked(Fn &&fn);
  // Not on the engine thread: writes r on an open connection that can take
  // it; false leaves r to the engine thread (none open, one to dial, closed,
  // or earlier requests still on their way there) and counts it in placing_.
  bool SubmitDirect(const LinkRequestPtr &r);
  SharedConnection *LeastLoaded();  // the open connection with the fewest requests
  void Place(LinkRequestPtr r);     // engine thread
  void StartDial();                 // engine thread
  void ArmWaiting();                // engine thread: the timer of the earliest waiting deadline
  void Dialed(Result<std::unique_ptr<Connection>> c);  // engine thread

  EventLoop *const loop_;
  DialThreads *const dials_;
  const Dialer dial_;
  const OnPoisoned on_poisoned_;
  const uint32_t max_connections_;
  const uint32_t dial_timeout_ms_;
  // Guards everything below and every connection's members.
  std::mutex mu_;
  Finished finished_;  // settled under mu_, their done not run yet
  std::vector<std::unique_ptr<SharedConnection>> conns_;
  std::deque<LinkRequestPtr> waiting_;  // for a connection being dialed
  bool dialing_ = false;
  // Requests posted to the engine thread and not yet placed: while any is,
  // later ones follow it there, so none overtakes an earlier one on the wire.
  size_t placing_ = 0;
  bool closed_ = false;
  uint64_t waiting_timer_ = 0;
  int64_t waiting_timer_at_ = 0;
  std::atomic<uint32_t> open_{0};
};

// What a thread that waits for its requests waits on: each request's done
// counts down, the last one wakes the waiter.
class LinkWaiter {
 public:
  explicit LinkWaiter(size_t count = 1) : left_(count) {}
  // Makes r->done count down this waiter (r must not have a done of its own).
  static void Attach(const std::shared_ptr<LinkWaiter> &w, LinkRequest *r) {
    r->done = [w](LinkRequest &) { w->Signal(); };
  }
  // One request settled.
  void Signal();
  // Blocks until every request counted is settled.
  void Wait();
  // Wait() for requests on links: with the thread's interrupt check
  // (interrupt.hpp) the wait sleeps in slices, and an interrupt abandons
  // every request still open (its connection stays; its replies are dropped
  // when they come) before it returns.
  void Wait(const std::vector<std::pair<NodeLink *, LinkRequestPtr>> &requests);

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  size_t left_;
};

}  // namespace net
}  // namespace cloudroute
