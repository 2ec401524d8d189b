// Whether this test binary runs under ASan or TSan: their allocators keep
// shadow memory and quarantines and do not count the heap as malloc does, so
// tests that measure memory skip (or are not registered) there.
//
// Header-only; any test directory includes it as "common/sanitizers.hpp".
#pragma once

namespace crtest {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif
#else
constexpr bool kSanitized = false;
#endif

}  // namespace crtest
