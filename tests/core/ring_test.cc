// The Ring facade and PointRing: lookup against a std::map model, input
// validation, and how many keys move when shards come and go.
#include "cloudroute/core/ring.hpp"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "cloudroute/core/point_ring.hpp"
#include "common/sanitizers.hpp"

namespace ring_test {

using namespace cloudroute;

template <typename T>
void CheckAgainstMap(size_t points, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<typename PointRing<T>::Point> pts;
  std::map<T, uint32_t> model;  // first owner wins
  for (size_t i = 0; i < points; ++i) {
    // Few distinct values now and then, so ties and runs happen.
    const T v = (i % 7 == 0 && i > 0) ? pts[i / 2].value : static_cast<T>(rng());
    const uint32_t owner = static_cast<uint32_t>(i % 13);
    pts.push_back({v, owner});
    model.emplace(v, owner);
  }
  PointRing<T> ring;
  ring.Build(pts, PointRing<T>::Ties::kFirstWins);
  ASSERT_EQ(ring.size(), model.size());
  auto expect = [&](T h) {
    auto it = model.lower_bound(h);
    if (it == model.end()) it = model.begin();
    return it->second;
  };
  for (int i = 0; i < 20000; ++i) {
    const T h = static_cast<T>(rng());
    ASSERT_EQ(ring.Lookup(h), expect(h)) << h;
  }
  for (const auto &p : model) {  // exactly on a point, and just past it
    ASSERT_EQ(ring.Lookup(p.first), p.second);
    ASSERT_EQ(ring.Lookup(static_cast<T>(p.first + 1)), expect(static_cast<T>(p.first + 1)));
  }
  ASSERT_EQ(ring.Lookup(0), expect(0));
  ASSERT_EQ(ring.Lookup(static_cast<T>(~T{0})), expect(static_cast<T>(~T{0})));
}

TEST(PointRing, MatchesOrderedMap) {
  for (size_t n : {1u, 2u, 3u, 100u, 640u, 10240u, 100000u}) {
    CheckAgainstMap<uint32_t>(n, static_cast<uint32_t>(n));
    CheckAgainstMap<uint64_t>(n, static_cast<uint32_t>(n) + 1);
  }
}

TEST(PointRing, TiesFirstOrLast) {
  using P = PointRing<uint32_t>::Point;
  std::vector<P> pts = {{100, 0}, {50, 1}, {100, 2}, {100, 3}, {7, 4}};
  PointRing<uint32_t> first, last;
  first.Build(pts, PointRing<uint32_t>::Ties::kFirstWins);
  last.Build(pts, PointRing<uint32_t>::Ties::kLastWins);
  EXPECT_EQ(first.size(), 3u);
  EXPECT_EQ(first.Lookup(100), 0u);
  EXPECT_EQ(last.Lookup(100), 3u);
  EXPECT_EQ(first.Lookup(51), 0u);
  EXPECT_EQ(first.Lookup(101), 4u);  // wraps to the first point (7)
  EXPECT_EQ(first.Lookup(0), 4u);
  EXPECT_EQ(first.Lookup(8), 1u);
}

// The sign bit: Jedis compares Java longs, so a negative hash comes first.
TEST(Ring, JedisOrderIsSigned) {
  RingBuilder b(RingOptions{});
  ASSERT_TRUE(b.AddShard("a", 1, 1).ok());
  ASSERT_TRUE(b.AddShard("b", 1, 1).ok());
  auto ring = *b.Build();
  std::map<int64_t, uint32_t> model;
  for (uint32_t i = 0; i < 2; ++i) {
    const std::string name = i == 0 ? "a" : "b";
    for (uint32_t n = 0; n < 160; ++n) {
      const std::string p = JedisPointName(JedisNaming::kJedis3, i, &name, 1, n);
      model[JedisHashOf(JedisHash::kMurmur, p.data(), p.size())] = i;
    }
  }
  ASSERT_LT(model.begin()->first, 0);
  ASSERT_GT(model.rbegin()->first, 0);
  for (int k = 0; k < 5000; ++k) {
    const std::string key = std::to_string(k);
    auto it = model.lower_bound(ring->KeyHash(key.data(), key.size()));
    if (it == model.end()) it = model.begin();
    ASSERT_EQ(ring->Locate(key.data(), key.size()), it->second);
  }
}

Status Add(RingBuilder *b, const std::string &name, int64_t weight) {
  return b->AddShard(name.data(), name.size(), weight);
}

TEST(Ring, RefusesBadInput) {
  RingBuilder b(RingOptions{});
  Status s = Add(&b, "a", 0);
  EXPECT_EQ(s.code(), Code::kInvalid);
  EXPECT_NE(s.message().find("weight 0 must be at least 1"), std::string::npos) << s.message();
  EXPECT_EQ(Add(&b, "a", -3).code(), Code::kInvalid);
  EXPECT_EQ(Add(&b, "a", 1000001).code(), Code::kInvalid);
  ASSERT_TRUE(Add(&b, "a", 1).ok());
  s = Add(&b, "a", 2);
  EXPECT_EQ(s.code(), Code::kInvalid);
  EXPECT_NE(s.message().find("duplicate name 'a' (also shard 0)"), std::string::npos)
      << s.message();
  s = b.AddShard("x\0y", 3, 1);
  EXPECT_EQ(s.code(), Code::kInvalid);
  EXPECT_NE(s.message().find("NUL byte at offset 1"), std::string::npos) << s.message();
  s = b.AddShard("", 0, 1);
  EXPECT_EQ(s.code(), Code::kInvalid);
  EXPECT_NE(s.message().find("empty name"), std::string::npos);
  EXPECT_TRUE(b.AddShard(nullptr, 0, 1).ok());  // unnamed Jedis shard
  EXPECT_TRUE(b.AddShard(nullptr, 0, 1).ok());  // unnamed shards are never duplicates
  EXPECT_EQ(b.shard_count(), 3u);

  auto empty = RingBuilder(RingOptions{}).Build();
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().code(), Code::kInvalid);
  EXPECT_NE(empty.status().message().find("empty ring"), std::string::npos);

  RingOptions o;
  o.algo = static_cast<RingAlgo>(9);
  EXPECT_EQ(ValidateRingOptions(o).code(), Code::kInvalid);
  EXPECT_NE(ValidateRingOptions(o).message().find("unknown ring algorithm 9"), std::string::npos);
  o = RingOptions{};
  o.hash = static_cast<RingHash>(3);
  EXPECT_EQ(ValidateRingOptions(o).code(), Code::kInvalid);
  o = RingOptions{};
  o.naming = static_cast<JedisNaming>(2);
  EXPECT_EQ(ValidateRingOptions(o).code(), Code::kInvalid);

  o = RingOptions{};
  o.algo = RingAlgo::kJump;
  RingBuilder j(o);
  s = Add(&j, "a", 2);
  EXPECT_EQ(s.code(), Code::kInvalid);
  EXPECT_NE(s.message().find("jump has no weights"), std::string::npos) << s.message();

  RingBuilder heavy(RingOptions{});
  ASSERT_TRUE(Add(&heavy, "big", 1000000).ok());
  auto r = heavy.Build();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kLimit);
}

TEST(Ring, ShardCap) {
  RingOptions opts;
  opts.algo = RingAlgo::kModulo;
  RingBuilder b(opts);
  for (size_t i = 0; i < kRingMaxShards; ++i) ASSERT_TRUE(b.AddShard(nullptr, 0, 1).ok());
  EXPECT_EQ(b.AddShard(nullptr, 0, 1).code(), Code::kLimit);
  auto ring = *b.Build();
  EXPECT_LT(ring->Locate("k", 1), kRingMaxShards);
}

// --------------------------------------------------------------- movement

struct Named {
  std::string name;
  int weight;
};

std::shared_ptr<const Ring> Make(RingOptions o, const std::vector<Named> &shards) {
  RingBuilder b(o);
  for (const Named &s : shards) {
    EXPECT_TRUE(b.AddShard(s.name.empty() ? nullptr : s.name.data(), s.name.size(), s.weight).ok());
  }
  return *b.Build();
}

std::vector<Named> Servers(int n) {
  std::vector<Named> v;
  for (int i = 0; i < n; ++i) v.push_back({"10.0.0." + std::to_string(i + 1) + ":6379", 1});
  return v;
}

// Fraction of 100 000 keys (10 000 under a sanitizer: the bounds below are
// the ring's spread, far wider than that sample's) whose shard name differs
// between two rings; fails if a key moves between two shards that both exist
// before and after (consistent hashing moves keys only to an added shard or
// off a removed one).
double Moved(const Ring &a, const Ring &b, const std::string &added, const std::string &removed) {
  constexpr int kKeys = crtest::Loops(100000, 10000);
  int moved = 0;
  for (int k = 0; k < kKeys; ++k) {
    const std::string key = "user:" + std::to_string(k);
    const std::string &x = a.shard(a.Locate(key.data(), key.size())).name;
    const std::string &y = b.shard(b.Locate(key.data(), key.size())).name;
    if (x == y) continue;
    ++moved;
    EXPECT_TRUE(y == added || x == removed) << key << ": " << x << " -> " << y;
  }
  return static_cast<double>(moved) / kKeys;
}

TEST(Ring, AddingOrRemovingMovesAboutOneNth) {
  for (RingAlgo algo : {RingAlgo::kJedis, RingAlgo::kKetama}) {
    for (RingHash hash : {RingHash::kMurmur, RingHash::kMd5}) {
      if (algo == RingAlgo::kKetama && hash == RingHash::kMurmur) continue;
      SCOPED_TRACE(std::string(RingAlgoName(algo)) + (hash == RingHash::kMd5 ? " md5" : " murmur"));
      RingOptions o;
      o.algo = algo;
      o.hash = hash;
      const std::vector<Named> ten = Servers(10), eleven = Servers(11);
      std::vector<Named> nine = ten;
      nine.erase(nine.begin() + 3);
      auto r10 = Make(o, ten), r11 = Make(o, eleven), r9 = Make(o, nine);
      const double add = Moved(*r10, *r11, eleven.back().name, "");
      EXPECT_GT(add, 0.5 / 11);
      EXPECT_LT(add, 1.5 / 11);
      const double remove = Moved(*r10, *r9, "", ten[3].name);
      EXPECT_GT(remove, 0.5 / 10);
      EXPECT_LT(remove, 1.5 / 10);
    }
  }
}

// Identity is the name: unnamed Jedis shards are named by position, so
// removing one from the middle renumbers the rest and moves far more keys
// than naming them would.
TEST(Ring, UnnamedJedisShardsAreIdentifiedByPosition) {
  RingOptions o;
  RingBuilder a(o), b(o);
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(a.AddShard(nullptr, 0, 1).ok());
  for (int i = 0; i < 9; ++i) ASSERT_TRUE(b.AddShard(nullptr, 0, 1).ok());
  auto r10 = *a.Build(), r9 = *b.Build();
  // Shard i of r9 stands for shard i (< 3) or i + 1 (>= 3) of r10 after
  // removing shard 3.
  int moved = 0;
  for (int k = 0; k < 20000; ++k) {
    const std::string key = std::to_string(k);
    const uint32_t before = r10->Locate(key.data(), key.size());
    uint32_t after = r9->Locate(key.data(), key.size());
    if (after >= 3) ++after;
    moved += before != after;
  }
  EXPECT_GT(moved, 20000 * 4 / 10);  // far more than the 1/10 a named ring moves
}

}  // namespace ring_test
