// Sentinel, live: keep a ShardGroups table (shard_group.hpp) current from
// Redis Sentinel, and run commands through it.
//
// SentinelWatcher — what Sentinel says:
//  - AskAll() asks, for every group, SENTINEL get-master-addr-by-name and
//    SENTINEL replicas (one round trip per group) and applies the answer with
//    ShardGroups::SetGroup, one change per group (replicas Sentinel flags s_down,
//    o_down or disconnected are left out, and so, while SENTINEL master
//    shows the group's master healthy, are those whose role-reported is not
//    "slave": a demoted master not yet converted, still serving its old
//    data; while the master is down or failing over, that one is the replica
//    being promoted, and stays). A sentinel that fails is skipped for the
//    next one; the one that answered stays preferred.
//  - A thread of its own stays subscribed on one sentinel to +switch-master
//    (applied at once: the new master takes writes before anything else is
//    asked) and to the events that change a group's instances (+sdown,
//    -sdown, +odown, -odown, +slave, +convert-to-slave, +failover-end), after
//    which it re-asks that group. When the subscription breaks it moves to
//    the next sentinel (backoff between rounds) and re-asks everything, as
//    events may have been missed. Every group is also re-asked each
//    reask_interval_ms — the safety net for events lost in flight.
//
// SentinelClient — the groups as a topology source of the engine
// (topology_source.hpp: GroupSource over the ShardGroups): commands run on
// the same CommandExecutor, node pools, hedged reads, recovery prober,
// statistics and log events as the cluster client, with the same failure
// rules:
//  - reads: the key's group's instances in read order (the weighted pick of
//    the nearest locality tier, the rest round-robin, instances whose breaker
//    is open last); a connection error, a timeout (which sets the instance
//    aside at once), or a LOADING / MASTERDOWN reply moves on to the next,
//    so reads keep being served by replicas while the master moves; hedged
//    when ClientOptions::hedge says so;
//  - writes: the group's master only. A write whose master was unknown, could
//    not be dialed, or refused it as READONLY (a demoted master) was not
//    executed: the engine asks the watcher to re-ask the sentinels about the
//    group (at most every 100 ms) and tries again, up to max_retries with
//    backoff. A write that may have reached the server is never re-sent: its
//    error is returned. MOVED / ASK from an instance (a server in cluster
//    mode) is refused, never followed.
//  - failures_before_refresh failed attempts in a row make the refresher
//    thread re-ask every group (at most every refresh_min_gap_ms).
// Instances Sentinel stops reporting are reclaimed as a cluster's nodes are
// (ShardGroups with reclaim_nodes): gone from the groups for two changes and
// used by no call, their registry entries are freed and, right after the
// change, their pools closed (NodePools::Sweep).
//
// Thread-safety: SentinelClient is safe for concurrent use; the ShardGroups
// it updates must outlive it. SentinelWatcher's public methods are safe for
// concurrent use (asking serializes on a mutex).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "cloudroute/core/shard_group.hpp"
#include "cloudroute/net/async_calls.hpp"
#include "cloudroute/net/call_options.hpp"
#include "cloudroute/net/client_context.hpp"
#include "cloudroute/net/command_executor.hpp"
#include "cloudroute/net/connection.hpp"
#include "cloudroute/net/discovery.hpp"
#include "cloudroute/net/event_log.hpp"
#include "cloudroute/net/key_batch.hpp"
#include "cloudroute/net/node_pools.hpp"
#include "cloudroute/net/recovery_probe.hpp"
#include "cloudroute/net/refresher.hpp"
#include "cloudroute/net/stats.hpp"
#include "cloudroute/net/topology_source.hpp"

namespace cloudroute {
namespace net {

// The engine's options with the Sentinel client's defaults: writes not
// executed are tried 5 times; the watcher re-asks periodically, so the
// refresher runs only when failures trigger it.
inline ClientOptions SentinelEngineDefaults() {
  ClientOptions o;
  o.max_retries = 5;
  o.refresh_interval_ms = 0;
  return o;
}

struct SentinelOptions {
  // The data nodes: connections (engine.conn: AUTH, TLS), timeouts per tier,
  // pool, retries (max_retries: writes not executed), hedged reads, log.
  // refresh_interval_ms: a periodic re-ask of every group besides the
  // watcher's; refresh_min_gap_ms bounds the triggered ones.
  ClientOptions engine = SentinelEngineDefaults();
  ConnectOptions sentinel_conn;         // to the sentinels (their own AUTH and TLS, if any)
  uint32_t sentinel_timeout_ms = 1000;  // each question to a sentinel
  uint32_t reask_interval_ms = 5000;    // 0: no periodic re-ask
  uint32_t reconnect_max_ms = 1000;     // cap of the backoff between subscription rounds
};

// What the watcher counts (relaxed: statistics, not synchronisation). The
// commands are counted by the engine (Stats).
struct SentinelCounters {
  std::atomic<uint64_t> master_changes{0};         // a group's master moved (any source)
  std::atomic<uint64_t> switch_events{0};          // +switch-master messages received
  std::atomic<uint64_t> asks{0}, ask_failures{0};  // group re-asks (all sentinels failed)
  std::atomic<uint64_t> subscriptions{0};          // successful (re)subscriptions
};

// What one sentinel says about a group.
struct SentinelView {
  GroupAddress master;
  std::vector<GroupAddress> replicas;  // usable ones only
};

// "name oldip oldport newip newport" (+switch-master). False when malformed.
bool ParseSwitchMaster(const std::string &payload, std::string *name, GroupAddress *to);
// The master name an instance event is about ("master <name> ip port",
// "slave <ip:port> ip port @ <name> mip mport", …); "" when none.
std::string EventGroup(const std::string &payload);

class SentinelWatcher {
 public:
  // names[i] is the Sentinel master name of group i of *groups. log (may
  // be null): a master moving ("failover seen"), a group no sentinel
  // answered about ("refresh failed"), the subscription lost and regained.
  // changed (may be null) runs after an answer changed a group's instances,
  // on the thread that asked, under the asking mutex (the client drops the
  // pools of the instances the change reclaimed).
  SentinelWatcher(ShardGroups *groups, std::vector<Seed> sentinels, std::vector<std::string> names,
                  SentinelOptions opts, SentinelCounters *counters, EventLog *log,
                  std::function<void()> changed);
  ~SentinelWatcher();  // stops the thread
  SentinelWatcher(const SentinelWatcher &) = delete;
  SentinelWatcher &operator=(const SentinelWatcher &) = delete;

  // Asks about every group now. Errors: kNotFound (a sentinel does not
  // monitor a name), or the last sentinel's error when none answered.
  Status AskAll();
  // Re-asks group now unless it was asked less than min_gap_ms ago (then
  // waits for that answer instead). Used by writes that met a stale master.
  Status Reask(uint32_t group, uint32_t min_gap_ms);
  // Subscribes (trying each sentinel once, on this thread) and starts the
  // watching thread, which retries when that failed. REQUIRES: called once,
  // before AskAll() so that no event falls between an answer and the
  // subscription.
  void Start();
  bool subscribed() const { return subscribed_.load(std::memory_order_relaxed); }

 private:
  Status AskGroupLocked(uint32_t group);
  Result<SentinelView> AskOne(size_t sentinel, uint32_t group);
  void Apply(uint32_t group, const SentinelView &v);
  void Run();
  bool Subscribe(size_t sentinel);
  void HandlePush(const Reply &push);
  void SleepMs(uint32_t ms);  // returns early when stopping

  ShardGroups *const groups_;
  const std::vector<Seed> sentinels_;
  const std::vector<std::string> names_;
  const SentinelOptions opts_;
  SentinelCounters *const counters_;
  EventLog *const log_;
  const std::function<void()> changed_;

  std::mutex ask_mu_;  // serializes asking; guards the members below
  std::unique_ptr<Connection> ask_conn_;
  size_t ask_conn_for_ = 0;
  size_t preferred_ = 0;
  std::vector<SentinelView> applied_;  // last view applied, per group
  std::vector<int64_t> asked_ns_;      // when each group was last asked

  std::unique_ptr<Connection> sub_;  // the watcher thread's only (after Start)
  size_t sub_index_ = 0;             // the sentinel sub_ is connected to
  std::atomic<bool> subscribed_{false};
  std::mutex stop_mu_;
  std::condition_variable stop_cv_;
  bool stop_ = false;
  std::thread thread_;
};

class SentinelClient {
 public:
  // Asks the sentinels about every group (the table is filled before this
  // returns) and starts watching. Errors as SentinelWatcher::AskAll;
  // kInvalid / kLimit / kNoTopology for groups the engine cannot place
  // (GroupSource::Check).
  static Result<std::unique_ptr<SentinelClient>> Create(ShardGroups *groups,
                                                        std::vector<Seed> sentinels,
                                                        std::vector<std::string> names,
                                                        SentinelOptions opts);
  ~SentinelClient();
  SentinelClient(const SentinelClient &) = delete;
  SentinelClient &operator=(const SentinelClient &) = delete;

  // Any command on one key (see the file comment). A server error reply is
  // kServerError with its text; kUnavailable when the group has no master
  // known (writes, after the retries) or no instance answered (reads, after
  // trying them all).
  Result<ReplyPtr> Execute(Access access, std::string_view key, const Args &args,
                           const CallOptions &call = {}) {
    return executor_.Execute(access, key, args, call);
  }
  // MGET, MSET, DEL or EXISTS over many keys: one command per group, every
  // group at once, a result per key (key_batch.hpp) — a batch is not a
  // transaction: keys of a group whose command failed carry its error, the
  // others their results. Writes not executed are tried again as above.
  KeyBatchResult RunBatch(KeyBatchKind kind, const std::vector<std::string> &keys,
                          const std::vector<std::string> *values = nullptr) {
    return RunKeyBatch(&executor_, source_, kind, keys, values);
  }
  Status Refresh() { return watcher_->AskAll(); }

  // Asynchronous single-key commands, as Client::Submit (async_calls.hpp:
  // the first attempt on the instance's shared connection, the rest —
  // the next read candidate, a write its master did not execute re-asked
  // and tried again — on a worker, by the same executor).
  Status Submit(Access access, std::string_view key, Args args, const CallOptions &call,
                AsyncCalls::Done done) {
    return async_.Submit(access, key, std::move(args), call, std::move(done));
  }
  // A batch submitted without waiting: done gets what RunBatch would return
  // (SubmitKeyBatch; errors as there).
  Status SubmitBatch(KeyBatchKind kind, const std::vector<std::string> &keys,
                     const std::vector<std::string> *values, KeyBatchDone done) {
    return SubmitKeyBatch(&async_, source_, kind, keys, values, std::move(done));
  }
  Result<int> CompletionFd() { return async_.CompletionFd(); }
  size_t RunCompletions(size_t max) { return async_.RunCompletions(max); }
  bool InCompletion() const { return async_.InCompletion(); }

  const SentinelCounters &counters() const { return counters_; }
  bool subscribed() const { return watcher_->subscribed(); }
  StatsValues stats() const { return ctx_.stats.Snapshot(); }
  std::vector<NodeStatsValues> node_stats() const { return pools_.node_stats(); }
  // The pools kept, one per instance still in the registry (and the pools
  // of instances reclaimed by a change until that change's sweep, which
  // follows it at once): bounded by the instances, however many come and go.
  size_t pool_count() const { return pools_.List().size(); }
  // As Client::InLogHandler.
  bool InLogHandler() const { return ctx_.log.InSinkOnThisThread(); }

 private:
  SentinelClient(ShardGroups *groups, SentinelOptions opts);

  SentinelCounters counters_;
  // Made by Create, once the context exists (it logs there); stopped first.
  std::unique_ptr<SentinelWatcher> watcher_;
  GroupSource source_;
  ClientContext ctx_;
  NodePools pools_;
  CommandExecutor executor_;
  AsyncCalls async_{&ctx_, &executor_};  // closed first of all, in ~SentinelClient
  std::unique_ptr<RecoveryProber> prober_;
  std::unique_ptr<Refresher> refresher_;
};

}  // namespace net
}  // namespace cloudroute
