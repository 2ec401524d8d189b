#include "cloudroute/core/family_key.hpp"

#include <charconv>
#include <cstring>
#include <string>

#include "cloudroute/core/murmur64a.hpp"

namespace cloudroute {

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

int64_t FamilyKeyHash(const void *family, size_t family_len, const void *key, size_t key_len) {
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
  return JedisMurmurHash(buf, total);
}

size_t FamilyKey(char (&out)[kFamilyKeyMax], const void *family, size_t family_len, const void *key,
                 size_t key_len) {
  const int64_t h = FamilyKeyHash(family, family_len, key, key_len);
  // Java's Long.toString: signed decimal.
  const std::to_chars_result r = std::to_chars(out, out + kFamilyKeyMax - 1, h);
  *r.ptr = '\0';
  return static_cast<size_t>(r.ptr - out);
}

}  // namespace cloudroute
