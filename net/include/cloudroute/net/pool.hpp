// NodePool: the connections to one node — bounded, reused most-recently-
// used first, closed when idle too long — plus that node's statistics.
//
// Acquire() hands out an idle connection, or dials a new one while fewer
// than max_size exist; when max_size are in use it waits (bounded) for one
// to come back. Release() returns a healthy connection to the idle list and
// drops a broken one. An idle connection is handed out only after
// Connection::CheckIdle() found nothing on it: one that received bytes
// nobody asked for while idle (poisoned) or that the server closed is
// dropped there, and the next idle one (or a new one) is used instead. Dialing happens outside the
// lock; a dial's handshake gets the caller's wait as its budget (the caller's tier timeout: a local
// node's dial waits no longer than a command to it would).
//
// Thread-safety: safe for concurrent use.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "cloudroute/core/node_load.hpp"
#include "cloudroute/net/connection.hpp"
#include "cloudroute/net/hedge.hpp"
#include "cloudroute/net/stats.hpp"

namespace cloudroute {
namespace net {

struct PoolOptions {
  uint32_t max_size = 8;
  uint32_t idle_ms = 60000;  // idle connections older than this are closed
  // Connections per node shared by every caller (shared_link.hpp); commands
  // that block, transactions and subscriptions keep this pool's dedicated
  // ones. 0 (the default for now): every command takes a dedicated one.
  uint32_t shared = 0;
};

// Per-node counters (relaxed atomics: statistics, not synchronisation).
struct NodeCounters {
  std::atomic<uint64_t> reads{0};
  std::atomic<uint64_t> writes{0};
  std::atomic<uint64_t> errors{0};
  std::atomic<uint64_t> connections{0};  // dialed successfully
  std::atomic<uint32_t> latency_us{0};   // EWMA of command round trips, 0 = none yet
  std::atomic<uint32_t> published_rtt_us{0};
  std::atomic<int64_t> last_sample_ns{0};  // SteadyNowNs() of the last round-trip sample
  LatencyHistogram latency;                // every round trip (commands, idle PINGs)
  RecentLatency recent;                    // the same, recent ones only (hedge delays)
  std::atomic<uint32_t> hedge_losses{0};   // hedged reads lost in a row (hedge.hpp)
  // The node's load (node_load.hpp) that load-aware selection reads: each
  // sample is its latency too. Null for a pool made without a node (tests).
  NodeLoad *load = nullptr;

  // EWMA with weight 1/8 (like TCP's SRTT).
  void AddLatency(uint32_t us) {
    const uint32_t old = latency_us.load(std::memory_order_relaxed);
    const uint32_t v =
        old == 0 ? std::max<uint32_t>(us, 1) : static_cast<uint32_t>((7ull * old + us) / 8);
    latency_us.store(std::max<uint32_t>(v, 1), std::memory_order_relaxed);
  }
  // A round trip from t0_ns to t1_ns (SteadyNowNs clock): its latency, and
  // t1_ns as the time of the last sample.
  void AddSample(int64_t t0_ns, int64_t t1_ns) {
    const int64_t us = std::max<int64_t>((t1_ns - t0_ns) / 1000, 0);
    AddLatency(static_cast<uint32_t>(std::min<int64_t>(us, UINT32_MAX)));
    latency.Add(static_cast<uint64_t>(us));
    recent.Add(static_cast<uint64_t>(us));
    last_sample_ns.store(t1_ns, std::memory_order_relaxed);
    if (load != nullptr)
      load->AddSample(static_cast<uint32_t>(std::min<int64_t>(us, UINT32_MAX)), t1_ns);
  }
};

class NodePool {
 public:
  // timeout_ms: the budget of the new connection's handshake (0: the
  // dialer's own default).
  using Dialer = std::function<Result<std::unique_ptr<Connection>>(uint32_t timeout_ms)>;
  // Told (outside the pool's lock) of each connection closed because it was
  // poisoned (Connection::Poison): the status says why.
  using OnPoisoned = std::function<void(const Status &why)>;
  NodePool(Dialer dial, PoolOptions opts, OnPoisoned on_poisoned = nullptr);
  NodePool(const NodePool &) = delete;
  NodePool &operator=(const NodePool &) = delete;

  // An idle connection, else a new one dialed with wait_ms as the
  // handshake's budget, else (max_size in use) one released within wait_ms.
  // REQUIRES: the caller Release()s what it gets.
  Result<std::unique_ptr<Connection>> Acquire(uint32_t wait_ms);
  // Acquire() in two steps, for a caller that takes several pools'
  // connections in one order and dials the new ones at the same time:
  // Reserve() hands out an idle connection, or a null one with *must_dial
  // set — a slot held for Dial(), which the caller then owes (a failed Dial
  // frees the slot).
  Result<std::unique_ptr<Connection>> Reserve(uint32_t wait_ms, bool *must_dial);
  Result<std::unique_ptr<Connection>> Dial(uint32_t timeout_ms);
  void Release(std::unique_ptr<Connection> conn);
  // Closes a connection the caller will not read to the end (a hedged
  // read's loser, its reply still in flight) and frees its slot.
  void Discard(std::unique_ptr<Connection> conn);
  // Closes every idle connection (the node failed; its sockets are suspect).
  void DropIdle();

  size_t idle() const;
  size_t open() const;  // idle + in use + being dialed
  NodeCounters &counters() { return counters_; }
  // The pool's dialer (the node's address, handshake and on-connect hook),
  // for the node's shared connections.
  const Dialer &dialer() const { return dial_; }

 private:
  // REQUIRES: mu_ held.
  void EvictIdleLocked(int64_t now_ns);

  // Reserve() under mu_: poisoned idle connections found on the way are
  // dropped and their statuses added to *poisoned (told after the unlock).
  Result<std::unique_ptr<Connection>> ReserveLocked(std::unique_lock<std::mutex> *lock,
                                                    uint32_t wait_ms, bool *must_dial,
                                                    std::vector<Status> *poisoned);

  const Dialer dial_;
  const PoolOptions opts_;
  const OnPoisoned on_poisoned_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::unique_ptr<Connection>> idle_;  // oldest first
  size_t open_ = 0;
  NodeCounters counters_;
};

}  // namespace net
}  // namespace cloudroute
