// ClusterObserver: everything the client learns about the cluster rather
// than about keys, and when.
//
//  - Refresh(): discover the topology (known nodes, healthy ones first, then
//    the seeds), install it in the router, follow a change with more
//    refreshes until it settles (refresh_episode.hpp), then scan for
//    migrating slots (migration_scan.hpp), check replica lag
//    (replica_lag.hpp) and dial nodes whose zone is unknown
//    (zone_probe.hpp). Serialized: one refresh at a time. While the nodes
//    answer with contradictory topologies (discovery.hpp) the last good one
//    stays installed and the next refresh is triggered (min gap) instead of
//    waiting an interval, at most kMaxDisagreedRetries times in a row; the
//    first of such a run logs "refresh failed" at warn, the rest at debug,
//    and "topology consistent again" (info) ends it. A refresh that read
//    the topology only after asking the seeds again (settle_ms) logs "seeds
//    disagreed, asked again" (info) with the rounds and ms it took.
//  - Tick(): the refresher's cheap periodic work — idle PINGs and RTT
//    publishing (rtt_probe.hpp).
//  - OnConnect(): each new pooled connection — the zone probe (optional: a
//    failed one leaves the connection broken and OK is returned, so the pool
//    dials once more, see node_pools.hpp), then the replica readiness check,
//    whose failure refuses the connection.
//
// Thread-safety: Refresh from any thread (serialized inside); Tick on the
// refresher thread; OnConnect on whichever thread dials. A Refresh asked
// from a log handler while a refresh runs is refused (kInvalid) instead of
// waiting: on the handler's own thread it would wait for itself, on another
// thread for a refresh that may wait for a handler (a logging framework's
// lock the asking handler holds).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cloudroute/net/client_context.hpp"
#include "cloudroute/net/discovery.hpp"
#include "cloudroute/net/node_pools.hpp"
#include "cloudroute/net/refresh_episode.hpp"
#include "cloudroute/net/zone_probe.hpp"

namespace cloudroute {
namespace net {

class ClusterObserver {
 public:
  static constexpr uint32_t kMaxDisagreedRetries = 10;

  // pools may be set later (SetPools), before the first Refresh or Tick:
  // the pools call OnConnect, so the two are made one after the other.
  ClusterObserver(ClientContext *ctx, std::vector<Seed> seeds)
      : ctx_(ctx), seeds_(std::move(seeds)), zones_(ctx) {}
  ClusterObserver(const ClusterObserver &) = delete;
  ClusterObserver &operator=(const ClusterObserver &) = delete;
  void SetPools(NodePools *pools) { pools_ = pools; }

  // settle_ms: how long to keep asking while the nodes disagree (Discover);
  // the client's start passes its budget, other refreshes 0.
  Status Refresh(uint32_t settle_ms = 0);
  void Tick();
  Status OnConnect(const std::string &host, uint16_t port, Connection *conn, uint32_t timeout_ms);

 private:
  // The nodes to ask for the topology: the known ones that are up, starting
  // at a different one each refresh (from an offset random per client, so
  // many clients spread their CLUSTER SHARDS over the cluster instead of all
  // asking its first node), then those marked down, then the seeds not
  // among them. REQUIRES: refresh_mu_ held.
  std::vector<Seed> AskOrder();

  ClientContext *const ctx_;
  const std::vector<Seed> seeds_;
  NodePools *pools_ = nullptr;
  ZoneProbe zones_;
  std::mutex refresh_mu_;  // serializes refreshes
  // The thread that holds refresh_mu_ (no thread: none).
  std::atomic<std::thread::id> refreshing_{};
  RefreshEpisode episode_;  // under refresh_mu_
  uint32_t disagreed_ = 0;  // under refresh_mu_: contradictory refreshes in a row
  uint64_t ask_start_ =     // under refresh_mu_: where the next AskOrder starts
      static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
      reinterpret_cast<uintptr_t>(this);
};

}  // namespace net
}  // namespace cloudroute
