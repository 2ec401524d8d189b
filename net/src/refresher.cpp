// The refresher thread (see refresher.hpp).
#include "cloudroute/net/refresher.hpp"

#include <algorithm>
#include <chrono>

#include "cloudroute/core/health.hpp"

namespace cloudroute {
namespace net {

namespace {
constexpr int64_t kNsPerMs = 1000000;
}

Refresher::Refresher(std::function<void()> refresh, std::function<void()> tick,
                     uint32_t interval_ms, uint32_t min_gap_ms, uint32_t tick_ms)
    : refresh_(std::move(refresh)),
      tick_(std::move(tick)),
      interval_ns_(static_cast<int64_t>(interval_ms) * kNsPerMs),
      min_gap_ns_(static_cast<int64_t>(min_gap_ms) * kNsPerMs),
      tick_ns_(static_cast<int64_t>(std::max<uint32_t>(tick_ms, 10)) * kNsPerMs),
      last_ns_(SteadyNowNs()) {
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
    if (triggered_) return;
    triggered_ = true;
  }
  cv_.notify_all();
}

void Refresher::NoteRefreshed() {
  std::lock_guard<std::mutex> lock(mu_);
  last_ns_ = SteadyNowNs();
}

uint64_t Refresher::runs() const {
  std::lock_guard<std::mutex> lock(mu_);
  return runs_;
}

void Refresher::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  int64_t next_tick = SteadyNowNs() + tick_ns_;
  while (!stop_) {
    const int64_t now = SteadyNowNs();
    int64_t due = INT64_MAX;
    if (interval_ns_ > 0) due = last_ns_ + interval_ns_;
    if (triggered_) due = std::min(due, last_ns_ + min_gap_ns_);
    if (now >= due) {
      triggered_ = false;
      lock.unlock();
      refresh_();
      lock.lock();
      last_ns_ = SteadyNowNs();
      ++runs_;
      continue;
    }
    if (now >= next_tick) {
      lock.unlock();
      if (tick_) tick_();
      lock.lock();
      next_tick = SteadyNowNs() + tick_ns_;
      continue;
    }
    const int64_t wake = std::min(due, next_tick);
    cv_.wait_for(lock, std::chrono::nanoseconds(wake - now));
  }
}

}  // namespace net
}  // namespace cloudroute
