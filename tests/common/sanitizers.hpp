// Whether this test binary runs under ASan or TSan: their allocators keep
// shadow memory and quarantines and do not count the heap as malloc does, so
// tests that measure memory skip (or are not registered) there. And a
// loop's count: Loops(full, short_count) is `full` in the native trees and
// `short_count` under a sanitizer or an emulator (see "common/sanitizers.h",
// the same for C).
//
// Header-only; any test directory includes it as "common/sanitizers.hpp".
#pragma once

#include "common/sanitizers.h"

namespace crtest {

constexpr bool kSanitized = CR_TEST_SANITIZED != 0;
constexpr bool kEmulated = CR_TEST_EMULATED != 0;
// A tree whose code runs many times slower than natively: loops run their
// short count there, and test threads that spin on shared state yield
// between rounds (one preempted inside a read would hold the writer up for a
// round of every thread on two cores).
constexpr bool kSlow = kSanitized || kEmulated;

// The count of a loop that runs shorter under a sanitizer, where it is there
// for memory errors, undefined behaviour and races rather than its logic
// (which the package tree runs at full length), and under an emulator, where
// it runs the same logic on another architecture at a tenth of the speed.
template <typename T>
constexpr T Loops(T full, T short_count) {
  return kSlow ? short_count : full;
}

}  // namespace crtest
