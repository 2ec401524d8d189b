// PointRing: the continuum of a consistent-hashing ring — hash points, each
// owned by a shard — and the lookup every such ring shares: the first point
// at or after the key's hash, wrapping to the first point.
//
// Layout, for lookups of a few nanoseconds: the point values in one sorted
// array, their owners in another (with the first owner repeated at the end,
// so the wrap costs no branch), and a prefix index of 2^bits + 1 entries
// where index[b] is the first point whose top `bits` bits are >= b. A lookup
// reads one index pair and scans the points of a single bucket (fewer than
// one on average). A balanced tree (Java's TreeMap, std::map) chases
// log2(n) pointers instead.
//
// T is uint32_t (MD5-based rings: ketama, Jedis MD5) or uint64_t (Jedis
// MurmurHash, with the Java long mapped to unsigned order by flipping the
// sign bit).
//
// Thread-safety: built once by one thread, then immutable; Lookup() is
// lock-free, allocation-free and safe from any number of threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cloudroute {

template <typename T>
class PointRing {
 public:
  struct Point {
    T value;
    uint32_t shard;
  };

  // Which owner keeps a point that several shards hash to.
  enum class Ties {
    kFirstWins,  // the earliest in insertion order (a stable sort, as ketama's qsort in glibc)
    kLastWins,   // the latest (Java TreeMap.put overwrites: Jedis)
  };

  // REQUIRES: !points.empty(). Points are given in insertion order.
  void Build(std::vector<Point> points, Ties ties);

  // The owner of the first point >= h, or of the first point when none is.
  // REQUIRES: Build() was called.
  uint32_t Lookup(T h) const {
    const size_t b = static_cast<size_t>(h >> shift_);
    uint32_t i = index_[b];
    const uint32_t end = index_[b + 1];
    const T *v = values_.data();
    while (i < end && v[i] < h) ++i;
    return owners_[i];
  }

  size_t size() const { return values_.size(); }
  bool empty() const { return values_.empty(); }
  T value(size_t i) const { return values_[i]; }
  uint32_t owner(size_t i) const { return owners_[i]; }
  unsigned index_bits() const { return bits_; }

 private:
  std::vector<T> values_;         // sorted, distinct
  std::vector<uint32_t> owners_;  // size() + 1: owners_[size()] == owners_[0]
  std::vector<uint32_t> index_;   // 2^bits_ + 1
  unsigned bits_ = 0;
  unsigned shift_ = 0;
};

extern template class PointRing<uint32_t>;
extern template class PointRing<uint64_t>;

}  // namespace cloudroute
