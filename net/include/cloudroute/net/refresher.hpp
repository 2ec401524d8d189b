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
// Thread-safety: Trigger() from any thread; the callbacks run on the
// refresher's thread only. The destructor stops and joins the thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

namespace cloudroute {
namespace net {

class Refresher {
 public:
  Refresher(std::function<void()> refresh, std::function<void()> tick, uint32_t interval_ms,
            uint32_t min_gap_ms, uint32_t tick_ms = 1000);
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
  const int64_t interval_ns_, min_gap_ns_, tick_ns_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool triggered_ = false;
  int64_t last_ns_;
  uint64_t runs_ = 0;
  std::thread thread_;
};

}  // namespace net
}  // namespace cloudroute
