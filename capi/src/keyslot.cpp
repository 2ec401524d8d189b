// C API: key slots.
#include "cloudroute/core/keyslot.hpp"
#include "api.hpp"

using namespace cloudroute::capi;  // NOLINT: the C API's own vocabulary

extern "C" {

uint16_t cr_keyslot(const void *key, size_t len) {
  if (key == nullptr) len = 0;
  return cloudroute::KeySlot(key, len);
}

uint16_t cr_crc16(const void *data, size_t len) {
  if (data == nullptr) len = 0;
  return cloudroute::Crc16(data, len);
}

cr_status cr_keyslot_batch(uint16_t *out_slots, const void *const *keys, const size_t *lens,
                           size_t n) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_keyslot_batch";
    if (n == 0) return CR_OK;
    if (cr_status s = NotNull(out_slots, fn, "out_slots"); s != CR_OK) return s;
    if (cr_status s = BytesArray(keys, lens, n, fn, "keys"); s != CR_OK) return s;
    for (size_t i = 0; i < n; ++i) out_slots[i] = cloudroute::KeySlot(keys[i], lens[i]);
    return CR_OK;
  });
}

}  // extern "C"
