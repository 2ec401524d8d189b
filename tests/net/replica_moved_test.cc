// Replicas that disagree about a slot's owner, as right after an atomic slot
// migration (Valkey 9's CLUSTER MIGRATESLOTS): the slot has moved from shard
// A to shard B; A's master and replica know it and redirect to B's master,
// B's replica does not know it yet and redirects back to A's master. A read
// (GET, MGET, a pipeline's GET) routed replica-first must not bounce between
// the two replicas until its redirects run out: after the second MOVED,
// sent by a replica, it asks that replica's master, which serves it (or
// redirects it: a master knows what it owns). The nodes are
// tests/net/fake_server.hpp servers on 127.0.0.1.
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "cloudroute.h"
#include "fake_server.hpp"

namespace replica_moved_test {

using fake::Bulk;

// One fake node: `reads` answers GET and MGET (argv: the command), the rest
// is a cluster node answering CLUSTER SLOTS with *slots.
class Node {
 public:
  Node(const std::string *slots, std::function<std::string(const std::vector<std::string> &)> reads)
      : reads_(std::move(reads)), server_([this, slots](const std::string &req) {
          size_t used = 0;
          std::string out;
          for (const auto &argv : fake::Commands(req, &used)) {
            const std::string cmd = argv.empty() ? "" : argv[0];
            if (cmd == "GET" || cmd == "MGET") {
              ++data_commands_;
              out += reads_(argv);
            } else if (cmd == "HELLO") {
              out += "-ERR unknown command 'HELLO'\r\n";
            } else {
              out += fake::ClusterNode([slots] { return *slots; })(fake::Command(argv));
            }
          }
          return out;
        }) {}
  uint16_t port() const { return server_.port(); }
  std::string address() const { return "127.0.0.1:" + std::to_string(port()); }
  std::string Entry(char id) const {  // its CLUSTER SLOTS node entry
    return "*3\r\n" + Bulk("127.0.0.1") + ":" + std::to_string(port()) + "\r\n" +
           Bulk(std::string(40, id));
  }
  int data_commands() const { return data_commands_.load(); }

 private:
  std::function<std::string(const std::vector<std::string> &)> reads_;
  std::atomic<int> data_commands_{0};
  FakeServer server_;
};

class ReplicaMoved : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int i = 0;; ++i) {  // a key of shard A's slots
      key_ = "k" + std::to_string(i);
      slot_ = cr_keyslot(key_.data(), key_.size());
      if (slot_ < 8192) break;
    }
    slots_ = "*2\r\n*4\r\n:0\r\n:8191\r\n" + ma_.Entry('a') + ra_.Entry('b') +
             "*4\r\n:8192\r\n:16383\r\n" + mb_.Entry('c') + rb_.Entry('d');
    cr_config *cfg = nullptr;
    ASSERT_EQ(cr_config_new(&cfg), CR_OK);
    cr_router_options ro = CR_ROUTER_OPTIONS_INIT;
    ro.policy = CR_POLICY_PREFER_REPLICA;  // every read asks a replica first
    ASSERT_EQ(cr_config_set_router_options(cfg, &ro), CR_OK);
    ASSERT_EQ(cr_client_new(&c_, cfg, nullptr, ma_.address().c_str()), CR_OK) << cr_last_error();
    cr_config_free(cfg);
  }
  void TearDown() override { cr_client_free(c_); }

  std::string Moved(const Node &to) const {
    return "-MOVED " + std::to_string(slot_) + " " + to.address() + "\r\n";
  }
  // B's master serves the slot: "v" for each key.
  static std::string Serve(const std::vector<std::string> &argv) {
    if (argv[0] == "GET") return Bulk("v");
    std::string out = "*" + std::to_string(argv.size() - 1) + "\r\n";
    for (size_t i = 1; i < argv.size(); ++i) out += Bulk("v");
    return out;
  }

  std::string key_;
  uint16_t slot_ = 0;
  std::string slots_;
  Node mb_{&slots_, Serve};
  Node ma_{&slots_, [this](const std::vector<std::string> &) { return Moved(mb_); }};
  Node ra_{&slots_, [this](const std::vector<std::string> &) { return Moved(mb_); }};
  Node rb_{&slots_, [this](const std::vector<std::string> &) { return Moved(ma_); }};
  cr_client *c_ = nullptr;
};

TEST_F(ReplicaMoved, ReadsAreServedByTheMasterOfTheReplicaThatPointsBack) {
  const std::string k1 = "{" + key_ + "}1", k2 = "{" + key_ + "}2";
  for (int round = 0; round < 10; ++round) {
    cr_reply *r = nullptr;
    ASSERT_EQ(cr_client_cmd_get(&r, c_, key_.data(), key_.size()), CR_OK) << cr_last_error();
    size_t len = 0;
    const char *got = cr_reply_get_string(r, &len);
    EXPECT_EQ(std::string(got, len), "v");
    cr_reply_free(r);

    const void *keys[2] = {k1.data(), k2.data()};
    const size_t lens[2] = {k1.size(), k2.size()};
    ASSERT_EQ(cr_client_cmd_mget(&r, c_, keys, lens, 2), CR_OK) << cr_last_error();
    ASSERT_EQ(cr_reply_get_count(r), 2u);
    cr_reply_free(r);

    cr_pipeline *p = nullptr;
    ASSERT_EQ(cr_pipeline_new(&p, c_), CR_OK);
    const void *argv[2] = {"GET", key_.data()};
    const size_t argl[2] = {3, key_.size()};
    ASSERT_EQ(cr_pipeline_add(p, CR_ACCESS_READ, 1, 2, argv, argl), CR_OK);
    cr_reply *pr[1] = {nullptr};
    cr_status ps[1];
    size_t needed = 0;
    EXPECT_EQ(cr_pipeline_execute(pr, ps, 1, &needed, p), CR_OK) << cr_last_error();
    EXPECT_EQ(ps[0], CR_OK);
    cr_reply_free(pr[0]);
    cr_pipeline_free(p);
  }
  // Every read was served by B's master (30: one per call), after B's
  // replica pointed back.
  EXPECT_EQ(mb_.data_commands(), 30);
  EXPECT_GE(rb_.data_commands(), 1);
  cr_client_stats st = CR_CLIENT_STATS_INIT;
  ASSERT_EQ(cr_client_get_stats(&st, c_), CR_OK);
  EXPECT_EQ(st.server_errors, 0u);
}

// A slot that has just moved (a master's MOVED to another shard): the new
// owner's replica answers nil for its keys — it does not hold them yet, as
// right after an atomic slot migration — and its master has them. A read's
// nil from that replica is confirmed at the master (GET, MGET, a pipeline's
// GET); a nil for a slot that did not move is a miss and stands.
class NilAfterMove : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int i = 0; moved_.empty() || stayed_.empty(); ++i) {
      const std::string k = "k" + std::to_string(i);
      const uint16_t slot = cr_keyslot(k.data(), k.size());
      if (slot < 8192 && moved_.empty()) moved_ = k;
      if (slot >= 8192 && stayed_.empty()) stayed_ = k;
    }
    slots_ = "*2\r\n*4\r\n:0\r\n:8191\r\n" + ma_.Entry('a') + ra_.Entry('b') +
             "*4\r\n:8192\r\n:16383\r\n" + mb_.Entry('c') + rb_.Entry('d');
    cr_config *cfg = nullptr;
    ASSERT_EQ(cr_config_new(&cfg), CR_OK);
    cr_router_options ro = CR_ROUTER_OPTIONS_INIT;
    ro.policy = CR_POLICY_PREFER_REPLICA;
    ASSERT_EQ(cr_config_set_router_options(cfg, &ro), CR_OK);
    ASSERT_EQ(cr_client_new(&c_, cfg, nullptr, ma_.address().c_str()), CR_OK) << cr_last_error();
    cr_config_free(cfg);
  }
  void TearDown() override { cr_client_free(c_); }

  // What GET answers for key (NULL reply: "<nil>").
  std::string Get(const std::string &key) {
    cr_reply *r = nullptr;
    EXPECT_EQ(cr_client_cmd_get(&r, c_, key.data(), key.size()), CR_OK) << cr_last_error();
    std::string out = "<nil>";
    if (r != nullptr && cr_reply_get_type(r) == CR_REPLY_TYPE_STRING) {
      size_t len = 0;
      const char *s = cr_reply_get_string(r, &len);
      out.assign(s, len);
    }
    cr_reply_free(r);
    return out;
  }

  // Shard A's nodes send every read of its slots to B's master.
  std::string ToB(const std::vector<std::string> &argv) const {
    return "-MOVED " + std::to_string(cr_keyslot(argv[1].data(), argv[1].size())) + " " +
           mb_.address() + "\r\n";
  }
  // B's replica has none of the keys yet; B's master has "v" for each.
  static std::string Nils(const std::vector<std::string> &argv) {
    if (argv[0] == "GET") return "$-1\r\n";
    std::string out = "*" + std::to_string(argv.size() - 1) + "\r\n";
    for (size_t i = 1; i < argv.size(); ++i) out += "$-1\r\n";
    return out;
  }
  static std::string Values(const std::vector<std::string> &argv) {
    if (argv[0] == "GET") return Bulk("v");
    std::string out = "*" + std::to_string(argv.size() - 1) + "\r\n";
    for (size_t i = 1; i < argv.size(); ++i) out += Bulk("v");
    return out;
  }

  std::string moved_, stayed_;  // a key of A's slots (moved to B), one of B's own
  std::string slots_;
  Node mb_{&slots_, Values};
  Node rb_{&slots_, Nils};
  Node ma_{&slots_, [this](const std::vector<std::string> &argv) { return ToB(argv); }};
  Node ra_{&slots_, [this](const std::vector<std::string> &argv) { return ToB(argv); }};
  cr_client *c_ = nullptr;
};

TEST_F(NilAfterMove, AReplicasNilForAJustMovedSlotIsConfirmedAtItsMaster) {
  EXPECT_EQ(Get(moved_), "v");
  const int master_reads = mb_.data_commands(), replica_reads = rb_.data_commands();
  EXPECT_GE(replica_reads, 1) << "the read did not go to the new owner's replica first";

  const std::string k1 = "{" + moved_ + "}1", k2 = "{" + moved_ + "}2";
  const void *keys[2] = {k1.data(), k2.data()};
  const size_t lens[2] = {k1.size(), k2.size()};
  cr_reply *r = nullptr;
  ASSERT_EQ(cr_client_cmd_mget(&r, c_, keys, lens, 2), CR_OK) << cr_last_error();
  ASSERT_EQ(cr_reply_get_count(r), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(cr_reply_get_type(cr_reply_get_element(r, i)), CR_REPLY_TYPE_STRING) << i;
  }
  cr_reply_free(r);

  cr_pipeline *p = nullptr;
  ASSERT_EQ(cr_pipeline_new(&p, c_), CR_OK);
  const void *argv[2] = {"GET", moved_.data()};
  const size_t argl[2] = {3, moved_.size()};
  ASSERT_EQ(cr_pipeline_add(p, CR_ACCESS_READ, 1, 2, argv, argl), CR_OK);
  cr_reply *pr[1] = {nullptr};
  cr_status ps[1];
  size_t needed = 0;
  EXPECT_EQ(cr_pipeline_execute(pr, ps, 1, &needed, p), CR_OK) << cr_last_error();
  ASSERT_EQ(ps[0], CR_OK);
  size_t len = 0;
  const char *got = cr_reply_get_string(pr[0], &len);
  EXPECT_EQ(std::string(got == nullptr ? "" : got, len), "v");
  cr_reply_free(pr[0]);
  cr_pipeline_free(p);
  EXPECT_GT(mb_.data_commands(), master_reads + 1) << "MGET and the pipeline were not confirmed";

  // A slot that did not move: the replica's nil is a miss, and stands.
  const int before = mb_.data_commands();
  EXPECT_EQ(Get(stayed_), "<nil>");
  EXPECT_EQ(mb_.data_commands(), before) << "a nil for a slot that did not move was confirmed";
}

}  // namespace replica_moved_test
