#include "cloudroute/core/keyslot.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace cloudroute {
namespace {

// The plain bit-by-bit definition, as a reference for the sliced tables.
uint16_t BitwiseCrc16(const std::string &s) {
  uint16_t crc = 0;
  for (unsigned char c : s) {
    crc ^= static_cast<uint16_t>(c << 8);
    for (int i = 0; i < 8; ++i)
      crc = (crc & 0x8000) ? static_cast<uint16_t>((crc << 1) ^ 0x1021)
                           : static_cast<uint16_t>(crc << 1);
  }
  return crc;
}

uint16_t Slot(const std::string &k) { return KeySlot(k.data(), k.size()); }

TEST(Crc16, CheckValue) { EXPECT_EQ(Crc16("123456789", 9), 0x31C3); }

TEST(Crc16, EmptyIsZero) { EXPECT_EQ(Crc16("", 0), 0); }

TEST(Crc16, MatchesBitwiseDefinitionForEveryLengthUpTo200) {
  std::mt19937 rng(7);
  for (size_t len = 0; len <= 200; ++len) {
    for (int rep = 0; rep < 20; ++rep) {
      std::string s(len, '\0');
      for (char &c : s) c = static_cast<char>(rng());
      ASSERT_EQ(Crc16(s.data(), s.size()), BitwiseCrc16(s)) << "len " << len;
    }
  }
}

// Values CLUSTER KEYSLOT of redis-server 7.0 gives for these keys.
TEST(KeySlot, KnownValues) {
  EXPECT_EQ(Slot("foo"), 12182);
  EXPECT_EQ(Slot("bar"), 5061);
  EXPECT_EQ(Slot("123456789"), 12739);
  EXPECT_EQ(Slot(""), 0);
  EXPECT_EQ(Slot("{user1000}.following"), Slot("user1000"));
  EXPECT_EQ(Slot("{user1000}.followers"), Slot("user1000"));
}

TEST(KeySlot, HashTagRules) {
  // First '{' and the first '}' after it; empty tag means the whole key.
  EXPECT_EQ(Slot("foo{bar}zap"), Slot("bar"));
  EXPECT_EQ(Slot("foo{}{bar}"), Slot("foo{}{bar}"));
  EXPECT_EQ(Slot("foo{{bar}}zap"), Slot("{bar"));
  EXPECT_EQ(Slot("foo{bar}{zap}"), Slot("bar"));
  EXPECT_EQ(Slot("{}"), Slot("{}"));
  EXPECT_EQ(Slot("{a}"), Slot("a"));
  EXPECT_EQ(Slot("no-close{brace"), Slot("no-close{brace"));
  EXPECT_EQ(Slot("}{x}"), Slot("x"));
}

TEST(KeySlot, BinarySafeWithNulBytes) {
  const std::string a("a\0b", 3), b("a\0c", 3);
  EXPECT_EQ(KeySlot(a.data(), a.size()), BitwiseCrc16(a) & 16383);
  EXPECT_NE(KeySlot(a.data(), a.size()), KeySlot(b.data(), b.size()));
  const std::string tagged("x{\0}y", 5);
  EXPECT_EQ(KeySlot(tagged.data(), tagged.size()), BitwiseCrc16(std::string("\0", 1)) & 16383);
}

TEST(KeySlot, AlwaysBelow16384) {
  std::mt19937 rng(1);
  for (int i = 0; i < 100000; ++i) {
    std::string s(rng() % 40, '\0');
    for (char &c : s) c = static_cast<char>(rng());
    ASSERT_LT(Slot(s), 16384);
  }
}

}  // namespace
}  // namespace cloudroute
