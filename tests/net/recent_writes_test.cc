// RecentWrites (read your writes across calls): a write sends its slot's
// reads to the master for the window and no other slot's; off, nothing
// does; the window ends.
#include "cloudroute/net/recent_writes.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

#include "cloudroute/core/keyslot.hpp"
#include "common/wait_until.hpp"

namespace cloudroute {
namespace net {
namespace recent_writes_test {

TEST(RecentWrites, OffNeverSendsReadsToTheMaster) {
  RecentWrites off(0);
  EXPECT_FALSE(off.enabled());
  off.NoteWrite(7);
  EXPECT_FALSE(off.MasterOnly(7));
}

TEST(RecentWrites, AWriteCoversItsSlotForTheWindow) {
  RecentWrites rw(60000);
  EXPECT_TRUE(rw.enabled());
  for (uint32_t s = 0; s < kSlotCount; s += 997)
    EXPECT_FALSE(rw.MasterOnly(static_cast<uint16_t>(s)));
  rw.NoteWrite(12182);
  EXPECT_TRUE(rw.MasterOnly(12182));
  EXPECT_FALSE(rw.MasterOnly(12181));
  EXPECT_FALSE(rw.MasterOnly(12183));
  rw.NoteWrite(65535);  // not a slot: ignored, nothing else marked
  EXPECT_FALSE(rw.MasterOnly(65535));
  EXPECT_FALSE(rw.MasterOnly(16383));
}

TEST(RecentWrites, TheWindowEnds) {
  RecentWrites rw(50);
  const auto t0 = std::chrono::steady_clock::now();
  rw.NoteWrite(1);
  EXPECT_TRUE(rw.MasterOnly(1));
  ASSERT_TRUE(crtest::WaitUntil([&] { return !rw.MasterOnly(1); }, std::chrono::seconds(5)));
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(50));
  rw.NoteWrite(1);  // a new write opens a new window
  EXPECT_TRUE(rw.MasterOnly(1));
}

TEST(RecentWrites, ConcurrentWritersKeepTheLatestDeadline) {
  RecentWrites rw(60000);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&rw, t] {
      for (uint32_t s = static_cast<uint32_t>(t); s < kSlotCount; s += 4) {
        rw.NoteWrite(static_cast<uint16_t>(s));
      }
    });
  }
  for (std::thread &th : threads) th.join();
  size_t covered = 0;
  for (uint32_t s = 0; s < kSlotCount; ++s) covered += rw.MasterOnly(static_cast<uint16_t>(s));
  EXPECT_EQ(covered, kSlotCount);
}

}  // namespace recent_writes_test
}  // namespace net
}  // namespace cloudroute
