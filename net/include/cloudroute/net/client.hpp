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
// Zones (zone_probe.hpp), idle RTT PINGs (rtt_probe.hpp), replica lag and
// readiness (replica_lag.hpp), migration scans (migration_scan.hpp) and the
// refresh episodes (refresh_episode.hpp) belong to the ClusterObserver
// (cluster_observer.hpp); the commands, redirects and retries to the
// CommandExecutor (command_executor.hpp). The Client owns both, the node
// pools they share (node_pools.hpp) and the refresher thread.
//
// Multi-key commands (MGET, MSET, DEL) are split by slot: one
// command per slot, every node's share pipelined on one connection, all
// nodes in flight at once — about one round trip whatever the key count
// (fan_out.hpp).
//
// Thread-safety: safe for concurrent use by any number of threads. The
// Router must outlive the client.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cloudroute/core/router.hpp"
#include "cloudroute/net/async_calls.hpp"
#include "cloudroute/net/call_options.hpp"
#include "cloudroute/net/client_context.hpp"
#include "cloudroute/net/cluster_observer.hpp"
#include "cloudroute/net/cluster_scan.hpp"
#include "cloudroute/net/command_executor.hpp"
#include "cloudroute/net/command_table.hpp"
#include "cloudroute/net/discovery.hpp"
#include "cloudroute/net/node_commands.hpp"
#include "cloudroute/net/node_pools.hpp"
#include "cloudroute/net/pinned.hpp"
#include "cloudroute/net/recovery_probe.hpp"
#include "cloudroute/net/refresher.hpp"
#include "cloudroute/net/script.hpp"
#include "cloudroute/net/stats.hpp"
#include "cloudroute/net/subscriber.hpp"

namespace cloudroute {
namespace net {

class Client {
 public:
  // Discovers the topology from the seeds and installs it before returning.
  static Result<std::unique_ptr<Client>> Create(Router *router, std::vector<Seed> seeds,
                                                ClientOptions opts);
  ~Client();
  Client(const Client &) = delete;
  Client &operator=(const Client &) = delete;

  // Any command on one key (args is the whole command, binary-safe); call:
  // a call-level timeout (call_options.hpp).
  Result<ReplyPtr> Execute(Access access, std::string_view key, const Args &args,
                           const CallOptions &call = {});
  // Any command on the slot every key shares (EVAL, FCALL: the keys are
  // numkeys arguments); kInvalid ("CROSSSLOT …") before anything is sent
  // when they do not share one; no keys: a random slot's shard.
  Result<ReplyPtr> ExecuteKeys(Access access, const std::vector<std::string> &keys,
                               const Args &args, const CallOptions &call = {});

  // Any command, classed by the server's command table (command_table.hpp):
  // a read when the server flags it readonly, else a write; routed by the
  // keys its key specs find (all in one slot, else kInvalid "CROSSSLOT"
  // before anything is sent), or by args[key_index] when key_index > 0.
  // Errors: kInvalid for a command with no key (send it to nodes by name).
  Result<ReplyPtr> ExecuteAuto(size_t key_index, const Args &args, const CallOptions &call = {});
  // How ExecuteAuto (and an asynchronous CR_ACCESS_AUTO call) places args:
  // its access and its keys' positions (at least one; every key in one
  // slot), or the error ExecuteAuto returns without sending anything.
  Result<CommandRoute> PlanAuto(size_t key_index, const Args &args);
  // How the server's table (or the static fallback) classes argv: learned
  // on the first call (command_table.hpp).
  CommandRoute Classify(const std::vector<std::string_view> &argv) {
    return commands_.Get()->Classify(argv);
  }

  // Keyless and node-targeted commands (node_commands.hpp): address names
  // the node for NodeTarget::kNode. Each node's answer is in its entry.
  Result<std::vector<NodeReply>> ExecuteOnNodes(NodeTarget target, const std::string &address,
                                                const Args &args, const CallOptions &call = {});
  // EVALSHA (EVALSHA_RO when read_only: a replica may answer) of script,
  // routed by its keys as ExecuteKeys; NOSCRIPT loads the body on that node
  // and sends it once more.
  Result<ReplyPtr> EvalScript(const Script &script, bool read_only,
                              const std::vector<std::string> &keys,
                              const std::vector<std::string> &args, const CallOptions &call = {});
  // A connection to the master of slot, for a transaction (pinned.hpp).
  Result<std::unique_ptr<Pinned>> Pin(uint16_t slot) {
    return Pinned::Acquire(&ctx_, &pools_, slot);
  }

  // SCAN over every shard (cluster_scan.hpp). The scan must not outlive
  // the client.
  std::unique_ptr<ClusterScan> Scan(ScanOptions opts) {
    return std::make_unique<ClusterScan>(&ctx_, &executor_, std::move(opts));
  }

  // A pub/sub subscription on connections and a thread of its own
  // (subscriber.hpp). It must not outlive the client.
  Result<std::unique_ptr<Subscriber>> Subscribe() { return Subscriber::Start(&ctx_, &pools_); }

  Result<ReplyPtr> Get(const std::string &key);
  Status Set(const std::string &key, const std::string &value, uint64_t ttl_ms = 0);

  // Multi-key, split by slot and fanned out (see above).
  Result<ReplyPtr> MGet(const std::vector<std::string> &keys);  // array in key order
  Status MSet(const std::vector<std::string> &keys, const std::vector<std::string> &values);
  Result<int64_t> Del(const std::vector<std::string> &keys);

  // Asynchronous single-key commands (async_calls.hpp): done runs once on
  // the engine thread or a worker — or, once CompletionFd() turned the
  // queue on, in RunCompletions() on its caller's thread.
  Status Submit(Access access, std::string_view key, Args args, const CallOptions &call,
                AsyncCalls::Done done) {
    return async_.Submit(access, key, std::move(args), call, std::move(done));
  }
  // Asynchronous fan-outs (async_calls.hpp): a pipeline's jobs, and the
  // multi-key calls; done runs as Submit's.
  Status SubmitJobs(std::vector<Job> jobs, AsyncCalls::JobsDone done) {
    return async_.SubmitJobs(std::move(jobs), std::move(done));
  }
  Status SubmitMulti(KeyBatchKind kind, std::vector<std::string> keys,
                     std::vector<std::string> values, AsyncCalls::Done done) {
    return async_.SubmitMulti(kind, std::move(keys), std::move(values), std::move(done));
  }
  Result<int> CompletionFd() { return async_.CompletionFd(); }
  size_t RunCompletions(size_t max) { return async_.RunCompletions(max); }
  // Whether this thread runs one of this client's completions now.
  bool InCompletion() const { return async_.InCompletion(); }

  // Any commands at once, each job's reply or error in place (pipeline.hpp).
  void Run(std::vector<Job> *jobs) { executor_.Run(jobs); }

  // A synchronous refresh (the background thread does the same).
  Status Refresh();

  // Whether this thread runs one of this client's log handlers now: its
  // destruction must then wait until the handler returns (the thread may be
  // the refresher's, which the destructor joins), on another thread.
  bool InLogHandler() const { return ctx_.log.InSinkOnThisThread(); }

  StatsValues stats() const { return ctx_.stats.Snapshot(); }
  std::vector<NodeStatsValues> node_stats() const { return pools_.node_stats(); }
  Router &router() { return *ctx_.router; }
  // The engine's pieces a Pipeline runs on (pipeline.hpp).
  TopologySource &topology() { return source_; }
  CommandExecutor &executor() { return executor_; }

 private:
  Client(Router *router, std::vector<Seed> seeds, ClientOptions opts);

  ClusterSource source_;  // the engine's view of the router
  ClientContext ctx_;
  ClusterObserver observer_;
  NodePools pools_;
  CommandExecutor executor_;
  CommandTables commands_{&ctx_};
  AsyncCalls async_;  // closed first of all, in ~Client
  // Its thread is stopped first of all, in ~Client.
  std::unique_ptr<RecoveryProber> prober_;
  std::unique_ptr<Refresher> refresher_;  // last: its thread stops first
};

}  // namespace net
}  // namespace cloudroute
