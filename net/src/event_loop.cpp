// EventLoop: epoll, an eventfd to wake it, posted tasks and timers (see
// event_loop.hpp).
#include "cloudroute/net/event_loop.hpp"

#include <errno.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstring>

#include "cloudroute/core/health.hpp"
#include "cloudroute/net/deadline.hpp"

namespace cloudroute {
namespace net {

Result<std::unique_ptr<EventLoop>> EventLoop::Start() {
  const int epfd = epoll_create1(EPOLL_CLOEXEC);
  if (epfd < 0) {
    return Error(Code::kInternal,
                 std::string("engine thread: epoll_create1: ") + std::strerror(errno));
  }
  const int wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wakefd < 0) {
    const int e = errno;
    close(epfd);
    return Error(Code::kInternal, std::string("engine thread: eventfd: ") + std::strerror(e));
  }
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.fd = wakefd;
  if (epoll_ctl(epfd, EPOLL_CTL_ADD, wakefd, &ev) != 0) {
    const int e = errno;
    close(wakefd);
    close(epfd);
    return Error(Code::kInternal, std::string("engine thread: epoll_ctl: ") + std::strerror(e));
  }
  return std::unique_ptr<EventLoop>(new EventLoop(epfd, wakefd));
}

EventLoop::EventLoop(int epfd, int wakefd)
    : epfd_(epfd), wakefd_(wakefd), thread_([this] { Run(); }) {}

EventLoop::~EventLoop() {
  Stop();
  close(wakefd_);
  close(epfd_);
}

void EventLoop::Post(Task task) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!done_) {
      const bool was_empty = posted_.empty();
      posted_.push_back(std::move(task));
      if (!was_empty) return;  // a wake-up is already on its way
      const uint64_t one = 1;
      // A full counter (it never is: the loop reads it on every wake-up)
      // would still leave the fd readable, so the result needs no check.
      (void)!write(wakefd_, &one, sizeof one);
      return;
    }
  }
  // Stopped: nobody else will run it. One at a time, as the loop would.
  std::lock_guard<std::mutex> lock(inline_mu_);
  task();
}

void EventLoop::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_.exchange(true, std::memory_order_acq_rel)) return;
  }
  const uint64_t one = 1;
  (void)!write(wakefd_, &one, sizeof one);
  if (thread_.joinable()) thread_.join();
  // Tasks posted after the loop's last round run here, until none is left;
  // later ones run on their poster's thread (Post).
  std::lock_guard<std::mutex> inline_lock(inline_mu_);
  for (;;) {
    std::vector<Task> tasks;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (posted_.empty()) {
        done_ = true;
        break;
      }
      tasks.swap(posted_);
    }
    for (Task &t : tasks) t();
  }
  handlers_.clear();
  timers_.clear();
  timer_index_.clear();
}

void EventLoop::Watch(int fd, uint32_t events, Handler on_ready) {
  epoll_event ev{};
  ev.events = events;
  ev.data.fd = fd;
  handlers_[fd] = std::make_shared<Handler>(std::move(on_ready));
  if (epoll_ctl(epfd_, EPOLL_CTL_ADD, fd, &ev) != 0 && errno == EEXIST) {
    epoll_ctl(epfd_, EPOLL_CTL_MOD, fd, &ev);
  }
}

void EventLoop::Modify(int fd, uint32_t events) {
  epoll_event ev{};
  ev.events = events;
  ev.data.fd = fd;
  epoll_ctl(epfd_, EPOLL_CTL_MOD, fd, &ev);
}

void EventLoop::Unwatch(int fd) {
  if (handlers_.erase(fd) > 0) epoll_ctl(epfd_, EPOLL_CTL_DEL, fd, nullptr);
}

uint64_t EventLoop::AddTimer(int64_t deadline_ns, Task fn) {
  const uint64_t id = next_timer_++;
  auto it = timers_.emplace(deadline_ns, std::make_pair(id, std::move(fn)));
  timer_index_.emplace(id, it);
  return id;
}

void EventLoop::CancelTimer(uint64_t id) {
  auto it = timer_index_.find(id);
  if (it == timer_index_.end()) return;
  timers_.erase(it->second);
  timer_index_.erase(it);
}

void EventLoop::RunPosted() {
  std::vector<Task> tasks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    tasks.swap(posted_);
  }
  for (Task &t : tasks) t();
}

void EventLoop::RunTimers() {
  const int64_t now = SteadyNowNs();
  while (!timers_.empty() && timers_.begin()->first <= now) {
    auto it = timers_.begin();
    Task fn = std::move(it->second.second);
    timer_index_.erase(it->second.first);
    timers_.erase(it);
    fn();
  }
}

void EventLoop::Run() {
  epoll_event events[64];
  while (!stop_.load(std::memory_order_acquire)) {
    int wait_ms = -1;
    if (!timers_.empty()) {
      wait_ms = static_cast<int>(std::min<uint32_t>(MsLeft(timers_.begin()->first), INT_MAX));
    }
    const int n = epoll_wait(epfd_, events, 64, wait_ms);
    for (int i = 0; i < n; ++i) {
      const int fd = events[i].data.fd;
      if (fd == wakefd_) {
        uint64_t count = 0;
        (void)!read(wakefd_, &count, sizeof count);
        continue;
      }
      auto it = handlers_.find(fd);
      if (it == handlers_.end()) continue;  // unwatched by an earlier handler this round
      std::shared_ptr<Handler> h = it->second;
      (*h)(events[i].events);
    }
    RunPosted();
    RunTimers();
  }
}

}  // namespace net
}  // namespace cloudroute
