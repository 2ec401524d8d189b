// Refresher: the client's background thread that re-reads the topology.
//
// A refresh runs periodically (every interval_ms; 0 = never on a timer) and
// when Trigger() asks for one — on MOVED, on repeated connection failures —
// but at most once per min_gap_ms: a storm of triggers costs one refresh
// (triggers that arrive while one runs cost at most one more). The refresh
// itself is a callback (the client's: discover, then swap the snapshot in);
// reads keep routing on the old snapshot meanwhile. A tick callback runs
// about every tick_ms for cheap periodic work (RTT publishing).
//
// The timing is a RefreshSchedule — plain arithmetic on instants the caller
// passes — so it is tested without a thread or a sleep; the Refresher reads
// its clock (injectable: SteadyNowNs by default) and sleeps until the
// schedule says something is due.
//
// Thread-safety: RefreshSchedule is a plain value (the Refresher guards its
// own). Refresher: Trigger() and NoteRefreshed() from any thread; the
// callbacks run on the refresher's thread only. The destructor stops and
// joins the thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

#include "cloudroute/core/health.hpp"

namespace cloudroute {
namespace net {

class RefreshSchedule {
 public:
  enum class Step : uint8_t { kRefresh, kTick, kWait };

  // now_ns: the instant the schedule starts (counts as the last refresh).
  // tick_ms below 10 counts as 10. jitter_pct (0-50): each periodic
  // interval is drawn uniformly within +-jitter_pct % of interval_ms, from a
  // sequence seeded by seed, so clients started together (a deploy) do not
  // refresh together ever after.
  RefreshSchedule(uint32_t interval_ms, uint32_t min_gap_ms, uint32_t tick_ms, int64_t now_ns,
                  uint32_t jitter_pct = 0, uint64_t seed = 0);

  // What is due at now_ns: a refresh (it takes the pending trigger), a tick,
  // or nothing before *wake_ns.
  Step Next(int64_t now_ns, int64_t *wake_ns);
  // Asks for a refresh; false when one was already pending.
  bool Trigger();
  // A refresh ended at now_ns (here or elsewhere): the next periodic one is
  // due an interval (interval_ms, jittered) later, a triggered one
  // min_gap_ms later.
  void Refreshed(int64_t now_ns);
  // The interval until the next periodic refresh (for tests).
  int64_t current_interval_ns() const { return current_interval_ns_; }
  // A tick ended at now_ns: the next is due tick_ms later.
  void Ticked(int64_t now_ns);

 private:
  int64_t DrawInterval();

  const int64_t interval_ns_, min_gap_ns_, tick_ns_, jitter_ns_;
  uint64_t rng_;
  int64_t current_interval_ns_;
  bool triggered_ = false;
  int64_t last_ns_;
  int64_t next_tick_ns_;
};

class Refresher {
 public:
  // clock: nullptr = SteadyNowNs. Periodic refreshes are jittered by
  // jitter_pct (see RefreshSchedule), seeded per instance.
  static constexpr uint32_t kDefaultJitterPct = 10;
  Refresher(std::function<void()> refresh, std::function<void()> tick, uint32_t interval_ms,
            uint32_t min_gap_ms, uint32_t tick_ms = 1000, ClockFn clock = nullptr,
            uint32_t jitter_pct = kDefaultJitterPct);
  ~Refresher();
  Refresher(const Refresher &) = delete;
  Refresher &operator=(const Refresher &) = delete;

  void Trigger();
  // Records that a refresh just ran elsewhere (a synchronous one): the next
  // periodic refresh is due interval_ms from now.
  void NoteRefreshed();
  uint64_t runs() const;

 private:
  void Run();

  const std::function<void()> refresh_, tick_;
  const ClockFn clock_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  RefreshSchedule schedule_;  // under mu_
  uint64_t runs_ = 0;
  std::thread thread_;
};

}  // namespace net
}  // namespace cloudroute
