// ClientContext: what the pieces of a live client share — the topology
// source, the options, the statistics and the background refresher — so
// that the command executor, the node pools and the observers each take one
// pointer instead of a bundle. The client (Client, SentinelClient) owns it;
// it outlives every piece.
//
// topo is what the engine (command executor, fan-out, node pools, recovery
// prober) routes by, for every topology kind (topology_source.hpp); router
// is the cluster's Router, for the pieces only a cluster has (the observer,
// scans, pinned connections, node commands) — null for shard groups.
//
// Thread-safety: the topology, the statistics and the recent writes are safe
// for concurrent use, the options are read-only, the refresher pointer is
// atomic (null until the refresher exists and again once it is being
// stopped).
#pragma once

#include <atomic>
#include <cstdint>
#include <utility>

#include "cloudroute/core/locality.hpp"
#include "cloudroute/core/router.hpp"
#include "cloudroute/net/connection.hpp"
#include "cloudroute/net/event_log.hpp"
#include "cloudroute/net/hedge.hpp"
#include "cloudroute/net/pool.hpp"
#include "cloudroute/net/recent_writes.hpp"
#include "cloudroute/net/refresher.hpp"
#include "cloudroute/net/stats.hpp"
#include "cloudroute/net/topology_source.hpp"

namespace cloudroute {
namespace net {

struct ClientOptions {
  ConnectOptions conn;
  uint32_t timeout_ms[kTierCount] = {500, 1000, 1000, 2000, 2000};  // per Tier
  PoolOptions pool;
  uint32_t refresh_interval_ms = 30000;  // 0: no periodic refresh
  uint32_t refresh_min_gap_ms = 1000;    // at most one triggered refresh per gap
  uint32_t max_redirects = 5;
  uint32_t max_retries = 3;
  uint32_t retry_base_ms = 50;
  uint32_t retry_cap_ms = 1000;
  uint32_t failures_before_refresh = 3;
  uint64_t replica_max_lag_bytes = 0;  // read a replica last past this lag; 0 = off
  uint32_t replica_max_lag_s = 0;      // ... or past this many seconds without an ack
  uint32_t idle_ping_ms = 5000;        // PING nodes without a sample for this long; 0 = never
  HedgeOptions hedge;                  // hedged reads (hedge.hpp); off by default
  uint32_t read_your_writes_ms = 0;    // reads of a slot this client wrote go to the
                                       // master for this long (recent_writes.hpp); 0 = off
  LogSink log;                         // no fn: silent
};

enum class Access : uint8_t { kRead, kWrite };

struct ClientContext {
  ClientContext(Router *r, TopologySource *t, ClientOptions o)
      : router(r), topo(t), opts(std::move(o)) {}
  ClientContext(const ClientContext &) = delete;
  ClientContext &operator=(const ClientContext &) = delete;

  // The command timeout for a node of this tier.
  uint32_t TimeoutFor(Tier tier) const {
    const int t = static_cast<int>(tier);
    return opts.timeout_ms[t >= 0 && t < kTierCount ? t : kTierCount - 1];
  }
  // Asks the refresher for a refresh (rate-limited there); a no-op before it
  // runs (during Create's first, synchronous refresh) and while it stops.
  void TriggerRefresh() {
    if (Refresher *r = refresher.load(std::memory_order_acquire)) r->Trigger();
  }
  void NoteRefreshed() {
    if (Refresher *r = refresher.load(std::memory_order_acquire)) r->NoteRefreshed();
  }

  Router *const router;  // a cluster's; null for shard groups
  TopologySource *const topo;
  const ClientOptions opts;
  EventLog log{opts.log};
  Stats stats;
  HedgeBudget hedge_budget{opts.hedge.budget_percent};
  RecentWrites recent_writes{opts.read_your_writes_ms};
  std::atomic<Refresher *> refresher{nullptr};
};

}  // namespace net
}  // namespace cloudroute
