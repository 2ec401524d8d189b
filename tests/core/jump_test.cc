// Jump consistent hash: Guava's golden values, vectors, and the property
// that makes it consistent — growing n moves keys only to the new bucket.
#include "cloudroute/core/jump.hpp"

#include <gtest/gtest.h>

#include "cloudroute/core/murmur64a.hpp"
#include "ring_vectors.hpp"

namespace jump_test {

using cloudroute::JumpConsistentHash;

TEST(Jump, GuavaGoldenValues) {
  const int golden100[] = {0,  55, 62, 8,  45, 59, 86, 97, 82, 59,
                           73, 37, 17, 56, 86, 21, 90, 37, 38, 83};
  for (int i = 0; i < 20; ++i)
    EXPECT_EQ(JumpConsistentHash(static_cast<uint64_t>(i), 100), golden100[i]);
  EXPECT_EQ(JumpConsistentHash(10863919174838991ull, 11), 6);
  EXPECT_EQ(JumpConsistentHash(2016238256797177309ull, 11), 3);
  EXPECT_EQ(JumpConsistentHash(1673758223894951030ull, 11), 5);
  EXPECT_EQ(JumpConsistentHash(2, 100001), 80343);
  EXPECT_EQ(JumpConsistentHash(2201, 100001), 22152);
  EXPECT_EQ(JumpConsistentHash(2202, 100001), 15018);
}

TEST(Jump, Vectors) {
  const auto &v = crtest::RingVectors();
  for (const auto &c : v["jump_guava"]) {
    EXPECT_EQ(JumpConsistentHash(c["key"].get<uint64_t>(), c["buckets"].get<int32_t>()),
              c["bucket"].get<int32_t>());
  }
  ASSERT_GT(v["jump"].size(), 100u);
  for (const auto &c : v["jump"]) {
    const uint64_t key = std::stoull(c["key"].get<std::string>());
    EXPECT_EQ(JumpConsistentHash(key, c["buckets"].get<int32_t>()), c["bucket"].get<int32_t>())
        << key;
  }
  EXPECT_EQ(crtest::CheckRingCases("jump"), 2);
  EXPECT_EQ(crtest::CheckRingCases("modulo"), 2);
}

TEST(Jump, GrowingMovesOnlyToTheNewBucket) {
  constexpr int kKeys = 100000;
  for (int32_t n : {1, 4, 10, 63}) {
    int moved = 0;
    for (int k = 0; k < kKeys; ++k) {
      const uint64_t key = cloudroute::MurmurHash64A(&k, sizeof k, 99);
      const int32_t before = JumpConsistentHash(key, n), after = JumpConsistentHash(key, n + 1);
      ASSERT_GE(before, 0);
      ASSERT_LT(before, n);
      if (before != after) {
        ASSERT_EQ(after, n);
        ++moved;
      }
    }
    const double fraction = static_cast<double>(moved) / kKeys, ideal = 1.0 / (n + 1);
    EXPECT_NEAR(fraction, ideal, ideal * 0.1 + 0.002) << n;
  }
}

}  // namespace jump_test
