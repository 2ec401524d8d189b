#include "cloudroute/core/health.hpp"

#include <chrono>

namespace cloudroute {

int64_t SteadyNowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

const char *HealthStateName(HealthState s) {
  switch (s) {
    case HealthState::kUp:
      return "up";
    case HealthState::kDown:
      return "down";
    case HealthState::kProbe:
      return "probe-due";
  }
  return "?";
}

bool NodeHealth::AdmitSlow(int64_t until, ClockFn clock, const HealthConfig &cfg) {
  const int64_t now = clock();
  if (now < until) return false;
  // Cool-down over: one caller wins the probe by re-arming the cool-down.
  int64_t expected = until;
  const int64_t rearm = now + static_cast<int64_t>(cfg.cooldown_ms) * 1000000;
  return down_until_.compare_exchange_strong(expected, rearm, std::memory_order_acq_rel);
}

HealthState NodeHealth::State(int64_t now) const {
  const int64_t until = down_until_.load(std::memory_order_acquire);
  if (until == 0) return HealthState::kUp;
  return now < until ? HealthState::kDown : HealthState::kProbe;
}

void NodeHealth::Failure(int64_t now, const HealthConfig &cfg) {
  const uint32_t f = failures_.fetch_add(1, std::memory_order_acq_rel) + 1;
  if (f >= cfg.failure_threshold) Open(now, cfg);
}

void NodeHealth::SetAside(int64_t now, const HealthConfig &cfg) {
  failures_.fetch_add(1, std::memory_order_acq_rel);
  Open(now, cfg);
}

void NodeHealth::Open(int64_t now, const HealthConfig &cfg) {
  int64_t until = now + static_cast<int64_t>(cfg.cooldown_ms) * 1000000;
  if (until == 0) until = 1;  // 0 means closed
  down_until_.store(until, std::memory_order_release);
}

void NodeHealth::Success() {
  // Runs after every reply. Store only when something changes, so a healthy
  // node's line stays shared in the cache of every reader calling Admit().
  if (failures_.load(std::memory_order_relaxed) != 0) failures_.store(0, std::memory_order_relaxed);
  if (down_until_.load(std::memory_order_relaxed) != 0)
    down_until_.store(0, std::memory_order_release);
}

}  // namespace cloudroute
