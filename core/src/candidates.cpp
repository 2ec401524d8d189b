#include "cloudroute/core/candidates.hpp"

#include <algorithm>

namespace cloudroute {

void AssignRanks(CandidateSet *set, const std::vector<uint64_t> &keys) {
  set->ranks.clear();
  size_t ranks = 0;
  for (size_t i = 0; i < set->list.size(); ++i) {
    if (i == 0 || keys[i] != keys[i - 1]) ++ranks;
  }
  set->ranks.reserve(ranks);  // kept as long as the snapshot: no growth slack
  for (size_t i = 0; i < set->list.size(); ++i) {
    if (i == 0 || keys[i] != keys[i - 1]) set->ranks.push_back(CandidateRank{0, 0});
    set->list[i].rank = static_cast<uint32_t>(set->ranks.size() - 1);
    set->ranks.back().end = static_cast<uint32_t>(i + 1);
    set->ranks.back().weight += set->list[i].weight;
  }
}

CandidateSet BuildCandidates(const Topology &t, uint32_t shard, const std::vector<NodeFacts> &facts,
                             const CandidateOptions &opts) {
  const TopoShard &s = t.shards[shard];
  CandidateSet set;
  set.shard_id = s.id;
  set.master_topo = s.master;
  set.master = facts[s.master].entry;
  set.master_tier = facts[s.master].tier;
  set.selection = opts.selection;

  std::vector<uint32_t> members;
  members.push_back(s.master);
  for (uint32_t r : s.replicas) {
    // A replica that is loading or failed cannot serve reads.
    if (t.nodes[r].health == ReportedHealth::kOnline) members.push_back(r);
  }
  set.list.reserve(members.size());  // kept as long as the snapshot: no growth slack
  for (uint32_t n : members) {
    const NodeFacts &f = facts[n];
    if (f.entry == nullptr || !PolicyAdmits(opts.policy, t.nodes[n].role)) continue;
    set.list.push_back(Candidate{f.entry, n, t.nodes[n].role, f.tier, 0, f.weight,
                                 f.entry->rtt_us.load(std::memory_order_relaxed),
                                 f.lagging && t.nodes[n].role == Role::kReplica});
  }

  // NEAREST bands: sorted by RTT, a band holds every node within `margin` of
  // the band's fastest, so near-equal nodes share load instead of the single
  // fastest one taking everything.
  std::vector<uint32_t> band(set.list.size(), 0);
  if (opts.policy == Policy::kNearest) {
    std::vector<size_t> order(set.list.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return set.list[a].rtt_us < set.list[b].rtt_us; });
    uint32_t current = 0, floor = 0;
    bool open = false;
    for (size_t i : order) {
      const uint32_t rtt = set.list[i].rtt_us;
      if (rtt == 0) continue;
      if (!open || rtt > floor + opts.nearest_margin_us) {
        if (open) ++current;
        floor = rtt;
        open = true;
      }
      band[i] = current;
    }
  }

  std::vector<uint64_t> keys(set.list.size());
  for (size_t i = 0; i < set.list.size(); ++i) {
    const Candidate &c = set.list[i];
    keys[i] = RankKey(opts.policy, RankInput{c.role, c.tier, c.rtt_us}, band[i]);
    // A replica lagging past the configured bound stays a candidate — a last
    // resort when nothing else answers — but after every other node.
    if (c.lagging) keys[i] |= 1ull << 56;
  }
  // Deterministic order: by rank key, then by address — every language and
  // every run gives the same list.
  std::vector<size_t> idx(set.list.size());
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
    if (keys[a] != keys[b]) return keys[a] < keys[b];
    return set.list[a].node->address < set.list[b].node->address;
  });
  std::vector<Candidate> sorted;
  std::vector<uint64_t> sorted_keys;
  sorted.reserve(idx.size());
  for (size_t i : idx) {
    sorted.push_back(set.list[i]);
    sorted_keys.push_back(keys[i]);
  }
  set.list = std::move(sorted);
  AssignRanks(&set, sorted_keys);
  return set;
}

CandidateSet MasterFirstCandidates(const CandidateSet &set) {
  CandidateSet out = set;
  auto m = std::find_if(out.list.begin(), out.list.end(), [&](const Candidate &c) {
    return c.node == set.master && c.role == Role::kMaster;
  });
  if (set.master == nullptr || m == out.list.end()) return out;
  std::rotate(out.list.begin(), m, m + 1);
  // Rank keys: the master alone first, then each node's old rank.
  std::vector<uint64_t> keys(out.list.size());
  keys[0] = 0;
  for (size_t i = 1; i < out.list.size(); ++i)
    keys[i] = 1 + static_cast<uint64_t>(out.list[i].rank);
  AssignRanks(&out, keys);
  return out;
}

CandidateSet RedirectCandidates(NodeEntry *master, const CandidateOptions &opts) {
  CandidateSet set;
  set.shard_id = master->address;  // the entry is pinned as long as the set lives
  set.master = master;
  set.selection = opts.selection;
  if (!PolicyAdmits(opts.policy, Role::kMaster)) return set;
  set.list.push_back(Candidate{master, kNoNode, Role::kMaster, Tier::kUnknown, 0, 1,
                               master->rtt_us.load(std::memory_order_relaxed)});
  AssignRanks(&set, std::vector<uint64_t>{0});
  return set;
}

}  // namespace cloudroute
