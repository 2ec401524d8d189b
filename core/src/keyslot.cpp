// The out-of-line key-slot functions; their bodies are in keyslot_inline.hpp.
#include "cloudroute/core/keyslot.hpp"

#include "cloudroute/core/keyslot_inline.hpp"

namespace cloudroute {

uint16_t Crc16(const void *data, size_t len) {
  return keyslot_internal::Crc16Update(0, static_cast<const unsigned char *>(data), len);
}

void HashTag(const unsigned char *key, size_t len, const unsigned char **tag, size_t *tag_len) {
  keyslot_internal::HashTag(key, len, tag, tag_len);
}

uint16_t KeySlot(const void *key, size_t len) { return KeySlotInline(key, len); }

}  // namespace cloudroute
