// Ring: key -> shard index for client-side sharding, by one of
//   - kJedis:  Jedis's Sharded ring (see jedis_ring.hpp), MURMUR_HASH or MD5;
//   - kKetama: libmemcached / twemproxy weighted ketama (see ketama.hpp);
//   - kJump:   jump consistent hash of the key's 64-bit hash (see jump.hpp);
//   - kModulo: the key's hash modulo the shard count (not consistent: for
//              deployments that already place keys that way).
//
// A shard is identified by its name and weight, never by an address: the
// name (or, for an unnamed Jedis shard, its position) is what is hashed onto
// the ring, so re-pointing a name to another host:port moves no key. Where a
// shard lives is kept elsewhere (ShardGroups, or the caller's own table).
//
// RingBuilder validates shards as they are added; Build() freezes them into
// an immutable Ring shared by reference.
//
// Thread-safety: RingBuilder is used by one thread at a time. A Ring is
// immutable: Locate() is lock-free, allocation-free and safe from any
// number of threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "cloudroute/core/jedis_ring.hpp"
#include "cloudroute/core/point_ring.hpp"
#include "cloudroute/core/status.hpp"

namespace cloudroute {

enum class RingAlgo : uint8_t { kJedis = 0, kKetama = 1, kJump = 2, kModulo = 3 };
constexpr int kRingAlgoCount = 4;

// The key hash. kDefault resolves per algorithm: MURMUR for kJedis, kJump
// and kModulo (Jedis's default), MD5 for kKetama (the only one it has).
enum class RingHash : uint8_t { kDefault = 0, kMurmur = 1, kMd5 = 2 };
constexpr int kRingHashCount = 3;

struct RingOptions {
  RingAlgo algo = RingAlgo::kJedis;
  RingHash hash = RingHash::kDefault;
  JedisNaming naming = JedisNaming::kJedis3;  // kJedis only
  bool key_tags = false;  // hash only the Jedis key tag, \{(.+?)\}, when there is one
};

struct RingShard {
  bool named = false;
  std::string name;  // when named: non-empty, no NUL byte
  int32_t weight = 1;
};

// Safety caps: a ring holds at most this many shards and points.
constexpr size_t kRingMaxShards = 65536;
constexpr size_t kRingMaxPoints = size_t{1} << 22;
constexpr int64_t kRingMaxWeight = 1000000;

const char *RingAlgoName(RingAlgo a);  // "jedis", "ketama", "jump", "modulo"

class Ring {
 public:
  // The shard of a key: at most one hash, one index read and a short scan.
  uint32_t Locate(const void *key, size_t len) const;

  // The 64-bit value the ring hashes the key (or its tag) to, as Jedis's
  // Hashing would return it: MURMUR as a signed long, MD5 in 0..2^32-1.
  int64_t KeyHash(const void *key, size_t len) const;

  // The shard of a key whose KeyHash() is already known: Locate() without
  // the hash. REQUIRES: hash is a value KeyHash() can return for this ring.
  uint32_t LocateHash(int64_t hash) const;

  const RingOptions &options() const { return opts_; }  // hash resolved, never kDefault
  size_t shard_count() const { return shards_.size(); }
  const RingShard &shard(size_t i) const { return shards_[i]; }
  // Distinct points on the continuum (0 for kJump and kModulo).
  size_t point_count() const { return wide_ ? p64_.size() : p32_.size(); }

 private:
  friend class RingBuilder;
  Ring() = default;

  RingOptions opts_;
  std::vector<RingShard> shards_;
  bool wide_ = false;  // the points are 64-bit (Jedis MURMUR)
  PointRing<uint64_t> p64_;
  PointRing<uint32_t> p32_;
};

// Validates options read from outside (enum values, combinations).
Status ValidateRingOptions(const RingOptions &opts);

class RingBuilder {
 public:
  // REQUIRES: ValidateRingOptions(opts).ok()
  explicit RingBuilder(RingOptions opts);

  // Adds the next shard (index shard_count()). name == nullptr adds an
  // unnamed shard (Jedis, jump and modulo only). Refuses an empty name, a
  // NUL byte in it, a duplicate name, a weight outside 1..1000000, a weight
  // other than 1 for jump and modulo, and a shard past the cap.
  Status AddShard(const char *name, size_t name_len, int64_t weight);

  size_t shard_count() const { return shards_.size(); }
  const RingOptions &options() const { return opts_; }

  // The frozen ring. Fails on an empty ring (kInvalid), a ring with more
  // than kRingMaxPoints points (kLimit), or a ketama name whose point names
  // would pass 85 bytes (kInvalid).
  Result<std::shared_ptr<const Ring>> Build() const;

 private:
  RingOptions opts_;
  std::vector<RingShard> shards_;
  std::unordered_map<std::string, size_t> names_;  // name -> shard index
  uint64_t total_weight_ = 0;
};

}  // namespace cloudroute
