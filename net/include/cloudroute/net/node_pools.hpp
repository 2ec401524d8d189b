// NodePools: the client's connection pools, one per node (by registry
// handle, created on first use), and the per-node bookkeeping of every round
// trip — failures (the node's breaker; a refresh after
// failures_before_refresh in a row), successes, answered commands, RTT
// samples — shared by the command executor and the cluster observer.
//
// A pool dials the node's announced address, or where the configuration
// re-points it (connect_via: NAT, a proxy, a cloud's private endpoint), with
// READONLY; each new connection is handed to the on-connect hook (the
// observer's zone probe and replica readiness check), which may refuse it
// (a non-OK status), or accept it broken: an optional step of the hook
// failed on it (the zone probe: no answer, garbage). The pool then dials
// once more within the same budget and hands the new connection to the
// hook, which must not break it again (it skips the failed step); a second
// broken one fails the dial.
//
// Lifetime: a pool lives as long as its node's registry entry. The router
// reclaims an entry once no snapshot, previous topology or caller pins it
// (core/node_registry.hpp); Sweep() then closes and drops its pool. So a
// NodePool reference from For(node) stays valid while the caller keeps node
// pinned — every user does: it holds the snapshot it routed on (or pins the
// node itself: an ASK target, a node named by a pipeline or a transaction).
//
// Thread-safety: safe for concurrent use.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cloudroute/net/client_context.hpp"
#include "cloudroute/net/shared_link.hpp"

namespace cloudroute {
namespace net {

// Where to dial node: its announced address, or where the configuration
// re-points it (connect_via).
std::pair<std::string, uint16_t> DialAddress(const ClientContext &ctx, const NodeEntry &node);

struct NodeStatsValues {
  const NodeEntry *node = nullptr;
  std::shared_ptr<NodePins> pin;  // keeps node from being reclaimed while these values live
  uint64_t reads = 0, writes = 0, errors = 0, connections = 0;
  uint32_t latency_us = 0;    // EWMA of round trips; 0 = none yet
  size_t open = 0, idle = 0;  // open: pooled and shared connections; idle: pooled ones
  LatencyValues latency;      // histogram of round trips
};

class NodePools {
 public:
  // host/port: the node's identity (its announced address), not where it was
  // dialed. A non-OK status refuses the connection (the dial fails with it);
  // OK with conn broken asks for one re-dial (see above).
  using OnConnect = std::function<Status(const std::string &host, uint16_t port, Connection *conn,
                                         uint32_t timeout_ms)>;

  NodePools(ClientContext *ctx, OnConnect on_connect);
  // Waits for the dials still running on their own threads (DialAside).
  ~NodePools();
  NodePools(const NodePools &) = delete;
  NodePools &operator=(const NodePools &) = delete;

  // REQUIRES: node is pinned (see Lifetime above) while the pool is used.
  NodePool &For(NodeEntry *node);
  // The node's shared connections (shared_link.hpp), dialed as its pool
  // dials; null when PoolOptions::shared is 0 or the engine thread could not
  // start (then every command uses the pool). Same lifetime as For()'s pool.
  // for_async: an asynchronous call's (async_calls.hpp), which needs a link
  // — one connection per node when PoolOptions::shared is 0 (then only
  // asynchronous calls use it).
  std::shared_ptr<NodeLink> LinkFor(NodeEntry *node, bool for_async = false);
  // Every pool, by node handle; each stays alive while its pointer is held.
  std::vector<std::pair<uint32_t, std::shared_ptr<NodePool>>> List() const;
  // The pools of nodes that are still in the registry (reclaimed ones are
  // skipped), in handle order.
  std::vector<NodeStatsValues> node_stats() const;
  // Drops the pools of reclaimed nodes (their handles name no entry any
  // more); returns how many. Call after each topology update.
  size_t Sweep();

  // A connection error or timeout with node (pool: its pool, or null).
  void NoteFailure(NodeEntry *node, NodePool *pool, const Status &s);
  void NoteSuccess(NodeEntry *node);
  // A connection to the node at address closed because replies stopped
  // matching requests (Connection::Poison): counted and logged (a warning,
  // at most once a second per node). The request's own failure, if any, is
  // noted apart (NoteFailure).
  void NotePoisoned(const std::string &address, const Status &why);
  // A hedged read the node lost: it had not answered when the next candidate
  // did. kHedgeLossesBeforeSetAside in a row set it aside (hedge.hpp).
  void NoteHedgeLost(NodeEntry *node, NodePool *pool);
  // A dial of node's pool (its slot reserved: NodePool::Reserve) on its own
  // thread, with the whole timeout_ms: a hedged read waits for it only until
  // its hedge delay. The connection is handed to the waiter while it waits;
  // once it gave up, a new connection goes to the pool's idle list and a
  // failure is noted as any dial's.
  struct PendingDial {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;       // conn or status is set
    bool abandoned = false;  // the waiter left: the dialer settles the result
    std::unique_ptr<Connection> conn;
    Status status;
  };
  std::shared_ptr<PendingDial> DialAside(NodeEntry *node, NodePool *pool, uint32_t timeout_ms);
  // Waits for a DialAside dial until until_ns (SteadyNowNs() clock; INT64_MAX:
  // until it ends; 0: not at all): its connection, or its failure (not
  // noted: the caller notes it); a null connection when it is still running
  // then — abandoned (unless abandon is false: the caller asks again later),
  // it goes on as DialAside says.
  static Result<std::unique_ptr<Connection>> AwaitDial(PendingDial *dial, int64_t until_ns,
                                                       bool abandon = true);

  // Whether this thread is the engine thread of the shared connections.
  bool OnEngineThread() const;

  // A command the node answered (a reply or an error reply) for the caller.
  void NoteServed(Access access, Tier tier, NodePool *pool);

 private:
  // Closes every shared connection, on the engine thread; waits for it.
  void CloseLinks(std::vector<std::shared_ptr<NodeLink>> links, const Status &why);

  ClientContext *const ctx_;
  const OnConnect on_connect_;
  std::atomic<uint32_t> consecutive_failures_{0};
  std::mutex dials_mu_;
  std::condition_variable dials_cv_;
  uint32_t dials_ = 0;  // DialAside threads still running
  mutable std::mutex mu_;
  std::unordered_map<uint32_t, std::shared_ptr<NodePool>> pools_;  // by node handle
  // Shared connections: the engine thread (started on first use), their
  // dials, and a link per node handle, under mu_.
  DialThreads link_dials_;
  std::unique_ptr<EventLoop> loop_;
  bool loop_failed_ = false;
  std::unordered_map<uint32_t, std::shared_ptr<NodeLink>> links_;
};

}  // namespace net
}  // namespace cloudroute
