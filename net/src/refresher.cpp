// The refresher's schedule and thread (see refresher.hpp).
#include "cloudroute/net/refresher.hpp"

#include <algorithm>
#include <chrono>

#include "cloudroute/net/deadline.hpp"

namespace cloudroute {
namespace net {

RefreshSchedule::RefreshSchedule(uint32_t interval_ms, uint32_t min_gap_ms, uint32_t tick_ms,
                                 int64_t now_ns, uint32_t jitter_pct, uint64_t seed)
    : interval_ns_(MsToNs(interval_ms)),
      min_gap_ns_(MsToNs(min_gap_ms)),
      tick_ns_(MsToNs(std::max<uint32_t>(tick_ms, 10))),
      jitter_ns_(interval_ns_ / 100 * std::min<uint32_t>(jitter_pct, 50)),
      rng_(seed),
      current_interval_ns_(DrawInterval()),
      last_ns_(now_ns),
      next_tick_ns_(now_ns + tick_ns_) {}

int64_t RefreshSchedule::DrawInterval() {
  if (jitter_ns_ <= 0) return interval_ns_;
  // splitmix64: a different, well-spread value per refresh and per seed.
  uint64_t z = (rng_ += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  const uint64_t span = 2 * static_cast<uint64_t>(jitter_ns_) + 1;
  return interval_ns_ - jitter_ns_ + static_cast<int64_t>(z % span);
}

RefreshSchedule::Step RefreshSchedule::Next(int64_t now_ns, int64_t *wake_ns) {
  int64_t due = INT64_MAX;
  if (interval_ns_ > 0) due = last_ns_ + current_interval_ns_;
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

void RefreshSchedule::Refreshed(int64_t now_ns) {
  last_ns_ = now_ns;
  current_interval_ns_ = DrawInterval();
}

void RefreshSchedule::Ticked(int64_t now_ns) { next_tick_ns_ = now_ns + tick_ns_; }

Refresher::Refresher(std::function<void()> refresh, std::function<void()> tick,
                     uint32_t interval_ms, uint32_t min_gap_ms, uint32_t tick_ms, ClockFn clock,
                     uint32_t jitter_pct)
    : refresh_(std::move(refresh)),
      tick_(std::move(tick)),
      clock_(clock != nullptr ? clock : &SteadyNowNs),
      // Seeded by the start instant and this object's address: distinct per
      // client, also for clients of one process started together.
      schedule_(interval_ms, min_gap_ms, tick_ms, clock_(), jitter_pct,
                static_cast<uint64_t>(SteadyNowNs()) ^ reinterpret_cast<uintptr_t>(this)) {
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
