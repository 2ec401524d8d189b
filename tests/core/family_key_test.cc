// Family keys: decimal MurmurHash of family ":" key, validated families.
#include "cloudroute/core/family_key.hpp"

#include <gtest/gtest.h>

#include <string>

#include "cloudroute/core/murmur64a.hpp"
#include "ring_vectors.hpp"

namespace family_key_test {

using namespace cloudroute;

std::string Stored(const std::string &family, const std::string &key) {
  char out[kFamilyKeyMax];
  const size_t n = FamilyKey(out, family.data(), family.size(), key.data(), key.size());
  EXPECT_EQ(out[n], '\0');
  return std::string(out, n);
}

TEST(FamilyKey, MatchesVectors) {
  const auto &v = crtest::RingVectors()["family_keys"];
  ASSERT_GE(v.size(), 7u);
  for (const auto &c : v) {
    const std::string family = c["family"], key = crtest::Unhex(c["key_hex"]);
    EXPECT_EQ(Stored(family, key), c["stored_key"].get<std::string>()) << family;
  }
}

TEST(FamilyKey, IsTheSignedDecimalOfTheJedisMurmurHash) {
  const std::string text = "user:42";
  EXPECT_EQ(Stored("user", "42"), std::to_string(JedisMurmurHash(text.data(), text.size())));
  EXPECT_NE(Stored("user", "42"), Stored("order", "42"));
  const std::string big(1000, 'k');  // past the stack buffer
  EXPECT_EQ(Stored("f", big), std::to_string(JedisMurmurHash(("f:" + big).data(), big.size() + 2)));
}

TEST(FamilyKey, FamiliesMustSplitOneWay) {
  EXPECT_TRUE(ValidateFamily("user", 4).ok());
  EXPECT_EQ(ValidateFamily("", 0).code(), Code::kInvalid);
  EXPECT_EQ(ValidateFamily(nullptr, 0).code(), Code::kInvalid);
  Status s = ValidateFamily("a:b", 3);
  EXPECT_EQ(s.code(), Code::kInvalid);
  EXPECT_NE(s.message().find("':' at offset 1"), std::string::npos);
  EXPECT_EQ(ValidateFamily("a\0b", 3).code(), Code::kInvalid);
}

}  // namespace family_key_test
