// What a user types every day, against a real two-cloud cluster of its own
// (scripts/redis-harness.sh, ports 8051-8059; cloud A = 127.0.1.x): per-call
// timeouts for blocking commands, candidates that are all marked down,
// commands sent to chosen nodes, SCAN over the cluster, scripts with NOSCRIPT
// recovery, and transactions on a pinned connection. Only the C API is used.
//
// Layout (harness defaults): shard 1 = slots 0-5460, master n1 (A), replicas
// n2 (A), n3 (B); shard 2 = 5461-10922, master n4 (B), replicas n5 (B), n6
// (A); shard 3 = 10923-16383, master n7 (A), replicas n8, n9 (B).
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "cloudroute.h"
#include "common/wait_until.hpp"
#include "harness_env.hpp"

namespace commands_test {

using Strings = std::vector<std::string>;

struct Argv {
  explicit Argv(const Strings &a) : args(a) {
    for (const std::string &s : args) {
      p.push_back(s.data());
      l.push_back(s.size());
    }
  }
  Strings args;
  std::vector<const void *> p;
  std::vector<size_t> l;
};

std::string Text(const cr_reply *r) {
  size_t len = 0;
  const char *p = cr_reply_get_string(r, &len);
  return p == nullptr ? "(nil)" : std::string(p, len);
}

// A key of the given shard (1-3) of the default layout.
std::string KeyOfShard(int shard, const std::string &prefix) {
  for (int i = 0;; ++i) {
    const std::string k = prefix + std::to_string(i);
    const uint16_t s = cr_keyslot(k.data(), k.size());
    if ((s <= 5460 ? 1 : s <= 10922 ? 2 : 3) == shard) return k;
  }
}

class Commands : public ::testing::Test {
 protected:
  void SetUp() override {
    env_ = crtest::LoadHarnessEnv();
    ASSERT_FALSE(env_["SEEDS"].empty()) << "CR_TEST_CLUSTER_ENV does not name a cluster.env";
  }
  void TearDown() override { cr_client_free(c_); }

  // A client in cloud A with every command timeout at timeout_ms; remaps:
  // announced → dialed addresses.
  void Start(cr_policy policy, uint32_t timeout_ms = 300,
             const std::map<std::string, std::string> &remaps = {}, uint32_t cooldown_ms = 60000) {
    cr_config *cfg = crtest::NewCloudAConfig();
    ASSERT_NE(cfg, nullptr);
    for (const auto &[from, to] : remaps)
      ASSERT_EQ(cr_config_add_address_remap(cfg, from.c_str(), to.c_str()), CR_OK);
    cr_router_options ro = CR_ROUTER_OPTIONS_INIT;
    ro.policy = policy;
    ro.failure_threshold = 1;
    ro.down_cooldown_ms = cooldown_ms;
    ASSERT_EQ(cr_config_set_router_options(cfg, &ro), CR_OK);
    cr_client_options o = CR_CLIENT_OPTIONS_INIT;
    for (uint32_t &t : o.command_timeout_ms) t = timeout_ms;
    o.client_name = "cr-commands-test";
    // Seed through shard 2's master: remapped tests break shard 1's nodes.
    const cr_status s = cr_client_new(&c_, cfg, &o, env_["NODE4_ADDR"].c_str());
    cr_config_free(cfg);
    ASSERT_EQ(s, CR_OK) << cr_last_error();
    router_ = cr_client_get_router(c_);
  }

  cr_status Cmd(cr_access a, const Strings &args, cr_reply **out,
                const cr_call_options *opts = nullptr, size_t key_index = 1) {
    Argv v(args);
    return cr_client_command_opts(out, c_, opts, a, key_index, v.p.size(), v.p.data(), v.l.data());
  }
  void Set(const std::string &k, const std::string &v) {
    cr_reply *r = nullptr;
    ASSERT_EQ(Cmd(CR_ACCESS_WRITE, {"SET", k, v}, &r), CR_OK) << cr_last_error();
    cr_reply_free(r);
  }
  cr_client_stats Stats() {
    cr_client_stats st = CR_CLIENT_STATS_INIT;
    EXPECT_EQ(cr_client_get_stats(&st, c_), CR_OK);
    return st;
  }
  // The key's read candidates, with their down flags.
  std::vector<cr_candidate> Candidates(const std::string &key) {
    std::vector<cr_candidate> v(8);
    v[0] = CR_CANDIDATE_INIT;
    size_t n = 0;
    EXPECT_EQ(cr_router_candidates(v.data(), v.size(), &n, router_, key.data(), key.size()), CR_OK);
    v.resize(n);
    return v;
  }
  cr_node_replies *OnNodes(cr_target t, const char *node, const Strings &args,
                           cr_status want = CR_OK) {
    Argv v(args);
    cr_node_replies *r = nullptr;
    EXPECT_EQ(cr_client_command_nodes(&r, c_, nullptr, t, node, v.p.size(), v.p.data(), v.l.data()),
              want)
        << cr_last_error();
    return r;
  }

  // Until every replica holds as many keys as its master (replication is
  // asynchronous; reads and SCAN may go to replicas).
  void WaitReplicated() {
    ASSERT_TRUE(crtest::WaitUntil(
        [&] {
          cr_node_replies *r = OnNodes(CR_TARGET_ALL_NODES, nullptr, {"DBSIZE"});
          bool same = r != nullptr && cr_node_replies_get_failed(r) == 0;
          int64_t master = 0;
          for (size_t i = 0; same && i < cr_node_replies_get_count(r); ++i) {
            const int64_t n = cr_reply_get_integer(cr_node_replies_get_reply(r, i));
            if (cr_node_replies_get_role(r, i) == CR_ROLE_MASTER)
              master = n;
            else
              same = n == master;
          }
          cr_node_replies_free(r);
          return same;
        },
        std::chrono::seconds(10)));
  }

  std::map<std::string, std::string> env_;
  cr_client *c_ = nullptr;
  cr_router *router_ = nullptr;
};

// ------------------------------------------------------------ 1. timeouts

TEST_F(Commands, BlpopWithACallTimeoutLongerThanTheTierTimeoutSucceedsAndMarksNothing) {
  Start(CR_POLICY_LOCAL, 200);
  const std::string key = KeyOfShard(1, "blpop:");
  cr_call_options co = CR_CALL_OPTIONS_INIT;
  co.timeout_ms = 3000;
  cr_reply *r = nullptr;
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(Cmd(CR_ACCESS_WRITE, {"BLPOP", key, "1"}, &r, &co), CR_OK) << cr_last_error();
  EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(900));
  EXPECT_EQ(cr_reply_get_type(r), CR_REPLY_TYPE_NIL);  // nothing to pop: waited 1 s
  cr_reply_free(r);
  // Without a call timeout, the command's own wait is added to the tier's.
  ASSERT_EQ(Cmd(CR_ACCESS_WRITE, {"BLPOP", key, "0.5"}, &r), CR_OK) << cr_last_error();
  cr_reply_free(r);
  // A call deadline before the server gives up: CR_ETIMEOUT, node unmarked.
  co.timeout_ms = 300;
  r = reinterpret_cast<cr_reply *>(0x1);
  EXPECT_EQ(Cmd(CR_ACCESS_WRITE, {"BLPOP", key, "5"}, &r, &co), CR_ETIMEOUT);
  EXPECT_EQ(r, nullptr);
  EXPECT_NE(std::string(cr_last_error()).find("not marked"), std::string::npos) << cr_last_error();
  // So is XREAD BLOCK, a read.
  co.timeout_ms = 2000;
  const auto t1 = std::chrono::steady_clock::now();
  ASSERT_EQ(Cmd(CR_ACCESS_READ, {"XREAD", "BLOCK", "600", "STREAMS", key, "$"}, &r, &co, 4), CR_OK)
      << cr_last_error();
  EXPECT_EQ(cr_reply_get_type(r), CR_REPLY_TYPE_NIL);
  EXPECT_GE(std::chrono::steady_clock::now() - t1, std::chrono::milliseconds(550));
  cr_reply_free(r);
  for (const cr_candidate &c : Candidates(key)) EXPECT_EQ(c.down, 0) << c.host << ":" << c.port;
  EXPECT_EQ(Stats().conn_errors, 0u);
  EXPECT_EQ(Stats().fallbacks, 0u);
  // The pool's sockets survive: a plain GET still works at the tier timeout.
  ASSERT_EQ(Cmd(CR_ACCESS_READ, {"GET", key}, &r), CR_OK) << cr_last_error();
  cr_reply_free(r);
}

TEST_F(Commands, BadCallOptionsAreRefused) {
  Start(CR_POLICY_LOCAL);
  cr_call_options co = CR_CALL_OPTIONS_INIT;
  co.struct_size = 2;
  cr_reply *r = nullptr;
  EXPECT_EQ(Cmd(CR_ACCESS_READ, {"GET", "k"}, &r, &co), CR_EINVAL);
  EXPECT_NE(std::string(cr_last_error()).find("struct_size"), std::string::npos);
  EXPECT_EQ(cr_call_options_init(&co, 1), CR_EINVAL);
  EXPECT_EQ(cr_call_options_init(&co, sizeof co), CR_OK);
  EXPECT_EQ(co.timeout_ms, 0u);
}

// --------------------------------------------------- 2. all marked down

TEST_F(Commands, EveryCandidateMarkedDownIsStillTriedInOrder) {
  Start(CR_POLICY_LOCAL);
  const std::string key = KeyOfShard(1, "down:");
  Set(key, "v");
  for (const cr_candidate &c : Candidates(key))
    ASSERT_EQ(cr_router_report_failure(router_, c.node_handle), CR_OK);
  for (const cr_candidate &c : Candidates(key)) ASSERT_EQ(c.down, 1);
  cr_reply *r = nullptr;
  // The breakers are stale: the nodes are up, and the read is served.
  ASSERT_EQ(Cmd(CR_ACCESS_READ, {"GET", key}, &r), CR_OK) << cr_last_error();
  EXPECT_EQ(Text(r), "v");
  cr_reply_free(r);
  EXPECT_EQ(Candidates(key).front().down, 0) << "the node that answered is back up";
}

TEST_F(Commands, WhenEveryCandidateFailsTheErrorNamesEachNode) {
  // Shard 1's three nodes are dialed at ports nothing listens on.
  Start(CR_POLICY_LOCAL, 300,
        {{env_["NODE1_ADDR"], "127.0.0.1:8091"},
         {env_["NODE2_ADDR"], "127.0.0.1:8092"},
         {env_["NODE3_ADDR"], "127.0.0.1:8093"}});
  const std::string key = KeyOfShard(1, "dead:");
  cr_reply *r = nullptr;
  for (int round = 0; round < 2; ++round) {  // 2nd round: all three marked down
    const cr_status s = Cmd(CR_ACCESS_READ, {"GET", key}, &r);
    const std::string msg = cr_last_error();
    EXPECT_EQ(s, round == 0 ? CR_ECONN : CR_EUNAVAILABLE) << msg;
    for (const char *n : {"NODE1_ADDR", "NODE2_ADDR", "NODE3_ADDR"})
      EXPECT_NE(msg.find(env_[n]), std::string::npos) << round << ": " << msg;
    if (round == 1) {
      EXPECT_NE(msg.find("marked down; tried each in candidate order"), std::string::npos) << msg;
      // In candidate order: local master, local replica, then cloud B.
      EXPECT_LT(msg.find(env_["NODE1_ADDR"]), msg.find(env_["NODE2_ADDR"])) << msg;
      EXPECT_LT(msg.find(env_["NODE2_ADDR"]), msg.find(env_["NODE3_ADDR"])) << msg;
    }
    for (const cr_candidate &c : Candidates(key)) EXPECT_EQ(c.down, 1);
  }
}

// ------------------------------------------------------ 3. node targets

TEST_F(Commands, KeylessCommandsGoToChosenNodes) {
  Start(CR_POLICY_LOCAL);
  cr_node_replies *r = OnNodes(CR_TARGET_MASTERS, nullptr, {"PING"});
  ASSERT_NE(r, nullptr);
  ASSERT_EQ(cr_node_replies_get_count(r), 3u);
  EXPECT_EQ(cr_node_replies_get_failed(r), 0u);
  std::set<std::string> masters;
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(cr_node_replies_get_status(r, i), CR_OK);
    EXPECT_EQ(cr_node_replies_get_role(r, i), CR_ROLE_MASTER);
    EXPECT_EQ(Text(cr_node_replies_get_reply(r, i)), "PONG");
    EXPECT_STREQ(cr_node_replies_get_error(r, i), "");
    masters.insert(cr_node_replies_get_address(r, i));
  }
  EXPECT_EQ(masters,
            (std::set<std::string>{env_["NODE1_ADDR"], env_["NODE4_ADDR"], env_["NODE7_ADDR"]}));
  EXPECT_EQ(cr_node_replies_get_address(r, 3), nullptr);
  EXPECT_EQ(cr_node_replies_get_status(r, 3), CR_EINVAL);
  cr_node_replies_free(r);

  r = OnNodes(CR_TARGET_ALL_NODES, nullptr, {"INFO", "replication"});
  ASSERT_EQ(cr_node_replies_get_count(r), 9u);
  size_t replicas = 0;
  for (size_t i = 0; i < 9; ++i) {
    const bool replica = cr_node_replies_get_role(r, i) == CR_ROLE_REPLICA;
    replicas += replica ? 1 : 0;
    EXPECT_NE(Text(cr_node_replies_get_reply(r, i)).find(replica ? "role:slave" : "role:master"),
              std::string::npos);
  }
  EXPECT_EQ(replicas, 6u);
  cr_node_replies_free(r);

  // An error reply is per node: FLUSHALL on a replica is refused.
  r = OnNodes(CR_TARGET_NODE, env_["NODE2_ADDR"].c_str(), {"FLUSHALL"});
  ASSERT_EQ(cr_node_replies_get_count(r), 1u);
  EXPECT_EQ(cr_node_replies_get_status(r, 0), CR_EREDIS);
  EXPECT_NE(std::string(cr_node_replies_get_error(r, 0)).find("READONLY"), std::string::npos);
  EXPECT_EQ(cr_reply_get_type(cr_node_replies_get_reply(r, 0)), CR_REPLY_TYPE_ERROR);
  EXPECT_EQ(cr_node_replies_get_failed(r), 1u);
  cr_node_replies_free(r);

  // DBSIZE per master adds up to what SCAN finds (see the SCAN test), and
  // bad arguments are refused with clear statuses.
  EXPECT_EQ(OnNodes(CR_TARGET_NODE, "127.0.0.1:1", {"PING"}, CR_ENOTFOUND), nullptr);
  EXPECT_EQ(OnNodes(CR_TARGET_NODE, nullptr, {"PING"}, CR_EINVAL), nullptr);
  EXPECT_EQ(OnNodes(CR_TARGET_MASTERS, env_["NODE1_ADDR"].c_str(), {"PING"}, CR_EINVAL), nullptr);
  EXPECT_EQ(OnNodes(static_cast<cr_target>(7), nullptr, {"PING"}, CR_EINVAL), nullptr);
  EXPECT_EQ(OnNodes(CR_TARGET_MASTERS, nullptr, {}, CR_EINVAL), nullptr);
}

// ------------------------------------------------------------------ 4. SCAN

TEST_F(Commands, ScanVisitsEveryKeyOnceOnTheLocalReplicaWhereThereIsOne) {
  Start(CR_POLICY_LOCAL_REPLICAS_FIRST, 1000);
  cr_node_replies *fl = OnNodes(CR_TARGET_MASTERS, nullptr, {"FLUSHALL"});
  ASSERT_EQ(cr_node_replies_get_failed(fl), 0u);
  cr_node_replies_free(fl);
  std::set<std::string> want;
  for (int i = 0; i < 400; ++i) {
    const std::string k = "scan:" + std::to_string(i);
    Set(k, "v");
    want.insert(k);
  }
  cr_reply *r = nullptr;
  ASSERT_EQ(Cmd(CR_ACCESS_WRITE, {"HSET", "scan:hash", "f", "v"}, &r), CR_OK);
  cr_reply_free(r);
  Set("other:1", "v");
  WaitReplicated();

  cr_scan_options so = CR_SCAN_OPTIONS_INIT;
  so.match = "scan:*";
  so.match_len = 6;
  so.count = 50;
  so.type = "string";
  cr_scan *s = nullptr;
  ASSERT_EQ(cr_scan_new(&s, c_, &so), CR_OK) << cr_last_error();
  EXPECT_EQ(cr_scan_get_address(s), nullptr);
  std::multiset<std::string> got;
  std::set<std::string> nodes;
  for (int batches = 0; batches < 1000; ++batches) {
    ASSERT_EQ(cr_scan_next(&r, s), CR_OK) << cr_last_error();
    if (r == nullptr) break;
    nodes.insert(cr_scan_get_address(s));
    for (size_t i = 0; i < cr_reply_get_count(r); ++i) got.insert(Text(cr_reply_get_element(r, i)));
    cr_reply_free(r);
  }
  ASSERT_EQ(cr_scan_next(&r, s), CR_OK);  // finished stays finished
  EXPECT_EQ(r, nullptr);
  cr_scan_free(s);
  EXPECT_EQ(got.size(), want.size()) << "a key was returned twice";
  EXPECT_EQ(std::set<std::string>(got.begin(), got.end()), want);
  // Shards 1 and 2 have a replica in cloud A; shard 3's only local node is
  // its master.
  EXPECT_EQ(nodes,
            (std::set<std::string>{env_["NODE2_ADDR"], env_["NODE6_ADDR"], env_["NODE7_ADDR"]}));

  so = CR_SCAN_OPTIONS_INIT;
  so.type = "hash";
  ASSERT_EQ(cr_scan_new(&s, c_, &so), CR_OK);
  got.clear();
  while (cr_scan_next(&r, s) == CR_OK && r != nullptr) {
    for (size_t i = 0; i < cr_reply_get_count(r); ++i) got.insert(Text(cr_reply_get_element(r, i)));
    cr_reply_free(r);
  }
  cr_scan_free(s);
  EXPECT_EQ(got, (std::multiset<std::string>{"scan:hash"}));

  so.type = "";
  EXPECT_EQ(cr_scan_new(&s, c_, &so), CR_EINVAL);
  so.type = nullptr;
  so.match = nullptr;
  so.match_len = 3;
  EXPECT_EQ(cr_scan_new(&s, c_, &so), CR_EINVAL);
  EXPECT_EQ(cr_scan_next(&r, nullptr), CR_EINVAL);
}

// --------------------------------------------------------------- 5. scripts

TEST_F(Commands, EvalshaAfterScriptFlushRecoversThroughNoscript) {
  Start(CR_POLICY_LOCAL_REPLICAS_FIRST);
  const std::string body = "return redis.call('GET', KEYS[1]) .. ARGV[1]";
  cr_script *sc = nullptr;
  ASSERT_EQ(cr_script_new(&sc, body.data(), body.size()), CR_OK);
  EXPECT_EQ(std::string(cr_script_get_sha(sc)).size(), 40u);
  const std::string key = KeyOfShard(2, "script:");
  Set(key, "v");
  WaitReplicated();
  Argv keys({key}), args({"!"});
  cr_reply *r = nullptr;
  for (int read_only = 0; read_only <= 1; ++read_only) {
    cr_node_replies *fl = OnNodes(CR_TARGET_ALL_NODES, nullptr, {"SCRIPT", "FLUSH"});
    ASSERT_EQ(cr_node_replies_get_failed(fl), 0u);
    cr_node_replies_free(fl);
    ASSERT_EQ(cr_client_eval(&r, c_, nullptr, sc, read_only, 1, keys.p.data(), keys.l.data(), 1,
                             args.p.data(), args.l.data()),
              CR_OK)
        << cr_last_error();
    EXPECT_EQ(Text(r), "v!");
    cr_reply_free(r);
  }
  // The read-only script ran on shard 2's local replica, where it was loaded.
  cr_node_replies *ex = OnNodes(CR_TARGET_NODE, env_["NODE6_ADDR"].c_str(),
                                {"SCRIPT", "EXISTS", cr_script_get_sha(sc)});
  EXPECT_EQ(cr_reply_get_integer(cr_reply_get_element(cr_node_replies_get_reply(ex, 0), 0)), 1);
  cr_node_replies_free(ex);

  // Keys in two slots: refused before anything is sent.
  Argv two({"a", "b"});
  const cr_client_stats before = Stats();
  EXPECT_EQ(
      cr_client_eval(&r, c_, nullptr, sc, 0, 2, two.p.data(), two.l.data(), 0, nullptr, nullptr),
      CR_EINVAL);
  EXPECT_EQ(std::string(cr_last_error()).rfind("CROSSSLOT", 0), 0u) << cr_last_error();
  EXPECT_EQ(Stats().writes, before.writes);
  // A script error is the server's.
  const std::string bad = "return redis.call('NOPE')";
  cr_script *bs = nullptr;
  ASSERT_EQ(cr_script_new(&bs, bad.data(), bad.size()), CR_OK);
  EXPECT_EQ(
      cr_client_eval(&r, c_, nullptr, bs, 0, 1, keys.p.data(), keys.l.data(), 0, nullptr, nullptr),
      CR_EREDIS);
  cr_script_free(bs);
  cr_script_free(sc);
  EXPECT_EQ(cr_script_new(&bs, nullptr, 0), CR_EINVAL);
  EXPECT_EQ(cr_client_eval(&r, c_, nullptr, nullptr, 0, 0, nullptr, nullptr, 0, nullptr, nullptr),
            CR_EINVAL);
}

TEST_F(Commands, FcallIsRoutedByItsKeys) {
  Start(CR_POLICY_LOCAL);
  cr_node_replies *fl = OnNodes(
      CR_TARGET_MASTERS, nullptr,
      {"FUNCTION", "LOAD", "REPLACE",
       "#!lua name=crtest\nredis.register_function{function_name='crget', callback=function(keys, "
       "args) return redis.call('GET', keys[1]) end, flags={'no-writes'}}"});
  ASSERT_EQ(cr_node_replies_get_failed(fl), 0u) << cr_node_replies_get_error(fl, 0);
  cr_node_replies_free(fl);
  for (int shard = 1; shard <= 3; ++shard)
    Set(KeyOfShard(shard, "fcall:"), "f" + std::to_string(shard));
  WaitReplicated();  // the function replicates in the same stream, before these
  for (int shard = 1; shard <= 3; ++shard) {
    const std::string key = KeyOfShard(shard, "fcall:");
    Argv keys({key});
    cr_reply *r = nullptr;
    ASSERT_EQ(cr_client_fcall(&r, c_, nullptr, "crget", 0, 1, keys.p.data(), keys.l.data(), 0,
                              nullptr, nullptr),
              CR_OK)
        << cr_last_error();
    EXPECT_EQ(Text(r), "f" + std::to_string(shard));
    cr_reply_free(r);
    ASSERT_EQ(cr_client_fcall(&r, c_, nullptr, "crget", 1, 1, keys.p.data(), keys.l.data(), 0,
                              nullptr, nullptr),
              CR_OK)
        << cr_last_error();
    cr_reply_free(r);
  }
  EXPECT_EQ(Stats().moved, 0u);
}

// ---------------------------------------------------------- 6. transactions

// The reported reproduction on a real server: SSUBSCRIBE with two channels
// used to leave a pooled connection subscribed with a reply unread, and the
// next GET of the slot returned ['ssubscribe', '{k1}b', 2]. Every command
// that changes a connection's state is refused before it is sent, on every
// path, and the connections stay clean.
TEST_F(Commands, SubscribeMonitorAndOtherStateChangesAreRefusedAndConnectionsStayClean) {
  Start(CR_POLICY_LOCAL_REPLICAS_FIRST);
  Set("{k1}x", "mine");
  const std::vector<Strings> refused = {
      {"SSUBSCRIBE", "{k1}a", "{k1}b"}, {"SUBSCRIBE", "{k1}a"}, {"MONITOR"},
      {"CLIENT", "REPLY", "OFF"},       {"SELECT", "1"},        {"MULTI"}};
  for (const Strings &argv : refused) {
    cr_reply *r = nullptr;
    const size_t key_index = argv.size() > 1 ? 1 : 0;  // MONITOR, MULTI: routed by their name
    EXPECT_EQ(Cmd(CR_ACCESS_READ, argv, &r, nullptr, key_index), CR_EINVAL) << argv[0];
    EXPECT_EQ(r, nullptr);
    EXPECT_NE(std::string(cr_last_error()).find("is not sent on the client's pooled connections"),
              std::string::npos)
        << cr_last_error();
    EXPECT_EQ(Cmd(CR_ACCESS_WRITE, argv, &r, nullptr, key_index), CR_EINVAL) << argv[0];
    cr_node_replies *nr = OnNodes(CR_TARGET_ALL_NODES, nullptr, argv, CR_EINVAL);
    EXPECT_EQ(nr, nullptr);
  }
  // Every pooled connection of the slot's nodes, many times over: each GET
  // gets its own reply.
  for (int i = 0; i < 50; ++i) {
    cr_reply *r = nullptr;
    ASSERT_EQ(Cmd(CR_ACCESS_READ, {"GET", "{k1}x"}, &r), CR_OK) << cr_last_error();
    EXPECT_EQ(Text(r), "mine");
    cr_reply_free(r);
  }
  EXPECT_EQ(Stats().poisoned, 0u);
  EXPECT_EQ(Stats().conn_errors, 0u);
}

TEST_F(Commands, MultiExecOnOnePinnedSlot) {
  Start(CR_POLICY_LOCAL);
  cr_pinned *p = nullptr;
  ASSERT_EQ(cr_client_pin(&p, c_, "{tx}a", 5), CR_OK) << cr_last_error();
  EXPECT_EQ(cr_pinned_get_slot(p), cr_keyslot("{tx}a", 5));
  auto run = [&](const Strings &args, std::vector<size_t> keys, cr_reply **out) {
    Argv v(args);
    return cr_pinned_command(out, p, nullptr, keys.size(), keys.data(), v.p.size(), v.p.data(),
                             v.l.data());
  };
  cr_reply *r = nullptr;
  ASSERT_EQ(run({"DEL", "{tx}a", "{tx}b"}, {1, 2}, &r), CR_OK);
  cr_reply_free(r);
  ASSERT_EQ(run({"MULTI"}, {}, &r), CR_OK);
  cr_reply_free(r);
  ASSERT_EQ(run({"SET", "{tx}a", "1"}, {1}, &r), CR_OK);
  EXPECT_EQ(Text(r), "QUEUED");
  cr_reply_free(r);
  ASSERT_EQ(run({"INCRBY", "{tx}b", "5"}, {1}, &r), CR_OK);
  cr_reply_free(r);
  // A key of another slot is refused before it is sent; the MULTI goes on.
  const cr_client_stats before = Stats();
  EXPECT_EQ(run({"SET", "elsewhere", "1"}, {1}, &r), CR_EINVAL);
  EXPECT_EQ(std::string(cr_last_error()).rfind("CROSSSLOT", 0), 0u) << cr_last_error();
  EXPECT_EQ(Stats().writes, before.writes) << "the refused command reached a node";
  ASSERT_EQ(run({"EXEC"}, {}, &r), CR_OK) << cr_last_error();
  ASSERT_EQ(cr_reply_get_count(r), 2u);
  EXPECT_EQ(Text(cr_reply_get_element(r, 0)), "OK");
  EXPECT_EQ(cr_reply_get_integer(cr_reply_get_element(r, 1)), 5);
  cr_reply_free(r);

  // WATCH, a change from another connection, EXEC: nil, nothing applied.
  ASSERT_EQ(run({"WATCH", "{tx}a"}, {1}, &r), CR_OK);
  cr_reply_free(r);
  Set("{tx}a", "changed");
  ASSERT_EQ(run({"MULTI"}, {}, &r), CR_OK);
  cr_reply_free(r);
  ASSERT_EQ(run({"SET", "{tx}a", "mine"}, {1}, &r), CR_OK);
  cr_reply_free(r);
  ASSERT_EQ(run({"EXEC"}, {}, &r), CR_OK);
  EXPECT_EQ(cr_reply_get_type(r), CR_REPLY_TYPE_NIL);
  cr_reply_free(r);
  ASSERT_EQ(run({"GET", "{tx}a"}, {1}, &r), CR_OK);
  EXPECT_EQ(Text(r), "changed");
  cr_reply_free(r);

  // Released inside MULTI: the connection is DISCARDed before reuse, so
  // the next user's commands run at once.
  ASSERT_EQ(run({"MULTI"}, {}, &r), CR_OK);
  cr_reply_free(r);
  EXPECT_EQ(run({"SET", "{tx}a", "1"}, {9}, &r), CR_EINVAL);  // index past argc
  cr_pinned_free(p);
  ASSERT_EQ(cr_client_pin_slot(&p, c_, cr_keyslot("{tx}a", 5)), CR_OK);
  ASSERT_EQ(run({"GET", "{tx}a"}, {1}, &r), CR_OK);
  EXPECT_EQ(Text(r), "changed");
  cr_reply_free(r);
  cr_pinned_free(p);
  EXPECT_EQ(cr_client_pin_slot(&p, c_, 16384), CR_EINVAL);
  EXPECT_EQ(cr_client_pin(&p, c_, nullptr, 3), CR_EINVAL);
}

}  // namespace commands_test
