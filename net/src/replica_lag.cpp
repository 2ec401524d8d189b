// Replica lag and readiness (see replica_lag.hpp).
#include "cloudroute/net/replica_lag.hpp"

#include <algorithm>

#include "cloudroute/core/info_text.hpp"

namespace cloudroute {
namespace net {

void CheckReplicaLag(ClientContext *ctx, NodePools *pools, const Topology &t) {
  const ClientOptions &opts = ctx->opts;
  if (opts.replica_max_lag_bytes == 0 && opts.replica_max_lag_s == 0) return;
  static const Args kInfo{"INFO", "replication"};
  Router *const router = ctx->router;
  const uint32_t timeout = ctx->TimeoutFor(Tier::kUnknown);
  for (const TopoShard &shard : t.shards) {
    if (shard.replicas.empty()) continue;
    const TopoNode &m = t.nodes[shard.master];
    NodeEntry *master = m.endpoint_known() ? router->registry().Find(m.address()) : nullptr;
    if (master == nullptr) continue;
    NodePool &pool = pools->For(master);
    auto conn = pool.Acquire(timeout);
    if (!conn.ok()) continue;
    auto reply = (*conn)->Command(kInfo, timeout);
    pool.Release(std::move(*conn));
    if (reply.ok() && (*reply)->is_error()) {
      // An ACL user without INFO ("NOPERM ... 'info' command"): the bounds
      // cannot be checked; say so, naming the server's reason.
      ctx->log.EmitLimited(LogLevel::kWarn, "lag " + master->address,
                           "replica lag unknown: INFO replication refused",
                           {{"node", master->address}, {"error", (*reply)->str}});
    }
    if (!reply.ok() || !(*reply)->is_string()) continue;

    const ReplicationInfo info = ParseReplicationInfo((*reply)->str);
    for (uint32_t idx : shard.replicas) {
      const TopoNode &r = t.nodes[idx];
      if (!r.endpoint_known()) continue;
      const ReplicaInfo *found = nullptr;
      for (const ReplicaInfo &l : info.replicas) {
        if (l.port == r.port && (l.ip == r.host() || l.ip == r.ip())) found = &l;
      }
      bool lagging = found == nullptr || found->state != "online";
      if (!lagging && opts.replica_max_lag_bytes != 0 && info.master_repl_offset >= 0 &&
          found->offset >= 0) {
        lagging = static_cast<uint64_t>(std::max<int64_t>(
                      0, info.master_repl_offset - found->offset)) > opts.replica_max_lag_bytes;
      }
      if (!lagging && opts.replica_max_lag_s != 0 && found->lag_s >= 0) {
        lagging = static_cast<uint64_t>(found->lag_s) > opts.replica_max_lag_s;
      }
      (void)router->SetReplicaLagging(std::string(r.host()), r.port, lagging);
    }
  }
}

Status CheckReplicaReady(Connection *conn, uint32_t timeout_ms) {
  static const Args kInfo{"INFO", "replication"};
  auto reply = conn->Command(kInfo, timeout_ms);
  if (!reply.ok()) return reply.status();
  if (!(*reply)->is_string()) return Status::Ok();  // not a Redis we understand: let reads tell
  const ReplicationInfo info = ParseReplicationInfo((*reply)->str);
  if (info.role != "slave") return Status::Ok();
  if (info.master_sync_in_progress == "1" ||
      (info.master_link_status != "up" && info.master_repl_offset == 0)) {
    return Error(
        Code::kConnError,
        "replica has no replicated data yet (master_link_status:" + info.master_link_status +
            ", master_sync_in_progress:" + info.master_sync_in_progress + "); reading elsewhere");
  }
  return Status::Ok();
}

}  // namespace net
}  // namespace cloudroute
