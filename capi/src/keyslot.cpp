// C API: key slots.
#include "api.hpp"
#include "cloudroute/core/keyslot.hpp"

using cloudroute::capi::Fail;
using cloudroute::capi::Guard;

extern "C" {

uint16_t cr_keyslot(const void *key, size_t len) {
  if (key == nullptr) len = 0;
  return cloudroute::KeySlot(key, len);
}

uint16_t cr_crc16(const void *data, size_t len) {
  if (data == nullptr) len = 0;
  return cloudroute::Crc16(data, len);
}

cr_status cr_keyslots(uint16_t *out_slots, const void *const *keys, const size_t *lens, size_t n) {
  return Guard([&]() -> cr_status {
    if (n == 0) return CR_OK;
    if (out_slots == nullptr || keys == nullptr || lens == nullptr) {
      return Fail(CR_EINVAL, "cr_keyslots: out_slots, keys and lens must not be NULL");
    }
    for (size_t i = 0; i < n; ++i) {
      if (keys[i] == nullptr && lens[i] != 0) {
        return Fail(CR_EINVAL, "cr_keyslots: key " + std::to_string(i) +
                                   " is NULL with a non-zero length");
      }
      out_slots[i] = cloudroute::KeySlot(keys[i], lens[i]);
    }
    return CR_OK;
  });
}

}  // extern "C"
