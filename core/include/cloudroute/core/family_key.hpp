// Family keys: how the Sentinel shard-group design lets several businesses
// ("families") share the same groups without their keys colliding. The key
// stored in Redis is not the caller's key but
//   decimal( MurmurHash64A(family + ":" + key) )      (Jedis's MURMUR_HASH: seed
//                                                      0x1234ABCD, a signed Java long)
// e.g. "-4379428740924957012". Existing data may also have been written with
// commons-codec's MurmurHash2.hash64(String) — the same MurmurHash64A over
// the String's UTF-8 bytes, with seed 0xe17a1465 — so the hash is a named
// variant (Jedis's by default). The original key is NOT recoverable from what
// Redis holds: SCAN, KEYS, MONITOR and keyspace notifications show only
// numbers, and two different (family, key) pairs share a stored key only if
// their 64-bit hashes collide.
//
// A family may not be empty or contain ':' or a NUL byte, so that
// (family, key) splits one way only ("a:b" + "c" and "a" + "b:c" would
// otherwise hash the same text).
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "cloudroute/core/status.hpp"

namespace cloudroute {

// The longest stored key, "-9223372036854775808", plus a terminating NUL.
constexpr size_t kFamilyKeyMax = 21;

// Which Java class wrote the stored keys. Both hash UTF-8 bytes, so a Java
// String key corresponds to its UTF-8 encoding here.
enum class FamilyKeyVariant : uint8_t {
  kJedis = 0,         // Jedis Hashing.MURMUR_HASH.hash(String): seed 0x1234ABCD
  kCommonsCodec = 1,  // commons-codec MurmurHash2.hash64(String): seed 0xe17a1465
};
constexpr int kFamilyKeyVariantCount = 2;

const char *FamilyKeyVariantName(FamilyKeyVariant v);  // "jedis", "commons-codec"; "?" if none
// Case-insensitive; '_' and '-' are the same. false when unknown.
bool FamilyKeyVariantFromName(std::string_view name, FamilyKeyVariant *out);

Status ValidateFamily(const void *family, size_t len);

// The family key's hash (what the decimal text spells).
// REQUIRES: ValidateFamily(family, family_len).ok()
int64_t FamilyKeyHash(const void *family, size_t family_len, const void *key, size_t key_len,
                      FamilyKeyVariant variant = FamilyKeyVariant::kJedis);

// Writes the stored key as NUL-terminated decimal text into out and returns
// its length (without the NUL). Allocation-free for family + key up to
// 256 bytes. REQUIRES: ValidateFamily(family, family_len).ok()
size_t FamilyKey(char (&out)[kFamilyKeyMax], const void *family, size_t family_len, const void *key,
                 size_t key_len, FamilyKeyVariant variant = FamilyKeyVariant::kJedis);

}  // namespace cloudroute
