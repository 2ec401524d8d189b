#include "cloudroute/core/family_key.hpp"

#include <charconv>
#include <cstring>
#include <string>

#include "cloudroute/core/murmur64a.hpp"
#include "cloudroute/core/names.hpp"

namespace cloudroute {

namespace {
// org.apache.commons.codec.digest.MurmurHash2's 64-bit default seed.
constexpr uint64_t kCommonsCodecMurmurSeed = 0xe17a1465;
constexpr const char *kVariantNames[kFamilyKeyVariantCount] = {"jedis", "commons-codec"};
}  // namespace

const char *FamilyKeyVariantName(FamilyKeyVariant v) {
  const int i = static_cast<int>(v);
  return i >= 0 && i < kFamilyKeyVariantCount ? kVariantNames[i] : "?";
}

bool FamilyKeyVariantFromName(std::string_view name, FamilyKeyVariant *out) {
  const int i = IndexOfName(name, kVariantNames);
  if (i >= 0) *out = static_cast<FamilyKeyVariant>(i);
  return i >= 0;
}

Status ValidateFamily(const void *family, size_t len) {
  if (family == nullptr || len == 0) return Error(Code::kInvalid, "family is empty");
  const auto *f = static_cast<const char *>(family);
  for (size_t i = 0; i < len; ++i) {
    if (f[i] == ':') {
      return Error(Code::kInvalid, "family contains ':' at offset " + std::to_string(i) +
                                       " (family + \":\" + key must split one way only)");
    }
    if (f[i] == '\0') {
      return Error(Code::kInvalid, "family contains a NUL byte at offset " + std::to_string(i));
    }
  }
  return Status::Ok();
}

int64_t FamilyKeyHash(const void *family, size_t family_len, const void *key, size_t key_len,
                      FamilyKeyVariant variant) {
  char stack[256];
  std::string heap;
  const size_t total = family_len + 1 + key_len;
  char *buf = stack;
  if (total > sizeof stack) {
    heap.resize(total);
    buf = &heap[0];
  }
  std::memcpy(buf, family, family_len);
  buf[family_len] = ':';
  if (key_len != 0) std::memcpy(buf + family_len + 1, key, key_len);
  const uint64_t seed =
      variant == FamilyKeyVariant::kCommonsCodec ? kCommonsCodecMurmurSeed : kJedisMurmurSeed;
  return static_cast<int64_t>(MurmurHash64A(buf, total, seed));
}

size_t FamilyKey(char (&out)[kFamilyKeyMax], const void *family, size_t family_len, const void *key,
                 size_t key_len, FamilyKeyVariant variant) {
  const int64_t h = FamilyKeyHash(family, family_len, key, key_len, variant);
  // Java's Long.toString: signed decimal.
  const std::to_chars_result r = std::to_chars(out, out + kFamilyKeyMax - 1, h);
  *r.ptr = '\0';
  return static_cast<size_t>(r.ptr - out);
}

}  // namespace cloudroute
