// A subscription (through the C API) against one scripted cluster node that
// sends what a real server cannot: a push frame of the wrong shape, bytes
// that are not RESP, a confirmation or an error reply no command asked for.
// Each closes that connection (counted as poisoned, never reused) and the
// names move: a MOVING event whose reason names the fault, then
// RESUBSCRIBED on a new connection, after which messages arrive again. Also
// the argument errors of the subscription calls, and free while another
// thread waits in next. The peer is a tests/net/fake_server.hpp server.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "cloudroute.h"
#include "fake_server.hpp"

namespace hostile_pubsub_test {

using fake::Bulk;

// A one-node cluster that confirms SUBSCRIBE / PSUBSCRIBE / SSUBSCRIBE and
// their UN… as Redis does (RESP2), and answers the rest as fake::ClusterNode.
class Node {
 public:
  Node()
      : server_(fake::ScriptedClusterNode(
            [this] { return server_.port(); },
            [this](const std::vector<std::string> &argv, std::string *out, bool *hold) {
              std::string verb;
              for (char c : argv.empty() ? std::string() : argv[0]) {
                verb += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
              }
              if (verb.find("subscribe") == std::string::npos) return false;
              ++subscribes_;
              for (size_t i = 1; i < argv.size(); ++i) {
                if (argv[i] == held_) {
                  *hold = true;  // this request (and any after it) unanswered
                  return true;
                }
              }
              for (size_t i = 1; i < argv.size(); ++i) {
                *out += "*3\r\n" + Bulk(verb) + Bulk(argv[i]) + ":" + std::to_string(i) + "\r\n";
              }
              return true;
            })) {}

  std::string seed() const { return "127.0.0.1:" + std::to_string(server_.port()); }
  std::string address() const { return seed(); }
  std::atomic<int> subscribes_{0};
  std::string held_;  // a name whose subscribe is never answered; set before it is sent
  FakeServer server_;
};

// timeout_ms: every tier's command timeout (0: the defaults).
cr_client *NewClient(const std::string &seed, uint32_t timeout_ms = 0) {
  cr_config *cfg = nullptr;
  EXPECT_EQ(cr_config_new(&cfg), CR_OK);
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  o.refresh_interval_ms = 0;
  if (timeout_ms != 0) {
    for (uint32_t &t : o.command_timeout_ms) t = timeout_ms;
  }
  cr_client *c = nullptr;
  EXPECT_EQ(cr_client_new(&c, cfg, &o, seed.c_str()), CR_OK) << cr_last_error();
  cr_config_free(cfg);
  return c;
}

struct Item {
  cr_message_type type;
  std::string channel, payload, node, reason;
};

// The next item within ms (type MESSAGE with empty channel: none came).
Item Next(cr_subscription *s, uint32_t ms) {
  cr_message *m = nullptr;
  EXPECT_EQ(cr_subscription_next(&m, s, ms), CR_OK);
  Item it{CR_MESSAGE_TYPE_MESSAGE, "", "", "", ""};
  if (m == nullptr) return it;
  size_t len = 0;
  const char *p = cr_message_get_channel(m, &len);
  it.type = cr_message_get_type(m);
  it.channel.assign(p, len);
  p = cr_message_get_payload(m, &len);
  if (p != nullptr) it.payload.assign(p, len);
  it.node = cr_message_get_node(m);
  it.reason = cr_message_get_reason(m);
  cr_message_free(m);
  return it;
}

// Items until one of type t arrives (within ms overall), that one.
Item Await(cr_subscription *s, cr_message_type t, uint32_t ms) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (std::chrono::steady_clock::now() < until) {
    Item it = Next(s, 50);
    if (!it.channel.empty() && it.type == t) return it;
  }
  return Item{CR_MESSAGE_TYPE_MESSAGE, "", "", "", ""};
}

struct Fault {
  const char *name;
  std::string bytes;
  const char *reason;  // in the MOVING event's reason
};

class HostilePush : public ::testing::TestWithParam<int> {};

const std::vector<Fault> &Faults() {
  static const std::vector<Fault> f = {
      {"wrong arity", "*2\r\n" + Bulk("message") + Bulk("news"), "message with 2 elements"},
      {"integer frame", ":7\r\n", "not an array"},
      {"unknown verb", "*3\r\n" + Bulk("mess@ge") + Bulk("news") + Bulk("x"), "unknown verb"},
      {"not RESP", std::string("\x00\x01garbage\r\n", 11), "news"},
      {"confirmation nobody asked for", "*3\r\n" + Bulk("subscribe") + Bulk("other") + ":2\r\n",
       "answers no command sent"},
      {"error reply nobody asked for", "-ERR surprise\r\n", "answers no command sent"},
      {"payload not a string", "*3\r\n" + Bulk("message") + Bulk("news") + "*0\r\n",
       "not a bulk string"},
  };
  return f;
}

TEST_P(HostilePush, ClosesTheConnectionAndResubscribesOnANewOne) {
  const Fault &fault = Faults()[static_cast<size_t>(GetParam())];
  SCOPED_TRACE(fault.name);
  Node node;
  cr_client *c = NewClient(node.seed());
  ASSERT_NE(c, nullptr);
  cr_subscription *s = nullptr;
  ASSERT_EQ(cr_client_subscribe(&s, c), CR_OK) << cr_last_error();
  const void *names[] = {"news"};
  const size_t lens[] = {4};
  ASSERT_EQ(cr_subscription_add(s, CR_CHANNEL_KIND_CHANNEL, 1, names, lens), CR_OK);
  Item it = Await(s, CR_MESSAGE_TYPE_SUBSCRIBED, 5000);
  ASSERT_EQ(it.channel, "news");
  EXPECT_EQ(it.node, node.address());
  // A valid message arrives.
  ASSERT_GT(node.server_.Push("*3\r\n" + Bulk("message") + Bulk("news") + Bulk("one")), 0);
  it = Await(s, CR_MESSAGE_TYPE_MESSAGE, 5000);
  EXPECT_EQ(it.payload, "one");
  cr_client_stats before = CR_CLIENT_STATS_INIT;
  ASSERT_EQ(cr_client_get_stats(&before, c), CR_OK);

  const int closed_before = node.server_.closed();
  ASSERT_GT(node.server_.Push(fault.bytes), 0);
  it = Await(s, CR_MESSAGE_TYPE_MOVING, 5000);
  ASSERT_EQ(it.channel, "news") << "no MOVING event";
  EXPECT_EQ(it.node, node.address());
  if (std::string(fault.name) != "not RESP") {
    EXPECT_NE(it.reason.find(fault.reason), std::string::npos) << it.reason;
  }
  // The bad connection was closed by the client.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (node.server_.closed() == closed_before && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_GT(node.server_.closed(), closed_before);
  cr_client_stats after = CR_CLIENT_STATS_INIT;
  ASSERT_EQ(cr_client_get_stats(&after, c), CR_OK);
  EXPECT_GT(after.poisoned, before.poisoned);

  // The only node is avoided for a moment, then used again on a new
  // connection; messages flow after the RESUBSCRIBED event.
  it = Await(s, CR_MESSAGE_TYPE_RESUBSCRIBED, 10000);
  ASSERT_EQ(it.channel, "news") << "not resubscribed";
  EXPECT_EQ(it.node, node.address());
  ASSERT_GT(node.server_.Push("*3\r\n" + Bulk("message") + Bulk("news") + Bulk("two")), 0);
  it = Await(s, CR_MESSAGE_TYPE_MESSAGE, 5000);
  EXPECT_EQ(it.payload, "two");
  cr_subscription_free(s);
  cr_client_free(c);
}

INSTANTIATE_TEST_SUITE_P(Faults, HostilePush, ::testing::Range(0, 7));

// The answer to a subscribe comes after the messages the node sent before
// it: while they keep coming, the link is alive however late the answer
// (a reader that caught up with a full queue leaves the servers' buffers
// to drain, behind which every answer waits). A link on which nothing at all
// arrives for the timeout is failed, and the MOVING event says why.
TEST(PubSubLiveness, AnAnswerBehindStreamingMessagesIsNotLateASilentNodeIs) {
  constexpr uint32_t kTimeoutMs = 600;
  Node node;
  node.held_ = "late";
  cr_client *c = NewClient(node.seed(), kTimeoutMs);
  ASSERT_NE(c, nullptr);
  cr_subscription *s = nullptr;
  ASSERT_EQ(cr_client_subscribe(&s, c), CR_OK) << cr_last_error();
  const void *news[] = {"news"}, *late[] = {"late"};
  const size_t lens[] = {4};
  ASSERT_EQ(cr_subscription_add(s, CR_CHANNEL_KIND_CHANNEL, 1, news, lens), CR_OK);
  Item it = Await(s, CR_MESSAGE_TYPE_SUBSCRIBED, 5000);
  ASSERT_EQ(it.channel, "news");
  const int subscribes = node.subscribes_.load();
  ASSERT_EQ(cr_subscription_add(s, CR_CHANNEL_KIND_CHANNEL, 1, late, lens), CR_OK);
  const auto held_until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (node.subscribes_.load() == subscribes && std::chrono::steady_clock::now() < held_until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_GT(node.subscribes_.load(), subscribes) << "the second subscribe was not sent";
  // Messages every kTimeoutMs / 4 for 2.5 timeouts, then the answer.
  constexpr int kMessages = 10;
  for (int i = 0; i < kMessages; ++i) {
    ASSERT_GT(node.server_.Push("*3\r\n" + Bulk("message") + Bulk("news") +
                                Bulk("m" + std::to_string(i))),
              0);
    std::this_thread::sleep_for(std::chrono::milliseconds(kTimeoutMs / 4));
  }
  ASSERT_GT(node.server_.Push("*3\r\n" + Bulk("subscribe") + Bulk("late") + ":2\r\n"), 0);
  for (int i = 0; i < kMessages; ++i) {
    it = Next(s, 5000);
    ASSERT_EQ(it.type, CR_MESSAGE_TYPE_MESSAGE) << it.channel << " " << it.reason;
    EXPECT_EQ(it.payload, "m" + std::to_string(i));
  }
  it = Next(s, 5000);
  EXPECT_EQ(it.type, CR_MESSAGE_TYPE_SUBSCRIBED) << it.reason;
  EXPECT_EQ(it.channel, "late");

  // Now a subscribe that nothing follows: failed once the timeout passed.
  const void *silent[] = {"mute"};
  const size_t silent_len[] = {4};
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(cr_subscription_add(s, CR_CHANNEL_KIND_CHANNEL, 1, silent, silent_len), CR_OK);
  it = Await(s, CR_MESSAGE_TYPE_MOVING, 5000);
  const auto waited = std::chrono::steady_clock::now() - t0;
  ASSERT_FALSE(it.channel.empty()) << "the silent node was never failed";
  EXPECT_NE(it.reason.find("no answer to SUBSCRIBE within 600 ms"), std::string::npos) << it.reason;
  EXPECT_GE(waited, std::chrono::milliseconds(kTimeoutMs));
  cr_subscription_free(s);
  cr_client_free(c);
}

TEST(PubSubArguments, ClearStatusesForBadCalls) {
  Node node;
  cr_client *c = NewClient(node.seed());
  ASSERT_NE(c, nullptr);
  cr_subscription *s = nullptr;
  EXPECT_EQ(cr_client_subscribe(nullptr, c), CR_EINVAL);
  EXPECT_EQ(cr_client_subscribe(&s, nullptr), CR_EINVAL);
  EXPECT_EQ(s, nullptr);
  EXPECT_NE(std::string(cr_last_error()).find("client is NULL"), std::string::npos);
  ASSERT_EQ(cr_client_subscribe(&s, c), CR_OK);
  const void *names[] = {"a", ""};
  const size_t lens[] = {1, 0};
  EXPECT_EQ(cr_subscription_add(s, static_cast<cr_channel_kind>(3), 1, names, lens), CR_EINVAL);
  EXPECT_NE(std::string(cr_last_error()).find("kind 3"), std::string::npos) << cr_last_error();
  EXPECT_EQ(cr_subscription_add(s, static_cast<cr_channel_kind>(-1), 1, names, lens), CR_EINVAL);
  EXPECT_EQ(cr_subscription_add(s, CR_CHANNEL_KIND_CHANNEL, 0, names, lens), CR_EINVAL);
  EXPECT_NE(std::string(cr_last_error()).find("no names"), std::string::npos);
  EXPECT_EQ(cr_subscription_add(s, CR_CHANNEL_KIND_CHANNEL, 2, names, lens), CR_EINVAL);
  EXPECT_NE(std::string(cr_last_error()).find("names[1] is empty"), std::string::npos);
  EXPECT_EQ(cr_subscription_add(s, CR_CHANNEL_KIND_CHANNEL, 1, nullptr, lens), CR_EINVAL);
  EXPECT_EQ(cr_subscription_add(s, CR_CHANNEL_KIND_CHANNEL, 1, names, nullptr), CR_EINVAL);
  const void *null_name[] = {nullptr};
  EXPECT_EQ(cr_subscription_add(s, CR_CHANNEL_KIND_SHARD, 1, null_name, lens), CR_EINVAL);
  EXPECT_EQ(cr_subscription_remove(s, CR_CHANNEL_KIND_PATTERN, 0, names, lens), CR_EINVAL);
  EXPECT_EQ(cr_subscription_remove(nullptr, CR_CHANNEL_KIND_PATTERN, 1, names, lens), CR_EINVAL);
  EXPECT_EQ(cr_subscription_add(nullptr, CR_CHANNEL_KIND_CHANNEL, 1, names, lens), CR_EINVAL);
  cr_message *m = nullptr;
  EXPECT_EQ(cr_subscription_next(nullptr, s, 0), CR_EINVAL);
  EXPECT_EQ(cr_subscription_next(&m, nullptr, 0), CR_EINVAL);
  EXPECT_EQ(cr_subscription_wake(nullptr), CR_EINVAL);
  // Removing a name never added is no error, and gives no event.
  EXPECT_EQ(cr_subscription_remove(s, CR_CHANNEL_KIND_CHANNEL, 1, names, lens), CR_OK);
  EXPECT_EQ(cr_subscription_next(&m, s, 100), CR_OK);
  EXPECT_EQ(m, nullptr);
  int64_t n = -1;
  EXPECT_EQ(cr_client_publish(&n, nullptr, "a", 1, "b", 1), CR_EINVAL);
  EXPECT_EQ(cr_client_publish(&n, c, nullptr, 1, "b", 1), CR_EINVAL);
  EXPECT_EQ(cr_client_spublish(&n, c, "a", 1, nullptr, 1), CR_EINVAL);
  cr_subscription_free(s);
  cr_subscription_free(nullptr);
  cr_client_free(c);
}

TEST(PubSubThreads, FreeWhileAnotherThreadWaitsInNextAndWake) {
  Node node;
  cr_client *c = NewClient(node.seed());
  ASSERT_NE(c, nullptr);
  cr_subscription *s = nullptr;
  ASSERT_EQ(cr_client_subscribe(&s, c), CR_OK);
  // wake ends a wait without a bound.
  std::atomic<int> returned{0};
  std::thread waiter([&] {
    cr_message *m = nullptr;
    EXPECT_EQ(cr_subscription_next(&m, s, UINT32_MAX), CR_OK);
    EXPECT_EQ(m, nullptr);
    ++returned;
  });
  EXPECT_EQ(cr_subscription_wake(s), CR_OK);
  waiter.join();
  EXPECT_EQ(returned.load(), 1);
  // free ends every wait before it returns.
  std::vector<std::thread> waiters;
  std::atomic<int> started{0};
  for (int i = 0; i < 3; ++i) {
    waiters.emplace_back([&] {
      ++started;
      cr_message *m = nullptr;
      EXPECT_EQ(cr_subscription_next(&m, s, UINT32_MAX), CR_OK);
      EXPECT_EQ(m, nullptr);
      ++returned;
    });
  }
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (started.load() < 3 && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(50));  // let them block in next
  const auto t0 = std::chrono::steady_clock::now();
  cr_subscription_free(s);  // returns only once the waiters left next
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  for (auto &t : waiters) t.join();
  EXPECT_EQ(returned.load(), 4);
  cr_client_free(c);
}

}  // namespace hostile_pubsub_test
