// Shared by the libFuzzer targets: invariant checks that stop the fuzzer
// with a message (a crash it then saves as a reproducer), and a key for
// every slot so slot-based checks can use the key-based calls too.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cloudroute.h"

namespace crfuzz {

[[noreturn]] inline void Violated(const char *what, const char *file, int line) {
  std::fprintf(stderr, "invariant violated at %s:%d: %s (last error: %s)\n", file, line, what,
               cr_last_error());
  std::abort();
}

#define CRFUZZ_REQUIRE(cond)                                    \
  do {                                                          \
    if (!(cond)) ::crfuzz::Violated(#cond, __FILE__, __LINE__); \
  } while (0)

// A failed call must say why: a known status and a non-empty message.
inline void RequireExplained(cr_status s) {
  if (s == CR_OK) return;
  CRFUZZ_REQUIRE(s < 0 && s >= CR_EVERSION);
  CRFUZZ_REQUIRE(cr_last_error()[0] != '\0');
}

// keys[slot] hashes to slot ("k<n>" for the smallest such n).
inline const std::vector<std::string> &KeyPerSlot() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k(16384);
    size_t found = 0;
    for (uint64_t n = 0; found < k.size(); ++n) {
      std::string key = "k" + std::to_string(n);
      const uint16_t slot = cr_keyslot(key.data(), key.size());
      if (k[slot].empty()) {
        k[slot] = key;
        ++found;
      }
    }
    return k;
  }();
  return keys;
}

}  // namespace crfuzz
