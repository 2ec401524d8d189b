// Node health: a per-node circuit breaker.
//
// Closed (up) → after `failure_threshold` consecutive failures → open (down)
// for `cooldown_ms` → half-open: exactly one caller is admitted as a probe
// (the cool-down is re-armed while it runs) → a success closes the breaker, a
// failure opens it again. SetAside() is a failure that opens the breaker at
// once, whatever the threshold (the live client's rule for a timeout: each
// further pick of a stalled node would cost another whole timeout).
//
// Thread-safety: all methods are lock-free and safe from any thread. The fast
// path (a healthy node) is one relaxed atomic load and never reads the clock.
#pragma once

#include <atomic>
#include <cstdint>

namespace cloudroute {

// Monotonic nanoseconds. Injected so tests control time.
using ClockFn = int64_t (*)();
int64_t SteadyNowNs();

struct HealthConfig {
  uint32_t failure_threshold = 3;
  uint32_t cooldown_ms = 2000;
};

enum class HealthState : uint8_t { kUp = 0, kDown = 1, kProbe = 2 };
const char *HealthStateName(HealthState s);

class NodeHealth {
 public:
  // May this node be used now? Claims the half-open probe when the cool-down
  // has passed (then returns true to one caller only).
  bool Admit(ClockFn clock, const HealthConfig &cfg) {
    const int64_t until = down_until_.load(std::memory_order_acquire);
    if (until == 0) return true;
    return AdmitSlow(until, clock, cfg);
  }
  HealthState State(int64_t now) const;
  void Failure(int64_t now, const HealthConfig &cfg);
  // A failure that opens the breaker now, for cfg.cooldown_ms.
  void SetAside(int64_t now, const HealthConfig &cfg);
  void Success();
  // Closed with no failures, as new: for a registry slot that is reused.
  void Reset() {
    failures_.store(0, std::memory_order_relaxed);
    down_until_.store(0, std::memory_order_release);
  }
  // The breaker is open or half-open (State() is not kUp).
  bool open() const { return down_until_.load(std::memory_order_acquire) != 0; }
  uint32_t consecutive_failures() const { return failures_.load(std::memory_order_relaxed); }

 private:
  bool AdmitSlow(int64_t until, ClockFn clock, const HealthConfig &cfg);
  void Open(int64_t now, const HealthConfig &cfg);

  std::atomic<uint32_t> failures_{0};
  std::atomic<int64_t> down_until_{0};  // 0 = closed; else open until this time
};

}  // namespace cloudroute
