// MD5 (RFC 1321), written from the RFC for the two places the routing core
// needs it: Jedis's Hashing.MD5 and the ketama continuum of libmemcached and
// twemproxy. Not for security: MD5 is broken as a cryptographic hash; here it
// only places keys where existing clients place them.
//
// Thread-safety: Md5 is a plain value used by one thread; the free functions
// are pure.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace cloudroute {

using Md5Digest = std::array<uint8_t, 16>;

class Md5 {
 public:
  Md5();
  void Update(const void *data, size_t len);
  // Pads and returns the digest. REQUIRES: called once; the object is spent after.
  Md5Digest Final();

 private:
  void Block(const unsigned char *p);

  uint32_t state_[4];
  uint64_t length_ = 0;  // bytes hashed so far
  unsigned char buffer_[64];
  size_t buffered_ = 0;
};

Md5Digest Md5Of(const void *data, size_t len);

// Digest bytes 4*word .. 4*word+3 read as a little-endian 32-bit value
// (word 0..3). Word 0 is Jedis's Hashing.MD5 and libmemcached's MD5 key
// hash; words 0..3 are ketama's four points per digest.
inline uint32_t Md5Word(const Md5Digest &d, int word) {
  const uint8_t *b = d.data() + 4 * word;
  return static_cast<uint32_t>(b[0]) | (static_cast<uint32_t>(b[1]) << 8) |
         (static_cast<uint32_t>(b[2]) << 16) | (static_cast<uint32_t>(b[3]) << 24);
}

}  // namespace cloudroute
