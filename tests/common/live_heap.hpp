// Live heap bytes through replaced operator new / delete (every form,
// over-aligned ones too): g_live is what is allocated and not yet freed
// since Start(), g_peak the most at once, g_allocs the count. Include from
// exactly one file of a program. Not under a sanitizer, whose runtime owns
// the allocator: CR_LIVE_HEAP_COUNTS is 0 there and nothing is replaced.
// Single-threaded counting (the programs that use it count on one thread).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <new>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CR_LIVE_HEAP_COUNTS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define CR_LIVE_HEAP_COUNTS 0
#endif
#endif
#ifndef CR_LIVE_HEAP_COUNTS
#define CR_LIVE_HEAP_COUNTS 1
#endif

#if CR_LIVE_HEAP_COUNTS
namespace crheap {

// A header before each block remembers its size and whether it was counted.
struct Header {
  size_t size;
  size_t counted;
};
static_assert(sizeof(Header) == 16, "keeps blocks 16-byte aligned");
inline bool g_on = false;
inline long g_live = 0, g_peak = 0, g_allocs = 0;

// Counts from zero from here on.
inline void Start() {
  g_live = g_peak = g_allocs = 0;
  g_on = true;
}

inline void *Alloc(size_t n) {
  auto *h = static_cast<Header *>(std::malloc(sizeof(Header) + n));
  if (h == nullptr) throw std::bad_alloc();
  h->size = n;
  h->counted = g_on ? 1u : 0u;
  if (g_on) {
    g_live += static_cast<long>(n);
    g_peak = std::max(g_peak, g_live);
    ++g_allocs;
  }
  return h + 1;
}

inline void Free(void *p) noexcept {
  if (p == nullptr) return;
  Header *h = static_cast<Header *>(p) - 1;
  if (h->counted != 0) g_live -= static_cast<long>(h->size);
  std::free(h);
}

// An aligned block starts one alignment unit into its raw block, with the
// header just before it; `counted` holds the unit (times 2) and the flag.
inline void *AlignedAlloc(size_t n, std::align_val_t al) {
  const size_t a = std::max(static_cast<size_t>(al), sizeof(Header));
  void *raw = std::aligned_alloc(a, (a + n + a - 1) / a * a);
  if (raw == nullptr) throw std::bad_alloc();
  char *user = static_cast<char *>(raw) + a;
  Header *h = reinterpret_cast<Header *>(user) - 1;
  h->size = n;
  h->counted = 2 * a + (g_on ? 1u : 0u);
  if (g_on) {
    g_live += static_cast<long>(n);
    g_peak = std::max(g_peak, g_live);
    ++g_allocs;
  }
  return user;
}

inline void AlignedFree(void *p) noexcept {
  if (p == nullptr) return;
  Header *h = static_cast<Header *>(p) - 1;
  if ((h->counted & 1) != 0) g_live -= static_cast<long>(h->size);
  std::free(static_cast<char *>(p) - h->counted / 2);
}

}  // namespace crheap

void *operator new(size_t n) { return crheap::Alloc(n); }
void *operator new[](size_t n) { return crheap::Alloc(n); }
void operator delete(void *p) noexcept { crheap::Free(p); }
void operator delete[](void *p) noexcept { crheap::Free(p); }
void operator delete(void *p, size_t) noexcept { crheap::Free(p); }
void operator delete[](void *p, size_t) noexcept { crheap::Free(p); }
// Over-aligned types (the registry's 64-byte NodeEntry chunks, the
// snapshot's CandidateSets) come through the aligned forms: counted too
// (scale_check once missed them: ~0.5 MB at 1000 shards).
void *operator new(size_t n, std::align_val_t a) { return crheap::AlignedAlloc(n, a); }
void *operator new[](size_t n, std::align_val_t a) { return crheap::AlignedAlloc(n, a); }
void operator delete(void *p, std::align_val_t) noexcept { crheap::AlignedFree(p); }
void operator delete[](void *p, std::align_val_t) noexcept { crheap::AlignedFree(p); }
void operator delete(void *p, size_t, std::align_val_t) noexcept { crheap::AlignedFree(p); }
void operator delete[](void *p, size_t, std::align_val_t) noexcept { crheap::AlignedFree(p); }
#endif  // CR_LIVE_HEAP_COUNTS
