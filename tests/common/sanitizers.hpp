// Whether this test binary runs under ASan or TSan: their allocators keep
// shadow memory and quarantines and do not count the heap as malloc does, so
// tests that measure memory skip (or are not registered) there. And a
// loop's count: Loops(full, sanitized) is `full` in every other tree and
// `sanitized` under a sanitizer (see "common/sanitizers.h", the same for C).
//
// Header-only; any test directory includes it as "common/sanitizers.hpp".
#pragma once

#include "common/sanitizers.h"

namespace crtest {

constexpr bool kSanitized = CR_TEST_SANITIZED != 0;

// The count of a loop that runs shorter under a sanitizer, where it is there
// for memory errors, undefined behaviour and races rather than its logic
// (which the package tree runs at full length).
template <typename T>
constexpr T Loops(T full, T sanitized) {
  return kSanitized ? sanitized : full;
}

}  // namespace crtest
