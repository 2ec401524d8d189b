// A counting replacement of the global allocation functions, for tests that
// prove a hot path allocates nothing. Include it from exactly one file of a
// test binary. Every replaceable form is covered (plain, nothrow, sized
// delete) so that allocations and deallocations always pair with malloc/free,
// also under AddressSanitizer and ThreadSanitizer. Outside sanitizer builds
// malloc itself is counted too (a sanitizer's runtime owns malloc: handing
// its callers glibc's allocator instead crashes the process). g_bytes sums
// the sizes asked for, for tests that bound how much memory a parse may take.
#pragma once

#include <atomic>
#include <cstdlib>
#include <new>

#include "common/sanitizers.h"

namespace crtest {
inline std::atomic<long> g_allocs{0};
inline std::atomic<long> g_bytes{0};
inline std::atomic<bool> g_counting{false};
// Set while operator new calls malloc, so one allocation counts once.
inline thread_local bool g_in_new = false;
inline void CountAlloc(size_t n) {
  if (g_in_new) return;
  if (g_counting.load(std::memory_order_relaxed)) {
    g_allocs.fetch_add(1);
    g_bytes.fetch_add(static_cast<long>(n));
  }
}
}  // namespace crtest

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

void *operator new(size_t n) {
  crtest::CountAlloc(n);
  crtest::g_in_new = true;
  void *p = std::malloc(n == 0 ? 1 : n);
  crtest::g_in_new = false;
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
void *operator new[](size_t n) { return operator new(n); }
void *operator new(size_t n, const std::nothrow_t &) noexcept {
  crtest::CountAlloc(n);
  crtest::g_in_new = true;
  void *p = std::malloc(n == 0 ? 1 : n);
  crtest::g_in_new = false;
  return p;
}
void *operator new[](size_t n, const std::nothrow_t &t) noexcept { return operator new(n, t); }
void operator delete(void *p) noexcept { std::free(p); }
void operator delete[](void *p) noexcept { std::free(p); }
void operator delete(void *p, size_t) noexcept { std::free(p); }
void operator delete[](void *p, size_t) noexcept { std::free(p); }
void operator delete(void *p, const std::nothrow_t &) noexcept { std::free(p); }
void operator delete[](void *p, const std::nothrow_t &) noexcept { std::free(p); }

// A sanitizer's runtime owns malloc (common/sanitizers.h says whether one
// is in).
#if !CR_TEST_SANITIZED
extern "C" void *__libc_malloc(size_t);
extern "C" void *__libc_calloc(size_t, size_t);
extern "C" void *__libc_realloc(void *, size_t);
extern "C" void *malloc(size_t n) {
  crtest::CountAlloc(n);
  return __libc_malloc(n);
}
extern "C" void *calloc(size_t a, size_t b) {
  crtest::CountAlloc(a * b);
  return __libc_calloc(a, b);
}
extern "C" void *realloc(void *p, size_t n) {
  crtest::CountAlloc(n);
  return __libc_realloc(p, n);
}
#endif
