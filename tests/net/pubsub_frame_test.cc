// Pure pieces of pub/sub: naming the frames a subscribed connection carries
// (and refusing everything else), grouping shard channels by slot, and the
// queue a subscription hands its reader (bounded waits, wake, close while
// readers wait).
#include "cloudroute/net/pubsub_frame.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "cloudroute/core/keyslot.hpp"
#include "cloudroute/net/deadline.hpp"
#include "cloudroute/net/pubsub_queue.hpp"
#include "reply_build.hpp"

namespace cloudroute {
namespace net {
namespace pubsub_frame_test {

using reply_build::Int;
using reply_build::Nil;
ReplyPtr Bulk(const std::string &s) { return reply_build::Str(s); }
template <typename... E>
ReplyPtr Array(E... e) {
  return reply_build::A(std::move(e)...);
}

TEST(PushFrame, MessagesOfEveryKind) {
  auto r = Array(Bulk("message"), Bulk("ch"), Bulk(std::string("a\0b", 3)));
  auto f = ParsePushFrame(r.get());
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->type, PushFrame::Type::kMessage);
  EXPECT_EQ(f->kind, ChannelKind::kChannel);
  EXPECT_EQ(f->name, "ch");
  EXPECT_EQ(f->payload, std::string("a\0b", 3));  // binary-safe

  r = Array(Bulk("pmessage"), Bulk("c*"), Bulk("cat"), Bulk("meow"));
  f = ParsePushFrame(r.get());
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->kind, ChannelKind::kPattern);
  EXPECT_EQ(f->pattern, "c*");
  EXPECT_EQ(f->name, "cat");
  EXPECT_EQ(f->payload, "meow");

  r = Array(Bulk("smessage"), Bulk("{u1}.events"), Bulk("x"));
  f = ParsePushFrame(r.get());
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->kind, ChannelKind::kShard);
  EXPECT_EQ(f->name, "{u1}.events");
}

TEST(PushFrame, ConfirmationsPongAndErrors) {
  auto r = Array(Bulk("ssubscribe"), Bulk("s"), Int(1));
  auto f = ParsePushFrame(r.get());
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->type, PushFrame::Type::kSubscribe);
  EXPECT_EQ(f->kind, ChannelKind::kShard);
  EXPECT_EQ(f->count, 1);

  r = Array(Bulk("sunsubscribe"), Bulk("s"), Int(0));
  f = ParsePushFrame(r.get());
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->type, PushFrame::Type::kUnsubscribe);
  EXPECT_EQ(f->kind, ChannelKind::kShard);

  r = Array(Bulk("unsubscribe"), Nil(), Int(0));  // UNSUBSCRIBE of nothing
  f = ParsePushFrame(r.get());
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->name, "");

  r = Array(Bulk("pong"), Bulk(""));
  f = ParsePushFrame(r.get());
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->type, PushFrame::Type::kPong);

  auto e = std::make_unique<Reply>();
  e->type = RespType::kError;
  e->str = "MOVED 12 127.0.0.1:7000";
  f = ParsePushFrame(e.get());
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->type, PushFrame::Type::kError);
  EXPECT_EQ(f->payload, "MOVED 12 127.0.0.1:7000");
}

TEST(PushFrame, AnythingElseIsMalformedAndSaysWhy) {
  struct Case {
    ReplyPtr r;
    const char *why;
  };
  std::vector<Case> cases;
  cases.push_back({Int(1), "not an array"});
  cases.push_back({Bulk("message"), "not an array"});
  cases.push_back({Array(), "no verb"});
  cases.push_back({Array(Int(1), Bulk("ch")), "no verb"});
  cases.push_back({Array(Bulk("mess\x01ge"), Bulk("ch"), Bulk("p")), "unknown verb 'mess\\x01ge'"});
  cases.push_back({Array(Bulk("message"), Bulk("ch")), "message with 2 elements"});
  cases.push_back({Array(Bulk("message"), Bulk("ch"), Int(3)), "is not a bulk string"});
  cases.push_back({Array(Bulk("pmessage"), Bulk("p"), Bulk("ch")), "pmessage with 3 elements"});
  cases.push_back({Array(Bulk("subscribe"), Bulk("ch"), Bulk("1")), "count is not"});
  cases.push_back({Array(Bulk("subscribe"), Bulk("ch"), Int(-1)), "count is not"});
  cases.push_back({Array(Bulk("subscribe"), Nil(), Int(1)), "name is not a bulk string"});
  cases.push_back({Array(Bulk("ssubscribe"), Array(), Int(1)), "name is not a bulk string"});
  cases.push_back({Array(Bulk("pong"), Int(1)), "pong with"});
  for (Case &c : cases) {
    auto f = ParsePushFrame(c.r.get());
    ASSERT_FALSE(f.ok()) << c.why;
    EXPECT_EQ(f.status().code(), Code::kParse);
    EXPECT_NE(f.status().message().find("malformed push frame"), std::string::npos);
    EXPECT_NE(f.status().message().find(c.why), std::string::npos) << f.status().message();
  }
}

TEST(GroupBySlot, OneGroupPerSlotInSlotOrderKeepingTheNamesOrder) {
  const std::vector<std::string> names = {"{b}2", "a", "{b}1", "{a}x"};
  auto g = GroupBySlot(names);
  // "a" and "{a}x" share slot 15495; "{b}…" slot 3300.
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g.begin()->first, KeySlot("b", 1));
  EXPECT_EQ(g.begin()->second, (std::vector<std::string>{"{b}2", "{b}1"}));
  EXPECT_EQ(g.rbegin()->first, KeySlot("a", 1));
  EXPECT_EQ(g.rbegin()->second, (std::vector<std::string>{"a", "{a}x"}));
  EXPECT_TRUE(GroupBySlot({}).empty());
}

PubSubItem Item(const std::string &payload) {
  PubSubItem i;
  i.channel = "ch";
  i.payload = payload;
  return i;
}

TEST(PubSubQueue, InOrderWithBoundedWaits) {
  PubSubQueue q;
  PubSubItem out;
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(q.Pop(DeadlineAfter(30), &out));
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(29));
  EXPECT_FALSE(q.Pop(0, &out));  // no wait at all
  q.Push(Item("1"));
  q.Push(Item("2"));
  ASSERT_TRUE(q.Pop(0, &out));
  EXPECT_EQ(out.payload, "1");
  ASSERT_TRUE(q.Pop(INT64_MAX, &out));
  EXPECT_EQ(out.payload, "2");
}

TEST(PubSubQueue, WakeEndsOneWaitEvenOneNotStartedYet) {
  PubSubQueue q;
  PubSubItem out;
  q.Wake();  // before anyone waits: the next Pop returns at once
  EXPECT_FALSE(q.Pop(INT64_MAX, &out));
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    q.Wake();
  });
  EXPECT_FALSE(q.Pop(INT64_MAX, &out));  // bounded by the wake
  t.join();
}

TEST(PubSubQueue, FullStopsAtTheLimitAndDrainingSignalsOnce) {
  PubSubQueue q(3 * sizeof(PubSubItem));
  std::atomic<int> drained{0};
  q.set_on_drained([&] { ++drained; });
  q.Push(Item("a"));
  q.Push(Item("b"));
  EXPECT_FALSE(q.Full());
  q.Push(Item("c"));
  EXPECT_TRUE(q.Full());
  PubSubItem out;
  ASSERT_TRUE(q.Pop(0, &out));
  EXPECT_FALSE(q.Full());
  EXPECT_EQ(drained.load(), 1);
  ASSERT_TRUE(q.Pop(0, &out));
  EXPECT_EQ(drained.load(), 1);
}

TEST(PubSubQueue, CloseReleasesEveryWaiterBeforeItReturns) {
  auto q = std::make_unique<PubSubQueue>();
  std::atomic<int> left{0};
  std::vector<std::thread> readers;
  for (int i = 0; i < 4; ++i) {
    readers.emplace_back([&] {
      PubSubItem out;
      EXPECT_FALSE(q->Pop(INT64_MAX, &out));
      ++left;
    });
  }
  // Readers already waiting and readers not yet in Pop both return false.
  q->Close();
  q->Push(Item("after"));  // dropped
  for (auto &t : readers) t.join();
  EXPECT_EQ(left.load(), 4);
  PubSubItem out;
  EXPECT_FALSE(q->Pop(0, &out));
  q.reset();  // no waiter touches it any more
}

}  // namespace pubsub_frame_test
}  // namespace net
}  // namespace cloudroute
