// Scripts named by their SHA1 (see script.hpp).
#include "cloudroute/net/script.hpp"

#include <openssl/sha.h>

namespace cloudroute {
namespace net {

Script::Script(std::string body) : body_(std::move(body)) {
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char *>(body_.data()), body_.size(), digest);
  static const char kHex[] = "0123456789abcdef";
  sha_.reserve(2 * SHA_DIGEST_LENGTH);
  for (unsigned char b : digest) {
    sha_.push_back(kHex[b >> 4]);
    sha_.push_back(kHex[b & 15]);
  }
}

Args Script::Command(bool read_only, const std::vector<std::string> &keys,
                     const std::vector<std::string> &args) const {
  Args a;
  a.reserve(3 + keys.size() + args.size());
  a.push_back(read_only ? "EVALSHA_RO" : "EVALSHA");
  a.push_back(sha_);
  a.push_back(std::to_string(keys.size()));
  a.insert(a.end(), keys.begin(), keys.end());
  a.insert(a.end(), args.begin(), args.end());
  return a;
}

}  // namespace net
}  // namespace cloudroute
