// TopologySource: what the engine (CommandExecutor, FanOut, NodePools,
// RecoveryProber) knows of a topology, whatever its kind — so one command
// path serves Redis Cluster, Sentinel shard groups and pre-sharded
// standalone servers.
//
//  - A key's place: its slot (CRC16 mod 16384) for a cluster, its group's
//    index on the ring for shard groups. The current snapshot's
//    SetForSlot(place) is the place's candidate set: the write node (its
//    master and tier) and the read candidates (tiers, ranks, weights, node
//    handles whose health every attempt reports), in the same CandidateSet
//    for every kind (a GroupSnapshot maps place i to group i).
//  - Whether redirects apply: a cluster follows MOVED / ASK (ReportMoved,
//    ReportAsk); a ring's servers are standalone, and a redirect from one is
//    refused with an error naming it (the server is in cluster mode).
//  - What the engine does when a write found its place's master unusable
//    without being executed — none known, not dialed, or refused as
//    READONLY (a demoted master): AskAbout(place) asks the source now; a
//    ring's source (Sentinel) re-asks and says to try again, with backoff,
//    up to max_retries. A cluster's signals are MOVED and the refresh after
//    failures_before_refresh: it says no, and the error is returned.
//
// The hot path takes no virtual call: the snapshot cell, the registry, the
// configuration and the kind are plain members read by inline functions;
// only the cold paths (redirects, AskAbout, error text) are virtual.
//
// Thread-safety: safe for concurrent use (each kind's feedback calls are;
// see Router and ShardGroups). The router or groups must outlive the source.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "cloudroute/core/keyslot.hpp"
#include "cloudroute/core/router.hpp"
#include "cloudroute/core/shard_group.hpp"
#include "cloudroute/core/snapshot_cell.hpp"

namespace cloudroute {
namespace net {

class TopologySource {
 public:
  enum class Kind : uint8_t {
    kSlots,  // Redis Cluster: slots, MOVED / ASK
    kRing,   // shard groups on a ring: Sentinel groups, pre-sharded servers
  };
  virtual ~TopologySource() = default;
  TopologySource(const TopologySource &) = delete;
  TopologySource &operator=(const TopologySource &) = delete;

  Kind kind() const { return kind_; }
  // Whether MOVED / ASK are followed (a cluster) — and whether replica
  // connections need READONLY.
  bool redirects() const { return kind_ == Kind::kSlots; }
  // The key's place (see above). A ring's place is kNoPlace (no candidate
  // set: the call fails) for a key of a group past the first kNoPlace.
  static constexpr uint16_t kNoPlace = kSlotCount - 1;
  uint16_t Place(const void *key, size_t len) const {
    return kind_ == Kind::kSlots ? KeySlot(key, len) : RingPlace(key, len);
  }
  // The current snapshot (it pins the nodes it names); nullptr when none.
  std::shared_ptr<const Snapshot> Current() const { return cell_->Acquire(); }
  NodeRegistry &registry() const { return *registry_; }
  const RouterConfig &config() const { return *config_; }
  // What a place is called in errors and log events: "slot" or "group".
  const char *place_kind() const { return kind_ == Kind::kSlots ? "slot" : "group"; }

  // The place in an error message: "slot 42", "group 'cache-a'".
  virtual std::string Where(uint16_t place) const = 0;
  // A MOVED / ASK from a node (see Router::ReportMoved / ReportAsk).
  virtual Status ReportMoved(uint32_t slot, const std::string &host, uint16_t port) = 0;
  virtual Result<NodeEntry *> ReportAsk(uint32_t slot, const std::string &host, uint16_t port) = 0;
  // A write to place was not executed: its master is unknown, could not be
  // dialed, or refused it as READONLY. Asks the source now, on the caller's
  // thread; true when the write is to be tried again (see above).
  virtual bool AskAbout(uint16_t place) = 0;
  // The place's owner changed a moment ago (Router::SlotRecentlyMoved): a
  // nil a replica gives for it is confirmed at the master (NilToConfirm).
  // Called for nil replies of replicas only. Shard groups do not move
  // places: false.
  virtual bool RecentlyMoved(uint16_t) const { return false; }

 protected:
  // groups: the ring's groups (kRing), null for a cluster.
  TopologySource(Kind kind, const SnapshotCell *cell, NodeRegistry *registry,
                 const RouterConfig *config, const ShardGroups *groups)
      : kind_(kind), cell_(cell), registry_(registry), config_(config), groups_(groups) {}

 private:
  // REQUIRES: kind() == kRing.
  uint16_t RingPlace(const void *key, size_t len) const;

  const Kind kind_;
  const SnapshotCell *const cell_;
  NodeRegistry *const registry_;
  const RouterConfig *const config_;
  const ShardGroups *const groups_;
};

// Redis Cluster, over the Router (slots, MOVED / ASK).
class ClusterSource final : public TopologySource {
 public:
  explicit ClusterSource(Router *router)
      : TopologySource(Kind::kSlots, &router->cell(), &router->registry(), &router->config(),
                       nullptr),
        router_(router) {}

  std::string Where(uint16_t place) const override { return "slot " + std::to_string(place); }
  Status ReportMoved(uint32_t slot, const std::string &host, uint16_t port) override {
    return router_->ReportMoved(slot, host, port);
  }
  Result<NodeEntry *> ReportAsk(uint32_t slot, const std::string &host, uint16_t port) override {
    return router_->ReportAsk(slot, host, port);
  }
  bool AskAbout(uint16_t) override { return false; }  // MOVED and refreshes tell it
  bool RecentlyMoved(uint16_t slot) const override { return router_->SlotRecentlyMoved(slot); }

 private:
  Router *const router_;
};

// Shard groups on a ring (ShardGroups): Sentinel groups, pre-sharded servers.
// The first kNoPlace groups have a place (Check()).
class GroupSource final : public TopologySource {
 public:
  // ask: asks the source about a group whose master did not execute a
  // write (Sentinel: re-ask the sentinels); true: try the write again.
  // Null: never tried again.
  using AskFn = std::function<bool(uint32_t group)>;
  GroupSource(ShardGroups *groups, AskFn ask)
      : TopologySource(Kind::kRing, &groups->cell(), &groups->registry(), &groups->config(),
                       groups),
        groups_(groups),
        ask_(std::move(ask)) {}

  // kLimit when the groups have more than the engine can place, kNoTopology
  // when no ring is set.
  Status Check() const;
  std::string Where(uint16_t place) const override;
  Status ReportMoved(uint32_t slot, const std::string &host, uint16_t port) override;
  Result<NodeEntry *> ReportAsk(uint32_t slot, const std::string &host, uint16_t port) override;
  bool AskAbout(uint16_t place) override { return ask_ != nullptr && ask_(place); }

 private:
  ShardGroups *const groups_;
  const AskFn ask_;
};

}  // namespace net
}  // namespace cloudroute
