// SnapshotCell's one precondition — no nested Read() on one thread — is a
// debug assertion (Debug builds, e.g. the asan preset, die; Release builds
// run the statement without the check).
#include "cloudroute/core/snapshot_cell.hpp"

#include <gtest/gtest.h>

namespace cloudroute {
namespace {

TEST(SnapshotCellDeathTest, NestedReadOnOneThreadIsRefusedInDebugBuilds) {
  if (!snapshot_cell_internal::AsymmetricFenceAvailable()) {
    GTEST_SKIP() << "no membarrier: the locked fallback has no per-thread slot to check";
  }
  SnapshotCell cell;
  EXPECT_DEBUG_DEATH(
      {
        SnapshotCell::Guard outer = cell.Read();
        SnapshotCell::Guard inner = cell.Read();
        (void)outer;
        (void)inner;
      },
      "nested SnapshotCell::Read");
}

TEST(SnapshotCellTest, SequentialReadsOnOneThreadAreFine) {
  SnapshotCell cell;
  for (int i = 0; i < 3; ++i) {
    SnapshotCell::Guard g = cell.Read();
    EXPECT_EQ(g.get(), nullptr);  // nothing published yet
  }
}

}  // namespace
}  // namespace cloudroute
