// A counting replacement of the global allocation functions, for tests that
// prove a hot path allocates nothing. Include it from exactly one file of a
// test binary. Every replaceable form is covered (plain, nothrow, sized
// delete) so that allocations and deallocations always pair with malloc/free,
// also under AddressSanitizer and ThreadSanitizer. Outside sanitizer builds
// malloc itself is counted too (a sanitizer's runtime owns malloc: handing
// its callers glibc's allocator instead crashes the process).
#pragma once

#include <atomic>
#include <cstdlib>
#include <new>

namespace crtest {
inline std::atomic<long> g_allocs{0};
inline std::atomic<bool> g_counting{false};
inline void CountAlloc() {
  if (g_counting.load(std::memory_order_relaxed)) g_allocs.fetch_add(1);
}
}  // namespace crtest

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

void *operator new(size_t n) {
  crtest::CountAlloc();
  void *p = std::malloc(n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
void *operator new[](size_t n) { return operator new(n); }
void *operator new(size_t n, const std::nothrow_t &) noexcept {
  crtest::CountAlloc();
  return std::malloc(n == 0 ? 1 : n);
}
void *operator new[](size_t n, const std::nothrow_t &t) noexcept { return operator new(n, t); }
void operator delete(void *p) noexcept { std::free(p); }
void operator delete[](void *p) noexcept { std::free(p); }
void operator delete(void *p, size_t) noexcept { std::free(p); }
void operator delete[](void *p, size_t) noexcept { std::free(p); }
void operator delete(void *p, const std::nothrow_t &) noexcept { std::free(p); }
void operator delete[](void *p, const std::nothrow_t &) noexcept { std::free(p); }

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
extern "C" void *__libc_malloc(size_t);
extern "C" void *__libc_calloc(size_t, size_t);
extern "C" void *__libc_realloc(void *, size_t);
extern "C" void *malloc(size_t n) {
  crtest::CountAlloc();
  return __libc_malloc(n);
}
extern "C" void *calloc(size_t a, size_t b) {
  crtest::CountAlloc();
  return __libc_calloc(a, b);
}
extern "C" void *realloc(void *p, size_t n) {
  crtest::CountAlloc();
  return __libc_realloc(p, n);
}
#endif
