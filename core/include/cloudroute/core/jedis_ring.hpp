// The pieces of Jedis's client-side sharding (redis.clients.jedis.util.
// Sharded, Jedis 2.x and 3.x) that decide where a key goes, reproduced bit
// for bit so keys stay where years of ShardedJedis placed them:
//
//  - the key hash: Hashing.MURMUR_HASH (MurmurHash64A, seed 0x1234ABCD, a
//    Java long) or Hashing.MD5 (digest bytes 0-3, little-endian, as a
//    non-negative long);
//  - the names of a shard's 160 x weight virtual nodes;
//  - the key tag of the default pattern \{(.+?)\}.
//
// The ring itself (a TreeMap<Long, shard>: first point >= hash in signed
// order, later shards overwriting earlier ones on a collision) is a
// PointRing assembled by ring.cpp.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace cloudroute {

enum class JedisHash : uint8_t { kMurmur = 0, kMd5 = 1 };

// How named shards name their virtual nodes.
enum class JedisNaming : uint8_t {
  kJedis3 = 0,  // name + "*" + n                (Jedis 3.x and later)
  kJedis2 = 1,  // name + "*" + weight + n       (Jedis 2.x: weight 1, n 0 give "name*10")
};

constexpr uint32_t kJedisPointsPerWeight = 160;

// Hashing.MURMUR_HASH.hash(bytes) or Hashing.MD5.hash(bytes).
int64_t JedisHashOf(JedisHash algo, const void *data, size_t len);

// Sharded.getKeyTag() with Sharded.DEFAULT_KEY_TAG_PATTERN, \{(.+?)\}: the
// first match's group 1, else the whole key. Unlike Redis Cluster's hash tag
// the group may start with '}' ("foo{}{bar}" tags "}{bar"; Redis hashes the
// whole key), and, as Java's '.' does, it may not span a line terminator
// (\n, \r, U+0085, U+2028, U+2029 in UTF-8). The key is taken as UTF-8 text,
// which is all a Java String can be.
void JedisKeyTag(const unsigned char *key, size_t len, const unsigned char **tag, size_t *tag_len);

// The string hashed for virtual node n of shard `index`: "SHARD-<index>-NODE-<n>"
// when the shard is unnamed (name == nullptr), else per `naming`.
std::string JedisPointName(JedisNaming naming, uint32_t index, const std::string *name,
                           int32_t weight, uint32_t n);

}  // namespace cloudroute
