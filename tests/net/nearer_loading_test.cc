// A planned pub/sub move (make-before-break, net/nearer_node) whose nearer
// node is still loading: a two-node cluster of tests/net/fake_server.hpp
// servers, the master M in another cloud and its replica R in the client's.
// The client subscribes a shard channel while only M is listed, so it lands
// on M; then R is listed too. R accepts SSUBSCRIBE (as a loading server
// does) but answers the PING after it with -LOADING. Required:
//  - the events say it: MOVING "a nearer node is ready: R", then
//    RESUBSCRIBED with M; no event ever names R while it loads, and the
//    info log says the move failed, with the LOADING text;
//  - R's subscription is undone (SUNSUBSCRIBE) and M's never was;
//  - every message published meanwhile arrives (M never stopped);
//  - the move is tried again within a few seconds (the node's avoidance,
//    1 s doubling, plus its settle time of 1 s; the 30 s gap between two
//    planned moves is for moves made, not for attempts refused), and once R
//    has loaded it succeeds: RESUBSCRIBED with R, and M unsubscribed.
// Published messages are pushed, as SPUBLISH reaches them, to every
// connection that subscribed the channel on either node.
#include <gtest/gtest.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cloudroute.h"
#include "common/subscription_reader.hpp"
#include "common/wait_until.hpp"
#include "fake_server.hpp"

namespace nearer_loading_test {

using fake::Bulk;
using std::chrono::milliseconds;
using std::chrono::seconds;

std::string Lower(const std::string &s) {
  std::string out;
  for (char c : s) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// One node of the cluster: it confirms SSUBSCRIBE / SUNSUBSCRIBE as Redis
// does (RESP2) and keeps, per connection, the channels subscribed; a PING
// on a subscribed connection gets "pong" — or, while loading(), the
// LOADING error a replica gives while it loads its primary's data.
class Node {
 public:
  explicit Node(std::function<std::string()> slots)
      : slots_(std::move(slots)),
        server_(fake::ByConnection{},
                [this](size_t conn, const std::string &req) { return Answer(conn, req); }) {}

  std::string address() const { return "127.0.0.1:" + std::to_string(server_.port()); }
  uint16_t port() const { return server_.port(); }
  void set_loading(bool on) { loading_ = on; }
  // Connections subscribed to channel now (from the test's thread).
  int Subscribed(const std::string &channel) {
    std::lock_guard<std::mutex> lock(mu_);
    int n = 0;
    for (const auto &[conn, names] : subs_) n += names.count(channel) ? 1 : 0;
    return n;
  }
  int sunsubscribes() const { return sunsubscribes_.load(); }
  int loading_refusals() const { return refusals_.load(); }
  // A published message, to the connections subscribed to channel: how
  // many got it.
  int Publish(const std::string &channel, const std::string &payload) {
    const std::string frame = "*3\r\n" + Bulk("smessage") + Bulk(channel) + Bulk(payload);
    return server_.Push(frame, [this, channel](size_t conn) {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = subs_.find(conn);
      return it != subs_.end() && it->second.count(channel) != 0;
    });
  }

 private:
  std::string Answer(size_t conn, const std::string &req) {
    size_t used = 0;
    std::string out;
    for (const auto &argv : fake::Commands(req, &used)) {
      const std::string verb = Lower(argv.empty() ? std::string() : argv[0]);
      std::lock_guard<std::mutex> lock(mu_);
      std::set<std::string> &mine = subs_[conn];
      if (verb == "ssubscribe" || verb == "sunsubscribe") {
        for (size_t i = 1; i < argv.size(); ++i) {
          if (verb == "ssubscribe") {
            mine.insert(argv[i]);
          } else {
            mine.erase(argv[i]);
            ++sunsubscribes_;
          }
          out += "*3\r\n" + Bulk(verb) + Bulk(argv[i]) + ":" + std::to_string(mine.size()) + "\r\n";
        }
      } else if (verb == "ping" && !mine.empty()) {
        if (loading_) {
          ++refusals_;
          out += "-LOADING Redis is loading the dataset in memory\r\n";
        } else {
          out += "*2\r\n" + Bulk("pong") + Bulk("");
        }
      } else {
        out += fake::ClusterNode(slots_)(fake::Command(argv));
      }
    }
    return out;
  }

  std::function<std::string()> slots_;
  std::mutex mu_;
  std::map<size_t, std::set<std::string>> subs_;
  std::atomic<bool> loading_{false};
  std::atomic<int> sunsubscribes_{0};
  std::atomic<int> refusals_{0};
  FakeServer server_;
};

// M and R, one shard owning every slot; R is listed only once with_replica.
class Cluster {
 public:
  Cluster() : m_([this] { return Slots(); }), r_([this] { return Slots(); }) {}
  Node &m() { return m_; }
  Node &r() { return r_; }
  void set_with_replica(bool on) { with_replica_ = on; }

 private:
  std::string Slots() const {
    auto node = [](uint16_t port, char id) {
      return "*3\r\n" + Bulk("127.0.0.1") + ":" + std::to_string(port) + "\r\n" +
             Bulk(std::string(40, id));
    };
    const bool r = with_replica_.load();
    return std::string("*1\r\n*") + (r ? "4" : "3") + "\r\n:0\r\n:16383\r\n" +
           node(m_.port(), 'a') + (r ? node(r_.port(), 'b') : std::string());
  }
  std::atomic<bool> with_replica_{false};
  Node m_;
  Node r_;
};

using Item = crtest::SubscriptionItem;

// Reads a subscription on its own thread, keeping every item.
class Reader : public crtest::SubscriptionReader {
 public:
  using SubscriptionReader::SubscriptionReader;
  // The index of the first event of type t at or after `from` whose reason
  // contains `reason`, within the timeout; -1 if none came.
  int Await(cr_message_type t, size_t from, milliseconds timeout, const std::string &reason = "") {
    return AwaitIndex(
        [&](const Item &i) { return i.type == t && i.reason.find(reason) != std::string::npos; },
        timeout, from);
  }
};

// Messages "0", "1", … published on both nodes (as SPUBLISH reaches a
// shard's nodes) until stopped, keeping each one some connection got.
class Publisher {
 public:
  Publisher(Cluster *cl, std::string channel)
      : cl_(cl), channel_(std::move(channel)), thread_([this] { Run(); }) {}
  ~Publisher() { Stop(); }
  void Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  std::vector<int> Sent() {
    std::lock_guard<std::mutex> lock(mu_);
    return sent_;
  }
  int unsent() const { return unsent_.load(); }

 private:
  void Run() {
    for (int seq = 0; !stop_; ++seq) {
      const std::string p = std::to_string(seq);
      if (cl_->m().Publish(channel_, p) + cl_->r().Publish(channel_, p) <= 0) {
        ++unsent_;
        continue;
      }
      std::lock_guard<std::mutex> lock(mu_);
      sent_.push_back(seq);
    }
  }
  Cluster *cl_;
  std::string channel_;
  std::atomic<bool> stop_{false};
  std::atomic<int> unsent_{0};
  std::mutex mu_;
  std::vector<int> sent_;
  std::thread thread_;
};

// The info events of failed planned moves: their error fields.
struct MoveLog {
  std::mutex mu;
  std::vector<std::string> errors;
  static void Callback(cr_log_level, const char *message, const cr_log_field *fields, size_t n,
                       void *payload) {
    if (std::string(message).find("the nearer node did not take it") == std::string::npos) return;
    auto *self = static_cast<MoveLog *>(payload);
    std::lock_guard<std::mutex> lock(self->mu);
    for (size_t i = 0; i < n; ++i) {
      if (std::string(fields[i].key) == "error") self->errors.push_back(fields[i].value);
    }
  }
};

TEST(NearerNodeLoading, AMoveRefusedWithLoadingKeepsTheOldNodeAndIsTriedAgain) {
  Cluster cl;
  cl.r().set_loading(true);
  MoveLog log;
  cr_config *cfg = nullptr;
  ASSERT_EQ(cr_config_new(&cfg), CR_OK);
  ASSERT_EQ(cr_config_set_client_location(cfg, "cloud-a/r1/z1"), CR_OK);
  ASSERT_EQ(cr_config_add_node_location(cfg, cl.m().address().c_str(), "cloud-b/r1/z1"), CR_OK);
  ASSERT_EQ(cr_config_add_node_location(cfg, cl.r().address().c_str(), "cloud-a/r1/z1"), CR_OK);
  ASSERT_EQ(cr_config_set_log_callback(cfg, CR_LOG_LEVEL_INFO, MoveLog::Callback, &log), CR_OK);
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  o.refresh_interval_ms = 0;  // refreshed by the test only
  cr_client *c = nullptr;
  ASSERT_EQ(cr_client_new(&c, cfg, &o, cl.m().address().c_str()), CR_OK) << cr_last_error();
  cr_config_free(cfg);
  // Freed in reverse: the subscription, then the client, on any way out.
  std::unique_ptr<cr_client, void (*)(cr_client *)> client(c, cr_client_free);
  cr_subscription *s = nullptr;
  ASSERT_EQ(cr_client_subscribe(&s, c), CR_OK) << cr_last_error();
  std::unique_ptr<cr_subscription, void (*)(cr_subscription *)> sub(s, cr_subscription_free);
  const std::string ch = "news";
  const void *names[] = {ch.data()};
  const size_t lens[] = {ch.size()};
  ASSERT_EQ(cr_subscription_add(s, CR_CHANNEL_KIND_SHARD, 1, names, lens), CR_OK);
  auto reader = std::make_unique<Reader>(s);
  int at = reader->Await(CR_MESSAGE_TYPE_SUBSCRIBED, 0, seconds(5));
  ASSERT_GE(at, 0) << "never subscribed";
  EXPECT_EQ(reader->Items()[static_cast<size_t>(at)].node, cl.m().address());

  Publisher publisher(&cl, ch);

  // R is listed now: the name moves there, R refuses the PING.
  cl.set_with_replica(true);
  ASSERT_EQ(cr_client_refresh(c), CR_OK) << cr_last_error();
  const std::string nearer = "a nearer node is ready: " + cl.r().address();
  const int moving1 = reader->Await(CR_MESSAGE_TYPE_MOVING, 0, seconds(10), nearer);
  ASSERT_GE(moving1, 0) << "no planned move";
  const int back1 =
      reader->Await(CR_MESSAGE_TYPE_RESUBSCRIBED, static_cast<size_t>(moving1), seconds(10));
  ASSERT_GE(back1, 0) << "the failed move was not reported";
  EXPECT_EQ(reader->Items()[static_cast<size_t>(back1)].node, cl.m().address());
  EXPECT_GE(cl.r().loading_refusals(), 1);
  ASSERT_TRUE(crtest::WaitUntil(
      [&] {
        std::lock_guard<std::mutex> lock(log.mu);
        return !log.errors.empty();
      },
      seconds(5)));
  {
    std::lock_guard<std::mutex> lock(log.mu);
    EXPECT_NE(log.errors[0].find("LOADING"), std::string::npos) << log.errors[0];
  }
  // R's subscription is undone; M's stays.
  EXPECT_TRUE(crtest::WaitUntil([&] { return cl.r().Subscribed(ch) == 0; }, seconds(5)));
  EXPECT_GE(cl.r().sunsubscribes(), 1);
  EXPECT_EQ(cl.m().Subscribed(ch), 1);
  EXPECT_EQ(cl.m().sunsubscribes(), 0);

  // Tried again while R still loads: refused again, still on M.
  const int moving2 =
      reader->Await(CR_MESSAGE_TYPE_MOVING, static_cast<size_t>(back1) + 1, seconds(8), nearer);
  ASSERT_GE(moving2, 0) << "the refused move was not tried again";
  const int back2 =
      reader->Await(CR_MESSAGE_TYPE_RESUBSCRIBED, static_cast<size_t>(moving2), seconds(10));
  ASSERT_GE(back2, 0);
  EXPECT_EQ(reader->Items()[static_cast<size_t>(back2)].node, cl.m().address());
  EXPECT_GE(cl.r().loading_refusals(), 2);
  EXPECT_EQ(cl.m().Subscribed(ch), 1);

  // R has loaded: the next attempt moves the name there, and M lets it go.
  cl.r().set_loading(false);
  int done = -1;
  ASSERT_TRUE(crtest::WaitUntil(
      [&] {
        const std::vector<Item> items = reader->Items();
        for (size_t k = static_cast<size_t>(back2) + 1; k < items.size(); ++k) {
          if (items[k].type == CR_MESSAGE_TYPE_RESUBSCRIBED && items[k].node == cl.r().address()) {
            done = static_cast<int>(k);
            return true;
          }
        }
        return false;
      },
      seconds(15)))
      << "never moved to the nearer node once it had loaded";
  EXPECT_TRUE(crtest::WaitUntil([&] { return cl.m().Subscribed(ch) == 0; }, seconds(5)));
  EXPECT_EQ(cl.r().Subscribed(ch), 1);

  // A few more messages on R alone, then every one published arrived.
  const size_t before = publisher.Sent().size();
  ASSERT_TRUE(
      crtest::WaitUntil([&] { return publisher.Sent().size() >= before + 20; }, seconds(5)));
  publisher.Stop();
  EXPECT_EQ(publisher.unsent(), 0) << "a message found no subscribed connection";
  const std::vector<int> sent = publisher.Sent();
  const std::set<int> want(sent.begin(), sent.end());
  ASSERT_TRUE(crtest::WaitUntil(
      [&] {
        std::set<int> got;
        for (const Item &i : reader->Items()) {
          if (i.type == CR_MESSAGE_TYPE_MESSAGE) got.insert(std::stoi(i.payload));
        }
        for (int w : want) {
          if (got.count(w) == 0) return false;
        }
        return true;
      },
      seconds(5)))
      << "a message was lost";

  // The events, in order: SUBSCRIBED on M; then planned moves, each a MOVING
  // "a nearer node is ready" and a RESUBSCRIBED — with M while R loads,
  // with R at the end. No other event, and R is named by the last only.
  const std::vector<Item> items = reader->Items();
  std::vector<const Item *> events;
  for (const Item &i : items) {
    if (i.type != CR_MESSAGE_TYPE_MESSAGE) events.push_back(&i);
  }
  ASSERT_GE(events.size(), 7u);
  EXPECT_EQ(events[0]->type, CR_MESSAGE_TYPE_SUBSCRIBED);
  for (size_t k = 1; k < events.size(); ++k) {
    const bool moving = k % 2 == 1, last = k + 1 == events.size();
    EXPECT_EQ(events[k]->type, moving ? CR_MESSAGE_TYPE_MOVING : CR_MESSAGE_TYPE_RESUBSCRIBED) << k;
    EXPECT_EQ(events[k]->node, last ? cl.r().address() : cl.m().address()) << k;
    if (moving) {
      EXPECT_NE(events[k]->reason.find(nearer), std::string::npos) << events[k]->reason;
    }
  }
  // Messages M delivered came in the order published.
  int last_m = -1;
  for (const Item &i : items) {
    if (i.type != CR_MESSAGE_TYPE_MESSAGE || i.node != cl.m().address()) continue;
    EXPECT_GT(std::stoi(i.payload), last_m);
    last_m = std::stoi(i.payload);
  }
  EXPECT_GT(done, back2);
}

}  // namespace nearer_loading_test
