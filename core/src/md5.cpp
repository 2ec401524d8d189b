#include "cloudroute/core/md5.hpp"

#include <cstring>

namespace cloudroute {

namespace {

// RFC 1321 §3.4: T[i] = floor(2^32 * |sin(i + 1)|).
constexpr uint32_t kT[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
};

// Per-round shift amounts, four per round (RFC 1321 §3.4).
constexpr int kS[4][4] = {{7, 12, 17, 22}, {5, 9, 14, 20}, {4, 11, 16, 23}, {6, 10, 15, 21}};

inline uint32_t Rotl(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

}  // namespace

Md5::Md5() : state_{0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u} {}

void Md5::Block(const unsigned char *p) {
  uint32_t x[16];
  for (int i = 0; i < 16; ++i) {
    const unsigned char *w = p + 4 * i;
    x[i] = static_cast<uint32_t>(w[0]) | (static_cast<uint32_t>(w[1]) << 8) |
           (static_cast<uint32_t>(w[2]) << 16) | (static_cast<uint32_t>(w[3]) << 24);
  }
  uint32_t a = state_[0], b = state_[1], c = state_[2], d = state_[3];
  for (int i = 0; i < 64; ++i) {
    const int round = i / 16;
    uint32_t f;
    int g;
    switch (round) {
      case 0:
        f = (b & c) | (~b & d);
        g = i;
        break;
      case 1:
        f = (b & d) | (c & ~d);
        g = (5 * i + 1) & 15;
        break;
      case 2:
        f = b ^ c ^ d;
        g = (3 * i + 5) & 15;
        break;
      default:
        f = c ^ (b | ~d);
        g = (7 * i) & 15;
        break;
    }
    const uint32_t next = b + Rotl(a + f + kT[i] + x[g], kS[round][i & 3]);
    a = d;
    d = c;
    c = b;
    b = next;
  }
  state_[0] += a;
  state_[1] += b;
  state_[2] += c;
  state_[3] += d;
}

void Md5::Update(const void *data, size_t len) {
  if (len == 0) return;  // data may be NULL then
  const auto *p = static_cast<const unsigned char *>(data);
  length_ += len;
  if (buffered_ != 0) {
    const size_t take = len < 64 - buffered_ ? len : 64 - buffered_;
    std::memcpy(buffer_ + buffered_, p, take);
    buffered_ += take;
    p += take;
    len -= take;
    if (buffered_ < 64) return;
    Block(buffer_);
    buffered_ = 0;
  }
  for (; len >= 64; len -= 64, p += 64) Block(p);
  if (len != 0) std::memcpy(buffer_, p, len);
  buffered_ = len;
}

Md5Digest Md5::Final() {
  const uint64_t bits = length_ * 8;
  unsigned char pad[72] = {0x80};
  // Pad to 56 mod 64, then the bit length, little-endian.
  const size_t pad_len = buffered_ < 56 ? 56 - buffered_ : 120 - buffered_;
  for (size_t i = 0; i < 8; ++i) pad[pad_len + i] = static_cast<unsigned char>(bits >> (8 * i));
  const uint64_t saved = length_;
  Update(pad, pad_len + 8);
  length_ = saved;
  Md5Digest out;
  for (size_t i = 0; i < 4; ++i) {
    for (size_t j = 0; j < 4; ++j) out[4 * i + j] = static_cast<uint8_t>(state_[i] >> (8 * j));
  }
  return out;
}

Md5Digest Md5Of(const void *data, size_t len) {
  Md5 m;
  m.Update(data, len);
  return m.Final();
}

}  // namespace cloudroute
