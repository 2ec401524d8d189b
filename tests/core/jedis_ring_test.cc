// Jedis's Sharded ring, bit for bit: hashes, virtual-node names, key tags,
// TreeMap lookup and overwrite order, against tests/vectors/rings.json.
#include "cloudroute/core/jedis_ring.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "cloudroute/core/keyslot.hpp"
#include "cloudroute/core/ring.hpp"
#include "ring_vectors.hpp"

namespace jedis_ring_test {

using namespace cloudroute;

std::string Tag(const std::string &key) {
  const unsigned char *t;
  size_t n;
  JedisKeyTag(reinterpret_cast<const unsigned char *>(key.data()), key.size(), &t, &n);
  return std::string(reinterpret_cast<const char *>(t), n);
}

TEST(JedisRing, HashesMatchVectors) {
  for (const auto &c : crtest::RingVectors()["jedis_hash"]) {
    const std::string key = crtest::Unhex(c["key_hex"]);
    EXPECT_EQ(JedisHashOf(JedisHash::kMurmur, key.data(), key.size()), c["murmur"].get<int64_t>());
    EXPECT_EQ(JedisHashOf(JedisHash::kMd5, key.data(), key.size()), c["md5"].get<int64_t>());
  }
  // MD5's long is never negative: digest bytes 0-3 only.
  EXPECT_EQ(JedisHashOf(JedisHash::kMd5, "a", 1), 0xb975c10cLL);
}

TEST(JedisRing, VirtualNodeNames) {
  const std::string name = "shard-a";
  EXPECT_EQ(JedisPointName(JedisNaming::kJedis3, 0, nullptr, 1, 0), "SHARD-0-NODE-0");
  EXPECT_EQ(JedisPointName(JedisNaming::kJedis2, 12, nullptr, 3, 479), "SHARD-12-NODE-479");
  EXPECT_EQ(JedisPointName(JedisNaming::kJedis3, 0, &name, 1, 0), "shard-a*0");
  EXPECT_EQ(JedisPointName(JedisNaming::kJedis3, 5, &name, 2, 319), "shard-a*319");
  // Jedis 2.x concatenates the weight and n as strings: weight 1, n 0 -> "*10".
  EXPECT_EQ(JedisPointName(JedisNaming::kJedis2, 0, &name, 1, 0), "shard-a*10");
  EXPECT_EQ(JedisPointName(JedisNaming::kJedis2, 0, &name, 2, 159), "shard-a*2159");
}

// The tags were checked against java.util.regex.Pattern "\\{(.+?)\\}" itself.
TEST(JedisRing, KeyTagsMatchJavaRegex) {
  const auto &v = crtest::RingVectors()["key_tags"];
  ASSERT_GT(v.size(), 20u);
  for (const auto &c : v) {
    EXPECT_EQ(Tag(crtest::Unhex(c["key_hex"])), crtest::Unhex(c["tag_hex"])) << c["key_hex"];
  }
}

TEST(JedisRing, KeyTagDiffersFromRedisClusterHashTag) {
  EXPECT_EQ(Tag("{user1000}.following"), "user1000");
  EXPECT_EQ(Tag("foo{}{bar}"), "}{bar");  // Jedis: '.' eats the first '}'
  const unsigned char *t;
  size_t n;
  const std::string key = "foo{}{bar}";
  HashTag(reinterpret_cast<const unsigned char *>(key.data()), key.size(), &t, &n);
  EXPECT_EQ(n, key.size());  // Redis Cluster: empty tag, the whole key is hashed
  EXPECT_EQ(Tag("foo{{bar}}zap"), "{bar");
  EXPECT_EQ(Tag("no tag"), "no tag");
  EXPECT_EQ(Tag("{}"), "{}");
  EXPECT_EQ(Tag("{a\nb}{c}"), "c");          // '.' does not cross a line terminator
  EXPECT_EQ(Tag("{\xE2\x80\xA8}{d}"), "d");  // U+2028
  EXPECT_EQ(Tag("{\xC5\x85}"), "\xC5\x85");  // U+0145 is not NEL even though it ends in 0x85
  EXPECT_EQ(Tag(""), "");
}

TEST(JedisRing, RingsMatchVectors) { EXPECT_EQ(crtest::CheckRingCases("jedis"), 8); }

// A Java TreeMap model of the same ring: put() in shard order, lookup by
// tailMap(hash).firstKey() with wrap-around.
TEST(JedisRing, MatchesTreeMapModel) {
  for (JedisHash algo : {JedisHash::kMurmur, JedisHash::kMd5}) {
    for (JedisNaming naming : {JedisNaming::kJedis3, JedisNaming::kJedis2}) {
      RingOptions o;
      o.hash = algo == JedisHash::kMd5 ? RingHash::kMd5 : RingHash::kMurmur;
      o.naming = naming;
      RingBuilder b(o);
      const std::vector<std::pair<std::string, int>> shards = {
          {"a", 1}, {"", 2}, {"c", 3}, {"", 1}};
      std::map<int64_t, uint32_t> tree;
      for (uint32_t i = 0; i < shards.size(); ++i) {
        const std::string &name = shards[i].first;
        ASSERT_TRUE(
            b.AddShard(name.empty() ? nullptr : name.data(), name.size(), shards[i].second).ok());
        for (uint32_t n = 0; n < 160u * static_cast<uint32_t>(shards[i].second); ++n) {
          const std::string p =
              JedisPointName(naming, i, name.empty() ? nullptr : &name, shards[i].second, n);
          tree[JedisHashOf(algo, p.data(), p.size())] = i;
        }
      }
      auto ring = b.Build();
      ASSERT_TRUE(ring.ok());
      EXPECT_EQ((*ring)->point_count(), tree.size());
      for (int k = 0; k < 20000; ++k) {
        const std::string key = "key-" + std::to_string(k * 7919);
        const int64_t h = JedisHashOf(algo, key.data(), key.size());
        auto it = tree.lower_bound(h);
        if (it == tree.end()) it = tree.begin();
        ASSERT_EQ((*ring)->Locate(key.data(), key.size()), it->second) << key;
      }
    }
  }
}

// Two MD5 names that hash a virtual node to the same point: the later shard
// owns it, as TreeMap.put overwrote it.
TEST(JedisRing, PointCollisionGoesToTheLaterShard) {
  for (const auto &c : crtest::RingVectors()["rings"]) {
    if (c["name"] != "jedis md5 point collision") continue;
    auto ring = crtest::RingOf(c);
    ASSERT_NE(ring, nullptr);
    EXPECT_EQ(ring->point_count(), 319u);  // 320 names, one shared point
    for (size_t i = 0; i < 3; ++i) {
      const std::string key = crtest::Unhex(c["keys"][i]["key_hex"]);
      EXPECT_EQ(ring->Locate(key.data(), key.size()), 1u);
    }
    return;
  }
  FAIL() << "no collision case in rings.json";
}

TEST(JedisRing, KeyTagsRouteTaggedKeysTogether) {
  RingOptions o;
  o.key_tags = true;
  RingBuilder b(o);
  for (int i = 0; i < 8; ++i) {
    const std::string n = "s" + std::to_string(i);
    ASSERT_TRUE(b.AddShard(n.data(), n.size(), 1).ok());
  }
  auto ring = *b.Build();
  const uint32_t want = ring->Locate("user1000", 8);
  EXPECT_EQ(ring->Locate("{user1000}.following", 20), want);
  EXPECT_EQ(ring->Locate("x{user1000}y", 12), want);
  EXPECT_EQ(ring->KeyHash("{user1000}:a", 12), JedisHashOf(JedisHash::kMurmur, "user1000", 8));
}

}  // namespace jedis_ring_test
