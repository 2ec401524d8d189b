#include "cloudroute/core/point_ring.hpp"

#include <algorithm>

namespace cloudroute {

template <typename T>
void PointRing<T>::Build(std::vector<Point> points, Ties ties) {
  // Sort by value; equal values keep their insertion order, so the winner of
  // a tie is the first (or last) of its run.
  std::stable_sort(points.begin(), points.end(),
                   [](const Point &a, const Point &b) { return a.value < b.value; });
  values_.clear();
  owners_.clear();
  values_.reserve(points.size());
  owners_.reserve(points.size() + 1);
  for (size_t i = 0; i < points.size();) {
    size_t j = i + 1;
    while (j < points.size() && points[j].value == points[i].value) ++j;
    values_.push_back(points[i].value);
    owners_.push_back(ties == Ties::kFirstWins ? points[i].shard : points[j - 1].shard);
    i = j;
  }
  owners_.push_back(owners_.front());

  // About one point per bucket: enough to make the scan short, small enough
  // (4 bytes a bucket) to stay in cache next to the points.
  const size_t n = values_.size();
  bits_ = 1;
  while (bits_ < 24 && (size_t{1} << bits_) < n) ++bits_;
  shift_ = static_cast<unsigned>(sizeof(T) * 8) - bits_;
  const size_t buckets = size_t{1} << bits_;
  index_.assign(buckets + 1, 0);
  size_t p = 0;
  for (size_t b = 0; b <= buckets; ++b) {
    // First point whose top bits are >= b.
    while (p < n && static_cast<size_t>(values_[p] >> shift_) < b) ++p;
    index_[b] = static_cast<uint32_t>(p);
  }
}

template class PointRing<uint32_t>;
template class PointRing<uint64_t>;

}  // namespace cloudroute
