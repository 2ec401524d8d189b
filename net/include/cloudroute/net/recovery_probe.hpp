// RecoveryProber: brings a set-aside node back as soon as it answers again,
// off the request path.
//
// A node whose breaker is open (set aside after a timeout, or after
// failure_threshold connection errors; core/health.hpp) gets no requests
// until its cool-down ends and one request is let through as the half-open
// probe — up to down_cooldown_ms (2 s by default) plus a timeout after the
// node resumed. The prober closes that gap: its own thread, about every
// kRecoveryProbeEveryMs, PINGs every node of the current topology whose
// breaker is open, one probe per node at a time (probes run one after the
// other on this thread, so never more than one is in flight per node, or in
// all), each bounded by the node's tier timeout, on a pooled connection (or
// a new one: a new connection passes the replica readiness check first, so a
// replica that restarted empty and is still syncing is not brought back).
//
//  - a PONG closes the breaker (NodePools::NoteSuccess): every request picks
//    the node again at once;
//  - anything else re-arms the cool-down (NodeHealth::SetAside), so while a
//    node stays dead its half-open window is pushed back and user requests
//    do not serve as probes into it (the half-open rule stays as the
//    fallback when a probe takes longer than the cool-down: k nodes down at
//    once make a round cost up to the sum of their timeouts). A failed
//    probe is not a request failure: it neither counts towards a triggered
//    refresh nor into the client's error statistics.
//
// Thread-safety: the constructor starts the thread, the destructor stops and
// joins it (within one probe's timeout). ctx and pools must outlive it.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

#include "cloudroute/net/client_context.hpp"
#include "cloudroute/net/node_pools.hpp"

namespace cloudroute {
namespace net {

constexpr uint32_t kRecoveryProbeEveryMs = 200;

class RecoveryProber {
 public:
  RecoveryProber(ClientContext *ctx, NodePools *pools, uint32_t every_ms = kRecoveryProbeEveryMs);
  ~RecoveryProber();
  RecoveryProber(const RecoveryProber &) = delete;
  RecoveryProber &operator=(const RecoveryProber &) = delete;

  // One pass over the current topology's set-aside nodes (the thread's
  // work; public for tests). Returns how many nodes it probed.
  size_t Round();

 private:
  void Run();
  // true when the node answered PONG within timeout_ms.
  bool Probe(NodeEntry *node, uint32_t timeout_ms);

  ClientContext *const ctx_;
  NodePools *const pools_;
  const uint32_t every_ms_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;  // under mu_
  std::thread thread_;
};

}  // namespace net
}  // namespace cloudroute
