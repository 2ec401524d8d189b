// The key-slot functions' bodies, inline: KeySlot (keyslot.hpp) is out of
// line, which suits most callers; the single-key C API routing calls inline
// KeySlotInline instead, so the key stays in registers and no call splits the
// routing decision (an out-of-line call there made the compiler keep the
// caller's arguments on the stack).
//
// CRC16/XMODEM by "slicing": eight 256-entry tables let the loop fold eight
// input bytes per step with independent lookups, instead of the one-byte,
// serially dependent loop of the classic table (what Redis, hiredis-cluster
// and libvalkey use). Tables are computed at compile time.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "cloudroute/core/keyslot.hpp"

namespace cloudroute {
namespace keyslot_internal {

using Table = std::array<std::array<uint16_t, 256>, 8>;

constexpr Table MakeTables() {
  Table t{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint16_t crc = static_cast<uint16_t>(b << 8);
    for (int i = 0; i < 8; ++i) {
      crc = static_cast<uint16_t>((crc & 0x8000) ? (crc << 1) ^ 0x1021 : (crc << 1));
    }
    t[0][b] = crc;
  }
  // t[k][b]: the CRC of byte b followed by k zero bytes.
  for (size_t k = 1; k < 8; ++k) {
    for (uint32_t b = 0; b < 256; ++b) {
      uint16_t prev = t[k - 1][b];
      t[k][b] = static_cast<uint16_t>((prev << 8) ^ t[0][prev >> 8]);
    }
  }
  return t;
}

inline constexpr Table kTables = MakeTables();

// CRC16 over p[0, len), continuing from crc. After the eight-byte loop the
// tail takes one four-byte and one two-byte step of the same slicing before the
// last odd byte, so a short key costs a few table loads, not a loop per byte.
inline uint16_t Crc16Update(uint16_t crc, const unsigned char *p, size_t len) {
  while (len >= 8) {
    // The running CRC only affects the first two bytes of the block.
    const unsigned b0 = p[0] ^ (crc >> 8);
    const unsigned b1 = p[1] ^ (crc & 0xFF);
    crc = static_cast<uint16_t>(kTables[7][b0] ^ kTables[6][b1] ^ kTables[5][p[2]] ^
                                kTables[4][p[3]] ^ kTables[3][p[4]] ^ kTables[2][p[5]] ^
                                kTables[1][p[6]] ^ kTables[0][p[7]]);
    p += 8;
    len -= 8;
  }
  if (len >= 4) {
    const unsigned b0 = p[0] ^ (crc >> 8);
    const unsigned b1 = p[1] ^ (crc & 0xFF);
    crc = static_cast<uint16_t>(kTables[3][b0] ^ kTables[2][b1] ^ kTables[1][p[2]] ^
                                kTables[0][p[3]]);
    p += 4;
    len -= 4;
  }
  if (len >= 2) {
    const unsigned b0 = p[0] ^ (crc >> 8);
    const unsigned b1 = p[1] ^ (crc & 0xFF);
    crc = static_cast<uint16_t>(kTables[1][b0] ^ kTables[0][b1]);
    p += 2;
    len -= 2;
  }
  if (len != 0) crc = static_cast<uint16_t>((crc << 8) ^ kTables[0][(crc >> 8) ^ p[0]]);
  return crc;
}

// The bytes of v that are zero, as 0x80 in that byte. Only the lowest flagged
// byte is exact (a borrow may flag bytes above it), which is all FindByte reads.
constexpr uint64_t ZeroBytes(uint64_t v) {
  return (v - 0x0101010101010101ull) & ~v & 0x8080808080808080ull;
}

// Index of the first byte c in p[0, len), or len. Keys of 4 to 16 bytes (the
// common ones) are searched a word at a time with two overlapping loads that
// stay inside the key; other lengths use memchr.
inline size_t FindByte(const unsigned char *p, size_t len, unsigned char c) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  if (len >= 4 && len <= 16) {
    const size_t w = len >= 8 ? 8 : 4;
    uint64_t a = 0;
    uint64_t b = 0;
    std::memcpy(&a, p, w);
    std::memcpy(&b, p + len - w, w);
    const uint64_t pattern = 0x0101010101010101ull * c;
    // Bytes beyond w are zero in a and b: set them to anything but c's match.
    const uint64_t pad = w == 8 ? 0 : ~0ull << 32;
    if (const uint64_t m = ZeroBytes((a ^ pattern) | pad); m != 0) {
      return static_cast<size_t>(__builtin_ctzll(m) >> 3);
    }
    if (const uint64_t m = ZeroBytes((b ^ pattern) | pad); m != 0) {
      return len - w + static_cast<size_t>(__builtin_ctzll(m) >> 3);
    }
    return len;
  }
#endif
  const void *hit = std::memchr(p, c, len);
  return hit == nullptr ? len : static_cast<size_t>(static_cast<const unsigned char *>(hit) - p);
}

inline void HashTag(const unsigned char *key, size_t len, const unsigned char **tag,
                    size_t *tag_len) {
  *tag = key;
  *tag_len = len;
  if (len < 3) return;  // "{x}" is the shortest key with a usable tag
  const size_t open = FindByte(key, len, '{');
  if (open + 2 >= len) return;  // no '{', or nothing can follow it
  const unsigned char *start = key + open + 1;
  const void *close = std::memchr(start, '}', len - open - 1);
  if (close == nullptr || close == start) return;
  *tag = start;
  *tag_len = static_cast<size_t>(static_cast<const unsigned char *>(close) - start);
}

}  // namespace keyslot_internal

// KeySlot, inline. REQUIRES: key != nullptr || len == 0.
inline uint16_t KeySlotInline(const void *key, size_t len) {
  const unsigned char *tag;
  size_t tag_len;
  keyslot_internal::HashTag(static_cast<const unsigned char *>(key), len, &tag, &tag_len);
  return static_cast<uint16_t>(keyslot_internal::Crc16Update(0, tag, tag_len) & (kSlotCount - 1));
}

}  // namespace cloudroute
