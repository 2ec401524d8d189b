// The refresher's schedule and thread (see refresher.hpp).
#include "cloudroute/net/refresher.hpp"

#include <algorithm>
#include <chrono>

#include "cloudroute/net/deadline.hpp"

namespace cloudroute {
namespace net {

RefreshSchedule::RefreshSchedule(uint32_t interval_ms, uint32_t min_gap_ms, uint32_t tick_ms,
                                 int64_t now_ns)
    : interval_ns_(MsToNs(interval_ms)),
      min_gap_ns_(MsToNs(min_gap_ms)),
      tick_ns_(MsToNs(std::max<uint32_t>(tick_ms, 10))),
      last_ns_(now_ns),
      next_tick_ns_(now_ns + tick_ns_) {}

RefreshSchedule::Step RefreshSchedule::Next(int64_t now_ns, int64_t *wake_ns) {
  int64_t due = INT64_MAX;
  if (interval_ns_ > 0) due = last_ns_ + interval_ns_;
  if (triggered_) due = std::min(due, last_ns_ + min_gap_ns_);
  if (now_ns >= due) {
    triggered_ = false;
    return Step::kRefresh;
  }
  if (now_ns >= next_tick_ns_) return Step::kTick;
  *wake_ns = std::min(due, next_tick_ns_);
  return Step::kWait;
}

bool RefreshSchedule::Trigger() {
  if (triggered_) return false;
  triggered_ = true;
  return true;
}

void RefreshSchedule::Refreshed(int64_t now_ns) { last_ns_ = now_ns; }

void RefreshSchedule::Ticked(int64_t now_ns) { next_tick_ns_ = now_ns + tick_ns_; }

Refresher::Refresher(std::function<void()> refresh, std::function<void()> tick,
                     uint32_t interval_ms, uint32_t min_gap_ms, uint32_t tick_ms, ClockFn clock)
    : refresh_(std::move(refresh)),
      tick_(std::move(tick)),
      clock_(clock != nullptr ? clock : &SteadyNowNs),
      schedule_(interval_ms, min_gap_ms, tick_ms, clock_()) {
  thread_ = std::thread([this] { Run(); });
}

Refresher::~Refresher() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void Refresher::Trigger() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!schedule_.Trigger()) return;
  }
  cv_.notify_all();
}

void Refresher::NoteRefreshed() {
  std::lock_guard<std::mutex> lock(mu_);
  schedule_.Refreshed(clock_());
}

uint64_t Refresher::runs() const {
  std::lock_guard<std::mutex> lock(mu_);
  return runs_;
}

void Refresher::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  schedule_.Ticked(clock_());  // the first tick is tick_ms after the thread starts
  while (!stop_) {
    const int64_t now = clock_();
    int64_t wake = now;
    switch (schedule_.Next(now, &wake)) {
      case RefreshSchedule::Step::kRefresh:
        lock.unlock();
        refresh_();
        lock.lock();
        schedule_.Refreshed(clock_());
        ++runs_;
        break;
      case RefreshSchedule::Step::kTick:
        lock.unlock();
        if (tick_) tick_();
        lock.lock();
        schedule_.Ticked(clock_());
        break;
      case RefreshSchedule::Step::kWait:
        cv_.wait_for(lock, std::chrono::nanoseconds(wake - now));
        break;
    }
  }
}

}  // namespace net
}  // namespace cloudroute
