#include "cloudroute/core/keyslot.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <random>
#include <string>

namespace cloudroute {
namespace keyslot_test {

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

// The hash-tag rule written the plain way, byte by byte.
uint16_t ReferenceSlot(const std::string &k) {
  const size_t open = k.find('{');
  if (open != std::string::npos) {
    const size_t close = k.find('}', open + 1);
    if (close != std::string::npos && close != open + 1)
      return BitwiseCrc16(k.substr(open + 1, close - open - 1)) & 16383;
  }
  return BitwiseCrc16(k) & 16383;
}

// The word-at-a-time brace search covers keys of 4 to 16 bytes with two
// overlapping loads: every length around those bounds, every position of '{'
// and '}', bytes that differ from '{' by one bit, and keys placed at every
// alignment (the loads must stay inside the key: the ASan run proves it, as
// each key is its own heap block of exactly its length).
TEST(KeySlot, BracePositionsAtEveryLengthAndAlignment) {
  for (size_t len = 0; len <= 24; ++len) {
    for (size_t open = 0; open <= len; ++open) {
      for (size_t close = 0; close <= len; ++close) {
        std::string k(len, 'z');
        // Fillers one bit away from '{' (0x7b): 0x7a and 0x7f.
        for (size_t i = 0; i < len; ++i) k[i] = static_cast<char>((i % 2) ? 0x7a : 0x7f);
        if (open < len) k[open] = '{';
        if (close < len && close != open) k[close] = '}';
        for (size_t shift = 0; shift < 8; ++shift) {
          std::unique_ptr<char[]> buf(new char[shift + len]);
          std::memcpy(buf.get() + shift, k.data(), len);
          ASSERT_EQ(KeySlot(buf.get() + shift, len), ReferenceSlot(k))
              << "len " << len << " open " << open << " close " << close;
        }
      }
    }
  }
}

TEST(KeySlot, AlwaysBelow16384) {
  std::mt19937 rng(1);
  for (int i = 0; i < 100000; ++i) {
    std::string s(rng() % 40, '\0');
    for (char &c : s) c = static_cast<char>(rng());
    ASSERT_LT(Slot(s), 16384);
  }
}

}  // namespace keyslot_test
}  // namespace cloudroute
