// EventLoop: one thread that owns sockets and runs what is posted to it —
// the engine thread of the shared connections (shared_link.hpp).
//
// Post() hands it a task from any thread; the loop thread runs tasks in the
// order they were posted, waits in epoll for the sockets it watches and
// fires timers at their deadlines (SteadyNowNs() clock). Watch / Modify /
// Unwatch / AddTimer / CancelTimer belong to the loop thread (call them
// from a task or a handler).
//
// Stopping: the destructor (or Stop()) joins the thread, runs every task
// posted until then, and drops the handlers and timers without calling
// them. A task posted once that is done runs on the posting thread at once
// (one at a time), so whatever waits for it is never left waiting.
//
// Thread-safety: Post(), Stop() and InLoop() are safe from any thread; the
// rest is for the loop thread only.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "cloudroute/core/status.hpp"

namespace cloudroute {
namespace net {

class EventLoop {
 public:
  using Task = std::function<void()>;
  // events: EPOLLIN / EPOLLOUT / EPOLLERR / EPOLLHUP as epoll reports them.
  using Handler = std::function<void(uint32_t events)>;

  // Errors: kNoMemory / kInternal when epoll or the wake-up eventfd cannot
  // be made (the message names the call and errno).
  static Result<std::unique_ptr<EventLoop>> Start();
  ~EventLoop();
  EventLoop(const EventLoop &) = delete;
  EventLoop &operator=(const EventLoop &) = delete;

  void Post(Task task);
  // Runs every task posted so far, then stops the thread (idempotent; not
  // from the loop thread itself).
  void Stop();
  bool InLoop() const { return std::this_thread::get_id() == thread_.get_id(); }

  // Loop thread only. A handler may Unwatch its own fd (or any other).
  void Watch(int fd, uint32_t events, Handler on_ready);
  void Modify(int fd, uint32_t events);
  void Unwatch(int fd);
  // fn runs on the loop thread once deadline_ns has passed, unless
  // cancelled first. Ids are never 0.
  uint64_t AddTimer(int64_t deadline_ns, Task fn);
  void CancelTimer(uint64_t id);

 private:
  EventLoop(int epfd, int wakefd);
  void Run();
  void RunPosted();
  void RunTimers();

  const int epfd_;
  const int wakefd_;
  std::mutex mu_;  // guards posted_ and done_
  std::vector<Task> posted_;
  bool done_ = false;     // stopped and drained: Post runs tasks inline
  std::mutex inline_mu_;  // one task at a time once the thread is gone
  std::atomic<bool> stop_{false};
  // Loop thread only. Handlers are shared so that one stays alive while it
  // runs even if it unwatches itself.
  std::unordered_map<int, std::shared_ptr<Handler>> handlers_;
  std::multimap<int64_t, std::pair<uint64_t, Task>> timers_;
  std::unordered_map<uint64_t, std::multimap<int64_t, std::pair<uint64_t, Task>>::iterator>
      timer_index_;
  uint64_t next_timer_ = 1;
  std::thread thread_;  // last: started once everything above exists
};

}  // namespace net
}  // namespace cloudroute
