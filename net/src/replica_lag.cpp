// Replica lag: bounding stale reads instead of only accepting them.
//
// On each refresh, when a bound is configured, every master is asked
// INFO replication. Its master_repl_offset and, per replica, the replica's
// acknowledged offset, state and seconds since the last ack tell how far
// behind each replica is; a replica past either bound (or not listed as
// online) is marked lagging in the router, which reads it only after every
// other candidate. A master that does not answer leaves its replicas' marks
// as they were (the next refresh asks again).
#include <algorithm>

#include "cloudroute/core/info_text.hpp"
#include "cloudroute/net/client.hpp"

namespace cloudroute {
namespace net {

void Client::CheckReplicaLag(const Topology &t) {
  if (opts_.replica_max_lag_bytes == 0 && opts_.replica_max_lag_s == 0) return;
  static const Args kInfo{"INFO", "replication"};
  const uint32_t timeout = TimeoutFor(Tier::kUnknown);
  for (const TopoShard &shard : t.shards) {
    if (shard.replicas.empty()) continue;
    const TopoNode &m = t.nodes[shard.master];
    NodeEntry *master = m.endpoint_known() ? router_->registry().Find(m.address()) : nullptr;
    if (master == nullptr) continue;
    NodePool &pool = PoolFor(master);
    auto conn = pool.Acquire(timeout);
    if (!conn.ok()) continue;
    auto reply = (*conn)->Command(kInfo, timeout);
    pool.Release(std::move(*conn));
    if (!reply.ok() || !(*reply)->is_string()) continue;

    const ReplicationInfo info = ParseReplicationInfo((*reply)->str);
    for (uint32_t idx : shard.replicas) {
      const TopoNode &r = t.nodes[idx];
      if (!r.endpoint_known()) continue;
      const ReplicaInfo *found = nullptr;
      for (const ReplicaInfo &l : info.replicas) {
        if (l.port == r.port && (l.ip == r.host || l.ip == r.ip)) found = &l;
      }
      bool lagging = found == nullptr || found->state != "online";
      if (!lagging && opts_.replica_max_lag_bytes != 0 && info.master_repl_offset >= 0 &&
          found->offset >= 0) {
        lagging = static_cast<uint64_t>(std::max<int64_t>(0, info.master_repl_offset - found->offset)) >
                  opts_.replica_max_lag_bytes;
      }
      if (!lagging && opts_.replica_max_lag_s != 0 && found->lag_s >= 0) {
        lagging = static_cast<uint64_t>(found->lag_s) > opts_.replica_max_lag_s;
      }
      (void)router_->SetReplicaLagging(r.host, r.port, lagging);
    }
  }
}

Status Client::CheckReplicaReady(Connection *conn, uint32_t timeout_ms) {
  static const Args kInfo{"INFO", "replication"};
  auto reply = conn->Command(kInfo, timeout_ms);
  if (!reply.ok()) return reply.status();
  if (!(*reply)->is_string()) return Status::Ok();  // not a Redis we understand: let reads tell
  const ReplicationInfo info = ParseReplicationInfo((*reply)->str);
  if (info.role != "slave") return Status::Ok();
  if (info.master_sync_in_progress == "1" ||
      (info.master_link_status != "up" && info.master_repl_offset == 0)) {
    return Error(Code::kConnError, "replica has no replicated data yet (master_link_status:" +
                                       info.master_link_status + ", master_sync_in_progress:" +
                                       info.master_sync_in_progress + "); reading elsewhere");
  }
  return Status::Ok();
}

}  // namespace net
}  // namespace cloudroute
