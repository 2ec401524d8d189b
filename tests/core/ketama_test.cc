// Ketama as libmemcached and twemproxy build it: points per server in
// float, four points per MD5 digest, stable tie order, vectors.
#include "cloudroute/core/ketama.hpp"

#include <gtest/gtest.h>

#include <string>

#include "cloudroute/core/md5.hpp"
#include "cloudroute/core/ring.hpp"
#include "ring_vectors.hpp"

namespace ketama_test {

using namespace cloudroute;

TEST(Ketama, PointsPerServer) {
  // Equal weights: 160 points each, except where float rounding leaves
  // 1/n * 40 * n just under 40 (computed independently by ring_vectors.py).
  for (uint32_t n = 1; n <= 64; ++n) {
    const bool short_by_one = n == 25 || n == 47 || n == 50 || n == 55 || n == 61;
    EXPECT_EQ(KetamaPoints(1, n, n), short_by_one ? 156u : 160u) << n;
  }
  EXPECT_EQ(KetamaPoints(1, 5, 4), 128u);
  EXPECT_EQ(KetamaPoints(2, 5, 4), 256u);
  EXPECT_EQ(KetamaPoints(3, 10, 3), 144u);
  // In exact arithmetic 1/25 * 40 * 10 is 16 groups (64 points); C's float
  // evaluation gives 15.999999 and so 60 points. The float value is what
  // libmemcached and twemproxy use, so it is what we use.
  EXPECT_EQ(KetamaPoints(1, 25, 10), 60u);
  EXPECT_EQ(KetamaPoints(7, 24, 9), 416u);
  EXPECT_EQ(KetamaPoints(1, 1000001, 2), 0u);  // too light to get a point
}

TEST(Ketama, RingsMatchVectors) {
  EXPECT_EQ(crtest::CheckRingCases("ketama"), 4);
  for (const auto &c : crtest::RingVectors()["rings"]) {
    if (c["algo"] != "ketama") continue;
    uint64_t total = 0;
    for (const auto &s : c["shards"]) total += s["weight"].get<uint64_t>();
    for (size_t i = 0; i < c["shards"].size(); ++i) {
      EXPECT_EQ(KetamaPoints(c["shards"][i]["weight"].get<uint64_t>(), total,
                             static_cast<uint32_t>(c["shards"].size())),
                c["points_per_server"][i].get<uint32_t>());
    }
  }
}

// A key hashing exactly to a server's point belongs to that server; one
// above it, to the owner of the next point.
TEST(Ketama, FirstPointAtOrAfterTheKey) {
  RingOptions o;
  o.algo = RingAlgo::kKetama;
  RingBuilder b(o);
  ASSERT_TRUE(b.AddShard("10.0.0.1:6379", 13, 1).ok());
  ASSERT_TRUE(b.AddShard("10.0.0.2:6379", 13, 1).ok());
  auto ring = *b.Build();
  EXPECT_EQ(ring->point_count(), 320u);
  // Points of server 1, group 0: MD5("10.0.0.2:6379-0") words 0..3. Find a
  // key that hashes to at most that point by search, then check the owner
  // agrees with a linear scan over all points.
  std::vector<std::pair<uint32_t, uint32_t>> pts;
  for (uint32_t s = 0; s < 2; ++s) {
    for (int k = 0; k < 40; ++k) {
      const std::string p = "10.0.0." + std::to_string(s + 1) + ":6379-" + std::to_string(k);
      const Md5Digest d = Md5Of(p.data(), p.size());
      for (int w = 0; w < 4; ++w) pts.emplace_back(Md5Word(d, w), s);
    }
  }
  for (int i = 0; i < 5000; ++i) {
    const std::string key = "k" + std::to_string(i);
    const uint32_t h = Md5Word(Md5Of(key.data(), key.size()), 0);
    uint32_t best = 0, best_owner = 0, min = UINT32_MAX, min_owner = 0;
    bool found = false;
    for (const auto &p : pts) {
      if (p.first >= h && (!found || p.first < best))
        best = p.first, best_owner = p.second, found = true;
      if (p.first < min) min = p.first, min_owner = p.second;
    }
    ASSERT_EQ(ring->Locate(key.data(), key.size()), found ? best_owner : min_owner) << key;
  }
}

TEST(Ketama, NamesAreRequiredAndBounded) {
  RingOptions o;
  o.algo = RingAlgo::kKetama;
  RingBuilder b(o);
  Status s = b.AddShard(nullptr, 0, 1);
  EXPECT_EQ(s.code(), Code::kInvalid);
  EXPECT_NE(s.message().find("needs a name"), std::string::npos);
  // "S-39" must fit twemproxy's 85 bytes: an 82-byte name does (82+1+2),
  // an 83-byte one does not.
  const std::string ok(82, 'n'), too_long(83, 'm');
  RingBuilder b1(o);
  ASSERT_TRUE(b1.AddShard(ok.data(), ok.size(), 1).ok());
  EXPECT_TRUE(b1.Build().ok());
  RingBuilder b2(o);
  ASSERT_TRUE(b2.AddShard(too_long.data(), too_long.size(), 1).ok());
  auto r = b2.Build();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), Code::kInvalid);
  EXPECT_NE(r.status().message().find("too long"), std::string::npos);
  // MURMUR is not a ketama hash.
  o.hash = RingHash::kMurmur;
  EXPECT_EQ(ValidateRingOptions(o).code(), Code::kInvalid);
}

}  // namespace ketama_test
