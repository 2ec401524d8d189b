#include "cloudroute/core/jedis_ring.hpp"

#include "cloudroute/core/md5.hpp"
#include "cloudroute/core/murmur64a.hpp"

namespace cloudroute {

int64_t JedisHashOf(JedisHash algo, const void *data, size_t len) {
  if (algo == JedisHash::kMd5) return static_cast<int64_t>(Md5Word(Md5Of(data, len), 0));
  return JedisMurmurHash(data, len);
}

namespace {

// Length of the Java line terminator starting at key[i] (0 when none):
// '.' without DOTALL matches anything else.
inline size_t LineTerminator(const unsigned char *key, size_t len, size_t i) {
  const unsigned char c = key[i];
  if (c == '\n' || c == '\r') return 1;
  if (c == 0xC2 && i + 1 < len && key[i + 1] == 0x85) return 2;  // U+0085 NEL
  if (c == 0xE2 && i + 2 < len && key[i + 1] == 0x80 &&
      (key[i + 2] == 0xA8 || key[i + 2] == 0xA9)) {
    return 3;  // U+2028, U+2029
  }
  return 0;
}

}  // namespace

void JedisKeyTag(const unsigned char *key, size_t len, const unsigned char **tag, size_t *tag_len) {
  *tag = key;
  *tag_len = len;
  size_t p = 0;
  while (p < len) {
    if (key[p] != '{') {
      ++p;
      continue;
    }
    // Group 1 starts at p + 1 with at least one character (which may be a
    // '}'), then runs lazily to the first '}' — unless a line terminator
    // comes first. Bytes of a multi-byte character are never '{' or '}', so
    // scanning bytes is scanning characters.
    size_t j = p + 1;
    if (j >= len) return;
    if (LineTerminator(key, len, j) != 0) {
      p = j;
      continue;
    }
    ++j;
    while (j < len && key[j] != '}' && LineTerminator(key, len, j) == 0) ++j;
    if (j >= len) return;  // no '}' after any later '{' either
    if (key[j] == '}') {
      *tag = key + p + 1;
      *tag_len = j - p - 1;
      return;
    }
    // A line terminator at j: no match can start at a '{' before it.
    p = j;
  }
}

std::string JedisPointName(JedisNaming naming, uint32_t index, const std::string *name,
                           int32_t weight, uint32_t n) {
  if (name == nullptr) return "SHARD-" + std::to_string(index) + "-NODE-" + std::to_string(n);
  if (naming == JedisNaming::kJedis2) {
    return *name + "*" + std::to_string(weight) + std::to_string(n);
  }
  return *name + "*" + std::to_string(n);
}

}  // namespace cloudroute
