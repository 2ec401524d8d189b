// ShardedClient: pre-sharded standalone servers (client-side sharding, as
// Jedis's ShardedJedis did) on the engine — the third topology kind besides
// Redis Cluster and Sentinel shard groups (topology_source.hpp).
//
// A ShardGroups table whose ring places the keys (ring shard i is group i)
// is filled from a fixed server list instead of a Sentinel watcher: each
// group's master and optional replicas. Commands run on the same
// CommandExecutor, FanOut, node pools, hedged reads, recovery prober,
// statistics and log events as the other two clients, with the same rules:
//  - reads: the group's instances in read order (nearest locality tier
//    first, weights inside a tier); a connection error, a timeout or a
//    LOADING reply moves on to the next, so a group whose master died keeps
//    serving reads from its replicas;
//  - writes: the group's master only; one that cannot be reached fails
//    (kConnError / kTimeout, saying whether it may have arrived) — nothing
//    promotes a replica here, and a write is never sent to one. A write is
//    never re-sent once it may have reached the server. A READONLY reply
//    (the master was demoted behind the client's back) is returned as is;
//  - multi-key commands (MGET, MSET, DEL, EXISTS) and pipelines: one
//    command per group, all groups in flight at once (fan_out.hpp); scripts
//    on their keys' group (kInvalid before anything is sent when the keys
//    are on different groups); SCAN over every group; node commands to one
//    instance, every master or every instance. MOVED / ASK from a server (it
//    runs in cluster mode) is refused, never followed.
//
// SetServers() re-points the groups on a running client — the ring and its
// names stay, so no key changes group: the seed's resize procedure (a new
// server replicates the old one, is promoted, and the client switches to
// it). It publishes every group's new instances at once and is idempotent;
// commands in flight finish on the connections they hold, and the idle
// connections of instances no group names any more are closed at once
// (those in use close when handed back idle past pool.idle_ms).
//
// Thread-safety: safe for concurrent use, SetServers included. The
// ShardGroups must outlive the client.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cloudroute/core/shard_group.hpp"
#include "cloudroute/net/async_calls.hpp"
#include "cloudroute/net/call_options.hpp"
#include "cloudroute/net/client_context.hpp"
#include "cloudroute/net/cluster_scan.hpp"
#include "cloudroute/net/command_executor.hpp"
#include "cloudroute/net/node_commands.hpp"
#include "cloudroute/net/node_pools.hpp"
#include "cloudroute/net/recovery_probe.hpp"
#include "cloudroute/net/script.hpp"
#include "cloudroute/net/stats.hpp"
#include "cloudroute/net/topology_source.hpp"

namespace cloudroute {
namespace net {

// One group's servers from text: "host:port" (the master), or
// "host:port,host:port,…" (the master, then its replicas). IPv6 hosts in
// brackets. kInvalid naming the entry for anything else.
Result<GroupInstances> ParseShardServers(std::string_view text);

// Adds a group per shard of ring to the empty *groups — named as the
// shard, "shard #i" for an unnamed one — and sets the ring. kInvalid for a
// table that has groups already, or duplicate names.
Status AddRingGroups(ShardGroups *groups, std::shared_ptr<const Ring> ring);

class ShardedClient {
 public:
  // servers[i] serves the groups' group i (*groups has a ring set, and as
  // many groups as servers). Nothing is dialed: a server that is down is
  // found by the first command to it. Errors: kInvalid (a count mismatch, a
  // bad address), kLimit / kNoTopology (GroupSource::Check).
  static Result<std::unique_ptr<ShardedClient>> Create(ShardGroups *groups,
                                                       std::vector<GroupInstances> servers,
                                                       ClientOptions opts);
  ~ShardedClient();
  ShardedClient(const ShardedClient &) = delete;
  ShardedClient &operator=(const ShardedClient &) = delete;

  // Any command on one key (args is the whole command, binary-safe).
  Result<ReplyPtr> Execute(Access access, std::string_view key, const Args &args,
                           const CallOptions &call = {}) {
    return executor_.Execute(access, key, args, call);
  }
  // Any command on the group every key shares (EVAL, FCALL); kInvalid
  // before anything is sent when they do not share one; no keys: a random
  // group.
  Result<ReplyPtr> ExecuteKeys(Access access, const std::vector<std::string> &keys,
                               const Args &args, const CallOptions &call = {});
  // EVALSHA (EVALSHA_RO when read_only) on the keys' group; NOSCRIPT loads
  // the body there and sends it once more.
  Result<ReplyPtr> EvalScript(const Script &script, bool read_only,
                              const std::vector<std::string> &keys,
                              const std::vector<std::string> &args, const CallOptions &call = {});
  // Keyless commands to named instances (node_commands.hpp), groups in order.
  Result<std::vector<NodeReply>> ExecuteOnNodes(NodeTarget target, const std::string &address,
                                                const Args &args, const CallOptions &call = {});
  // SCAN over every group (cluster_scan.hpp); must not outlive the client.
  std::unique_ptr<ClusterScan> Scan(ScanOptions opts) {
    return std::make_unique<ClusterScan>(&ctx_, &executor_, std::move(opts));
  }

  Result<ReplyPtr> MGet(const std::vector<std::string> &keys) { return executor_.MGet(keys); }
  Status MSet(const std::vector<std::string> &keys, const std::vector<std::string> &values) {
    return executor_.MSet(keys, values);
  }
  Result<int64_t> Del(const std::vector<std::string> &keys) { return executor_.Del(keys); }
  Result<int64_t> Exists(const std::vector<std::string> &keys) { return executor_.Exists(keys); }
  void Run(std::vector<Job> *jobs) { executor_.Run(jobs); }

  // Asynchronous single-key commands, MGET / MSET / DEL / EXISTS and the
  // completion queue, as the cluster client's (async_calls.hpp), on this
  // client's engine: the first attempt on the server's shared connection,
  // the rest (the next read candidate, a retry) on a worker.
  AsyncCalls &async() { return async_; }
  const AsyncCalls &async() const { return async_; }

  // New addresses for every group (see the file comment). Errors as Create
  // (nothing changes then).
  Status SetServers(const std::vector<GroupInstances> &servers);

  StatsValues stats() const { return ctx_.stats.Snapshot(); }
  std::vector<NodeStatsValues> node_stats() const { return pools_.node_stats(); }
  // The pools kept, one per instance still in the registry (and the pools
  // of instances reclaimed by a change until that change's sweep, which
  // follows it at once): bounded by the instances, however many come and go.
  size_t pool_count() const { return pools_.List().size(); }
  bool InLogHandler() const { return ctx_.log.InSinkOnThisThread(); }
  ShardGroups &groups() { return *groups_; }
  // The engine's pieces a Pipeline runs on (pipeline.hpp).
  TopologySource &topology() { return source_; }
  CommandExecutor &executor() { return executor_; }

 private:
  ShardedClient(ShardGroups *groups, ClientOptions opts);

  ShardGroups *const groups_;
  GroupSource source_;
  ClientContext ctx_;
  NodePools pools_;
  CommandExecutor executor_;
  AsyncCalls async_{&ctx_, &executor_};     // closed first of all, in ~ShardedClient
  std::unique_ptr<RecoveryProber> prober_;  // its thread is stopped next
};

}  // namespace net
}  // namespace cloudroute
