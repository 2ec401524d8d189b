// Redis Cluster key slots: CRC16/XMODEM of the key (or of its {hash tag})
// modulo 16384.
//
// Thread-safety: pure functions over constant tables.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cloudroute {

constexpr uint32_t kSlotCount = 16384;

// CRC16/XMODEM (poly 0x1021, init 0, no reflection): crc16("123456789") == 0x31C3.
uint16_t Crc16(const void *data, size_t len);

// The part of a key that is hashed: the bytes between the first '{' and the
// first '}' after it, when that is non-empty; otherwise the whole key.
void HashTag(const unsigned char *key, size_t len, const unsigned char **tag, size_t *tag_len);

inline uint16_t KeySlot(const void *key, size_t len) {
  const unsigned char *tag;
  size_t tag_len;
  HashTag(static_cast<const unsigned char *>(key), len, &tag, &tag_len);
  return static_cast<uint16_t>(Crc16(tag, tag_len) & (kSlotCount - 1));
}

}  // namespace cloudroute
