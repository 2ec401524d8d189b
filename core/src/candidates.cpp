#include "cloudroute/core/candidates.hpp"

#include <algorithm>
#include <cstring>
#include <new>
#include <type_traits>

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

static_assert(std::is_trivially_copyable_v<Candidate> &&
                  std::is_trivially_copyable_v<CandidateRank>,
              "a list is copied as bytes");
static_assert(std::is_trivially_destructible_v<Candidate> &&
                  std::is_trivially_destructible_v<CandidateRank>,
              "a list is freed without destructors");
static_assert(sizeof(Candidate) % alignof(CandidateRank) == 0 &&
                  alignof(CandidateRank) <= alignof(Candidate),
              "the ranks after the candidates are aligned");

void CandidateList::Reset(const Candidate *c, size_t n, size_t rank_count,
                          const CandidateRank *ranks) {
  Candidate *p = nullptr;
  if (n + rank_count != 0) {
    void *block = ::operator new(n * sizeof(Candidate) + rank_count * sizeof(CandidateRank));
    p = static_cast<Candidate *>(block);
    if (n != 0) std::memcpy(static_cast<void *>(p), c, n * sizeof(Candidate));
    CandidateRank *r = reinterpret_cast<CandidateRank *>(p + n);
    for (size_t i = 0; i < rank_count; ++i) {
      new (r + i) CandidateRank(ranks != nullptr ? ranks[i] : CandidateRank{0, 0});
    }
  }
  Free();  // after the copy: c may point into this list
  data_ = p;
  n_ = static_cast<uint32_t>(n);
  r_ = static_cast<uint32_t>(rank_count);
}

void CandidateList::Free() {
  ::operator delete(static_cast<void *>(data_));
  data_ = nullptr;
  n_ = r_ = 0;
}

void AssignRanks(CandidateSet *set, const Candidate *list, size_t n, const uint64_t *keys) {
  size_t ranks = 0;
  for (size_t i = 0; i < n; ++i) {
    if (i == 0 || keys[i] != keys[i - 1]) ++ranks;
  }
  set->list.Reset(list, n, ranks);  // kept as long as the snapshot: sized exactly
  CandidateRank *rank = set->list.ranks();
  size_t r = 0;
  for (size_t i = 0; i < n; ++i) {
    if (i != 0 && keys[i] != keys[i - 1]) ++r;
    set->list[i].rank = static_cast<uint16_t>(std::min<size_t>(r, 0xFFFF));
    rank[r].end = static_cast<uint32_t>(i + 1);
    rank[r].weight += set->list[i].weight;
  }
}

void AssignRanks(CandidateSet *set, const uint64_t *keys) {
  AssignRanks(set, set->list.data(), set->list.size(), keys);
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
  Scratch<Candidate> list(1 + s.replicas.size());
  size_t n = 0;
  auto add = [&](uint32_t node) {
    if (!admitted(node)) return;
    const NodeFacts &f = facts[node];
    list[n++] = Candidate{f.entry,
                          static_cast<uint16_t>(node),  // < kNoTopoNode: BuildSnapshot checks
                          t.nodes[node].role,
                          f.tier,
                          0,
                          f.lagging && t.nodes[node].role == Role::kReplica,
                          f.weight,
                          f.entry->rtt_us.load(std::memory_order_relaxed)};
  };
  add(s.master);
  for (uint32_t r : s.replicas) add(r);

  // NEAREST bands: sorted by RTT, a band holds every node within `margin` of
  // the band's fastest, so near-equal nodes share load instead of the single
  // fastest one taking everything.
  Scratch<uint32_t> band(n);
  Scratch<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  if (opts.policy == Policy::kNearest) {
    std::sort(order.data(), order.data() + n,
              [&](size_t a, size_t b) { return list[a].rtt_us < list[b].rtt_us; });
    uint32_t current = 0, floor = 0;
    bool open = false;
    for (size_t k = 0; k < n; ++k) {
      const size_t i = order[k];
      const uint32_t rtt = list[i].rtt_us;
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
    const Candidate &c = list[i];
    keys[i] = RankKey(opts.policy, RankInput{c.role, c.tier, c.rtt_us}, band[i]);
    // A replica lagging past the configured bound stays a candidate — a last
    // resort when nothing else answers — but after every other node.
    if (c.lagging) keys[i] |= 1ull << 56;
  }
  // Deterministic order: by rank key, then by address — every language and
  // every run gives the same list.
  std::sort(order.data(), order.data() + n, [&](size_t a, size_t b) {
    if (keys[a] != keys[b]) return keys[a] < keys[b];
    return list[a].node->address < list[b].node->address;
  });
  Scratch<Candidate> sorted(n);
  Scratch<uint64_t> sorted_keys(n);
  for (size_t k = 0; k < n; ++k) {
    sorted[k] = list[order[k]];
    sorted_keys[k] = keys[order[k]];
  }
  AssignRanks(&set, sorted.data(), n, sorted_keys.data());
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
  const Candidate only{master,
                       kNoTopoNode,
                       Role::kMaster,
                       Tier::kUnknown,
                       0,
                       false,
                       1,
                       master->rtt_us.load(std::memory_order_relaxed)};
  const uint64_t key = 0;
  AssignRanks(&set, &only, 1, &key);
  return set;
}

}  // namespace cloudroute
