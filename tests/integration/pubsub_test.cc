// Pub/sub of the live client against a real cluster (the harness layout:
// cloud A = 127.0.1.x, cloud B = 127.0.2.x; a client in cloud A, policy
// local-replicas-first):
//  - channels and patterns are subscribed on a cloud-A node and get messages
//    published on a cloud-B node;
//  - a shard channel of shard 1 is subscribed on its cloud-A replica (n2);
//  - names added and removed from another thread while messages flow;
//  - a CLUSTER FAILOVER of a shard channel's shard, and a slot migration of
//    its slot (CLUSTER MIGRATESLOTS on Valkey 9.1, MIGRATING / IMPORTING +
//    SETSLOT NODE on Redis 7), during the subscription: every message
//    published after the last SUBSCRIBED / RESUBSCRIBED event arrives, and
//    no MOVING follows that event; after the failover, once the cluster
//    settled, the name is back on its cloud-A replica (a planned move when
//    it had landed in cloud B, which loses no message);
//  - the node of a classic subscription is killed: MOVING, then
//    RESUBSCRIBED on another node, and every message published after it
//    arrives.
// The events each run saw are printed (PUBSUB lines): what the server did.
//
// CR_TEST_CLUSTER_ENV names the harness's cluster.env; CR_TEST_VALKEY9=1
// moves slots with MIGRATESLOTS; CR_TEST_SERVER_BIN restarts a killed node.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cloudroute.h"
#include "common/subscription_reader.hpp"
#include "common/wait_until.hpp"
#include "fault_kit.hpp"
#include "harness_env.hpp"

namespace pubsub_test {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

using Item = crtest::SubscriptionItem;

// Reads a subscription on its own thread, keeping every item.
class Reader : public crtest::SubscriptionReader {
 public:
  using SubscriptionReader::SubscriptionReader;
  bool AwaitEvent(cr_message_type t, const std::string &name, milliseconds timeout, Item *out,
                  size_t after = 0) {
    return Await([&](const Item &i) { return i.type == t && i.channel == name; }, timeout, out,
                 after);
  }
};

// Publishes "<seq>" on a channel every few ms until stopped, recording when
// each publish started and whether it was acknowledged.
class Publisher {
 public:
  Publisher(cr_client *c, std::string channel, bool sharded)
      : c_(c), channel_(std::move(channel)), sharded_(sharded), thread_([this] { Run(); }) {}
  ~Publisher() { Stop(); }
  void Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  struct Sent {
    Clock::time_point start;
    bool ok;
    std::string error;  // when not ok
  };
  std::vector<Sent> sent;  // by seq; read after Stop

 private:
  void Run() {
    for (int seq = 0; !stop_; ++seq) {
      const std::string msg = std::to_string(seq);
      const auto start = Clock::now();
      int64_t n = 0;
      const cr_status s = (sharded_ ? cr_client_spublish : cr_client_publish)(
          &n, c_, channel_.data(), channel_.size(), msg.data(), msg.size());
      sent.push_back(Sent{start, s == CR_OK, s == CR_OK ? "" : cr_last_error()});
      std::this_thread::sleep_for(milliseconds(10));
    }
  }
  cr_client *c_;
  std::string channel_;
  bool sharded_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

void PrintEvents(const char *test, const std::vector<Item> &items) {
  for (const Item &i : items) {
    if (i.type == CR_MESSAGE_TYPE_MESSAGE) continue;
    std::printf("PUBSUB %s event=%d name=%s node=%s reason=%s\n", test, static_cast<int>(i.type),
                i.channel.c_str(), i.node.c_str(), i.reason.c_str());
  }
}

// Every message of channel published (and acknowledged) after `since`
// arrived; at least min_checked were checked.
void ExpectNoLossAfter(const std::vector<Item> &items, const std::vector<Publisher::Sent> &sent,
                       const std::string &channel, Clock::time_point since, size_t min_checked) {
  const Clock::time_point last = since;
  std::set<std::string> got;
  for (const Item &i : items) {
    if (i.type == CR_MESSAGE_TYPE_MESSAGE && i.channel == channel) got.insert(i.payload);
  }
  size_t checked = 0, missing = 0;
  std::string first_missing, refused;
  size_t failed = 0;
  for (size_t seq = 0; seq < sent.size(); ++seq) {
    if (sent[seq].start <= last) continue;
    if (!sent[seq].ok) {
      if (failed++ == 0) refused = sent[seq].error;
      continue;
    }
    ++checked;
    if (got.count(std::to_string(seq)) == 0) {
      if (missing++ == 0) first_missing = std::to_string(seq);
    }
  }
  EXPECT_GE(checked, min_checked) << failed << " publishes failed, the first: " << refused;
  EXPECT_EQ(missing, 0u) << "of " << checked << " published after the (re)subscription, " << missing
                         << " never arrived (first: " << first_missing << ")";
}

// Every message published after the last (RE)SUBSCRIBED event of channel
// arrived, and no MOVING of it followed that event; at least min_checked
// were checked.
void ExpectNoLossAfterLastSubscribe(const std::vector<Item> &items,
                                    const std::vector<Publisher::Sent> &sent,
                                    const std::string &channel, size_t min_checked) {
  Clock::time_point last{};
  bool any = false;
  for (const Item &i : items) {
    if (i.channel != channel) continue;
    if (i.type == CR_MESSAGE_TYPE_SUBSCRIBED || i.type == CR_MESSAGE_TYPE_RESUBSCRIBED) {
      last = i.at;
      any = true;
    }
  }
  ASSERT_TRUE(any) << "never subscribed";
  for (const Item &i : items) {
    if (i.channel == channel && i.type == CR_MESSAGE_TYPE_MOVING) {
      EXPECT_LT(i.at, last) << "a MOVING after the last resubscription: " << i.reason;
    }
  }
  ExpectNoLossAfter(items, sent, channel, last, min_checked);
}

class PubSubLive : public crtest::ClusterTest {
 protected:
  void SetUp() override {
    crtest::ClusterTest::SetUp();
    if (HasFatalFailure()) return;
    ASSERT_NO_FATAL_FAILURE(AwaitSteady());
    cr_client_options o = CR_CLIENT_OPTIONS_INIT;
    o.refresh_min_gap_ms = 200;
    c_ = crtest::NewCloudAClient(env_["SEEDS"], CR_POLICY_LOCAL_REPLICAS_FIRST, 2000, o, &router_,
                                 /*failure_threshold=*/1);
    ASSERT_NE(c_, nullptr);
    ASSERT_EQ(cr_client_subscribe(&s_, c_), CR_OK) << cr_last_error();
    reader_ = std::make_unique<Reader>(s_);
  }
  void TearDown() override {
    if (reader_) reader_->Stop();
    cr_subscription_free(s_);
    cr_client_free(c_);
  }

  using NamesCall = cr_status (*)(cr_subscription *, cr_channel_kind, size_t, const void *const *,
                                  const size_t *);
  void Names(NamesCall call, cr_channel_kind kind, const std::vector<std::string> &names) {
    std::vector<const void *> p;
    std::vector<size_t> l;
    for (const auto &n : names) {
      p.push_back(n.data());
      l.push_back(n.size());
    }
    ASSERT_EQ(call(s_, kind, names.size(), p.data(), l.data()), CR_OK) << cr_last_error();
  }
  void Add(cr_channel_kind kind, const std::vector<std::string> &names) {
    Names(cr_subscription_add, kind, names);
  }
  void Remove(cr_channel_kind kind, const std::vector<std::string> &names) {
    Names(cr_subscription_remove, kind, names);
  }

  // Every node up, in a cluster that is ok, every replica's link to its
  // master up: an earlier test's failover, restart or slot move settled.
  void AwaitSteady() {
    const int nodes = std::atoi(env_["NODE_COUNT"].c_str());
    for (int n = 1; n <= nodes; ++n) {
      std::string why;
      ASSERT_TRUE(crtest::WaitUntil(
          [&] {
            const std::string info = crtest::Cli(Node(n, "ADDR"), {"CLUSTER", "INFO"});
            if (info.find("cluster_state:ok") == std::string::npos) return (why = info), false;
            const std::string role = crtest::Cli(Node(n, "ADDR"), {"ROLE"});
            why = role;
            return role.rfind("master", 0) == 0 || role.find("connected") != std::string::npos;
          },
          seconds(30), milliseconds(50)))
          << Node(n, "ADDR") << " not settled: " << why;
    }
  }
  // After the publisher stopped: until the last acknowledged message
  // arrived (bounded), then the reader stops.
  void Drain(const Publisher &pub, const std::string &ch) {
    int last = -1;
    for (size_t seq = 0; seq < pub.sent.size(); ++seq) {
      if (pub.sent[seq].ok) last = static_cast<int>(seq);
    }
    (void)reader_->Await(
        [&](const Item &i) {
          return i.type == CR_MESSAGE_TYPE_MESSAGE && i.channel == ch &&
                 i.payload == std::to_string(last);
        },
        seconds(5));
    reader_->Stop();
  }

  // A name whose slot is in shard's first range (harness layout), with prefix.
  std::string NameInShard(int shard, const std::string &prefix) {
    const std::string slots = env_["SHARD" + std::to_string(shard) + "_SLOTS"];
    const int first = std::atoi(slots.c_str());
    const int last = std::atoi(slots.c_str() + slots.find('-') + 1);
    for (int i = 0;; ++i) {
      const std::string n = prefix + std::to_string(i);
      const int slot = cr_keyslot(n.data(), n.size());
      if (slot >= first && slot <= last) return n;
    }
  }
  int NodeNumber(const std::string &addr) {
    const int nodes = std::atoi(env_["NODE_COUNT"].c_str());
    for (int n = 1; n <= nodes; ++n) {
      if (Node(n, "ADDR") == addr) return n;
    }
    return 0;
  }
  // Until node n says its role is `role` (INFO replication).
  bool AwaitRole(int n, const std::string &role) {
    return crtest::WaitUntil(
        [&] { return crtest::Cli(Node(n, "ADDR"), {"ROLE"}).rfind(role, 0) == 0; }, seconds(20),
        milliseconds(50));
  }
  // CLUSTER FAILOVER on replica n, until it is a master. A master that does
  // not know n as its replica yet (it just became master itself) ignores
  // the request, which times out after 5 s: asked again, at most 3 times.
  void Failover(int n) {
    bool master = false;
    for (int attempt = 0; attempt < 3 && !master; ++attempt) {
      ASSERT_EQ(crtest::Cli(Node(n, "ADDR"), {"CLUSTER", "FAILOVER"}), "OK");
      master = crtest::WaitUntil(
          [&] { return crtest::Cli(Node(n, "ADDR"), {"ROLE"}).rfind("master", 0) == 0; },
          seconds(6), milliseconds(50));
    }
    ASSERT_TRUE(master) << Node(n, "ADDR") << " did not become a master";
  }
  // Moves slot from master `from` to master `to`; returns once `to`
  // accepts an SSUBSCRIBE-able SPUBLISH of channel (it owns the slot).
  void MoveSlot(int slot, int from, int to, const std::string &channel) {
    const std::string src = Node(from, "ADDR"), dst = Node(to, "ADDR");
    const std::string s = std::to_string(slot);
    if (std::getenv("CR_TEST_VALKEY9") != nullptr) {
      ASSERT_EQ(
          crtest::Cli(src, {"CLUSTER", "MIGRATESLOTS", "SLOTSRANGE", s, s, "NODE", Node(to, "ID")}),
          "OK");
    } else {
      ASSERT_EQ(crtest::Cli(dst, {"CLUSTER", "SETSLOT", s, "IMPORTING", Node(from, "ID")}), "OK");
      ASSERT_EQ(crtest::Cli(src, {"CLUSTER", "SETSLOT", s, "MIGRATING", Node(to, "ID")}), "OK");
      ASSERT_EQ(crtest::Cli(src, {"CLUSTER", "COUNTKEYSINSLOT", s}), "0");  // nothing to MIGRATE
      ASSERT_EQ(crtest::Cli(dst, {"CLUSTER", "SETSLOT", s, "NODE", Node(to, "ID")}), "OK");
      ASSERT_EQ(crtest::Cli(src, {"CLUSTER", "SETSLOT", s, "NODE", Node(to, "ID")}), "OK");
    }
    ASSERT_TRUE(crtest::WaitUntil(
        [&] {
          const std::string r = crtest::Cli(dst, {"SPUBLISH", channel, "probe"});
          return !r.empty() && r.find_first_not_of("0123456789") == std::string::npos;
        },
        seconds(20), milliseconds(50)))
        << dst << " never took slot " << s;
  }
  bool InCloudA(const std::string &addr) { return addr.rfind("127.0.1.", 0) == 0; }

  cr_client *c_ = nullptr;
  cr_router *router_ = nullptr;
  cr_subscription *s_ = nullptr;
  std::unique_ptr<Reader> reader_;
};

TEST_F(PubSubLive, ChannelsAndPatternsOnALocalNodeGetMessagesPublishedElsewhere) {
  Add(CR_CHANNEL_KIND_CHANNEL, {"ps:news"});
  Add(CR_CHANNEL_KIND_PATTERN, {"ps:pat.*"});
  Item ev;
  ASSERT_TRUE(reader_->AwaitEvent(CR_MESSAGE_TYPE_SUBSCRIBED, "ps:news", seconds(10), &ev));
  EXPECT_TRUE(InCloudA(ev.node)) << ev.node;
  ASSERT_TRUE(reader_->AwaitEvent(CR_MESSAGE_TYPE_SUBSCRIBED, "ps:pat.*", seconds(10), &ev));
  EXPECT_TRUE(InCloudA(ev.node)) << ev.node;
  EXPECT_EQ(ev.kind, CR_CHANNEL_KIND_PATTERN);
  // Published on a cloud-B node: the cluster bus brings it over.
  ASSERT_NE(crtest::Cli(Node(5, "ADDR"), {"PUBLISH", "ps:news", "hello"}), "");
  ASSERT_NE(crtest::Cli(Node(5, "ADDR"), {"PUBLISH", "ps:pat.x", "meow"}), "");
  Item m;
  ASSERT_TRUE(reader_->Await(
      [](const Item &i) { return i.type == CR_MESSAGE_TYPE_MESSAGE && i.payload == "hello"; },
      seconds(10), &m));
  EXPECT_EQ(m.channel, "ps:news");
  EXPECT_EQ(m.kind, CR_CHANNEL_KIND_CHANNEL);
  ASSERT_TRUE(reader_->Await(
      [](const Item &i) { return i.type == CR_MESSAGE_TYPE_MESSAGE && i.payload == "meow"; },
      seconds(10), &m));
  EXPECT_EQ(m.channel, "ps:pat.x");
  EXPECT_EQ(m.pattern, "ps:pat.*");
  EXPECT_EQ(m.kind, CR_CHANNEL_KIND_PATTERN);
  // Binary payloads, through the client's own PUBLISH.
  const std::string bin("a\0\r\nb", 5);
  int64_t receivers = -1;
  ASSERT_EQ(cr_client_publish(&receivers, c_, "ps:news", 7, bin.data(), bin.size()), CR_OK)
      << cr_last_error();
  EXPECT_GE(receivers, 0);
  ASSERT_TRUE(reader_->Await(
      [&](const Item &i) { return i.type == CR_MESSAGE_TYPE_MESSAGE && i.payload == bin; },
      seconds(10)));
  PrintEvents("classic", reader_->Items());
}

TEST_F(PubSubLive, AShardChannelIsSubscribedOnItsLocalReplica) {
  const std::string ch = NameInShard(1, "ps:s1:");
  Add(CR_CHANNEL_KIND_SHARD, {ch});
  Item ev;
  ASSERT_TRUE(reader_->AwaitEvent(CR_MESSAGE_TYPE_SUBSCRIBED, ch, seconds(10), &ev));
  EXPECT_EQ(ev.node, Node(2, "ADDR")) << "shard 1's replica in cloud A";
  EXPECT_EQ(ev.kind, CR_CHANNEL_KIND_SHARD);
  int64_t receivers = -1;
  ASSERT_EQ(cr_client_spublish(&receivers, c_, ch.data(), ch.size(), "s1", 2), CR_OK)
      << cr_last_error();
  EXPECT_GE(receivers, 0);  // the master counts its own subscribers only
  Item m;
  ASSERT_TRUE(reader_->Await(
      [](const Item &i) { return i.type == CR_MESSAGE_TYPE_MESSAGE && i.payload == "s1"; },
      seconds(10), &m));
  EXPECT_EQ(m.node, Node(2, "ADDR"));
  EXPECT_EQ(m.kind, CR_CHANNEL_KIND_SHARD);
}

TEST_F(PubSubLive, NamesAddedAndRemovedFromAnotherThreadWhileMessagesFlow) {
  const std::string a = "ps:flow:a", b = NameInShard(2, "ps:flow:s");
  Add(CR_CHANNEL_KIND_CHANNEL, {a});
  ASSERT_TRUE(reader_->AwaitEvent(CR_MESSAGE_TYPE_SUBSCRIBED, a, seconds(10), nullptr));
  Publisher pa(c_, a, false), pb(c_, b, true);
  std::thread changer([&] {
    for (int round = 0; round < 5; ++round) {
      Add(CR_CHANNEL_KIND_SHARD, {b});
      std::this_thread::sleep_for(milliseconds(100));
      Remove(CR_CHANNEL_KIND_CHANNEL, {a});
      Remove(CR_CHANNEL_KIND_SHARD, {b});
      Add(CR_CHANNEL_KIND_CHANNEL, {a});
      std::this_thread::sleep_for(milliseconds(50));
    }
    Add(CR_CHANNEL_KIND_SHARD, {b});
  });
  changer.join();
  // Both end subscribed, and messages of both arrive after that.
  // Both end subscribed (each one's last event), and messages of both
  // arrive after that.
  ASSERT_TRUE(crtest::WaitUntil(
      [&] {
        std::map<std::string, cr_message_type> last;
        for (const Item &i : reader_->Items()) {
          if (i.type != CR_MESSAGE_TYPE_MESSAGE) last[i.channel] = i.type;
        }
        return last[a] == CR_MESSAGE_TYPE_SUBSCRIBED && last[b] == CR_MESSAGE_TYPE_SUBSCRIBED;
      },
      seconds(10)));
  const size_t mark = reader_->Count();
  for (const std::string &n : {a, b}) {
    EXPECT_TRUE(reader_->Await(
        [&](const Item &i) { return i.type == CR_MESSAGE_TYPE_MESSAGE && i.channel == n; },
        seconds(10), nullptr, mark))
        << n;
  }
  pa.Stop();
  pb.Stop();
  size_t unsub = 0;
  for (const Item &i : reader_->Items()) unsub += i.type == CR_MESSAGE_TYPE_UNSUBSCRIBED;
  EXPECT_EQ(unsub, 10u);
}

TEST_F(PubSubLive, ACLusterFailoverDuringAShardSubscription) {
  // Shard 2: n4 master (cloud B), n5 replica (B), n6 replica (A).
  const std::string ch = NameInShard(2, "ps:fo:");
  Add(CR_CHANNEL_KIND_SHARD, {ch});
  Item ev;
  ASSERT_TRUE(reader_->AwaitEvent(CR_MESSAGE_TYPE_SUBSCRIBED, ch, seconds(10), &ev));
  EXPECT_EQ(ev.node, Node(6, "ADDR"));
  Publisher pub(c_, ch, true);
  ASSERT_NO_FATAL_FAILURE(Failover(5));  // n5 takes over from n4
  ASSERT_TRUE(AwaitRole(4, "slave"));
  // The subscription may have landed on the new master in cloud B (n6 still
  // syncing); once n6 is a healthy candidate again it moves back there: a
  // planned move, MOVING ("a nearer node is ready") then RESUBSCRIBED on n6.
  // After the cluster settled, until its last event is a RESUBSCRIBED on a
  // cloud-A node (bounded).
  ASSERT_NO_FATAL_FAILURE(AwaitSteady());
  Item home;
  const bool back = crtest::WaitUntil(
      [&] {
        for (const Item &i : reader_->Items()) {
          if (i.channel == ch && i.type != CR_MESSAGE_TYPE_MESSAGE) home = i;
        }
        return home.type == CR_MESSAGE_TYPE_RESUBSCRIBED && InCloudA(home.node);
      },
      seconds(30), milliseconds(20));
  if (!back) {
    pub.Stop();
    PrintEvents("failover", reader_->Items());
    ADD_FAILURE() << "never back on a cloud-A node";
    ASSERT_NO_FATAL_FAILURE(Failover(4));  // back to the harness layout
    return;
  }
  EXPECT_EQ(home.node, Node(6, "ADDR")) << "shard 2's replica in cloud A";
  // Messages keep flowing after it: until 60 more (distinct: a planned
  // move may deliver some twice) arrived, bounded.
  const size_t mark = reader_->Count();
  int top = -1;  // the highest seq received before
  for (const Item &i : reader_->Items()) {
    if (i.type == CR_MESSAGE_TYPE_MESSAGE && i.channel == ch)
      top = std::max(top, std::stoi(i.payload));
  }
  EXPECT_TRUE(crtest::WaitUntil(
      [&] {
        std::set<int> later;
        const auto items = reader_->Items();
        for (size_t k = mark; k < items.size(); ++k) {
          if (items[k].type == CR_MESSAGE_TYPE_MESSAGE && items[k].channel == ch &&
              std::stoi(items[k].payload) > top) {
            later.insert(std::stoi(items[k].payload));
          }
        }
        return later.size() >= 60;
      },
      seconds(20)));
  pub.Stop();
  Drain(pub, ch);
  const auto items = reader_->Items();
  PrintEvents("failover", items);
  ExpectNoLossAfterLastSubscribe(items, pub.sent, ch, 50);
  // A planned move loses nothing: every message published after the
  // resubscription that preceded it arrived too.
  const Item *planned = nullptr, *before = nullptr;
  for (const Item &i : items) {
    if (i.channel != ch) continue;
    if (i.type == CR_MESSAGE_TYPE_MOVING && i.at <= home.at) planned = &i;
    if ((i.type == CR_MESSAGE_TYPE_RESUBSCRIBED || i.type == CR_MESSAGE_TYPE_SUBSCRIBED) &&
        i.at < home.at) {
      before = &i;
    }
  }
  ASSERT_NE(planned, nullptr);
  if (planned->reason.rfind("a nearer node is ready: ", 0) == 0) {
    EXPECT_EQ(planned->reason, "a nearer node is ready: " + Node(6, "ADDR") + " (local)");
    EXPECT_FALSE(InCloudA(planned->node)) << "it left a cloud-B node";
    ASSERT_NE(before, nullptr);
    ExpectNoLossAfter(items, pub.sent, ch, before->at, 50);
  } else {
    std::printf("PUBSUB failover: back on n6 without a planned move (%s)\n",
                planned->reason.c_str());
  }
  ASSERT_NO_FATAL_FAILURE(Failover(4));  // back to the harness layout
}

TEST_F(PubSubLive, ASlotMigrationDuringAShardSubscription) {
  // The channel's slot moves from shard 1 (n1; replica n2 in cloud A) to
  // shard 3 (n7, cloud A; its replicas in cloud B).
  const std::string ch = NameInShard(1, "ps:mig:");
  const int slot = cr_keyslot(ch.data(), ch.size());
  Add(CR_CHANNEL_KIND_SHARD, {ch});
  Item ev;
  ASSERT_TRUE(reader_->AwaitEvent(CR_MESSAGE_TYPE_SUBSCRIBED, ch, seconds(10), &ev));
  EXPECT_EQ(ev.node, Node(2, "ADDR"));
  Publisher pub(c_, ch, true);
  ASSERT_NO_FATAL_FAILURE(MoveSlot(slot, 1, 7, ch));
  Item re;
  EXPECT_TRUE(reader_->AwaitEvent(CR_MESSAGE_TYPE_RESUBSCRIBED, ch, seconds(15), &re));
  EXPECT_EQ(re.node, Node(7, "ADDR")) << "shard 3's nearest node";
  std::this_thread::sleep_for(seconds(2));  // messages keep flowing at the new owner
  pub.Stop();
  Drain(pub, ch);
  const auto items = reader_->Items();
  PrintEvents("migration", items);
  ExpectNoLossAfterLastSubscribe(items, pub.sent, ch, 50);
  ASSERT_NO_FATAL_FAILURE(MoveSlot(slot, 7, 1, ch));  // back home
}

TEST_F(PubSubLive, TheNodeOfAChannelSubscriptionIsKilled) {
  const std::string ch = "ps:kill";
  Add(CR_CHANNEL_KIND_CHANNEL, {ch});
  Item ev;
  ASSERT_TRUE(reader_->AwaitEvent(CR_MESSAGE_TYPE_SUBSCRIBED, ch, seconds(10), &ev));
  ASSERT_TRUE(InCloudA(ev.node)) << ev.node;
  const int victim = NodeNumber(ev.node);
  ASSERT_GT(victim, 0);
  const std::string nd = env_["HARNESS_DIR"] + "/cluster/n" + std::to_string(victim);
  std::string pid;
  ASSERT_TRUE(static_cast<bool>(std::ifstream(nd + "/redis.pid") >> pid));
  ASSERT_EQ(kill(std::atoi(pid.c_str()), SIGKILL), 0);
  Item moving, re;
  ASSERT_TRUE(reader_->AwaitEvent(CR_MESSAGE_TYPE_MOVING, ch, seconds(10), &moving));
  EXPECT_EQ(moving.node, ev.node);
  ASSERT_TRUE(reader_->AwaitEvent(CR_MESSAGE_TYPE_RESUBSCRIBED, ch, seconds(15), &re));
  EXPECT_NE(re.node, ev.node);
  EXPECT_TRUE(InCloudA(re.node)) << "another local node: " << re.node;
  // Published (on a cloud-B node) after the RESUBSCRIBED event: all arrive.
  for (int i = 0; i < 50; ++i) {
    ASSERT_NE(crtest::Cli(Node(5, "ADDR"), {"PUBLISH", ch, "k" + std::to_string(i)}), "");
  }
  ASSERT_TRUE(crtest::WaitUntil(
      [&] {
        std::set<std::string> got;
        for (const Item &i : reader_->Items()) {
          if (i.type == CR_MESSAGE_TYPE_MESSAGE && i.channel == ch) got.insert(i.payload);
        }
        return got.size() == 50;
      },
      seconds(10)));
  PrintEvents("kill", reader_->Items());
  // Back for the fixture's stop (and any later test): restart it.
  const char *bin = std::getenv("CR_TEST_SERVER_BIN");
  std::remove((nd + "/redis.pid").c_str());
  ASSERT_EQ(std::system(((bin != nullptr ? std::string(bin) : std::string("redis-server")) + " " +
                         nd + "/redis.conf >/dev/null 2>&1")
                            .c_str()),
            0);
  ASSERT_TRUE(crtest::WaitUntil(
      [&] { return static_cast<bool>(std::ifstream(nd + "/redis.pid") >> pid) && !pid.empty(); },
      seconds(5)));
  std::ofstream(env_["HARNESS_DIR"] + "/pids", std::ios::app)
      << "cluster n" << victim << " " << pid << " " << Node(victim, "IP") << " "
      << Node(victim, "PORT") << "\n";
  ASSERT_NO_FATAL_FAILURE(AwaitSteady());  // back in the cluster for the next test
}

}  // namespace pubsub_test
