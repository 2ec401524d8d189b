// ParseClusterSlots / ParseClusterShards walk a reply's bytes directly when
// it holds only the plain forms, and give any other reply to the general
// path (frame, then walk: ParseClusterSlotsFramed / ParseClusterShardsFramed).
// Both paths must agree on every input: the same status, message and
// contradiction flag for a refusal, the same topology (every node's text,
// ports, role, health and shard; every shard's id, master, replicas and
// ranges; the slot runs) for an accepted reply. Checked here over the fuzz
// seeds and regressions, the saved examples and the scale replies, each as
// it is, cut short at every length, with single bytes changed (every
// seventh position under a sanitizer or an emulator), under
// tighter limits, and through both parsers (so a CLUSTER SLOTS reply is also
// refused as CLUSTER SHARDS, and the other way round).
#include <gtest/gtest.h>

#include <dirent.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cloudroute/core/cluster_reply.hpp"
#include "common/cluster_outcome.hpp"
#include "common/sanitizers.hpp"
#include "common/scale_replies.hpp"
#include "test_util.hpp"

namespace cloudroute {
namespace cluster_paths_test {

struct Counts {
  size_t accepted = 0;
  size_t refused = 0;
};

// Both paths of both parsers on one input, with and without a default host.
void Compare(const std::string &bytes, const RespLimits &limits, const std::string &what,
             Counts *counts) {
  for (const crtest::ClusterParser &p : crtest::kClusterParsers) {
    for (const char *host : {"", "10.9.8.7"}) {
      ClusterReplyOptions opts;
      opts.limits = limits;
      opts.default_host = host;
      const std::string framed = crtest::Outcome(p.framed(bytes, opts));
      ASSERT_EQ(crtest::Outcome(p.direct(bytes, opts)), framed)
          << p.name << ", " << what << ", default host '" << host << "'";
      ++(framed.compare(0, 8, "accepted") == 0 ? counts->accepted : counts->refused);
    }
  }
}

std::vector<std::string> Files(const std::string &dir) {
  std::vector<std::string> paths;
  DIR *d = opendir(dir.c_str());
  if (d == nullptr) return paths;
  while (dirent *e = readdir(d)) {
    if (e->d_name[0] != '.') paths.push_back(dir + "/" + e->d_name);
  }
  closedir(d);
  std::sort(paths.begin(), paths.end());
  return paths;
}

// Under a sanitizer or an emulator the cut and changed replies take every
// seventh position (the fuzz target covers the rest there): the package tree
// takes each.
constexpr size_t kStride = crtest::Loops<size_t>(1, 7);

// The saved replies: real ones (seeds, examples) and bad ones (regressions).
// Cut short or changed byte by byte, only those up to this size (all but two
// regressions of 16 and 49 KB, whose every prefix would take minutes).
constexpr size_t kVariedUpTo = 4096;

std::vector<std::pair<std::string, std::string>> Saved() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const char *dir : {"tests/fuzz/seeds/cluster_slots", "tests/fuzz/seeds/cluster_shards",
                          "tests/fuzz/regressions/cluster_slots",
                          "tests/fuzz/regressions/cluster_shards", "examples"}) {
    for (const std::string &path : Files(crtest::SourcePath(dir))) {
      out.emplace_back(path, crtest::ReadFile(path));
    }
  }
  return out;
}

TEST(ClusterPaths, SavedRepliesAsTheyAre) {
  const auto saved = Saved();
  ASSERT_GE(saved.size(), 40u);
  Counts counts;
  for (const auto &[path, bytes] : saved) {
    ASSERT_FALSE(bytes.empty()) << path;
    Compare(bytes, RespLimits{}, path, &counts);
  }
  // The real replies are accepted by their parser (with and without a
  // default host): the direct walk is compared on accepted replies too.
  EXPECT_GE(counts.accepted, 18u);
  EXPECT_GT(counts.refused, 0u);
}

TEST(ClusterPaths, ScaleReplies) {
  Counts counts;
  for (int shards : {1, 10, 100, 1000}) {
    Compare(crscale::ClusterSlots(shards), RespLimits{}, "scale slots", &counts);
    Compare(crscale::ClusterShards(shards), RespLimits{}, "scale shards", &counts);
  }
  EXPECT_EQ(counts.accepted, 16u);  // each by its own parser, with and without a default host
}

TEST(ClusterPaths, SavedRepliesCutShort) {
  Counts counts;
  for (const auto &[path, bytes] : Saved()) {
    if (bytes.size() > kVariedUpTo) continue;
    for (size_t n = 0; n < bytes.size(); n += kStride) {
      Compare(bytes.substr(0, n), RespLimits{}, path + " cut at " + std::to_string(n), &counts);
    }
  }
  EXPECT_GT(counts.refused, 0u);
}

TEST(ClusterPaths, SavedRepliesWithAByteChanged) {
  // Bytes that change a value's form, length, type or text: each position
  // of each reply takes one of them in turn (and the next one at the next
  // position), so every kind of change lands everywhere across the replies.
  const std::string subs = std::string("0159:$*%+-_#\r\n ?.~>|=!(,") + std::string(1, '\0');
  Counts counts;
  size_t k = 0;
  for (const auto &[path, bytes] : Saved()) {
    if (bytes.size() > kVariedUpTo) continue;
    for (size_t i = 0; i < bytes.size(); i += kStride, ++k) {
      std::string changed = bytes;
      changed[i] = subs[k % subs.size()];
      if (changed == bytes) continue;
      Compare(changed, RespLimits{}, path + " byte " + std::to_string(i), &counts);
    }
  }
  EXPECT_GT(counts.accepted, 0u);
  EXPECT_GT(counts.refused, 0u);
}

TEST(ClusterPaths, TighterLimits) {
  // Each cap the direct walk checks, set just around what the replies use,
  // and the memory ratio's floor (below which a reply's cost is refused).
  std::vector<std::pair<std::string, RespLimits>> limits;
  for (uint32_t v : {0u, 1u, 2u, 3u, 4u, 5u, 6u, 7u, 14u, 22u, 64u}) {
    RespLimits l;
    l.max_elements = v;
    limits.emplace_back("max_elements " + std::to_string(v), l);
  }
  for (uint64_t v : {0u, 1u, 5u, 8u, 9u, 15u, 16u, 39u, 40u, 41u}) {
    RespLimits l;
    l.max_bulk_len = v;
    limits.emplace_back("max_bulk_len " + std::to_string(v), l);
  }
  for (uint32_t v : {0u, 1u, 2u, 3u, 4u, 5u, 6u, 7u, 65u}) {
    RespLimits l;
    l.max_depth = v;
    limits.emplace_back("max_depth " + std::to_string(v), l);
  }
  for (uint64_t v : {0u, 100u, 750u, 751u, 1990u, 1999u}) {
    RespLimits l;
    l.max_total_bytes = v;
    limits.emplace_back("max_total_bytes " + std::to_string(v), l);
  }
  Counts counts;
  for (const auto &[path, bytes] : Saved()) {
    for (const auto &[name, l] : limits) Compare(bytes, l, path + ", " + name, &counts);
  }
  const std::string big = crscale::ClusterShards(1000);
  for (const auto &[name, l] : limits) Compare(big, l, "scale shards, " + name, &counts);
  EXPECT_GT(counts.accepted, 0u);
  EXPECT_GT(counts.refused, 0u);
}

TEST(ClusterPaths, MemoryRatio) {
  // Thousands of empty arrays cost the tree 72 bytes each for 4 bytes of
  // input: past kRespMemoryFloor the framer refuses them, at the byte where
  // the cost outgrows the ratio. The direct walk must hand over the same
  // replies: in a CLUSTER SHARDS shard field the walk ignores (within the
  // cap of that depth, 32768; refused from 8193 arrays on, when the tree's
  // vector would grow to 16384), and as CLUSTER SLOTS entries (within the
  // cap of 16384).
  Counts counts;
  for (size_t n : {1000u, 13000u, 14000u, 30000u, 32768u}) {
    std::string empties;
    for (size_t i = 0; i < n; ++i) empties += "*0\r\n";
    const std::string shards =
        "*2\r\n*6\r\n$5\r\nslots\r\n*0\r\n$5\r\nnodes\r\n*0\r\n$4\r\nmany\r\n*" +
        std::to_string(n) + "\r\n" + empties + crscale::ClusterShards(1).substr(4);
    Compare(shards, RespLimits{}, "shards with " + std::to_string(n) + " empty arrays", &counts);
    if (n <= 16384) {
      Compare("*" + std::to_string(n) + "\r\n" + empties, RespLimits{},
              "slots of " + std::to_string(n) + " empty arrays", &counts);
    }
  }
  EXPECT_GT(counts.accepted, 0u);
  EXPECT_GT(counts.refused, 0u);
}

}  // namespace cluster_paths_test
}  // namespace cloudroute
