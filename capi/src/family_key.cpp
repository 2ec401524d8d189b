// C API: family keys and their hash variants (Jedis, commons-codec).
#include <cstring>

#include "api.hpp"
#include "cloudroute/core/family_key.hpp"

using namespace cloudroute::capi;  // NOLINT: the C API's own vocabulary

extern "C" {

cr_status cr_family_key_as(char *buf, size_t cap, size_t *needed, cr_family_key_variant variant,
                           const char *family, const void *key, size_t key_len) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_family_key_as";
    if (cr_status s = OutBuffer(buf, cap, needed, fn); s != CR_OK) return s;
    if (cr_status s = EnumInRange(variant, cloudroute::kFamilyKeyVariantCount - 1, fn, "variant");
        s != CR_OK)
      return s;
    if (cr_status s = NotNull(family, fn, "family"); s != CR_OK) return s;
    if (cr_status s = Bytes(key, key_len, fn, "key"); s != CR_OK) return s;
    const size_t family_len = std::strlen(family);
    if (cloudroute::Status s = cloudroute::ValidateFamily(family, family_len); !s.ok()) {
      return Fail(CR_EINVAL, std::string(fn) + ": " + s.message());
    }
    char text[cloudroute::kFamilyKeyMax];
    const size_t n =
        cloudroute::FamilyKey(text, family, family_len, key, key_len,
                              static_cast<cloudroute::FamilyKeyVariant>(RawEnum(variant)));
    *needed = n + 1;
    if (cap < n + 1) return TooSmall(n + 1, cap, fn, "bytes");
    std::memcpy(buf, text, n + 1);
    return CR_OK;
  });
}

cr_status cr_family_key_variant_from_name(cr_family_key_variant *out, const char *name) {
  return Guard([&]() -> cr_status {
    static const char fn[] = "cr_family_key_variant_from_name";
    if (cr_status s = NotNull(out, fn, "out"); s != CR_OK) return s;
    if (cr_status s = NotNull(name, fn, "name"); s != CR_OK) return s;
    cloudroute::FamilyKeyVariant v;
    if (!cloudroute::FamilyKeyVariantFromName(name, &v)) {
      return Fail(CR_EINVAL, std::string("unknown family-key variant '") + name +
                                 "' (want jedis or commons-codec)");
    }
    *out = static_cast<cr_family_key_variant>(v);
    return CR_OK;
  });
}

const char *cr_family_key_variant_name(cr_family_key_variant variant) {
  const int v = RawEnum(variant);
  if (v < 0 || v >= cloudroute::kFamilyKeyVariantCount) return "?";
  return cloudroute::FamilyKeyVariantName(static_cast<cloudroute::FamilyKeyVariant>(v));
}

}  // extern "C"
