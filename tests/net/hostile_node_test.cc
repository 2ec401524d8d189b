// A live client (through the C API) against one scripted node that
// misbehaves where a real server cannot: a MOVED whose target does not parse
// is the request's CR_EPARSE, naming the node and showing the target escaped,
// and nothing is dialed for it; a reply over max_reply_bytes is CR_ELIMIT
// naming the cap and the node; with zones configured, a node whose HELLO
// never answers, or answers bytes that are not RESP, still serves every
// command, at the cost of the zone probe's own short timeout once, and is
// logged once. The peers are tests/net/fake_server.hpp servers.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cloudroute.h"
#include "cloudroute/net/zone_probe.hpp"
#include "fake_server.hpp"

namespace hostile_node_test {

using fake::Bulk;

// A cluster node (fake::ClusterNode) whose answers to GET and SET, and to
// HELLO, the test decides.
class Node {
 public:
  Node()
      : server_(fake::ScriptedClusterNode(
            [this] { return server_.port(); },
            [this](const std::vector<std::string> &argv, std::string *out, bool *hold) {
              const std::string cmd = argv.empty() ? "" : argv[0];
              if (cmd == "HELLO") {
                ++hellos_;
                if (silent_hello_) *hold = true;  // never: the request stays pending
                *out += hello_;
              } else if (cmd == "GET" || cmd == "SET") {
                ++data_commands_;
                *out += data_;
              } else {
                return false;
              }
              return true;
            })) {}

  std::string seed() const { return "127.0.0.1:" + std::to_string(server_.port()); }
  int accepted() const { return server_.accepted(); }

  std::string data_ = "$1\r\nv\r\n";
  std::string hello_ = "-ERR unknown command 'HELLO'\r\n";
  std::atomic<bool> silent_hello_{false};
  std::atomic<int> hellos_{0};
  std::atomic<int> data_commands_{0};
  FakeServer server_;
};

cr_status Get(cr_client *c, std::string *value) {
  cr_reply *r = nullptr;
  const cr_status s = cr_client_cmd_get(&r, c, "k", 1);
  if (s == CR_OK) {
    size_t len = 0;
    const char *p = cr_reply_get_string(r, &len);
    value->assign(p == nullptr ? "" : p, len);
    cr_reply_free(r);
  }
  return s;
}

TEST(HostileNode, MalformedMovedIsAParseErrorNamingTheNodeAndIsNeverDialed) {
  Node node;
  cr_client *c = nullptr;
  ASSERT_EQ(cr_client_new(&c, nullptr, nullptr, node.seed().c_str()), CR_OK) << cr_last_error();
  struct Case {
    std::string reply;  // the node's answer to GET and SET
    std::string shown;  // in the message
  };
  const std::vector<Case> cases = {
      {"-MOVED 1 [::1:9902\r\n", "'MOVED 1 [::1:9902'"},
      {std::string("-MOVED 1 127.0.0.1\0evil:9902\r\n", 30), "'MOVED 1 127.0.0.1\\x00evil:9902'"},
      {"-ASK 1 127.0.0.1:0\r\n", "'ASK 1 127.0.0.1:0'"},
      {"-MOVED 99999 127.0.0.1:9902\r\n", "'MOVED 99999 127.0.0.1:9902'"},
      {"-MOVED 1 127.0.0.1:9902\x1b[2J\r\n", "'MOVED 1 127.0.0.1:9902\\x1b[2J'"},
  };
  // The node's connections for commands exist before the cases (a shared
  // connection is dialed by the first command).
  std::string first;
  ASSERT_EQ(Get(c, &first), CR_OK) << cr_last_error();
  for (const Case &k : cases) {
    node.data_ = k.reply;
    const int accepted = node.accepted();
    std::string v;
    EXPECT_EQ(Get(c, &v), CR_EPARSE) << k.shown;  // a read
    std::string why = cr_last_error();
    EXPECT_NE(why.find(node.seed() + ": refused redirect " + k.shown), std::string::npos) << why;
    EXPECT_EQ(cr_client_cmd_set(c, "k", 1, "v", 1, 0), CR_EPARSE) << k.shown;  // a write
    why = cr_last_error();
    EXPECT_NE(why.find(node.seed() + ": refused redirect " + k.shown), std::string::npos) << why;
    EXPECT_EQ(why.find('\0'), std::string::npos);
    // Nothing else was dialed: the one node kept its one pooled connection,
    // and the router interned no node for the target.
    EXPECT_EQ(node.accepted(), accepted);
    cr_client_stats st = CR_CLIENT_STATS_INIT;
    ASSERT_EQ(cr_client_get_stats(&st, c), CR_OK);
    EXPECT_EQ(st.moved, 0u);
    EXPECT_EQ(st.ask, 0u);
    size_t needed = 0;
    cr_client_node_stats ns[4];
    for (cr_client_node_stats &n : ns) n = CR_CLIENT_NODE_STATS_INIT;
    ASSERT_EQ(cr_client_get_node_stats(ns, 4, &needed, c), CR_OK);
    EXPECT_EQ(needed, 1u);
  }
  // The connection was clean all along: a good answer comes on it.
  node.data_ = "$2\r\nok\r\n";
  std::string v;
  EXPECT_EQ(Get(c, &v), CR_OK) << cr_last_error();
  EXPECT_EQ(v, "ok");
  cr_client_free(c);
}

TEST(HostileNode, AReplyOverTheCapIsALimitErrorNamingTheCapAndTheNode) {
  Node node;
  // Far more integers declared than sent: the cap refuses the reply first.
  node.data_ = "*16777216\r\n";
  for (int i = 0; i < 200000; ++i) node.data_ += ":1\r\n";
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  o.max_reply_bytes = 8u << 20;
  cr_client *c = nullptr;
  ASSERT_EQ(cr_client_new(&c, nullptr, &o, node.seed().c_str()), CR_OK) << cr_last_error();
  std::string v;
  EXPECT_EQ(Get(c, &v), CR_ELIMIT);
  const std::string why = cr_last_error();
  EXPECT_NE(why.find(node.seed() + ": reply refused: the reply would need more than its cap of " +
                     "8388608 bytes (max_reply_bytes)"),
            std::string::npos)
      << why;
  // The connection was closed; a good answer comes on a new one.
  node.data_ = "$2\r\nok\r\n";
  EXPECT_EQ(Get(c, &v), CR_OK) << cr_last_error();
  EXPECT_EQ(v, "ok");
  cr_client_free(c);
}

// Counts "zone probe failed" events, per node.
struct ProbeLog {
  std::mutex mu;
  std::vector<std::string> nodes;
  static void Callback(cr_log_level, const char *message, const cr_log_field *fields, size_t n,
                       void *payload) {
    if (std::strstr(message, "zone probe failed") == nullptr) return;
    auto *self = static_cast<ProbeLog *>(payload);
    std::lock_guard<std::mutex> lock(self->mu);
    for (size_t i = 0; i < n; ++i) {
      if (std::strcmp(fields[i].key, "node") == 0) self->nodes.push_back(fields[i].value);
    }
  }
};

class ZoneProbeFails : public ::testing::TestWithParam<bool> {};  // true: silent, false: garbage

TEST_P(ZoneProbeFails, TheNodeServesEveryCommandAndIsLoggedOnce) {
  Node node;
  if (GetParam()) {
    node.silent_hello_ = true;
  } else {
    node.hello_ = "?this is not RESP\r\n";
  }
  ProbeLog log;
  cr_config *cfg = nullptr;
  ASSERT_EQ(cr_config_new(&cfg), CR_OK);
  ASSERT_EQ(cr_config_set_client_location(cfg, "cloud-x/region-1/az-a"), CR_OK);
  ASSERT_EQ(cr_config_add_zone(cfg, "az-a", "cloud-x/region-1/az-a"), CR_OK);
  ASSERT_EQ(cr_config_set_log_callback(cfg, CR_LOG_LEVEL_WARN, ProbeLog::Callback, &log), CR_OK);
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  // The tier timeouts are long: a probe that waited for them would show.
  for (uint32_t &t : o.command_timeout_ms) t = 5000;
  cr_client *c = nullptr;
  ASSERT_EQ(cr_client_new(&c, cfg, &o, node.seed().c_str()), CR_OK) << cr_last_error();
  cr_config_free(cfg);

  // The margin on top of the probe's own timeout: loopback dials, a busy
  // CI machine. Far below the 5 s a probe bounded by the tier would take.
  const auto bound = std::chrono::milliseconds(cloudroute::net::kZoneProbeTimeoutMs + 1000);
  std::string v;
  for (int i = 0; i < 5; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    ASSERT_EQ(Get(c, &v), CR_OK) << cr_last_error();
    EXPECT_LT(std::chrono::steady_clock::now() - t0, bound) << "GET " << i;
    EXPECT_EQ(v, "v");
  }
  // Several connections at once (each a new dial): none probes the node
  // again, so none waits, and the failure was logged once.
  std::vector<std::thread> threads;
  std::atomic<int> ok{0};
  const auto t0 = std::chrono::steady_clock::now();
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&] {
      std::string value;
      for (int i = 0; i < 20; ++i) {
        if (Get(c, &value) == CR_OK) ++ok;
      }
    });
  }
  for (std::thread &t : threads) t.join();
  EXPECT_EQ(ok.load(), 120);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, bound);
  EXPECT_EQ(node.hellos_.load(), 1);
  {
    std::lock_guard<std::mutex> lock(log.mu);
    ASSERT_EQ(log.nodes.size(), 1u);
    EXPECT_EQ(log.nodes[0], node.seed());
  }
  cr_client_free(c);
}

INSTANTIATE_TEST_SUITE_P(SilentOrGarbage, ZoneProbeFails, ::testing::Bool());

}  // namespace hostile_node_test
