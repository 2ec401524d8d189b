// Slot migrations: finding them on refresh, not only by meeting an ASK.
//
// Redis keeps a slot's MIGRATING state on the source master alone: CLUSTER
// NODES asked of that master shows "[slot->-<target id>]" on its own
// ("myself") line (Redis 7.0; replicas and the other masters show nothing,
// CLUSTER SHARDS/SLOTS show nothing). So on each refresh every master is
// asked CLUSTER NODES — one small reply each, all in flight at once on
// pooled connections, bounded by one refresh timeout. Its markers mark the
// slots migrating in the router (their reads go to the master); the rest of
// the slots of a master that answered are cleared, unless an ASK re-armed
// them after the scan began. A master that does not answer in time leaves
// its slots' marks as they were (the marks' TTL bounds them).
#include <memory>

#include "cloudroute/core/cluster_nodes_text.hpp"
#include "cloudroute/net/client.hpp"

namespace cloudroute {
namespace net {

void Client::ScanMigrations(const Topology &t) {
  static const Args kNodes{"CLUSTER", "NODES"};
  constexpr int64_t kNsPerMs = 1000000;
  const int64_t started = router_->migrations().clock()();
  const int64_t deadline = SteadyNowNs() + static_cast<int64_t>(TimeoutFor(Tier::kUnknown)) * kNsPerMs;
  struct Probe {
    const TopoShard *shard;
    NodePool *pool;
    std::unique_ptr<Connection> conn;
  };
  std::vector<Probe> probes;
  for (const TopoShard &shard : t.shards) {
    if (shard.master == kNoNode || shard.ranges.empty()) continue;
    const TopoNode &m = t.nodes[shard.master];
    NodeEntry *master = m.endpoint_known() ? router_->registry().Find(m.address()) : nullptr;
    if (master == nullptr) continue;
    const int64_t left_ms = (deadline - SteadyNowNs()) / kNsPerMs;
    if (left_ms <= 0) break;
    NodePool &pool = PoolFor(master);
    auto conn = pool.Acquire(static_cast<uint32_t>(left_ms));
    if (!conn.ok()) continue;
    if (!(*conn)->Send({&kNodes}, deadline).ok()) {
      pool.Release(std::move(*conn));
      continue;
    }
    probes.push_back(Probe{&shard, &pool, std::move(*conn)});
  }
  SlotSet scanned, migrating;
  for (Probe &p : probes) {
    std::vector<ReplyPtr> replies;
    const Status s = p.conn->Receive(1, deadline, &replies);
    p.pool->Release(std::move(p.conn));
    if (!s.ok() || replies.empty() || !replies[0]->is_string()) continue;
    for (const SlotRange &r : p.shard->ranges) {
      for (uint32_t slot = r.start; slot <= r.end && slot < kSlotCount; ++slot) scanned.set(slot);
    }
    for (uint16_t slot : ParseMigratingSlots(replies[0]->str)) migrating.set(slot);
  }
  (void)router_->SyncMigrating(scanned, migrating, started);
}

}  // namespace net
}  // namespace cloudroute
