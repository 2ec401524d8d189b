// Family-key variants against tests/vectors/family_keys.json: 3000 (family,
// key) pairs whose stored keys were printed by the real Jedis MurmurHash and
// commons-codec MurmurHash2 classes (tests/vectors/gen/family_key_vectors.py),
// through the core and through the C API.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cloudroute.h"
#include "cloudroute/core/family_key.hpp"
#include "common/source_dir.hpp"
#include "ring_vectors.hpp"

namespace family_key_variants_test {

using cloudroute::FamilyKeyVariant;

const nlohmann::json &Cases() {
  static const nlohmann::json v = [] {
    std::ifstream f(crtest::SourcePath("tests/vectors/family_keys.json"));
    EXPECT_TRUE(f.good()) << "tests/vectors/family_keys.json";
    return nlohmann::json::parse(f);
  }();
  return v["cases"];
}

std::string CoreKey(const std::string &family, const std::string &key, FamilyKeyVariant v) {
  char out[cloudroute::kFamilyKeyMax];
  const size_t n =
      cloudroute::FamilyKey(out, family.data(), family.size(), key.data(), key.size(), v);
  return std::string(out, n);
}

std::string CKey(const std::string &family, const std::string &key, cr_family_key_variant v) {
  char buf[CR_FAMILY_KEY_SIZE];
  size_t needed = 0;
  const cr_status s =
      cr_family_key_as(buf, sizeof buf, &needed, v, family.c_str(), key.data(), key.size());
  EXPECT_EQ(s, CR_OK) << cr_last_error();
  EXPECT_EQ(needed, std::string(buf).size() + 1);
  return buf;
}

TEST(FamilyKeyVariants, MatchTheRealJavaClasses) {
  const auto &cases = Cases();
  ASSERT_GE(cases.size(), 3000u);
  size_t non_ascii = 0, long_keys = 0;
  for (const auto &c : cases) {
    const std::string family = crtest::Unhex(c[0]), key = crtest::Unhex(c[1]);
    const std::string jedis = c[2], codec = c[3];
    ASSERT_EQ(CoreKey(family, key, FamilyKeyVariant::kJedis), jedis) << c.dump();
    ASSERT_EQ(CoreKey(family, key, FamilyKeyVariant::kCommonsCodec), codec) << c.dump();
    ASSERT_EQ(CKey(family, key, CR_FAMILY_KEY_VARIANT_JEDIS), jedis) << c.dump();
    ASSERT_EQ(CKey(family, key, CR_FAMILY_KEY_VARIANT_COMMONS_CODEC), codec) << c.dump();
    char buf[CR_FAMILY_KEY_SIZE];
    size_t needed = 0;
    ASSERT_EQ(cr_family_key(buf, sizeof buf, &needed, family.c_str(), key.data(), key.size()),
              CR_OK);
    ASSERT_EQ(std::string(buf), jedis) << "the default stays Jedis";
    for (unsigned char ch : family + key) non_ascii += ch >= 0x80;
    long_keys += family.size() + key.size() > 256;
  }
  EXPECT_GT(non_ascii, 1000u) << "the vectors exercise multi-byte UTF-8";
  EXPECT_GT(long_keys, 10u) << "the vectors pass the core's stack buffer";
}

TEST(FamilyKeyVariants, NamesAndErrors) {
  cr_family_key_variant v = CR_FAMILY_KEY_VARIANT_JEDIS;
  ASSERT_EQ(cr_family_key_variant_from_name(&v, "Commons_Codec"), CR_OK);
  EXPECT_EQ(v, CR_FAMILY_KEY_VARIANT_COMMONS_CODEC);
  EXPECT_STREQ(cr_family_key_variant_name(v), "commons-codec");
  EXPECT_STREQ(cr_family_key_variant_name(CR_FAMILY_KEY_VARIANT_JEDIS), "jedis");
  EXPECT_STREQ(cr_family_key_variant_name(static_cast<cr_family_key_variant>(7)), "?");
  EXPECT_EQ(cr_family_key_variant_from_name(&v, "murmur"), CR_EINVAL);
  EXPECT_NE(std::string(cr_last_error()).find("jedis or commons-codec"), std::string::npos);

  char buf[CR_FAMILY_KEY_SIZE];
  size_t needed = 0;
  EXPECT_EQ(cr_family_key_as(buf, sizeof buf, &needed, static_cast<cr_family_key_variant>(2), "u",
                             "k", 1),
            CR_EINVAL);
  EXPECT_EQ(cr_family_key_as(buf, sizeof buf, &needed, CR_FAMILY_KEY_VARIANT_COMMONS_CODEC, "a:b",
                             "k", 1),
            CR_EINVAL);
  EXPECT_NE(std::string(cr_last_error()).find("cr_family_key_as: family contains ':'"),
            std::string::npos);
  EXPECT_EQ(cr_family_key_as(buf, 3, &needed, CR_FAMILY_KEY_VARIANT_COMMONS_CODEC, "user", "42", 2),
            CR_EBUFS);
  EXPECT_EQ(needed, CKey("user", "42", CR_FAMILY_KEY_VARIANT_COMMONS_CODEC).size() + 1);
}

}  // namespace family_key_variants_test
