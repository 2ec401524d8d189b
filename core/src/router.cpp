#include "cloudroute/core/router.hpp"

#include <algorithm>
#include <array>
#include <cstring>

namespace cloudroute {

Router::Router(RouterConfig cfg, ClockFn clock)
    : cfg_(std::move(cfg)),
      registry_(std::make_shared<NodeRegistry>(cfg_.health, clock, RegistrySeed(cfg_))),
      migrations_(std::make_shared<SlotMigrations>(registry_->clock(), cfg_.migration_ttl_ms)),
      recent_moves_(registry_->clock()) {}

Status Router::RebuildLocked() {
  if (topology_ == nullptr) return Status::Ok();
  SnapshotInputs in;
  in.topology = topology_;
  in.config = &cfg_;
  in.registry = registry_;
  in.zone_overrides = &zones_;
  in.lagging = &lagging_;
  in.moved = &moved_;
  in.migrations = migrations_;
  in.generation = ++generation_;
  auto snap = BuildSnapshot(in);
  if (!snap.ok()) return snap.status();
  cell_.Publish(std::move(*snap));
  return Status::Ok();
}

namespace {

// Into *zones: the zone `before` gave each node that `after` gives none.
void CarryZones(const Topology *before, const Topology &after,
                std::unordered_map<std::string, std::string> *zones) {
  if (before == nullptr) return;
  auto zoneless = [](const TopoNode &n) { return n.zone().empty() && n.endpoint_known(); };
  if (std::none_of(after.nodes.begin(), after.nodes.end(), zoneless)) return;
  std::unordered_map<std::string, std::string_view> known;
  for (const TopoNode &n : before->nodes) {
    if (!n.zone().empty() && n.endpoint_known()) known.emplace(n.address(), n.zone());
  }
  if (known.empty()) return;
  for (const TopoNode &n : after.nodes) {
    if (!zoneless(n)) continue;
    auto it = known.find(n.address());
    if (it != known.end()) (*zones)[it->first] = std::string(it->second);
  }
}

}  // namespace

void Router::MarkMovedSlots(const Snapshot *before, const Snapshot *after) {
  if (before == nullptr || after == nullptr) return;
  // Slots come in runs of one set on each side: the masters are compared
  // once a run, and four slots inside a run cost two 64-bit loads (every
  // update pays this loop).
  const uint16_t *a = before->slot_to_set.data(), *b = after->slot_to_set.data();
  std::array<uint64_t, kSlotCount / 64> moved{};
  bool any = false, run_moved = false;
  uint16_t run_a = kNoShard, run_b = kNoShard;
  uint64_t four_a = ~uint64_t{0}, four_b = ~uint64_t{0};  // the run's sets, four times
  for (uint32_t slot = 0; slot < kSlotCount; slot += 4) {
    uint64_t wa, wb;
    std::memcpy(&wa, a + slot, sizeof wa);
    std::memcpy(&wb, b + slot, sizeof wb);
    if (wa == four_a && wb == four_b) {
      if (run_moved) moved[slot >> 6] |= uint64_t{0xF} << (slot & 63);
      continue;
    }
    for (uint32_t s = slot; s < slot + 4; ++s) {
      if (a[s] != run_a || b[s] != run_b) {
        run_a = a[s];
        run_b = b[s];
        four_a = uint64_t{run_a} * 0x0001000100010001ull;
        four_b = uint64_t{run_b} * 0x0001000100010001ull;
        const NodeEntry *ma = run_a == kNoShard ? nullptr : before->sets[run_a].master;
        const NodeEntry *mb = run_b == kNoShard ? nullptr : after->sets[run_b].master;
        run_moved = ma != nullptr && mb != nullptr && ma != mb;
        any = any || run_moved;
      }
      if (run_moved) moved[s >> 6] |= uint64_t{1} << (s & 63);
    }
  }
  if (any) recent_moves_.Mark(moved);
}

Status Router::Update(std::shared_ptr<const Topology> topology) {
  if (topology == nullptr) return Error(Code::kInvalid, "topology is NULL");
  std::lock_guard<std::mutex> lock(mu_);
  CarryZones(topology_.get(), *topology, &zones_);
  auto prev = std::move(topology_);
  auto prev_moved = std::move(moved_);
  topology_ = std::move(topology);
  moved_.clear();
  const std::shared_ptr<const Snapshot> replaced = cell_.Acquire();
  Status s = RebuildLocked();
  if (!s.ok()) {
    topology_ = std::move(prev);
    moved_ = std::move(prev_moved);
    return s;
  }
  refresh_needed_.store(false, std::memory_order_relaxed);
  MarkMovedSlots(replaced.get(), cell_.Acquire().get());
  // The replaced snapshot's nodes (pinned by it, so pinning again is safe)
  // and the ASK targets since the last update stay one more update: a caller
  // that routed just before this update still holds valid handles and hosts.
  NodePins keep;
  if (replaced != nullptr) keep.AddAll(replaced->pins);
  keep.AddAll(asked_);
  asked_.Clear();
  previous_ = std::move(keep);
  if (cfg_.reclaim_nodes) registry_->Reclaim();
  return Status::Ok();
}

Status Router::ReportMoved(uint32_t slot, const std::string &host, uint16_t port) {
  if (slot >= kSlotCount) {
    return Error(Code::kInvalid, "slot " + std::to_string(slot) + " is outside 0-16383");
  }
  if (host.empty() || port == 0)
    return Error(Code::kInvalid, "MOVED target needs a host and a port");
  // The migration is over for this client: the new owner's replicas serve it.
  const bool cleared = migrations_->Clear(static_cast<uint16_t>(slot));
  std::lock_guard<std::mutex> lock(mu_);
  refresh_needed_.store(true, std::memory_order_relaxed);
  if (topology_ == nullptr)
    return Error(Code::kNoTopology, "MOVED before any topology was installed");
  auto target = registry_->Intern(host, port);
  if (!target.ok()) return target.status();
  // A storm of MOVED for the same slot and target costs one rebuild.
  Route current;
  if (cell_.Read().get()->RouteWrite(static_cast<uint16_t>(slot), &current) == Code::kOk &&
      current.node == *target) {
    return cleared ? RebuildLocked() : Status::Ok();
  }
  recent_moves_.Mark(static_cast<uint16_t>(slot));
  for (MovedPatch &m : moved_) {
    if (m.slot == slot) {
      m.target = *target;
      return RebuildLocked();
    }
  }
  moved_.push_back(MovedPatch{static_cast<uint16_t>(slot), *target});
  return RebuildLocked();
}

Result<NodeEntry *> Router::ReportAsk(uint32_t slot, const std::string &host, uint16_t port) {
  if (slot >= kSlotCount) {
    return Error(Code::kInvalid, "slot " + std::to_string(slot) + " is outside 0-16383");
  }
  if (host.empty() || port == 0) return Error(Code::kInvalid, "ASK target needs a host and a port");
  std::lock_guard<std::mutex> lock(mu_);  // an Update cannot reclaim it before it is pinned
  auto target = registry_->Intern(host, port);
  if (!target.ok()) return target;
  if (!asked_.Contains(*target)) asked_.Add(*target);
  if (migrations_->Mark(static_cast<uint16_t>(slot))) {
    Status s = RebuildLocked();
    if (!s.ok()) return s;
  }
  return target;
}

Status Router::ReportMigrating(uint32_t slot, bool migrating) {
  if (slot >= kSlotCount) {
    return Error(Code::kInvalid, "slot " + std::to_string(slot) + " is outside 0-16383");
  }
  const bool changed = migrating ? migrations_->Mark(static_cast<uint16_t>(slot))
                                 : migrations_->Clear(static_cast<uint16_t>(slot));
  if (!changed) return Status::Ok();
  std::lock_guard<std::mutex> lock(mu_);
  return RebuildLocked();
}

Status Router::SyncMigrating(const SlotSet &scanned, const SlotSet &migrating, int64_t started_ns) {
  if (!migrations_->Sync(scanned, migrating, started_ns)) return Status::Ok();
  std::lock_guard<std::mutex> lock(mu_);
  return RebuildLocked();
}

namespace {
Status StaleHandle(uint32_t handle) {
  return Error(Code::kNotFound, "no node with handle " + std::to_string(handle) +
                                    " (never given, or its node left the topology and was "
                                    "reclaimed: look the address up again)");
}
}  // namespace

Status Router::ReportFailure(uint32_t handle) {
  NodeEntry *e = registry_->Pin(handle);
  if (e == nullptr) return StaleHandle(handle);
  e->health.Failure(registry_->clock()(), registry_->health_config());
  NodeRegistry::Unpin(e);
  return Status::Ok();
}

Status Router::ReportSuccess(uint32_t handle) {
  NodeEntry *e = registry_->Pin(handle);
  if (e == nullptr) return StaleHandle(handle);
  e->health.Success();
  NodeRegistry::Unpin(e);
  return Status::Ok();
}

Status Router::SetRtt(uint32_t handle, uint32_t rtt_us) {
  NodeEntry *e = registry_->Pin(handle);
  if (e == nullptr) return StaleHandle(handle);
  e->rtt_us.store(rtt_us, std::memory_order_relaxed);
  NodeRegistry::Unpin(e);
  if (cfg_.policy != Policy::kNearest) return Status::Ok();  // order does not depend on RTT
  std::lock_guard<std::mutex> lock(mu_);
  return RebuildLocked();
}

Status Router::SetNodeZone(const std::string &host, uint16_t port, const std::string &zone) {
  if (host.empty() || port == 0) return Error(Code::kInvalid, "node needs a host and a port");
  std::lock_guard<std::mutex> lock(mu_);
  const std::string address = FormatAddress(host, port);
  auto it = zones_.find(address);
  if (it != zones_.end() && it->second == zone) return Status::Ok();
  zones_[address] = zone;
  return RebuildLocked();
}

Status Router::SetReplicaLagging(const std::string &host, uint16_t port, bool lagging) {
  if (host.empty() || port == 0) return Error(Code::kInvalid, "node needs a host and a port");
  std::lock_guard<std::mutex> lock(mu_);
  const std::string address = FormatAddress(host, port);
  const bool changed = lagging ? lagging_.insert(address).second : lagging_.erase(address) != 0;
  return changed ? RebuildLocked() : Status::Ok();
}

}  // namespace cloudroute
