// MD5 (RFC 1321): the RFC's test suite, incremental updates at every block
// boundary, and the 32-bit words Jedis and ketama take from the digest.
#include "cloudroute/core/md5.hpp"

#include <gtest/gtest.h>

#include <string>

#include "ring_vectors.hpp"

namespace md5_test {

using cloudroute::Md5;
using cloudroute::Md5Of;
using cloudroute::Md5Word;

std::string Hex(const cloudroute::Md5Digest &d) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (uint8_t b : d) {
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  }
  return out;
}

TEST(Md5, Rfc1321TestSuite) {
  const auto &v = crtest::RingVectors()["md5_rfc1321"];
  ASSERT_EQ(v.size(), 7u);
  for (const auto &c : v) {
    const std::string in = c["input"];
    EXPECT_EQ(Hex(Md5Of(in.data(), in.size())), c["digest"].get<std::string>()) << in;
  }
  EXPECT_EQ(Hex(Md5Of("abc", 3)), "900150983cd24fb0d6963f7d28e17f72");
  EXPECT_EQ(Hex(Md5Of(nullptr, 0)), "d41d8cd98f00b204e9800998ecf8427e");
}

// One million 'a' (value computed with Python's hashlib).
TEST(Md5, MillionA) {
  const std::string a(1000000, 'a');
  EXPECT_EQ(Hex(Md5Of(a.data(), a.size())), "7707d6ae4e027c70eea2a935c2296f21");
}

TEST(Md5, IncrementalEqualsOneShot) {
  std::string data;
  for (int i = 0; i < 300; ++i) data.push_back(static_cast<char>(i * 7 + 3));
  for (size_t len = 0; len <= data.size(); len += 1) {
    const auto ref = Md5Of(data.data(), len);
    for (size_t step : {1u, 3u, 55u, 56u, 63u, 64u, 65u}) {
      Md5 m;
      for (size_t off = 0; off < len; off += step)
        m.Update(data.data() + off, std::min(step, len - off));
      ASSERT_EQ(m.Final(), ref) << "len " << len << " step " << step;
    }
  }
}

TEST(Md5, WordsAreLittleEndian) {
  // md5("a") = 0cc175b9 c0f1b6a8 31c399e2 69772661
  const auto d = Md5Of("a", 1);
  EXPECT_EQ(Md5Word(d, 0), 0xb975c10cu);
  EXPECT_EQ(Md5Word(d, 1), 0xa8b6f1c0u);
  EXPECT_EQ(Md5Word(d, 2), 0xe299c331u);
  EXPECT_EQ(Md5Word(d, 3), 0x61267769u);
}

}  // namespace md5_test
