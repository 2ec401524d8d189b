// CRC16/XMODEM by "slicing": eight 256-entry tables let the loop fold eight
// input bytes per step with independent lookups, instead of the one-byte,
// serially dependent loop of the classic table (what Redis, hiredis-cluster
// and libvalkey use). Tables are computed at compile time.
#include "cloudroute/core/keyslot.hpp"

#include <array>
#include <cstring>

namespace cloudroute {
namespace {

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

constexpr Table kTables = MakeTables();

}  // namespace

uint16_t Crc16(const void *data, size_t len) {
  const unsigned char *p = static_cast<const unsigned char *>(data);
  uint16_t crc = 0;
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
  while (len--) {
    crc = static_cast<uint16_t>((crc << 8) ^ kTables[0][((crc >> 8) ^ *p++) & 0xFF]);
  }
  return crc;
}

void HashTag(const unsigned char *key, size_t len, const unsigned char **tag, size_t *tag_len) {
  *tag = key;
  *tag_len = len;
  if (len < 3) return;  // "{x}" is the shortest key with a usable tag
  const void *open = std::memchr(key, '{', len);
  if (open == nullptr) return;
  const unsigned char *start = static_cast<const unsigned char *>(open) + 1;
  const size_t rest = len - static_cast<size_t>(start - key);
  const void *close = std::memchr(start, '}', rest);
  if (close == nullptr || close == start) return;
  *tag = start;
  *tag_len = static_cast<size_t>(static_cast<const unsigned char *>(close) - start);
}

}  // namespace cloudroute
