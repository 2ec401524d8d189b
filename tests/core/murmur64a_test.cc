// MurmurHash64A and Jedis's MURMUR_HASH: the SMHasher verification value,
// values printed by a real Jedis, and tests/vectors/rings.json.
#include "cloudroute/core/murmur64a.hpp"

#include <gtest/gtest.h>

#include <cstring>

#include "ring_vectors.hpp"

namespace murmur64a_test {

using cloudroute::JedisMurmurHash;
using cloudroute::MurmurHash64A;

// SMHasher's VerificationTest: hash keys {}, {0}, {0,1}, ... {0..254} with
// seed 256 - length, hash the 256 results (little-endian) with seed 0; the
// low 32 bits must be MurmurHash64A's published 0x1F0D3804.
TEST(Murmur64a, SmhasherVerificationValue) {
  unsigned char key[256], hashes[8 * 256];
  for (int i = 0; i < 256; ++i) {
    key[i] = static_cast<unsigned char>(i);
    const uint64_t h = MurmurHash64A(key, static_cast<size_t>(i), static_cast<uint64_t>(256 - i));
    for (int b = 0; b < 8; ++b) hashes[8 * i + b] = static_cast<unsigned char>(h >> (8 * b));
  }
  const uint64_t final_hash = MurmurHash64A(hashes, sizeof hashes, 0);
  EXPECT_EQ(static_cast<uint32_t>(final_hash), 0x1F0D3804u);
}

// Hashing.MURMUR_HASH.hash(String) as printed by a Jedis run (a public
// test's assertions).
TEST(Murmur64a, JedisPrintedValues) {
  const auto &v = crtest::RingVectors()["jedis_printed"];
  ASSERT_EQ(v.size(), 8u);
  for (const auto &c : v) {
    const std::string key = c["key"];
    EXPECT_EQ(JedisMurmurHash(key.data(), key.size()), c["murmur"].get<int64_t>()) << key;
  }
  EXPECT_EQ(JedisMurmurHash("key:10.200.107.10:9002", 22), -1498251713141396620LL);
}

TEST(Murmur64a, IndependentVectors) {
  const auto &v = crtest::RingVectors();
  ASSERT_GT(v["jedis_hash"].size(), 50u);
  for (const auto &c : v["jedis_hash"]) {
    const std::string key = crtest::Unhex(c["key_hex"]);
    EXPECT_EQ(JedisMurmurHash(key.data(), key.size()), c["murmur"].get<int64_t>()) << c["key_hex"];
  }
  for (const auto &c : v["murmur64a_seeded"]) {
    const std::string key = crtest::Unhex(c["key_hex"]);
    const uint64_t want = std::stoull(c["hash"].get<std::string>(), nullptr, 16);
    EXPECT_EQ(MurmurHash64A(key.data(), key.size(), c["seed"].get<uint64_t>()), want)
        << c["key_hex"];
  }
}

TEST(Murmur64a, EmptyAndUnalignedInput) {
  EXPECT_EQ(MurmurHash64A(nullptr, 0, 7), MurmurHash64A("", 0, 7));
  // The same bytes at every alignment hash the same.
  alignas(8) char buf[64];
  const char text[] = "0123456789abcdefghij";
  const uint64_t ref = MurmurHash64A(text, 20, 1);
  for (int off = 0; off < 8; ++off) {
    std::memcpy(buf + off, text, 20);
    EXPECT_EQ(MurmurHash64A(buf + off, 20, 1), ref) << off;
  }
}

}  // namespace murmur64a_test
