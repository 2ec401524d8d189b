// Client: a thread-safe Redis Cluster client that routes every command
// through the Router — reads to the key's read candidates in order, writes
// to the master — over pooled connections, and keeps the topology fresh.
//
// Redirects and errors:
//  - MOVED: the slot is patched at once (Router::ReportMoved), a refresh is
//    triggered, and the command is sent again to the new owner (it was not
//    executed), up to max_redirects.
//  - ASK: ASKING + the command, once, to the target; the slot is marked
//    migrating, so its reads go to the master (replicas of a migrating
//    source answer nil for keys already moved) until a MOVED, a refresh
//    whose CLUSTER NODES scan no longer lists it, or the mark's TTL.
//  - TRYAGAIN / CLUSTERDOWN / LOADING: bounded retries with backoff
//    (a replica still LOADING is skipped for a read instead).
//  - A read that hits a connection error or a timeout reports the node's
//    failure (its breaker opens after failure_threshold) and moves on to the
//    next candidate. A write is never re-sent once it may have reached the
//    server: the error is returned (CR_ECONN / CR_ETIMEOUT).
//  - Any other error reply is returned as kServerError with its text.
// Consecutive connection failures (failures_before_refresh) trigger a
// refresh, as does a slot no shard serves. A refresh that finds the topology
// changed, or a replica still loading, is followed by more at the triggered
// pace until the reply settles (a failover is read mid-way otherwise).
//
// Zones: a node's availability zone comes from the cheapest source that has
// it — the topology reply (CLUSTER SHARDS/SLOTS metadata, free), else what
// the node says about itself on a new connection (HELLO's availability_zone,
// Valkey 8.1+, else INFO server's availability_zone, Valkey 8.0+: both asked
// in one pipelined round trip), else nothing (the static configuration
// decides). It is asked once per new connection, only when the locality
// configuration uses zones and the topology did not carry one, and fed to
// Router::SetNodeZone. After a refresh, read candidates the client has no
// connection to yet are dialed once (in parallel) so that their zones are
// known before a read needs the order; nodes are never re-asked on refresh.
//
// Idle RTT: about once a second the refresher thread PINGs (on a pooled
// connection, bounded by the node's tier timeout) each node that has an idle
// connection but no round-trip sample for idle_ping_ms, so NEAREST keeps
// fresh RTTs for nodes without traffic.
//
// Multi-key commands (MGET, MSET, DEL, EXISTS) are split by slot: one
// command per slot, every node's share pipelined on one connection, all
// nodes in flight at once — about one round trip whatever the key count.
//
// Thread-safety: safe for concurrent use by any number of threads. The
// Router must outlive the client.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "cloudroute/core/router.hpp"
#include "cloudroute/net/connection.hpp"
#include "cloudroute/net/discovery.hpp"
#include "cloudroute/net/pool.hpp"
#include "cloudroute/net/refresher.hpp"
#include "cloudroute/net/stats.hpp"

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
  uint32_t idle_ping_ms = 5000;  // PING nodes without a sample for this long; 0 = never
};

enum class Access : uint8_t { kRead, kWrite };

struct NodeStatsValues {
  const NodeEntry *node = nullptr;
  uint64_t reads = 0, writes = 0, errors = 0, connections = 0;
  uint32_t latency_us = 0;  // EWMA of round trips; 0 = none yet
  size_t open = 0, idle = 0;
};

class Client {
 public:
  // Discovers the topology from the seeds and installs it before returning.
  static Result<std::unique_ptr<Client>> Create(Router *router, std::vector<Seed> seeds,
                                                ClientOptions opts);
  ~Client();
  Client(const Client &) = delete;
  Client &operator=(const Client &) = delete;

  // Any command on one key (args is the whole command, binary-safe).
  Result<ReplyPtr> Execute(Access access, std::string_view key, const Args &args);

  Result<ReplyPtr> Get(const std::string &key);
  Status Set(const std::string &key, const std::string &value, uint64_t ttl_ms = 0);
  Result<int64_t> Incr(const std::string &key, int64_t by = 1);
  Result<int64_t> Expire(const std::string &key, int64_t seconds);
  Result<int64_t> Ttl(const std::string &key);
  Result<ReplyPtr> HGet(const std::string &key, const std::string &field);
  Result<int64_t> HSet(const std::string &key, const std::string &field, const std::string &value);
  Result<ReplyPtr> HGetAll(const std::string &key);

  // Multi-key, split by slot and fanned out (see above).
  Result<ReplyPtr> MGet(const std::vector<std::string> &keys);  // array in key order
  Status MSet(const std::vector<std::string> &keys, const std::vector<std::string> &values);
  Result<int64_t> Del(const std::vector<std::string> &keys);
  Result<int64_t> Exists(const std::vector<std::string> &keys);

  // A synchronous refresh (the background thread does the same).
  Status Refresh();
  void TriggerRefresh() { refresher_->Trigger(); }

  StatsValues stats() const { return stats_.Snapshot(); }
  std::vector<NodeStatsValues> node_stats() const;
  Router &router() { return *router_; }

 private:
  enum class Kind : uint8_t { kDone, kServerError, kMoved, kAsk, kRetry, kNodeFailed };
  struct Outcome {
    Kind kind = Kind::kNodeFailed;
    ReplyPtr reply;
    Status status;
    bool maybe_sent = false;  // kNodeFailed: the command may have reached the server
    uint16_t slot = 0;        // kMoved / kAsk
    std::string host;
    uint16_t port = 0;
  };
  struct Batch {
    uint16_t slot = 0;
    Args args;
    std::vector<size_t> idx;  // positions of this batch's keys in the caller's list
    ReplyPtr reply;
    Status status;
    bool redo = false;
  };

  Client(Router *router, std::vector<Seed> seeds, ClientOptions opts);
  Result<ReplyPtr> ExecuteSlot(Access access, uint16_t slot, const Args &args);
  Outcome TryNode(NodeEntry *node, Tier tier, Access access, const Args &args, bool asking);
  Outcome TryRead(const CandidateSet &set, const Args &args, uint16_t slot);
  Outcome Classify(ReplyPtr reply, const NodeEntry *node, Access access) const;
  void NoteFailure(NodeEntry *node, NodePool *pool, const Status &s);
  void NoteSuccess(NodeEntry *node);
  NodePool &PoolFor(NodeEntry *node);
  uint32_t TimeoutFor(Tier tier) const;
  // Runs one command per batch (see Batch), fanned out; failed or
  // redirected batches are redone one by one through ExecuteSlot.
  Status FanOut(Access access, std::vector<Batch> *batches);
  std::vector<Batch> SplitBySlot(const std::vector<std::string> &keys, const std::string &cmd,
                                 const std::vector<std::string> *values);
  void RefreshInBackground();
  void PublishRtt();
  void PingIdle();
  // Replica lag (replica_lag.cpp): INFO replication from every master of t;
  // replicas behind a bound are read last. No-op when both bounds are 0.
  void CheckReplicaLag(const Topology &t);
  // On each new connection: a replica that holds no replicated data yet (a
  // restarted, empty replica whose sync has not started or finished) would
  // answer nil for every key; refusing the connection makes reads move on to
  // the next candidate. Masters and synced replicas pass.
  static Status CheckReplicaReady(Connection *conn, uint32_t timeout_ms);
  // Slot migrations (migration_scan.cpp): CLUSTER NODES from every master of
  // t, in parallel, bounded by one refresh timeout; the "[slot->-id]" markers
  // on each master's own line mark its slots migrating (reads go to the
  // master), and a master that answers clears its other slots.
  void ScanMigrations(const Topology &t);
  // Zones (see above). ZonesMatter(): the locality configuration can use a
  // reported zone at all.
  bool ZonesMatter() const;
  void ProbeZone(const std::string &host, uint16_t port, Connection *conn, uint32_t timeout_ms);
  void LearnZones();

  Router *const router_;
  const std::vector<Seed> seeds_;
  const ClientOptions opts_;
  Stats stats_;
  std::atomic<uint32_t> consecutive_failures_{0};
  mutable std::mutex pools_mu_;
  std::unordered_map<uint32_t, std::unique_ptr<NodePool>> pools_;  // by node handle
  std::mutex refresh_mu_;  // serializes refreshes
  std::string topo_signature_;  // of the last installed topology; under refresh_mu_
  uint32_t settle_left_ = 0;    // follow-up refreshes left in this episode; under refresh_mu_
  bool settling_ = false;       // an episode is running; under refresh_mu_
  std::unordered_set<std::string> settled_nodes_;  // addresses when last settled; under refresh_mu_
  std::mutex zone_mu_;
  std::unordered_map<uint32_t, bool> zone_dialed_;  // node handle -> a zone probe was attempted
  std::unique_ptr<Refresher> refresher_;  // last: its thread stops first
};

}  // namespace net
}  // namespace cloudroute
