#include "cloudroute/core/candidates.hpp"

#include <algorithm>

namespace cloudroute {

namespace {

// Scratch for n values: on the stack up to kSmall (a shard has a few
// nodes), on the heap beyond, so building a set allocates its list and
// ranks only.
template <typename T>
class Scratch {
 public:
  static constexpr size_t kSmall = 16;
  explicit Scratch(size_t n) : p_(small_) {
    if (n > kSmall) {
      big_.resize(n);
      p_ = big_.data();
    }
  }
  Scratch(const Scratch &) = delete;
  Scratch &operator=(const Scratch &) = delete;
  T &operator[](size_t i) { return p_[i]; }
  T *data() { return p_; }

 private:
  T small_[kSmall] = {};
  std::vector<T> big_;
  T *p_;
};

}  // namespace

void AssignRanks(CandidateSet *set, const uint64_t *keys) {
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

void AssignRanks(CandidateSet *set, const std::vector<uint64_t> &keys) {
  AssignRanks(set, keys.data());
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

  // The master, then every replica that is online (one loading or failed
  // cannot serve reads), that has an endpoint and the policy reads from.
  auto admitted = [&](uint32_t n) {
    return facts[n].entry != nullptr && PolicyAdmits(opts.policy, t.nodes[n].role) &&
           (n == s.master || t.nodes[n].health == ReportedHealth::kOnline);
  };
  size_t count = admitted(s.master) ? 1u : 0u;
  for (uint32_t r : s.replicas) count += admitted(r) ? 1u : 0u;
  set.list.reserve(count);  // kept as long as the snapshot: no growth slack
  auto add = [&](uint32_t n) {
    if (!admitted(n)) return;
    const NodeFacts &f = facts[n];
    set.list.push_back(Candidate{f.entry, n, t.nodes[n].role, f.tier, 0, f.weight,
                                 f.entry->rtt_us.load(std::memory_order_relaxed),
                                 f.lagging && t.nodes[n].role == Role::kReplica});
  };
  add(s.master);
  for (uint32_t r : s.replicas) add(r);
  const size_t n = set.list.size();

  // NEAREST bands: sorted by RTT, a band holds every node within `margin` of
  // the band's fastest, so near-equal nodes share load instead of the single
  // fastest one taking everything.
  Scratch<uint32_t> band(n);
  Scratch<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  if (opts.policy == Policy::kNearest) {
    std::sort(order.data(), order.data() + n,
              [&](size_t a, size_t b) { return set.list[a].rtt_us < set.list[b].rtt_us; });
    uint32_t current = 0, floor = 0;
    bool open = false;
    for (size_t k = 0; k < n; ++k) {
      const size_t i = order[k];
      const uint32_t rtt = set.list[i].rtt_us;
      if (rtt == 0) continue;
      if (!open || rtt > floor + opts.nearest_margin_us) {
        if (open) ++current;
        floor = rtt;
        open = true;
      }
      band[i] = current;
    }
    for (size_t i = 0; i < n; ++i) order[i] = i;
  }

  Scratch<uint64_t> keys(n);
  for (size_t i = 0; i < n; ++i) {
    const Candidate &c = set.list[i];
    keys[i] = RankKey(opts.policy, RankInput{c.role, c.tier, c.rtt_us}, band[i]);
    // A replica lagging past the configured bound stays a candidate — a last
    // resort when nothing else answers — but after every other node.
    if (c.lagging) keys[i] |= 1ull << 56;
  }
  // Deterministic order: by rank key, then by address — every language and
  // every run gives the same list.
  std::sort(order.data(), order.data() + n, [&](size_t a, size_t b) {
    if (keys[a] != keys[b]) return keys[a] < keys[b];
    return set.list[a].node->address < set.list[b].node->address;
  });
  Scratch<Candidate> sorted(n);
  Scratch<uint64_t> sorted_keys(n);
  for (size_t k = 0; k < n; ++k) {
    sorted[k] = set.list[order[k]];
    sorted_keys[k] = keys[order[k]];
  }
  std::copy(sorted.data(), sorted.data() + n, set.list.begin());
  AssignRanks(&set, sorted_keys.data());
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
