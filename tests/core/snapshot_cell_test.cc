// SnapshotCell's one precondition — no nested Read() on one thread — is a
// debug assertion (Debug builds, e.g. the asan preset, die; Release builds
// run the statement without the check).
#include "cloudroute/core/snapshot_cell.hpp"

#include <gtest/gtest.h>

namespace cloudroute {
namespace snapshot_cell_test {

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

TEST(SnapshotCellDeathTest, NestedWithOnOneThreadIsCaughtInDebugBuilds) {
  if (!snapshot_cell_internal::AsymmetricFenceAvailable()) {
    GTEST_SKIP() << "no membarrier: the locked fallback has no per-thread slot to check";
  }
  SnapshotCell cell;
  EXPECT_DEBUG_DEATH(
      cell.With([&](const Snapshot *) { return cell.With([](const Snapshot *) { return 0; }); }),
      "nested SnapshotCell::Read");
}

TEST(SnapshotCellTest, WithReturnsWhatItsFunctionReturnsAndLeavesTheRead) {
  SnapshotCell cell;
  EXPECT_EQ(cell.With([](const Snapshot *s) { return s == nullptr ? 7 : 8; }), 7);
  auto snap = std::make_shared<Snapshot>();
  const Snapshot *raw = snap.get();
  cell.Publish(std::move(snap));
  EXPECT_EQ(cell.With([](const Snapshot *s) { return s; }), raw);
  // Publish waits for every read to leave: it returns only if With left its read.
  cell.Publish(std::make_shared<Snapshot>());
  EXPECT_NE(cell.With([](const Snapshot *s) { return s; }), raw);
}

TEST(SnapshotCellTest, SequentialReadsOnOneThreadAreFine) {
  SnapshotCell cell;
  for (int i = 0; i < 3; ++i) {
    SnapshotCell::Guard g = cell.Read();
    EXPECT_EQ(g.get(), nullptr);  // nothing published yet
  }
}

}  // namespace snapshot_cell_test
}  // namespace cloudroute
