// Router: the current snapshot plus everything that changes it — topology
// updates, MOVED patches, measured RTT, reported zones — and the feedback
// paths (failures, successes, ASK, slot migrations).
//
// Thread-safety: safe for concurrent use. Routing takes no lock (see
// SnapshotCell); every change builds a complete new snapshot under a writer
// mutex and publishes it atomically, so readers never see a half-built one.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "cloudroute/core/keyslot.hpp"
#include "cloudroute/core/snapshot.hpp"
#include "cloudroute/core/snapshot_cell.hpp"

namespace cloudroute {

class Router {
 public:
  explicit Router(RouterConfig cfg, ClockFn clock = nullptr);

  // Installs topology; then (with RouterConfig::reclaim_nodes) frees the
  // registry entries of nodes in neither this nor the previous topology,
  // nor in a snapshot someone still holds, nor asked by an ASK since.
  // A node the new topology gives no zone keeps the zone the previous one
  // gave it (a CLUSTER SLOTS answer can lack the answering node's own
  // metadata): a zone once reported is not forgotten by a reply that omits it.
  Status Update(std::shared_ptr<const Topology> topology);

  Code RouteRead(const void *key, size_t len, Route *out) const {
    const uint16_t slot = KeySlot(key, len);
    return cell_.With([slot, out](const Snapshot *s) {
      return s == nullptr ? Code::kNoTopology : s->RouteRead(slot, out);
    });
  }
  Code RouteWrite(const void *key, size_t len, Route *out) const {
    const uint16_t slot = KeySlot(key, len);
    return cell_.With([slot, out](const Snapshot *s) {
      return s == nullptr ? Code::kNoTopology : s->RouteWrite(slot, out);
    });
  }
  // Runs f(const Snapshot *) with the current snapshot pinned (nullptr when
  // there is none). f must not block.
  template <typename F>
  auto WithSnapshot(F &&f) const {
    return cell_.With(std::forward<F>(f));
  }
  std::shared_ptr<const Snapshot> Current() const { return cell_.Acquire(); }
  // The cell the snapshots are published in (the net layer's engine reads it
  // without a virtual call: net/topology_source.hpp).
  const SnapshotCell &cell() const { return cell_; }

  // A MOVED also ends the slot's migration mark; an ASK sets (re-arms) it:
  // reads of a migrating slot go to its master (see SlotMigrations).
  Status ReportMoved(uint32_t slot, const std::string &host, uint16_t port);
  // The target stays in the registry until the second Update after it, as
  // the nodes of a replaced topology do (its handle and host stay valid).
  Result<NodeEntry *> ReportAsk(uint32_t slot, const std::string &host, uint16_t port);
  // Marks (or clears) slot as migrating away from its owner.
  Status ReportMigrating(uint32_t slot, bool migrating);
  // A refresh's scan of the masters' migrating slots (SlotMigrations::Sync).
  // Marks live in the SlotMigrations and, as the slot's master-first
  // candidate set, in each snapshot: a mark appearing or going rebuilds the
  // snapshot once (re-arming does not); an expired one is dropped by the
  // next rebuild (every refresh syncs).
  Status SyncMigrating(const SlotSet &scanned, const SlotSet &migrating, int64_t started_ns);
  bool SlotMigrating(uint16_t slot) const { return migrations_->Active(slot); }
  // The slot's owner changed a moment ago (RecentMoves): a MOVED to another
  // node was reported, or an Update named another master for it.
  bool SlotRecentlyMoved(uint16_t slot) const { return recent_moves_.Recent(slot); }
  const SlotMigrations &migrations() const { return *migrations_; }
  Status ReportFailure(uint32_t handle);
  Status ReportSuccess(uint32_t handle);
  Status SetRtt(uint32_t handle, uint32_t rtt_us);
  Status SetNodeZone(const std::string &host, uint16_t port, const std::string &zone);
  // Marks a replica as lagging past the configured bound (read after every
  // other candidate) or clears the mark. Rebuilds only on a change.
  Status SetReplicaLagging(const std::string &host, uint16_t port, bool lagging);
  bool refresh_needed() const { return refresh_needed_.load(std::memory_order_relaxed); }

  NodeRegistry &registry() { return *registry_; }
  const NodeRegistry &registry() const { return *registry_; }
  const RouterConfig &config() const { return cfg_; }

 private:
  // REQUIRES: mu_ held.
  Status RebuildLocked();
  // Marks in recent_moves_ the slots whose master differs between two
  // snapshots (none when either is null).
  void MarkMovedSlots(const Snapshot *before, const Snapshot *after);

  const RouterConfig cfg_;
  std::shared_ptr<NodeRegistry> registry_;
  std::shared_ptr<SlotMigrations> migrations_;
  RecentMoves recent_moves_;
  SnapshotCell cell_;
  std::atomic<bool> refresh_needed_{false};

  std::mutex mu_;  // guards everything below and serializes publishing
  std::shared_ptr<const Topology> topology_;
  // Zones learned outside the current topology (address → zone): from the
  // nodes themselves (SetNodeZone) or from an earlier topology. A node's own
  // zone in the topology wins over them.
  std::unordered_map<std::string, std::string> zones_;
  std::unordered_set<std::string> lagging_;
  std::vector<MovedPatch> moved_;
  uint64_t generation_ = 0;
  // Kept from reclaiming: the nodes of the snapshot the last Update replaced
  // (and the ASK targets before it), and the ASK targets since.
  NodePins previous_;
  NodePins asked_;
};

}  // namespace cloudroute
