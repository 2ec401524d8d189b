/* Whether this test binary runs under ASan or TSan, or under an emulator,
 * for C and C++ tests alike (the C++ ones include "common/sanitizers.hpp",
 * built on this).
 *
 * CR_TEST_SANITIZED is 1 under AddressSanitizer or ThreadSanitizer, else 0.
 * CR_TEST_EMULATED is 1 in a cross-built tree whose tests run under a
 * user-mode emulator (the package-arm64 tree under qemu; tests/CMakeLists.txt
 * defines it), where a loop costs 10-30 times its native CPU.
 * CR_TEST_LOOPS(full, short_count) is a loop's count: `full` in the native
 * optimised trees (the package tree runs a test for its logic at full
 * length), `short_count` under a sanitizer, where the loop is there to catch
 * memory errors, undefined behaviour and races, which need far fewer rounds,
 * and under emulation, where it is there to run the same logic on another
 * architecture. A loop that must cross a threshold (e.g.
 * NodeRegistry::kReuseAfter) says so beside its short count, and asserts
 * that it did. Every assertion runs in every tree; only how often changes. */
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

#ifndef CR_TEST_EMULATED
#define CR_TEST_EMULATED 0
#endif

#define CR_TEST_LOOPS(full, short_count) \
  ((CR_TEST_SANITIZED || CR_TEST_EMULATED) ? (short_count) : (full))

#endif
