#include "cloudroute/core/shard_group.hpp"

#include <algorithm>
#include <cstring>

namespace cloudroute {

namespace {

const GroupSnapshot *AsGroups(const Snapshot *s) { return static_cast<const GroupSnapshot *>(s); }

}  // namespace

ShardGroups::ShardGroups(RouterConfig cfg, ClockFn clock)
    : cfg_(std::move(cfg)),
      registry_(std::make_shared<NodeRegistry>(cfg_.health, clock, RegistrySeed(cfg_))) {
  auto empty = std::make_shared<GroupSnapshot>();
  empty->registry = registry_;
  empty->slot_to_set.fill(kNoShard);
  cell_.Publish(std::move(empty));
}

Status ShardGroups::CheckGroup(uint32_t group) const {
  if (group >= groups_.size()) {
    return Error(Code::kNotFound, "no group " + std::to_string(group) + " (there are " +
                                      std::to_string(groups_.size()) + ")");
  }
  return Status::Ok();
}

Result<uint32_t> ShardGroups::AddGroup(const std::string &name) {
  if (name.empty()) return Error(Code::kInvalid, "group name is empty");
  if (name.find('\0') != std::string::npos) {
    return Error(Code::kInvalid, "group name has a NUL byte");
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (by_name_.count(name) != 0) {
    return Error(Code::kInvalid, "duplicate group name '" + name + "' (group " +
                                     std::to_string(by_name_[name]) + ")");
  }
  if (groups_.size() >= kRingMaxShards) {
    return Error(Code::kLimit, "at most " + std::to_string(kRingMaxShards) + " groups");
  }
  const uint32_t index = static_cast<uint32_t>(groups_.size());
  groups_.push_back(Group{name, {}, {}});
  by_name_.emplace(name, index);
  Status s = PublishLocked();
  if (!s.ok()) {
    groups_.pop_back();
    by_name_.erase(name);
    return s;
  }
  count_.store(groups_.size(), std::memory_order_release);
  return index;
}

Result<uint32_t> ShardGroups::FindGroup(const std::string &name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = by_name_.find(name);
  if (it == by_name_.end()) return Error(Code::kNotFound, "no group named '" + name + "'");
  return it->second;
}

Status ShardGroups::SetRing(std::shared_ptr<const Ring> ring) {
  if (ring == nullptr) return Error(Code::kInvalid, "ring is NULL");
  std::lock_guard<std::mutex> lock(mu_);
  if (ring->shard_count() != groups_.size()) {
    return Error(Code::kInvalid, "the ring has " + std::to_string(ring->shard_count()) +
                                     " shards but there are " + std::to_string(groups_.size()) +
                                     " groups (ring shard i is group i)");
  }
  auto prev = std::move(ring_);
  ring_ = std::move(ring);
  Status s = PublishLocked();
  if (!s.ok()) ring_ = std::move(prev);
  return s;
}

namespace {

// An empty host is allowed: it clears the master (writes then fail fast).
Status CheckMaster(const std::string &host, uint16_t port) {
  if (!host.empty() && port == 0) return Error(Code::kInvalid, "master port is 0");
  if (host.find('\0') != std::string::npos) {
    return Error(Code::kInvalid, "master host has a NUL byte");
  }
  return Status::Ok();
}

Status CheckReplicas(const std::vector<GroupAddress> &replicas) {
  for (size_t i = 0; i < replicas.size(); ++i) {
    if (replicas[i].host.empty() || replicas[i].port == 0 ||
        replicas[i].host.find('\0') != std::string::npos) {
      return Error(Code::kInvalid,
                   "replica " + std::to_string(i) + " needs a host and a non-zero port");
    }
  }
  return Status::Ok();
}

bool SameAddress(const GroupAddress &a, const GroupAddress &b) {
  return a.host == b.host && a.port == b.port;
}

bool SameInstances(const GroupAddress &master, const std::vector<GroupAddress> &replicas,
                   const GroupAddress &other_master, const std::vector<GroupAddress> &others) {
  return SameAddress(master, other_master) && replicas.size() == others.size() &&
         std::equal(replicas.begin(), replicas.end(), others.begin(), SameAddress);
}

}  // namespace

// REQUIRES: mu_ held, group checked. Sets the group's master and replicas in
// one published snapshot; the same addresses again publish nothing; a failed
// publish leaves the group as it was.
Status ShardGroups::ReplaceLocked(uint32_t group, GroupAddress master,
                                  std::vector<GroupAddress> replicas) {
  Group &g = groups_[group];
  if (master.host.empty()) master.port = 0;
  if (SameInstances(g.master, g.replicas, master, replicas)) return Status::Ok();
  std::swap(g.master, master);
  std::swap(g.replicas, replicas);
  Status s = PublishLocked();
  if (!s.ok()) {
    g.master = std::move(master);
    g.replicas = std::move(replicas);
  }
  return s;
}

Status ShardGroups::SetMaster(uint32_t group, const std::string &host, uint16_t port) {
  if (Status s = CheckMaster(host, port); !s.ok()) return s;
  std::lock_guard<std::mutex> lock(mu_);
  if (Status s = CheckGroup(group); !s.ok()) return s;
  return ReplaceLocked(group, GroupAddress{host, port}, groups_[group].replicas);
}

Status ShardGroups::SetGroup(uint32_t group, const GroupAddress &master,
                             const std::vector<GroupAddress> &replicas) {
  if (Status s = CheckMaster(master.host, master.port); !s.ok()) return s;
  if (Status s = CheckReplicas(replicas); !s.ok()) return s;
  std::lock_guard<std::mutex> lock(mu_);
  if (Status s = CheckGroup(group); !s.ok()) return s;
  return ReplaceLocked(group, master, replicas);
}

Status ShardGroups::SetAllInstances(const std::vector<GroupInstances> &all) {
  for (size_t i = 0; i < all.size(); ++i) {
    const GroupAddress &m = all[i].master;
    if (m.host.empty() || m.port == 0 || m.host.find('\0') != std::string::npos) {
      return Error(Code::kInvalid,
                   "group " + std::to_string(i) + ": the master needs a host and a non-zero port");
    }
    if (Status s = CheckReplicas(all[i].replicas); !s.ok()) {
      return Error(Code::kInvalid, "group " + std::to_string(i) + ": " + s.message());
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  if (all.size() != groups_.size()) {
    return Error(Code::kInvalid, std::to_string(all.size()) + " server entries for " +
                                     std::to_string(groups_.size()) + " groups");
  }
  bool same = true;
  for (size_t i = 0; i < all.size() && same; ++i) {
    const Group &g = groups_[i];
    same = SameInstances(g.master, g.replicas, all[i].master, all[i].replicas);
  }
  if (same) return Status::Ok();
  std::vector<Group> prev = groups_;
  for (size_t i = 0; i < all.size(); ++i) {
    groups_[i].master = all[i].master;
    groups_[i].replicas = all[i].replicas;
  }
  Status s = PublishLocked();
  if (!s.ok()) groups_ = std::move(prev);
  return s;
}

Status ShardGroups::SetReplicas(uint32_t group, const std::vector<GroupAddress> &replicas) {
  if (Status s = CheckReplicas(replicas); !s.ok()) return s;
  std::lock_guard<std::mutex> lock(mu_);
  if (Status s = CheckGroup(group); !s.ok()) return s;
  return ReplaceLocked(group, groups_[group].master, replicas);
}

namespace {

Status UnknownInstance(uint32_t handle) {
  return Error(Code::kNotFound, "no instance with handle " + std::to_string(handle) +
                                    " (never given, or it left the groups and was reclaimed)");
}

}  // namespace

// A reclaiming table pins the instance for the call (a reclaimed slot may
// already name another address; Pin() refuses an entry no one pins); a
// standalone one never frees an entry, so a handle it gave stays good.
template <typename Fn>
Status ShardGroups::WithInstance(uint32_t handle, Fn &&fn) {
  NodeEntry *e = cfg_.reclaim_nodes ? registry_->Pin(handle) : registry_->Get(handle);
  if (e == nullptr) return UnknownInstance(handle);
  fn(e);
  if (cfg_.reclaim_nodes) NodeRegistry::Unpin(e);
  return Status::Ok();
}

Status ShardGroups::ReportFailure(uint32_t handle) {
  return WithInstance(handle, [&](NodeEntry *e) {
    e->health.Failure(registry_->clock()(), registry_->health_config());
  });
}

Status ShardGroups::ReportSuccess(uint32_t handle) {
  return WithInstance(handle, [](NodeEntry *e) { e->health.Success(); });
}

Result<CandidateSet> ShardGroups::BuildSet(const Group &g, TextArena *names) const {
  CandidateSet set;
  set.shard_id = names->Keep(g.name);
  std::vector<Candidate> list;
  list.reserve(1 + g.replicas.size());
  auto add = [&](const GroupAddress &a, Role role) -> Status {
    const std::string address = FormatAddress(a.host, a.port);
    for (const Candidate &c : list) {
      if (c.node->address == address) return Status::Ok();  // the master, or a repeat
    }
    auto entry = registry_->Intern(a.host, a.port);
    if (!entry.ok()) return entry.status();
    TopoNode node;
    TextArena host;
    if (Status s = host.Put(&node, "", a.host, "", ""); !s.ok()) return s;
    node.port = a.port;
    node.role = role;
    const Tier tier = TierOf(cfg_.locality.client, cloudroute::Locate(cfg_.locality, node, ""));
    uint32_t weight = 1;
    auto w = cfg_.weights.find(address);
    if (w != cfg_.weights.end()) weight = w->second;
    list.push_back(Candidate{*entry, kNoTopoNode, role, tier, 0, false, weight,
                             (*entry)->rtt_us.load(std::memory_order_relaxed)});
    if (role == Role::kMaster) {
      set.master = *entry;
      set.master_tier = tier;
    }
    return Status::Ok();
  };
  if (g.master.port != 0) {
    if (Status s = add(g.master, Role::kMaster); !s.ok()) return s;
  }
  for (const GroupAddress &r : g.replicas) {
    if (Status s = add(r, Role::kReplica); !s.ok()) return s;
  }
  // Ranks are tiers, nearest first; inside a tier, by address, so every run
  // and every language lists the same order.
  std::sort(list.begin(), list.end(), [](const Candidate &a, const Candidate &b) {
    if (a.tier != b.tier) return a.tier < b.tier;
    return a.node->address < b.node->address;
  });
  std::vector<uint64_t> keys;
  keys.reserve(list.size());
  for (const Candidate &c : list) keys.push_back(static_cast<uint64_t>(c.tier));
  AssignRanks(&set, list.data(), list.size(), keys.data());
  set.selection = cfg_.selection;
  return set;
}

Status ShardGroups::PublishLocked() {
  auto snap = std::make_shared<GroupSnapshot>();
  snap->registry = registry_;
  snap->slot_to_set.fill(kNoShard);
  snap->generation = ++generation_;
  snap->ring = ring_;
  snap->sets.reserve(groups_.size());
  for (const Group &g : groups_) {
    auto set = BuildSet(g, &snap->names);
    if (!set.ok()) return set.status();
    if (snap->sets.size() < kSlotCount - 1) {
      snap->slot_to_set[snap->sets.size()] = static_cast<uint16_t>(snap->sets.size());
    }
    // Pinned while a snapshot names them, as a router's are: the net
    // layer's per-node statistics list only pinned entries.
    for (const Candidate &c : set->list) {
      if (!snap->pins.Contains(c.node)) snap->pins.Add(c.node);
    }
    snap->sets.push_back(std::move(*set));
  }
  const std::shared_ptr<const Snapshot> replaced = cell_.Acquire();
  cell_.Publish(std::move(snap));
  // The replaced snapshot's instances (pinned by it, so pinning again is
  // safe) stay one more change: a caller that routed just before this one
  // still holds valid handles and hosts. Then, for a live client's table,
  // every instance no snapshot or caller pins any more is reclaimed.
  NodePins keep;
  if (replaced != nullptr) keep.AddAll(replaced->pins);
  previous_ = std::move(keep);
  if (cfg_.reclaim_nodes) registry_->Reclaim();
  return Status::Ok();
}

Code ShardGroups::Locate(const void *key, size_t len, uint32_t *group) const {
  SnapshotCell::Guard g = cell_.Read();
  const GroupSnapshot *s = AsGroups(g.get());
  if (s->ring == nullptr) return Code::kNoTopology;
  *group = s->ring->Locate(key, len);
  return Code::kOk;
}

Code ShardGroups::RouteWrite(const void *key, size_t len, Route *out, RouteFill fill,
                             void *ctx) const {
  SnapshotCell::Guard g = cell_.Read();
  const GroupSnapshot *s = AsGroups(g.get());
  if (s->ring == nullptr) return Code::kNoTopology;
  const uint32_t group = s->ring->Locate(key, len);
  const CandidateSet &set = s->sets[group];
  if (set.master == nullptr) return Code::kUnavailable;
  out->slot = 0;
  out->shard = group;
  out->node = set.master;
  out->role = Role::kMaster;
  out->tier = set.master_tier;
  if (fill != nullptr) fill(*out, ctx);  // the read still pins the instance
  return Code::kOk;
}

Code ShardGroups::RouteRead(const void *key, size_t len, Route *out, RouteFill fill,
                            void *ctx) const {
  SnapshotCell::Guard g = cell_.Read();
  const GroupSnapshot *s = AsGroups(g.get());
  if (s->ring == nullptr) return Code::kNoTopology;
  const uint32_t group = s->ring->Locate(key, len);
  const Candidate *c = SelectCandidate(s->sets[group], *registry_);
  if (c == nullptr) return Code::kUnavailable;
  out->slot = 0;
  out->shard = group;
  out->node = c->node;
  out->role = c->role;
  out->tier = c->tier;
  if (fill != nullptr) fill(*out, ctx);  // the read still pins the instance
  return Code::kOk;
}

Code ShardGroups::ReadOrder(const void *key, size_t len, uint32_t *group, PolledCandidate *out,
                            size_t cap, size_t *count) const {
  size_t n = 0;
  const Code c = VisitReadOrder(key, len, group, [&](const Candidate &cand, bool down) {
    if (n < cap) out[n] = PolledCandidate{cand, down};
    ++n;
  });
  *count = n;
  return c;
}

}  // namespace cloudroute
