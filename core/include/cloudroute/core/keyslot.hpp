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

// The slot of a key: Crc16 of its HashTag part, modulo kSlotCount.
uint16_t KeySlot(const void *key, size_t len);

}  // namespace cloudroute
