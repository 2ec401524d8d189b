// MurmurHash64A: Austin Appleby's 64-bit MurmurHash2 for 64-bit platforms,
// the hash behind Jedis's Hashing.MURMUR_HASH (seed 0x1234ABCD over the
// key's UTF-8 bytes, the 64-bit result read as a Java long).
//
// Written from the algorithm's description; checked against the SMHasher
// verification value (0x1F0D3804) and values printed by Jedis (tests/core/
// murmur64a_test.cc, tests/vectors/jedis_hash.json).
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cloudroute {

// Jedis's redis.clients.util.MurmurHash seed.
constexpr uint64_t kJedisMurmurSeed = 0x1234ABCD;

// Blocks are read little-endian whatever the host's byte order, so every
// platform gives the same value (the reference code reads native words).
uint64_t MurmurHash64A(const void *data, size_t len, uint64_t seed);

// Hashing.MURMUR_HASH.hash(bytes) of Jedis.
inline int64_t JedisMurmurHash(const void *data, size_t len) {
  return static_cast<int64_t>(MurmurHash64A(data, len, kJedisMurmurSeed));
}

}  // namespace cloudroute
