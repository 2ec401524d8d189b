// ShardGroups: a deployment of N groups, each a master plus replicas that
// Redis Sentinel tracks — and, with a master only per group, the address
// book of a client-side sharded deployment (ring shard name -> host:port).
//
//  - Key -> group: a Ring (any algorithm; kModulo for hash % N). Ring shard
//    i is group i; the ring carries names and weights only, so re-pointing
//    a group to new hosts moves no key.
//  - Writes: the group's master as Sentinel last reported it (SetMaster);
//    none known -> kUnavailable, never another node.
//  - Reads: the group's instances (master and replicas) ranked by locality
//    tier, nearest first — a single rank when no locality is configured.
//    Inside a rank: a weighted random pick (RouterConfig::weights by
//    "host:port", 1 when unset, so uniform when no weights are set), then
//    the rank's other instances round-robin from there: the selector's poll
//    order (selector.hpp). RouteRead() skips instances whose breaker is
//    open; ReadOrder() lists every instance in the order to try, those
//    marked down last, for the "until one answers or all failed" loop.
//
// The net layer calls SetGroup (master and replicas in one change) after
// SENTINEL get-master-addr-by-name / SENTINEL replicas and on +switch-master, and
// reports each attempt with ReportFailure / ReportSuccess.
//
// Thread-safety: safe for concurrent use. Routing takes no lock: each
// change builds a complete GroupSnapshot and publishes it through a
// SnapshotCell (readers never see a half-applied change); changes serialize
// on a mutex. Instance health lives in a NodeRegistry shared by every
// snapshot.
//
// Reclamation, as the Router's (node_registry.hpp): each snapshot pins its
// instances, and the table pins those of the snapshot the last change
// replaced. With RouterConfig::reclaim_nodes (the live Sentinel and
// pre-sharded clients, whose net layer pins what it uses) every change then
// frees the registry entries no one pins: an instance gone from the groups
// for two changes, held in no snapshot, loses its entry and its handle is
// refused. Without it (the C API's standalone cr_shard_groups, which
// promises its hosts until it is freed) handles stay valid for the object's
// lifetime.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "cloudroute/core/candidates.hpp"
#include "cloudroute/core/random_streams.hpp"
#include "cloudroute/core/ring.hpp"
#include "cloudroute/core/selector.hpp"
#include "cloudroute/core/snapshot.hpp"
#include "cloudroute/core/snapshot_cell.hpp"

namespace cloudroute {

struct GroupAddress {
  std::string host;
  uint16_t port = 0;
};

// A group's instances as a whole: its master and its replicas.
struct GroupInstances {
  GroupAddress master;
  std::vector<GroupAddress> replicas;
};

// A snapshot of every group. It is a Snapshot (one CandidateSet per group,
// the shared registry) so the router's SnapshotCell can publish it. Its slot
// table maps place i to group i for the first kSlotCount - 1 groups (the
// last place maps none: a key of a later group has no place): the net
// layer's engine routes a ring's keys by that place (the group index) with
// the same SetForSlot() as a cluster's slots (net/topology_source.hpp).
struct GroupSnapshot : Snapshot {
  std::shared_ptr<const Ring> ring;  // nullptr until SetRing()
  TextArena names;                   // what the sets' shard_id views point into
};

// One entry of a read order: a copy of the candidate, and whether its
// breaker was open when the order was made.
struct PolledCandidate {
  Candidate c;
  bool down;
};

class ShardGroups {
 public:
  explicit ShardGroups(RouterConfig cfg, ClockFn clock = nullptr);

  // A new group (a Sentinel master name, or a ring shard's name); returns its
  // index. Names are unique, non-empty, without NUL bytes. A group added
  // after SetRing() gets no key until a ring with it is set.
  Result<uint32_t> AddGroup(const std::string &name);
  Result<uint32_t> FindGroup(const std::string &name) const;
  size_t group_count() const { return count_.load(std::memory_order_acquire); }

  // The key -> group mapping. REQUIRES nothing of the caller: refuses a ring
  // whose shard count differs from group_count().
  Status SetRing(std::shared_ptr<const Ring> ring);

  // The group's master; an empty host clears it (writes then fail fast).
  Status SetMaster(uint32_t group, const std::string &host, uint16_t port);
  // Replaces the group's replicas (duplicates and the master are dropped);
  // the same list again publishes nothing.
  Status SetReplicas(uint32_t group, const std::vector<GroupAddress> &replicas);
  // The group's master and replicas at once, in one snapshot (a failover as
  // Sentinel reports it: no reader sees the new master with the old replica
  // list). Checked as SetMaster and SetReplicas check; the same addresses
  // again publish nothing.
  Status SetGroup(uint32_t group, const GroupAddress &master,
                  const std::vector<GroupAddress> &replicas);
  // Every group's master and replicas at once (all[i] for group i), in one
  // snapshot: no reader sees some groups moved and others not. Checked
  // whole before anything changes (kInvalid: a count other than
  // group_count(), a master without host or port, a bad replica). The same
  // addresses again publish nothing.
  Status SetAllInstances(const std::vector<GroupInstances> &all);

  Status ReportFailure(uint32_t handle);
  Status ReportSuccess(uint32_t handle);

  // kNoTopology when no ring is set.
  Code Locate(const void *key, size_t len, uint32_t *group) const;
  // fill(*out, ctx), when given, runs while the snapshot is still read, so
  // it may copy the instance's host: the registry entry is pinned by that
  // snapshot, not by the caller, and a live client's table (reclaim_nodes)
  // frees it once two changes have passed — which a Sentinel failover can
  // make in a moment. After the call out->node is the caller's to guard.
  using RouteFill = void (*)(const Route &route, void *ctx);
  // out->shard is the group, out->slot 0. kUnavailable: no master known.
  Code RouteWrite(const void *key, size_t len, Route *out, RouteFill fill = nullptr,
                  void *ctx = nullptr) const;
  // kUnavailable: every instance is down or the group has none.
  Code RouteRead(const void *key, size_t len, Route *out, RouteFill fill = nullptr,
                 void *ctx = nullptr) const;
  // Calls emit(const Candidate &, bool down) for each instance of the key's
  // group in read order; *group gets the group. Never allocates.
  template <typename Emit>
  Code VisitReadOrder(const void *key, size_t len, uint32_t *group, Emit &&emit) const;
  // The same into an array: up to cap entries; *count gets the instance count.
  Code ReadOrder(const void *key, size_t len, uint32_t *group, PolledCandidate *out, size_t cap,
                 size_t *count) const;

  NodeRegistry &registry() { return *registry_; }
  const RouterConfig &config() const { return cfg_; }
  // The cell the snapshots are published in (GroupSnapshot; see above).
  const SnapshotCell &cell() const { return cell_; }

 private:
  struct Group {
    std::string name;
    GroupAddress master;  // port 0: unknown
    std::vector<GroupAddress> replicas;
  };

  // REQUIRES: mu_ held.
  Status PublishLocked();
  // REQUIRES: mu_ held, group checked.
  Status ReplaceLocked(uint32_t group, GroupAddress master, std::vector<GroupAddress> replicas);
  // The set's shard_id views a copy of the name kept in *names.
  Result<CandidateSet> BuildSet(const Group &g, TextArena *names) const;
  Status CheckGroup(uint32_t group) const;
  // fn(NodeEntry *) on the instance a handle names; kNotFound for none.
  template <typename Fn>
  Status WithInstance(uint32_t handle, Fn &&fn);

  const RouterConfig cfg_;
  std::shared_ptr<NodeRegistry> registry_;
  SnapshotCell cell_;
  std::atomic<size_t> count_{0};

  mutable std::mutex mu_;  // guards everything below and serializes publishing
  std::vector<Group> groups_;
  std::unordered_map<std::string, uint32_t> by_name_;
  std::shared_ptr<const Ring> ring_;
  uint64_t generation_ = 0;
  NodePins previous_;  // the instances of the snapshot the last change replaced
};

template <typename Emit>
Code ShardGroups::VisitReadOrder(const void *key, size_t len, uint32_t *group, Emit &&emit) const {
  SnapshotCell::Guard g = cell_.Read();
  const auto *s = static_cast<const GroupSnapshot *>(g.get());
  if (s->ring == nullptr) return Code::kNoTopology;
  *group = s->ring->Locate(key, len);
  const CandidateSet &set = s->sets[*group];
  // One clock read and one seed for both passes — live instances in poll
  // order, then those whose breaker is open — so both walk the same order.
  // A probe that is due counts as live: trying it is how the breaker closes.
  const int64_t now = registry_->clock()();
  // Round-robin selection replays one ticket instead. (Least-loaded reads
  // the instances' loads again in the second pass: it lists only those
  // marked down, whose order is the fallback's.)
  const bool round_robin = set.selection == Selection::kRoundRobin;
  const uint64_t seed = round_robin ? set.ticket.Take() : registry_->NextRandom();
  for (int pass = 0; pass < 2; ++pass) {
    const bool want_down = pass == 1;
    uint64_t state = seed;
    VisitInPollOrder(
        set,
        [&](const CandidateRank &rank, uint32_t begin, uint32_t n) -> uint32_t {  // replayed
          if (round_robin) return RoundRobinStart(set, rank, begin, n, seed);
          const uint64_t r1 = SplitMix64Next(&state);
          if (set.selection != Selection::kLeastLoaded) return RandomStart(set, rank, begin, n, r1);
          return LeastLoadedStart(set, rank, begin, n, r1, SplitMix64Next(&state), now);
        },
        [&](const Candidate &c) {
          const bool down = c.node->health.State(now) == HealthState::kDown;
          if (down == want_down) emit(c, down);
          return false;
        });
  }
  return Code::kOk;
}

}  // namespace cloudroute
