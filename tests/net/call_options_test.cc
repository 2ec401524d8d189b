// Blocking commands and per-call deadlines (call_options.hpp): which
// commands wait on the server and for how long, the deadline a call gets,
// and when its passing is not the node's failure. No server needed.
#include "cloudroute/net/call_options.hpp"

#include <gtest/gtest.h>

#include "cloudroute/net/script.hpp"

namespace cloudroute {
namespace net {
namespace call_options_test {

TEST(BlockingWaitMs, ListAndSortedSetPopsTakeSecondsLast) {
  EXPECT_EQ(BlockingWaitMs({"BLPOP", "a", "b", "5"}), 5000);
  EXPECT_EQ(BlockingWaitMs({"brpop", "a", "0.25"}), 250);  // any case, decimals
  EXPECT_EQ(BlockingWaitMs({"BZPOPMIN", "z", "1"}), 1000);
  EXPECT_EQ(BlockingWaitMs({"BLMOVE", "a", "b", "LEFT", "RIGHT", "2"}), 2000);
  EXPECT_EQ(BlockingWaitMs({"BRPOPLPUSH", "a", "b", "3"}), 3000);
  EXPECT_EQ(BlockingWaitMs({"BLPOP", "a", "0"}), 0);     // forever
  EXPECT_EQ(BlockingWaitMs({"BLPOP", "a", "soon"}), 0);  // the server refuses it
}

TEST(BlockingWaitMs, TimeoutFirstAndMilliseconds) {
  EXPECT_EQ(BlockingWaitMs({"BLMPOP", "1.5", "1", "a", "LEFT"}), 1500);
  EXPECT_EQ(BlockingWaitMs({"BZMPOP", "2", "1", "z", "MIN"}), 2000);
  EXPECT_EQ(BlockingWaitMs({"WAIT", "1", "300"}), 300);
  EXPECT_EQ(BlockingWaitMs({"WAITAOF", "1", "0", "400"}), 400);
  EXPECT_EQ(BlockingWaitMs({"XREAD", "COUNT", "2", "BLOCK", "600", "STREAMS", "s", "$"}), 600);
  EXPECT_EQ(BlockingWaitMs({"XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "s", ">"}),
            0);
}

TEST(BlockingWaitMs, OtherCommandsDoNotBlock) {
  EXPECT_EQ(BlockingWaitMs({"GET", "k"}), -1);
  EXPECT_EQ(BlockingWaitMs({"LPOP", "a"}), -1);
  EXPECT_EQ(BlockingWaitMs({"XREAD", "STREAMS", "BLOCK", "0"}), -1);  // a stream named BLOCK
  EXPECT_EQ(BlockingWaitMs({"BLPOP"}), -1);
  EXPECT_EQ(BlockingWaitMs({}), -1);
}

TEST(CommandTimeoutMs, CallTimeoutElseTierPlusTheWait) {
  CallOptions none, call;
  call.timeout_ms = 7000;
  EXPECT_EQ(CommandTimeoutMs({"GET", "k"}, none, 500), 500u);
  EXPECT_EQ(CommandTimeoutMs({"GET", "k"}, call, 500), 7000u);
  EXPECT_EQ(CommandTimeoutMs({"BLPOP", "a", "2"}, none, 500), 2500u);
  EXPECT_EQ(CommandTimeoutMs({"BLPOP", "a", "0"}, none, 500), 500u);  // forever: needs a call's
  EXPECT_EQ(CommandTimeoutMs({"BLPOP", "a", "2"}, call, 500), 7000u);
  EXPECT_FALSE(TimeoutIsNotAFailure({"GET", "k"}, none));
  EXPECT_TRUE(TimeoutIsNotAFailure({"GET", "k"}, call));
  EXPECT_TRUE(TimeoutIsNotAFailure({"BLPOP", "a", "0"}, none));
}

TEST(Script, NamedBySha1AndSentAsEvalsha) {
  const Script s("return 1");
  EXPECT_EQ(s.sha(), "e0e1f9fabfc9d4800c877a703b823ac0578ff8db");  // SCRIPT LOAD "return 1"
  EXPECT_EQ(s.Command(false, {"k1", "k2"}, {"a"}),
            (Args{"EVALSHA", s.sha(), "2", "k1", "k2", "a"}));
  EXPECT_EQ(s.Command(true, {}, {}), (Args{"EVALSHA_RO", s.sha(), "0"}));
}

// The same rule over views of a pipeline's arguments (fan-out legs with a
// blocking command are never hedged).
TEST(IsBlocking, ViewsFollowTheSameRule) {
  EXPECT_TRUE(IsBlocking({"XREAD", "BLOCK", "10", "STREAMS", "s", "0"}));
  EXPECT_TRUE(IsBlocking({"blpop", "a", "1"}));
  EXPECT_FALSE(IsBlocking({"XREAD", "COUNT", "2", "STREAMS", "s", "0"}));
  EXPECT_FALSE(IsBlocking({"GET", "a"}));
  EXPECT_FALSE(IsBlocking({"BLPOP"}));
}

}  // namespace call_options_test
}  // namespace net
}  // namespace cloudroute
