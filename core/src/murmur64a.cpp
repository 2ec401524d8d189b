#include "cloudroute/core/murmur64a.hpp"

#include <cstring>

namespace cloudroute {

namespace {

inline uint64_t Load64Le(const unsigned char *p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  return v;
}

}  // namespace

uint64_t MurmurHash64A(const void *data, size_t len, uint64_t seed) {
  constexpr uint64_t m = 0xc6a4a7935bd1e995ull;
  constexpr int r = 47;
  const auto *p = static_cast<const unsigned char *>(data);
  uint64_t h = seed ^ (static_cast<uint64_t>(len) * m);

  const size_t blocks = len / 8;
  for (size_t i = 0; i < blocks; ++i, p += 8) {
    uint64_t k = Load64Le(p);
    k *= m;
    k ^= k >> r;
    k *= m;
    h ^= k;
    h *= m;
  }
  // The 1-7 trailing bytes, as a little-endian word padded with zeros.
  const size_t tail = len & 7;
  if (tail != 0) {
    uint64_t k = 0;
    for (size_t i = 0; i < tail; ++i) k |= static_cast<uint64_t>(p[i]) << (8 * i);
    h ^= k;
    h *= m;
  }
  h ^= h >> r;
  h *= m;
  h ^= h >> r;
  return h;
}

}  // namespace cloudroute
