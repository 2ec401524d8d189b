#include "cloudroute/core/cluster_nodes_text.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cloudroute {
namespace cluster_nodes_text_test {

using Slots = std::vector<uint16_t>;

// What Redis 7.0 prints, by hand against the harness: the marker is on the
// source master's own line only; the importing side's "<-" is not a migration
// away.
TEST(ClusterNodesText, MarkersOnTheMyselfLineOnly) {
  const std::string src =
      "b8a5 127.0.2.4:7664@17664 master - 0 1795970174000 2 connected 5461-10922\n"
      "4df5 127.0.1.1:7661@17661 myself,master - 0 1795970174000 1 connected 0-5460 "
      "[4748->-b8a5122726a835ca4d29345ef47f933ca8ee7a08] [12->-b8a5] [x->-b] [99999->-b]\n";
  EXPECT_EQ(ParseMigratingSlots(src), (Slots{4748, 12}));
  const std::string dst =
      "b8a5 127.0.2.4:7664@17664 myself,master - 0 1795970174000 2 connected 5461-10922 "
      "[4748-<-4df51106c7599e22397e2b8fc861f4fd4cbd7221]\n"
      "4df5 127.0.1.1:7661@17661 master - 0 1795970174000 1 connected 0-5460 [7->-b8a5]\n";
  EXPECT_TRUE(ParseMigratingSlots(dst).empty());
}

TEST(ClusterNodesText, CrlfAndLfAndNoFinalNewline) {
  const std::string line =
      "4df5 127.0.1.1:7661@17661 myself,master - 0 0 1 connected 0-5460 [4748->-b8a5] [5->-b8a5]";
  EXPECT_EQ(ParseMigratingSlots(line + "\n"), (Slots{4748, 5}));
  EXPECT_EQ(ParseMigratingSlots(line + "\r\n"), (Slots{4748, 5}));
  EXPECT_EQ(ParseMigratingSlots(line), (Slots{4748, 5}));
  EXPECT_EQ(ParseMigratingSlots("b8a5 1.2.3.4:1@2 master - 0 0 2 connected\r\n" + line + "\r\n"),
            (Slots{4748, 5}));
}

TEST(ClusterNodesText, SlotBounds) {
  const std::string head = "4df5 127.0.1.1:7661@17661 myself,master - 0 0 1 connected ";
  EXPECT_EQ(ParseMigratingSlots(head + "[0->-b] [16383->-b] [16384->-b]"), (Slots{0, 16383}));
  // Too many digits to be a slot, digits that overflow, a sign, nothing.
  EXPECT_TRUE(ParseMigratingSlots(head + "[123456->-b] [99999999999999999999->-b] [-1->-b] [->-b]")
                  .empty());
}

TEST(ClusterNodesText, MissingFieldsAndGarbage) {
  EXPECT_TRUE(ParseMigratingSlots("").empty());
  EXPECT_TRUE(ParseMigratingSlots("\n\r\n\n").empty());
  EXPECT_TRUE(ParseMigratingSlots("garbage\n[1->-x]").empty());
  // Fewer than four fields: no flags field to read.
  EXPECT_TRUE(ParseMigratingSlots("4df5 1.2.3.4:1@2 myself,master\n").empty());
  // A marker that never closes ends the line's scan; one before it counts.
  EXPECT_EQ(ParseMigratingSlots("4df5 a:1@2 myself,master - 0 0 1 connected [3->-b] [4->-b\n"),
            (Slots{3}));
  // "myself" in another field than the flags is not ours.
  EXPECT_TRUE(ParseMigratingSlots("myself a:1@2 master - 0 0 1 connected [3->-b]\n").empty());
}

}  // namespace cluster_nodes_text_test
}  // namespace cloudroute
