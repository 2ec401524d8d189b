#include "cloudroute/core/hash_index.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

namespace cloudroute {
namespace hash_index_test {

// Rows the index points into: value i has key keys[i]; hashes collide on
// purpose (a few low bits), so probes run long and erase shifts back.
struct Rows {
  std::vector<uint64_t> keys;
  static uint64_t Hash(uint64_t key) { return key % 7; }
  uint32_t Find(const HashIndex &h, uint64_t key) const {
    return h.Find(Hash(key), [&](uint32_t v) { return keys[v] == key; });
  }
};

void InsertFindErase(HashIndex::Fill fill) {
  HashIndex h(fill);
  Rows rows;
  for (uint32_t i = 0; i < 500; ++i) {
    rows.keys.push_back(1000 + 3 * i);
    h.Insert(Rows::Hash(rows.keys[i]), i);
  }
  EXPECT_EQ(h.size(), 500u);
  for (uint32_t i = 0; i < 500; ++i) EXPECT_EQ(rows.Find(h, rows.keys[i]), i);
  EXPECT_EQ(rows.Find(h, 1), HashIndex::kNone);
  for (uint32_t i = 0; i < 500; i += 2) EXPECT_TRUE(h.Erase(Rows::Hash(rows.keys[i]), i));
  EXPECT_FALSE(h.Erase(Rows::Hash(rows.keys[0]), 0));
  EXPECT_EQ(h.size(), 250u);
  for (uint32_t i = 0; i < 500; ++i) {
    EXPECT_EQ(rows.Find(h, rows.keys[i]), i % 2 ? i : HashIndex::kNone) << i;
  }
}

TEST(HashIndex, InsertFindEraseHalfFull) { InsertFindErase(HashIndex::Fill::kHalf); }

TEST(HashIndex, InsertFindEraseThreeQuartersFull) {
  InsertFindErase(HashIndex::Fill::kThreeQuarters);
}

// 3000 values: 8192 slots at most half full, 4096 at three quarters.
TEST(HashIndex, FillDecidesTheTableSize) {
  HashIndex half, dense(HashIndex::Fill::kThreeQuarters);
  half.Reserve(3000);
  dense.Reserve(3000);
  EXPECT_EQ(half.capacity(), 8192u);
  EXPECT_EQ(dense.capacity(), 4096u);
  HashIndex grown(HashIndex::Fill::kThreeQuarters);
  for (uint32_t i = 0; i < 3072; ++i) grown.Insert(i * 2654435761u, i);
  EXPECT_EQ(grown.capacity(), 4096u);  // 3072 = 3/4 of 4096: still fits
  grown.Insert(1, 3072);
  EXPECT_EQ(grown.capacity(), 8192u);
}

// The index keeps the low 32 bits of a hash: for the addresses and ids of a
// large cluster (alike but for a byte or two) they all differ, and the port
// (HashBytes' extra) counts as much as the bytes.
TEST(HashBytes, LowBitsTellAClustersAddressesAndIdsApart) {
  std::set<uint32_t> seen;
  size_t n = 0;
  for (uint32_t s = 0; s < 1000; ++s) {
    for (uint32_t k = 0; k < 3; ++k) {
      const std::string host = "127." + std::to_string(k + 1) + "." + std::to_string(s / 250) +
                               "." + std::to_string(s % 250 + 1);
      char id[41];
      std::snprintf(id, sizeof id, "%08x%08x%024x", 0xc0ffee00u + s, k, 0u);
      seen.insert(static_cast<uint32_t>(HashBytes(host, 7000)));
      seen.insert(static_cast<uint32_t>(HashBytes(host, 7001)));
      seen.insert(static_cast<uint32_t>(HashBytes(id, 0)));
      n += 3;
    }
  }
  EXPECT_EQ(seen.size(), n);
  EXPECT_NE(HashBytes("", 0), HashBytes(std::string(1, '\0'), 0)) << "the length counts";
}

}  // namespace hash_index_test
}  // namespace cloudroute
