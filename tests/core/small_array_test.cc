#include "cloudroute/core/small_array.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "cloudroute/core/topology.hpp"

namespace cloudroute {
namespace small_array_test {

std::vector<uint32_t> Values(const SmallArray<uint32_t> &a) { return {a.begin(), a.end()}; }

TEST(SmallArray, KeepsItsFirstValuesInsideAndTheRestOnTheHeap) {
  static_assert(sizeof(SmallArray<uint32_t>) == 16, "no bigger than a pointer and two counts");
  SmallArray<uint32_t> a;
  EXPECT_TRUE(a.empty());
  std::vector<uint32_t> want;
  for (uint32_t v = 0; v < 37; ++v) {  // across the inline capacity and several doublings
    a.push_back(v * 3);
    want.push_back(v * 3);
    ASSERT_EQ(Values(a), want);
  }
  EXPECT_EQ(a.front(), 0u);
  EXPECT_EQ(a.back(), 108u);
  a[1] = 7;
  EXPECT_EQ(a[1], 7u);
}

TEST(SmallArray, CopiesAreDeepAndMovesLeaveTheSourceEmpty) {
  for (uint32_t n : {0u, 1u, SmallArray<uint32_t>::kInline, 5u}) {
    SmallArray<uint32_t> a;
    for (uint32_t v = 0; v < n; ++v) a.push_back(v + 1);
    SmallArray<uint32_t> copy(a);
    if (n != 0) copy[0] = 99;
    EXPECT_EQ(a.size(), n);
    if (n != 0) {
      EXPECT_EQ(a[0], 1u) << "a copy shares no storage";
    }
    SmallArray<uint32_t> assigned;
    assigned.push_back(42);
    assigned = a;
    EXPECT_EQ(Values(assigned), Values(a));
    SmallArray<uint32_t> moved(std::move(a));
    EXPECT_EQ(moved.size(), n);
    EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty
    copy = std::move(moved);
    EXPECT_EQ(copy.size(), n);
  }
}

TEST(SmallArray, TruncateKeepsAPrefixAndGrowsAgain) {
  SmallArray<SlotRange> r;
  for (uint16_t i = 0; i < 6; ++i) r.emplace_back(uint16_t(i * 10), uint16_t(i * 10 + 5));
  r.Truncate(2);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[1].start, 10);
  r.push_back(SlotRange{100, 200});
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r.back().end, 200);
}

}  // namespace small_array_test
}  // namespace cloudroute
