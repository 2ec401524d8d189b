// The refresh's scan for migrating slots (see migration_scan.hpp).
#include "cloudroute/net/migration_scan.hpp"

#include <memory>
#include <vector>

#include "cloudroute/core/cluster_nodes_text.hpp"
#include "cloudroute/net/deadline.hpp"

namespace cloudroute {
namespace net {

void ScanMigrations(ClientContext *ctx, NodePools *pools, const Topology &t) {
  static const Args kNodes{"CLUSTER", "NODES"};
  Router *const router = ctx->router;
  const int64_t started = router->migrations().clock()();
  const int64_t deadline = DeadlineAfter(ctx->TimeoutFor(Tier::kUnknown));
  struct Probe {
    const TopoShard *shard;
    NodePool *pool;
    std::unique_ptr<Connection> conn;
  };
  std::vector<Probe> probes;
  for (const TopoShard &shard : t.shards) {
    if (shard.master == kNoNode || shard.ranges.empty()) continue;
    const TopoNode &m = t.nodes[shard.master];
    NodeEntry *master = m.endpoint_known() ? router->registry().Find(m.address()) : nullptr;
    if (master == nullptr) continue;
    const uint32_t left_ms = MsLeft(deadline);
    if (left_ms == 0) break;
    NodePool &pool = pools->For(master);
    auto conn = pool.Acquire(left_ms);
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
  (void)router->SyncMigrating(scanned, migrating, started);
}

}  // namespace net
}  // namespace cloudroute
