/* Whether this test binary runs under ASan or TSan, for C and C++ tests
 * alike (the C++ ones include "common/sanitizers.hpp", built on this).
 *
 * CR_TEST_SANITIZED is 1 under AddressSanitizer or ThreadSanitizer, else 0.
 * CR_TEST_LOOPS(full, sanitized) is a loop's count: `full` in every other
 * tree (the package tree runs a test for its logic at full length),
 * `sanitized` under a sanitizer, where the loop is there to catch memory
 * errors, undefined behaviour and races, which need far fewer rounds. A
 * loop that must cross a threshold (e.g. NodeRegistry::kReuseAfter) says
 * so beside its sanitized count, and asserts that it did. Every assertion
 * runs in both trees; only how often changes. */
#ifndef CR_TESTS_COMMON_SANITIZERS_H
#define CR_TESTS_COMMON_SANITIZERS_H

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CR_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define CR_TEST_SANITIZED 1
#endif
#endif
#ifndef CR_TEST_SANITIZED
#define CR_TEST_SANITIZED 0
#endif

#define CR_TEST_LOOPS(full, sanitized) (CR_TEST_SANITIZED ? (sanitized) : (full))

#endif
