// C API: consistent hashing rings, Jedis hashes, jump hash, family keys.
#include <cstring>
#include <type_traits>

#include "api.hpp"
#include "cloudroute/core/family_key.hpp"
#include "cloudroute/core/jedis_ring.hpp"
#include "cloudroute/core/jump.hpp"
#include "ring_handles.hpp"

using cloudroute::capi::Fail;
using cloudroute::capi::Guard;

namespace {

// The integer a caller stored in an enum argument. C lets any int through
// (cr_ring_algo 7); reading such a value as the C++ enum type is undefined,
// so the bytes are read as the underlying integer instead.
template <typename E>
int RawEnum(const E &e) {
  std::underlying_type_t<E> v;
  std::memcpy(&v, &e, sizeof v);
  return static_cast<int>(v);
}

cr_status NeedBuilt(const cr_ring *ring, const char *fn) {
  if (ring == nullptr) return Fail(CR_EINVAL, std::string(fn) + ": ring is NULL");
  if (ring->built == nullptr) {
    return Fail(CR_EINVAL, std::string(fn) + ": the ring is not built (call cr_ring_build first)");
  }
  return CR_OK;
}

}  // namespace

extern "C" {

void cr_ring_options_init(cr_ring_options *opts) {
  if (opts != nullptr) *opts = cr_ring_options CR_RING_OPTIONS_INIT;
}

cr_status cr_ring_new(cr_ring **out, const cr_ring_options *opts) {
  return Guard([&]() -> cr_status {
    if (out == nullptr) return Fail(CR_EINVAL, "cr_ring_new: out is NULL");
    *out = nullptr;
    cr_ring_options o = CR_RING_OPTIONS_INIT;
    if (opts != nullptr) {
      if (opts->struct_size < sizeof(cr_ring_options)) {
        return Fail(CR_EINVAL, "cr_ring_new: opts->struct_size is too small (use CR_RING_OPTIONS_INIT)");
      }
      o = *opts;
    }
    // Range-check the raw values before narrowing them to the core's enums.
    const int algo = RawEnum(o.algo), hash = RawEnum(o.hash), naming = RawEnum(o.naming);
    if (algo < 0 || algo >= cloudroute::kRingAlgoCount) {
      return Fail(CR_EINVAL, "cr_ring_new: unknown ring algorithm " + std::to_string(algo) +
                                 " (want CR_RING_JEDIS, CR_RING_KETAMA, CR_RING_JUMP or CR_RING_MODULO)");
    }
    if (hash < 0 || hash >= cloudroute::kRingHashCount) {
      return Fail(CR_EINVAL, "cr_ring_new: unknown hash algorithm " + std::to_string(hash) +
                                 " (want CR_HASH_DEFAULT, CR_HASH_MURMUR or CR_HASH_MD5)");
    }
    if (naming != CR_RING_NAMING_JEDIS3 && naming != CR_RING_NAMING_JEDIS2) {
      return Fail(CR_EINVAL, "cr_ring_new: unknown naming " + std::to_string(naming) +
                                 " (want CR_RING_NAMING_JEDIS3 or CR_RING_NAMING_JEDIS2)");
    }
    cloudroute::RingOptions core;
    core.algo = static_cast<cloudroute::RingAlgo>(algo);
    core.hash = static_cast<cloudroute::RingHash>(hash);
    core.naming = static_cast<cloudroute::JedisNaming>(naming);
    core.key_tags = o.key_tags != 0;
    if (cloudroute::Status s = cloudroute::ValidateRingOptions(core); !s.ok()) {
      return Fail(CR_EINVAL, "cr_ring_new: " + s.message());
    }
    *out = new cr_ring(core);
    return CR_OK;
  });
}

void cr_ring_free(cr_ring *ring) { delete ring; }

cr_status cr_ring_add_shard(cr_ring *ring, const char *name, size_t name_len, int32_t weight) {
  return Guard([&]() -> cr_status {
    if (ring == nullptr) return Fail(CR_EINVAL, "cr_ring_add_shard: ring is NULL");
    if (ring->built != nullptr) {
      return Fail(CR_EINVAL, "cr_ring_add_shard: the ring is already built (make a new ring to change shards)");
    }
    cloudroute::Status s = ring->builder.AddShard(name, name_len, weight);
    if (!s.ok()) return Fail(static_cast<cr_status>(s.code()), "cr_ring_add_shard: " + s.message());
    return CR_OK;
  });
}

cr_status cr_ring_build(cr_ring *ring) {
  return Guard([&]() -> cr_status {
    if (ring == nullptr) return Fail(CR_EINVAL, "cr_ring_build: ring is NULL");
    if (ring->built != nullptr) return CR_OK;
    auto built = ring->builder.Build();
    if (!built.ok()) {
      return Fail(static_cast<cr_status>(built.status().code()), "cr_ring_build: " + built.status().message());
    }
    ring->built = std::move(*built);
    return CR_OK;
  });
}

cr_status cr_ring_locate(uint32_t *out_shard, const cr_ring *ring, const void *key, size_t len) {
  return Guard([&]() -> cr_status {
    if (out_shard == nullptr) return Fail(CR_EINVAL, "cr_ring_locate: out_shard is NULL");
    if (cr_status s = NeedBuilt(ring, "cr_ring_locate"); s != CR_OK) return s;
    if (key == nullptr && len != 0) return Fail(CR_EINVAL, "cr_ring_locate: key is NULL with a non-zero length");
    *out_shard = ring->built->Locate(key, len);
    return CR_OK;
  });
}

cr_status cr_ring_locate_many(uint32_t *out_shards, const cr_ring *ring, const void *const *keys,
                              const size_t *lens, size_t n) {
  return Guard([&]() -> cr_status {
    if (n == 0) return CR_OK;
    if (out_shards == nullptr || keys == nullptr || lens == nullptr) {
      return Fail(CR_EINVAL, "cr_ring_locate_many: out_shards, keys and lens must not be NULL");
    }
    if (cr_status s = NeedBuilt(ring, "cr_ring_locate_many"); s != CR_OK) return s;
    const cloudroute::Ring &r = *ring->built;
    for (size_t i = 0; i < n; ++i) {
      if (keys[i] == nullptr && lens[i] != 0) {
        return Fail(CR_EINVAL, "cr_ring_locate_many: key " + std::to_string(i) + " is NULL with a non-zero length");
      }
      out_shards[i] = r.Locate(keys[i], lens[i]);
    }
    return CR_OK;
  });
}

size_t cr_ring_shard_count(const cr_ring *ring) {
  return ring == nullptr ? 0 : ring->builder.shard_count();
}

cr_status cr_jedis_hash(int64_t *out, cr_hash_algo algo, const void *key, size_t len) {
  return Guard([&]() -> cr_status {
    if (out == nullptr) return Fail(CR_EINVAL, "cr_jedis_hash: out is NULL");
    if (key == nullptr && len != 0) return Fail(CR_EINVAL, "cr_jedis_hash: key is NULL with a non-zero length");
    const int raw = RawEnum(algo);
    if (raw == CR_HASH_DEFAULT || raw == CR_HASH_MURMUR) {
      *out = cloudroute::JedisHashOf(cloudroute::JedisHash::kMurmur, key, len);
      return CR_OK;
    }
    if (raw == CR_HASH_MD5) {
      *out = cloudroute::JedisHashOf(cloudroute::JedisHash::kMd5, key, len);
      return CR_OK;
    }
    return Fail(CR_EINVAL, "cr_jedis_hash: unknown hash algorithm " + std::to_string(raw) +
                               " (want CR_HASH_MURMUR or CR_HASH_MD5)");
  });
}

cr_status cr_jump_hash(uint32_t *out_bucket, uint64_t key, uint32_t num_buckets) {
  return Guard([&]() -> cr_status {
    if (out_bucket == nullptr) return Fail(CR_EINVAL, "cr_jump_hash: out_bucket is NULL");
    if (num_buckets == 0 || num_buckets > 2147483647u) {
      return Fail(CR_EINVAL, "cr_jump_hash: num_buckets " + std::to_string(num_buckets) +
                                 " is outside 1..2147483647");
    }
    *out_bucket = static_cast<uint32_t>(cloudroute::JumpConsistentHash(key, static_cast<int32_t>(num_buckets)));
    return CR_OK;
  });
}

cr_status cr_family_key(char *buf, size_t cap, size_t *needed, const void *family, size_t family_len,
                        const void *key, size_t key_len) {
  return Guard([&]() -> cr_status {
    if (needed == nullptr) return Fail(CR_EINVAL, "cr_family_key: needed is NULL");
    if (buf == nullptr && cap != 0) return Fail(CR_EINVAL, "cr_family_key: buf is NULL with a non-zero cap");
    if (family == nullptr && family_len != 0) {
      return Fail(CR_EINVAL, "cr_family_key: family is NULL with a non-zero length");
    }
    if (key == nullptr && key_len != 0) return Fail(CR_EINVAL, "cr_family_key: key is NULL with a non-zero length");
    if (cloudroute::Status s = cloudroute::ValidateFamily(family, family_len); !s.ok()) {
      return Fail(CR_EINVAL, "cr_family_key: " + s.message());
    }
    char text[cloudroute::kFamilyKeyMax];
    const size_t n = cloudroute::FamilyKey(text, family, family_len, key, key_len);
    *needed = n + 1;
    if (cap < n + 1) {
      return Fail(CR_EBUFS, "cr_family_key: the buffer holds " + std::to_string(cap) + " bytes, " +
                                std::to_string(n + 1) + " are needed");
    }
    std::memcpy(buf, text, n + 1);
    return CR_OK;
  });
}

}  // extern "C"
