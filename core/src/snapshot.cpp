#include "cloudroute/core/snapshot.hpp"

namespace cloudroute {

uint64_t RegistrySeed(const RouterConfig &cfg) {
  if (cfg.seed != 0) return cfg.seed;
  return static_cast<uint64_t>(SteadyNowNs()) ^ reinterpret_cast<uintptr_t>(&cfg);
}

namespace {

uint32_t WeightOf(const RouterConfig &cfg, const TopoNode &n) {
  if (cfg.weights.empty()) return 1;
  auto w = cfg.weights.find(n.address());
  if (w == cfg.weights.end() && !n.id().empty()) w = cfg.weights.find(std::string(n.id()));
  return w == cfg.weights.end() ? 1 : w->second;
}

std::string Why(Policy p, const Candidate &c, uint32_t margin) {
  const std::string tier = TierName(c.tier);
  switch (p) {
    case Policy::kMaster:
      return "the master (policy master reads from the master only)";
    case Policy::kPreferReplica:
      return c.role == Role::kReplica
                 ? "replica, tier " + tier + " (replicas first, nearest tier first)"
                 : "master, after every replica (policy prefer-replica)";
    case Policy::kLocal:
      return "tier " + tier +
             (c.role == Role::kMaster ? ", master first in its tier"
                                      : ", replica (its tier's master, if any, goes first)");
    case Policy::kLocalReplicasFirst:
      return "tier " + tier +
             (c.role == Role::kMaster ? ", master after its tier's replicas"
                                      : ", replicas first in their tier");
    case Policy::kLocalSpread:
      return "tier " + tier + ", " + (c.role == Role::kMaster ? "master" : "replica") +
             " sharing its tier's reads by weight";
    case Policy::kReplicaOnly:
      return "replica, tier " + tier + " (policy replica-only never reads a master)";
    case Policy::kNearest:
      if (c.rtt_us == 0) return "no RTT measured: after measured nodes, by tier " + tier;
      return "rtt " + std::to_string(c.rtt_us) + " us, band " + std::to_string(c.rank) +
             " (nodes within " + std::to_string(margin) + " us of a band's fastest share it)";
  }
  return "";
}

// Placements equal in every field share one key.
std::string PlaceKey(const Placement &p) {
  std::string key(1, p.local ? 'L' : p.client_region ? 'R' : '-');
  for (const std::string *f :
       {&p.location.cloud, &p.location.region, &p.location.zone, &p.source}) {
    key += std::to_string(f->size());
    key += ':';
    key += *f;
  }
  return key;
}

}  // namespace

std::string Snapshot::Explain(uint16_t slot) const {
  const CandidateSet *set = SetForSlot(slot);
  if (set == nullptr) return "slot " + std::to_string(slot) + ": served by no shard\n";
  const int64_t now = registry->clock()();
  std::string out = "slot " + std::to_string(slot) + " shard " + std::string(set->shard_id) +
                    " policy " + PolicyName(policy) +
                    (set->selection != Selection::kRandom
                         ? std::string(" selection ") + SelectionName(set->selection)
                         : std::string()) +
                    " write " + (set->master != nullptr ? set->master->address : std::string("?")) +
                    "\n";
  for (size_t i = 0; i < set->list.size(); ++i) {
    const Candidate &c = set->list[i];
    const char *health = HealthStateName(c.node->health.State(now));
    const std::string source =
        c.topo_node == kNoTopoNode ? "MOVED redirect" : placement(c.topo_node).source;
    out += "  " + std::to_string(i + 1) + ". " + c.node->address + " " +
           (c.role == Role::kMaster ? "master" : "replica") + " tier=" + TierName(c.tier) +
           " rank=" + std::to_string(c.rank) + " weight=" + std::to_string(c.weight) +
           " health=" + health + " location=" +
           (c.topo_node == kNoTopoNode ? std::string("?/?/?")
                                       : placement(c.topo_node).location.ToString()) +
           " from=" + source + " — " +
           (c.lagging ? std::string("replica lagging behind its master: last resort")
                      : Why(policy, c, nearest_margin_us)) +
           "\n";
  }
  if (set->list.empty()) out += "  (no read candidate)\n";
  if (SlotMigrating(slot)) {
    out += "  slot is migrating away from its master: reads go to the master (ASK-aware)\n";
  }
  return out;
}

Result<std::shared_ptr<const Snapshot>> BuildSnapshot(const SnapshotInputs &in) {
  const Topology &t = *in.topology;
  const RouterConfig &cfg = *in.config;
  auto snap = std::make_shared<Snapshot>();
  snap->topology = in.topology;
  snap->registry = in.registry;
  if (in.migrations != nullptr) {
    snap->migrations = in.migrations;
  } else {
    static const auto kNone = std::make_shared<const SlotMigrations>();
    snap->migrations = kNone;
  }
  snap->generation = in.generation;
  snap->policy = cfg.policy;
  snap->nearest_margin_us = cfg.nearest_margin_us;

  // Node indices and placements fit 16 bits (place_of, Candidate::topo_node):
  // TopologyBuilder builds no more nodes.
  if (t.nodes.size() >= kNoTopoNode) return Error(Code::kLimit, "more than 65534 nodes");
  std::vector<NodeFacts> facts(t.nodes.size());
  snap->place_of.resize(t.nodes.size());
  snap->pins.Reserve(t.nodes.size() + (in.moved != nullptr ? in.moved->size() : 0));
  std::vector<NodeEntry *> entries(t.nodes.size());  // nullptr: endpoint unknown
  Status interned = in.registry->InternAll(t, entries.data());
  if (!interned.ok()) return interned;
  std::unordered_map<std::string, uint16_t> place_index;  // PlaceKey → index in places
  // Without a node map, a node's placement follows from its CIDR rule and
  // its zone alone: located once per distinct pair, not once per node
  // (memo[rule + 1]: zone → index in places; kNoRule is index 0).
  const bool by_rule_and_zone = cfg.locality.by_node.empty();
  std::vector<std::unordered_map<std::string_view, uint16_t>> memo(
      by_rule_and_zone ? cfg.locality.rules.size() + 1 : 0);
  for (size_t i = 0; i < t.nodes.size(); ++i) {
    const TopoNode &n = t.nodes[i];
    NodeEntry *const entry = entries[i];
    if (entry != nullptr) snap->pins.Add(entry);
    // The topology's zone when it has one, else one learned elsewhere.
    std::string_view zone = n.zone();
    if (zone.empty() && in.zone_overrides != nullptr && entry != nullptr) {
      auto z = in.zone_overrides->find(entry->address);
      if (z != in.zone_overrides->end()) zone = z->second;
    }
    if (by_rule_and_zone) {
      const size_t rule = MatchRule(cfg.locality, n);
      auto &places_of_rule = memo[rule == kNoRule ? 0 : rule + 1];
      const auto known =
          places_of_rule.try_emplace(zone, static_cast<uint16_t>(snap->places.size()));
      if (known.second) snap->places.push_back(LocateByRule(cfg.locality, n, rule, zone));
      snap->place_of[i] = known.first->second;
    } else {
      Placement p = Locate(cfg.locality, n, zone);
      const auto place =
          place_index.emplace(PlaceKey(p), static_cast<uint16_t>(snap->places.size()));
      if (place.second) snap->places.push_back(std::move(p));
      snap->place_of[i] = place.first->second;
    }
    facts[i] = NodeFacts{
        entry, TierOf(cfg.locality.client, snap->placement(static_cast<uint32_t>(i))),
        WeightOf(cfg, n),
        entry != nullptr && in.lagging != nullptr && in.lagging->count(entry->address) != 0};
  }
  snap->places.shrink_to_fit();
  CandidateOptions copts{cfg.policy, cfg.nearest_margin_us, cfg.selection};
  snap->sets.reserve(t.shards.size());
  for (uint32_t s = 0; s < t.shards.size(); ++s) {
    snap->sets.push_back(BuildCandidates(t, s, facts, copts));
  }
  t.FillSlotTable(&snap->slot_to_set);
  if (in.moved != nullptr) {
    for (const MovedPatch &m : *in.moved) {
      snap->pins.Add(m.target);
      size_t target = snap->sets.size();
      for (size_t s = 0; s < snap->sets.size(); ++s) {
        if (snap->sets[s].master == m.target) {
          target = s;
          break;
        }
      }
      if (target == snap->sets.size()) {
        if (snap->sets.size() >= kNoShard) return Error(Code::kLimit, "too many shards");
        snap->sets.push_back(RedirectCandidates(m.target, copts));
      }
      snap->slot_to_set[m.slot] = static_cast<uint16_t>(target);
    }
  }
  // Migrating slots read their shard's master-first copy (made once per
  // shard). Expired marks are left out: any rebuild drops them. Only marked
  // slots are looked at, a word of marks at a time.
  std::vector<uint16_t> master_first;
  for (uint32_t w = 0; w < kSlotCount / 64; ++w) {
    for (uint64_t bits = snap->migrations->MarkedWord(w); bits != 0; bits &= bits - 1) {
      const auto slot =
          static_cast<uint16_t>(w * 64 + static_cast<uint32_t>(__builtin_ctzll(bits)));
      uint16_t &e = snap->slot_to_set[slot];
      if (e == kNoShard || !snap->migrations->Active(slot)) continue;
      if (master_first.empty()) master_first.assign(snap->sets.size(), kNoShard);
      if (master_first[e] == kNoShard) {
        if (snap->sets.size() >= kNoShard) return Error(Code::kLimit, "too many shards");
        master_first[e] = static_cast<uint16_t>(snap->sets.size());
        snap->sets.push_back(MasterFirstCandidates(snap->sets[e]));
      }
      e = master_first[e];
    }
  }
  return std::shared_ptr<const Snapshot>(std::move(snap));
}

}  // namespace cloudroute
