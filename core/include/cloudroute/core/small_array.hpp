// SmallArray<T>: a growable array of small plain values that keeps up to
// eight bytes of them inside itself and only more on the heap, in 16 bytes
// where a std::vector takes 24 and a block of its own. A shard's replicas
// (one or two node indices) and its slot ranges (most often one) so cost no
// allocation: at a thousand shards that is two thousand blocks fewer to
// allocate, keep and free per topology. Copies are deep.
//
// Thread-safety: none; a value like a std::vector.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace cloudroute {

template <typename T>
class SmallArray {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 8 && alignof(T) <= 8,
                "small plain values only");

 public:
  static constexpr uint32_t kInline = 8 / sizeof(T);

  SmallArray() = default;
  SmallArray(const SmallArray &o) { Assign(o); }
  SmallArray &operator=(const SmallArray &o) {
    if (this != &o) {
      SmallArray copy(o);
      Swap(copy);
    }
    return *this;
  }
  SmallArray(SmallArray &&o) noexcept { Swap(o); }
  SmallArray &operator=(SmallArray &&o) noexcept {
    if (this != &o) {
      SmallArray gone(std::move(o));
      Swap(gone);
    }
    return *this;
  }
  ~SmallArray() {
    if (on_heap()) ::operator delete(u_.heap);
  }

  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  T *data() { return on_heap() ? u_.heap : u_.in; }
  const T *data() const { return on_heap() ? u_.heap : u_.in; }
  T *begin() { return data(); }
  T *end() { return data() + n_; }
  const T *begin() const { return data(); }
  const T *end() const { return data() + n_; }
  T &operator[](size_t i) { return data()[i]; }
  const T &operator[](size_t i) const { return data()[i]; }
  const T &front() const { return data()[0]; }
  const T &back() const { return data()[n_ - 1]; }

  void push_back(const T &v) {
    if (n_ == cap_) Grow();
    data()[n_++] = v;
  }
  template <typename... Args>
  void emplace_back(Args &&...args) {
    push_back(T{std::forward<Args>(args)...});
  }
  // Keeps the first n values. REQUIRES: n <= size().
  void Truncate(size_t n) { n_ = static_cast<uint32_t>(n); }

 private:
  bool on_heap() const { return cap_ > kInline; }

  void Grow() {
    const uint32_t cap = cap_ * 2;
    T *heap = static_cast<T *>(::operator new(sizeof(T) * cap));
    std::memcpy(static_cast<void *>(heap), data(), sizeof(T) * n_);
    if (on_heap()) ::operator delete(u_.heap);
    u_.heap = heap;
    cap_ = cap;
  }

  void Assign(const SmallArray &o) {
    if (o.n_ > kInline) {
      u_.heap = static_cast<T *>(::operator new(sizeof(T) * o.n_));
      cap_ = o.n_;
    }
    std::memcpy(static_cast<void *>(data()), o.data(), sizeof(T) * o.n_);
    n_ = o.n_;
  }

  void Swap(SmallArray &o) noexcept {
    std::swap(u_, o.u_);
    std::swap(n_, o.n_);
    std::swap(cap_, o.cap_);
  }

  union Storage {
    T in[kInline];
    T *heap;
  } u_{};
  uint32_t n_ = 0;
  uint32_t cap_ = kInline;  // above kInline: the values are on the heap
};

}  // namespace cloudroute
