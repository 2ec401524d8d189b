// C API: consistent hashing rings, Jedis hashes, jump hash, family keys (Jedis).
#include <cstring>
#include <type_traits>

#include "api.hpp"
#include "cloudroute/core/jedis_ring.hpp"
#include "cloudroute/core/jump.hpp"

using namespace cloudroute::capi;  // NOLINT: the C API's own vocabulary

namespace {

constexpr cr_ring_options kRingDefaults = CR_RING_OPTIONS_INIT;

cr_status NeedBuilt(const cr_ring *ring, const char *fn) {
  if (ring == nullptr) return Fail(CR_EINVAL, std::string(fn) + ": ring is NULL");
  if (ring->built == nullptr) {
    return Fail(CR_EINVAL, std::string(fn) + ": the ring is not built (call cr_ring_build first)");
  }
  return CR_OK;
}

}  // namespace

extern "C" {

cr_status cr_ring_options_init(cr_ring_options *opts, size_t size) {
  return Guard([&] { return InitOptions(opts, size, kRingDefaults, "cr_ring_options_init"); });
}

cr_status cr_ring_new(cr_ring **out, const cr_ring_options *opts) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_ring_new";
    if (cr_status s = NotNull(out, fn, "out"); s != CR_OK) return s;
    *out = nullptr;
    cr_ring_options o;
    if (cr_status s = ReadInput(&o, opts, kRingDefaults, fn, "opts"); s != CR_OK) return s;
    if (cr_status s = Boolean(o.key_tags, fn, "key_tags"); s != CR_OK) return s;
    // Range-check the raw values before narrowing them to the core's enums.
    const int algo = RawEnum(o.algo), hash = RawEnum(o.hash), naming = RawEnum(o.naming);
    if (algo < 0 || algo >= cloudroute::kRingAlgoCount) {
      return Fail(CR_EINVAL, "cr_ring_new: unknown ring algorithm " + std::to_string(algo) +
                                 " (want CR_RING_ALGO_JEDIS, CR_RING_ALGO_KETAMA, "
                                 "CR_RING_ALGO_JUMP or CR_RING_ALGO_MODULO)");
    }
    if (hash < 0 || hash >= cloudroute::kRingHashCount) {
      return Fail(CR_EINVAL,
                  "cr_ring_new: unknown hash algorithm " + std::to_string(hash) +
                      " (want CR_HASH_ALGO_DEFAULT, CR_HASH_ALGO_MURMUR or CR_HASH_ALGO_MD5)");
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

cr_status cr_ring_add_shard(cr_ring *ring, const char *name, uint32_t weight) {
  return Guard([&]() -> cr_status {
    if (cr_status s = NotNull(ring, "cr_ring_add_shard", "ring"); s != CR_OK) return s;
    if (ring->built != nullptr) {
      return Fail(
          CR_EINVAL,
          "cr_ring_add_shard: the ring is already built (make a new ring to change shards)");
    }
    cloudroute::Status s =
        ring->builder.AddShard(name, name == nullptr ? 0 : std::strlen(name), weight);
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
      return Fail(static_cast<cr_status>(built.status().code()),
                  "cr_ring_build: " + built.status().message());
    }
    ring->built = std::move(*built);
    return CR_OK;
  });
}

cr_status cr_ring_locate(uint32_t *out_shard, const cr_ring *ring, const void *key, size_t len) {
  return Guard([&]() -> cr_status {
    if (cr_status s = NotNull(out_shard, "cr_ring_locate", "out_shard"); s != CR_OK) return s;
    if (cr_status s = NeedBuilt(ring, "cr_ring_locate"); s != CR_OK) return s;
    if (cr_status s = Bytes(key, len, "cr_ring_locate", "key"); s != CR_OK) return s;
    *out_shard = ring->built->Locate(key, len);
    return CR_OK;
  });
}

cr_status cr_ring_locate_batch(uint32_t *out_shards, const cr_ring *ring, const void *const *keys,
                               const size_t *lens, size_t n) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_ring_locate_batch";
    if (n == 0) return CR_OK;
    if (cr_status s = NotNull(out_shards, fn, "out_shards"); s != CR_OK) return s;
    if (cr_status s = NeedBuilt(ring, fn); s != CR_OK) return s;
    if (cr_status s = BytesArray(keys, lens, n, fn, "keys"); s != CR_OK) return s;
    const cloudroute::Ring &r = *ring->built;
    for (size_t i = 0; i < n; ++i) out_shards[i] = r.Locate(keys[i], lens[i]);
    return CR_OK;
  });
}

size_t cr_ring_get_shard_count(const cr_ring *ring) {
  return ring == nullptr ? 0 : ring->builder.shard_count();
}

cr_status cr_jedis_hash(int64_t *out, cr_hash_algo algo, const void *key, size_t len) {
  return Guard([&]() -> cr_status {
    if (cr_status s = NotNull(out, "cr_jedis_hash", "out"); s != CR_OK) return s;
    if (cr_status s = Bytes(key, len, "cr_jedis_hash", "key"); s != CR_OK) return s;
    const int raw = RawEnum(algo);
    if (raw == CR_HASH_ALGO_DEFAULT || raw == CR_HASH_ALGO_MURMUR) {
      *out = cloudroute::JedisHashOf(cloudroute::JedisHash::kMurmur, key, len);
      return CR_OK;
    }
    if (raw == CR_HASH_ALGO_MD5) {
      *out = cloudroute::JedisHashOf(cloudroute::JedisHash::kMd5, key, len);
      return CR_OK;
    }
    return Fail(CR_EINVAL, "cr_jedis_hash: unknown hash algorithm " + std::to_string(raw) +
                               " (want CR_HASH_ALGO_MURMUR or CR_HASH_ALGO_MD5)");
  });
}

cr_status cr_jump_hash(uint32_t *out_bucket, uint64_t key, uint32_t num_buckets) {
  return Guard([&]() -> cr_status {
    if (cr_status s = NotNull(out_bucket, "cr_jump_hash", "out_bucket"); s != CR_OK) return s;
    if (num_buckets == 0 || num_buckets > 2147483647u) {
      return Fail(CR_EINVAL, "cr_jump_hash: num_buckets " + std::to_string(num_buckets) +
                                 " is outside 1..2147483647");
    }
    *out_bucket = static_cast<uint32_t>(
        cloudroute::JumpConsistentHash(key, static_cast<int32_t>(num_buckets)));
    return CR_OK;
  });
}

cr_status cr_family_key(char *buf, size_t cap, size_t *needed, const char *family, const void *key,
                        size_t key_len) {
  return cr_family_key_as(buf, cap, needed, CR_FAMILY_KEY_VARIANT_JEDIS, family, key, key_len);
}

}  // extern "C"
