// The server decides what is a read (CR_ACCESS_AUTO, command_table.hpp), on
// the harness's cluster layout with a client in cloud A and the policy
// local-replicas-first: shard 1's reads belong to n2 (its replica in A),
// shard 2's to n6 (its replica in A; its master n4 is in B). Where each
// command went is counted by the nodes themselves (INFO commandstats).
//
// ServerCommands.Valkey91*  Valkey 9.1 (hash-field expiry): HTTL / HPTTL /
//                           HEXPIRETIME are reads there and go to n2;
//                           HGETEX / HSETEX / HGETDEL / GETEX are writes and
//                           reach the master only.
// ServerCommands.*Keyed*    EVAL_RO / FCALL_RO / OBJECT ENCODING placed by
//                           their real keys: answered by the key's local
//                           replica, no MOVED (Valkey 9.1 and redis 7).
// ServerCommands.AclWithoutCommand  a user COMMAND is denied to: the static
//                           table, one warn event saying so.
//
// CR_TEST_CLUSTER_ENV names the harness's cluster.env.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "cloudroute.h"
#include "command_kit.hpp"
#include "common/wait_until.hpp"
#include "harness_env.hpp"

namespace server_commands_test {

using crtest::CliLine;

using crtest::Auto;
using crtest::Sent;
using crtest::TableLog;
using Env = std::map<std::string, std::string>;

std::string Node(Env &env, int n) { return env["NODE" + std::to_string(n) + "_ADDR"]; }

// calls= of cmdstat_<name> in the node's INFO commandstats (0: never run).
uint64_t Calls(const std::string &addr, const std::string &name) {
  return crtest::CommandCalls(CliLine(addr, "INFO commandstats"), name);
}

// Per node n (1..NODE_COUNT), the calls of `name` since `before`.
std::vector<uint64_t> Delta(Env &env, const std::string &name,
                            const std::vector<uint64_t> &before) {
  std::vector<uint64_t> d(before.size());
  for (size_t n = 1; n < before.size(); ++n)
    d[n] = Calls(Node(env, static_cast<int>(n)), name) - before[n];
  return d;
}
std::vector<uint64_t> Snapshot(Env &env, const std::string &name) {
  std::vector<uint64_t> s(std::atoi(env["NODE_COUNT"].c_str()) + 1);
  for (size_t n = 1; n < s.size(); ++n) s[n] = Calls(Node(env, static_cast<int>(n)), name);
  return s;
}

uint64_t Moved(cr_client *c) {
  cr_client_stats s = CR_CLIENT_STATS_INIT;
  EXPECT_EQ(cr_client_get_stats(&s, c), CR_OK);
  return s.moved;
}

// A key of shard s (the harness's SHARDs_KEY as a hash tag).
std::string KeyOf(Env &env, int s, const std::string &name) {
  return "{" + env["SHARD" + std::to_string(s) + "_KEY"] + "}" + name;
}

TEST(ServerCommands, Valkey91HashFieldExpiryReadsGoToTheLocalReplicaAndWritesNever) {
  Env env = crtest::LoadHarnessEnv();
  ASSERT_FALSE(env["SEEDS"].empty()) << "CR_TEST_CLUSTER_ENV does not name a cluster.env";
  ASSERT_NE(CliLine(Node(env, 1), "INFO server").find("valkey_version:9."), std::string::npos);
  TableLog log;
  cr_client *c = crtest::NewTableClient(env["SEEDS"], &log, CR_CLIENT_OPTIONS_INIT);
  ASSERT_NE(c, nullptr);
  const std::string h = KeyOf(env, 1, "cmdinfo:h"), s = KeyOf(env, 1, "cmdinfo:s");
  ASSERT_EQ(Auto(c, {"DEL", h, s}).find("(error)"), std::string::npos);
  ASSERT_EQ(Auto(c, {"HSET", h, "f1", "v1", "f2", "v2", "f3", "v3"}), "3");
  ASSERT_EQ(Auto(c, {"HEXPIRE", h, "1000", "FIELDS", "1", "f1"}), "[1]:+");
  ASSERT_EQ(Auto(c, {"SET", s, "v"}), "OK");
  // The replica n2 has the field's expiry before the reads are counted.
  ASSERT_TRUE(crtest::WaitUntil(
      [&] {
        return Auto(c, {"HTTL", h, "FIELDS", "1", "f1"}) == "[1]:+";
      },
      std::chrono::seconds(5)))
      << Auto(c, {"HTTL", h, "FIELDS", "1", "f1"});

  for (const char *read : {"httl", "hpttl", "hexpiretime"}) {
    SCOPED_TRACE(read);
    const std::vector<uint64_t> before = Snapshot(env, read);
    for (int i = 0; i < 20; ++i) {
      ASSERT_EQ(Auto(c, {read, h, "FIELDS", "1", "f1"}), "[1]:+") << i;
    }
    const std::vector<uint64_t> d = Delta(env, read, before);
    EXPECT_EQ(d[2], 20u) << "n2, shard 1's replica in cloud A, serves every read";
    EXPECT_EQ(d[1], 0u) << "the master n1 serves none";
  }
  const std::pair<const char *, std::vector<std::string>> writes[] = {
      {"hgetex", {"HGETEX", h, "PERSIST", "FIELDS", "1", "f2"}},
      {"hsetex", {"HSETEX", h, "FIELDS", "1", "f4", "v4"}},
      {"hgetdel", {"HGETDEL", h, "FIELDS", "1", "f3"}},
      {"getex", {"GETEX", s, "PERSIST"}},
  };
  for (const auto &w : writes) {
    SCOPED_TRACE(w.first);
    const std::vector<uint64_t> before = Snapshot(env, w.first);
    const auto sent_before = Sent(c);
    for (int i = 0; i < 5; ++i) {
      const std::string r = Auto(c, w.second);
      EXPECT_EQ(r.find("(error)"), std::string::npos) << r;
    }
    EXPECT_EQ(Delta(env, w.first, before)[1], 5u) << "the master n1 ran each one";
    // The client sent each to n1 as a write, nothing to a replica (whose
    // commandstats also count what replication applies).
    auto sent = Sent(c);
    EXPECT_EQ(sent[Node(env, 1)].second - sent_before.at(Node(env, 1)).second, 5u);
    for (int n = 2; n <= std::atoi(env["NODE_COUNT"].c_str()); ++n) {
      const auto was = sent_before.count(Node(env, n)) ? sent_before.at(Node(env, n))
                                                       : std::pair<uint64_t, uint64_t>{0, 0};
      EXPECT_EQ(sent[Node(env, n)], was) << "n" << n;
    }
  }
  // No write ever went to a replica: a replica refuses a write from a client
  // with MOVED, and the client followed none.
  EXPECT_EQ(Moved(c), 0u);
  cr_client_free(c);
  std::lock_guard<std::mutex> lock(log.mu);
  ASSERT_EQ(log.table_events.size(), 1u);
  EXPECT_EQ(log.table_events[0], "command table learned from the server");
}

// EVAL_RO / FCALL_RO / OBJECT ENCODING on a key of shard 2 (master n4 in
// cloud B, replica n6 in cloud A): numkeys and the subcommand's key spec
// place them, so n6 answers each at once — no MOVED.
TEST(ServerCommands, KeyedReadsArePlacedByTheirRealKeys) {
  Env env = crtest::LoadHarnessEnv();
  ASSERT_FALSE(env["SEEDS"].empty()) << "CR_TEST_CLUSTER_ENV does not name a cluster.env";
  TableLog log;
  cr_client *c = crtest::NewTableClient(env["SEEDS"], &log, CR_CLIENT_OPTIONS_INIT);
  ASSERT_NE(c, nullptr);
  const std::string k = KeyOf(env, 2, "cmdinfo:k");
  ASSERT_EQ(Auto(c, {"SET", k, "12345"}), "OK");
  // The library on every master (replicated to every replica).
  const std::string lib =
      "#!lua name=cmdinfo\n"
      "redis.register_function{function_name='cmdinfo_get', "
      "callback=function(keys, args) return redis.call('GET', keys[1]) end, "
      "flags={'no-writes'}}";
  std::vector<const void *> load = {"FUNCTION", "LOAD", "REPLACE", lib.data()};
  std::vector<size_t> load_len = {8, 4, 7, lib.size()};
  cr_node_replies *nr = nullptr;
  ASSERT_EQ(cr_client_command_nodes(&nr, c, nullptr, CR_TARGET_MASTERS, nullptr, load.size(),
                                    load.data(), load_len.data()),
            CR_OK)
      << cr_last_error();
  EXPECT_EQ(cr_node_replies_get_failed(nr), 0u);
  cr_node_replies_free(nr);
  ASSERT_TRUE(crtest::WaitUntil(
      [&] {
        return CliLine(Node(env, 6), "FUNCTION LIST LIBRARYNAME cmdinfo").find("cmdinfo_get") !=
               std::string::npos;
      },
      std::chrono::seconds(5)));

  const uint64_t moved = Moved(c);
  struct Case {
    const char *stat;
    std::vector<std::string> argv;
    std::string want;
  };
  const Case cases[] = {
      {"eval_ro", {"EVAL_RO", "return redis.call('GET', KEYS[1])", "1", k}, "12345"},
      {"fcall_ro", {"FCALL_RO", "cmdinfo_get", "1", k}, "12345"},
      {"object|encoding", {"OBJECT", "ENCODING", k}, "int"},
  };
  for (const Case &cs : cases) {
    SCOPED_TRACE(cs.stat);
    const std::vector<uint64_t> before = Snapshot(env, cs.stat);
    for (int i = 0; i < 10; ++i) {
      // The replica may still be catching up on the SET: poll its answer.
      std::string r;
      ASSERT_TRUE(crtest::WaitUntil([&] { return (r = Auto(c, cs.argv)) == cs.want; },
                                    std::chrono::seconds(5)))
          << r;
    }
    const std::vector<uint64_t> d = Delta(env, cs.stat, before);
    EXPECT_GE(d[6], 10u) << "n6, shard 2's replica in cloud A";
    EXPECT_EQ(d[4], 0u) << "the master n4 (cloud B)";
  }
  EXPECT_EQ(Moved(c), moved) << "a command placed by the wrong key is redirected";
  cr_client_free(c);
}

// A user denied COMMAND: the client routes by the static table (HTTL is a
// read there too; GETEX a write) and says so once.
TEST(ServerCommands, AclWithoutCommandFallsBackToTheStaticTable) {
  Env env = crtest::LoadHarnessEnv();
  ASSERT_FALSE(env["SEEDS"].empty()) << "CR_TEST_CLUSTER_ENV does not name a cluster.env";
  const int nodes = std::atoi(env["NODE_COUNT"].c_str());
  for (int n = 1; n <= nodes; ++n) {
    ASSERT_EQ(CliLine(Node(env, n),
                      "ACL SETUSER cmdinfo reset on '>cmdinfo-pass' '~*' '&*' +@all -command"),
              "OK");
  }
  EXPECT_NE(
      CliLine(Node(env, 1), "--user cmdinfo --pass cmdinfo-pass --no-auth-warning COMMAND COUNT")
          .find("NOPERM"),
      std::string::npos);
  TableLog log;
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  o.username = "cmdinfo";
  o.password = "cmdinfo-pass";
  cr_client *c = crtest::NewTableClient(env["SEEDS"], &log, o);
  ASSERT_NE(c, nullptr);
  const std::string k = KeyOf(env, 2, "cmdinfo:acl");
  ASSERT_EQ(Auto(c, {"SET", k, "v"}), "OK");
  const std::vector<uint64_t> before = Snapshot(env, "strlen");
  for (int i = 0; i < 10; ++i) {
    std::string r;
    ASSERT_TRUE(crtest::WaitUntil(
        [&] {
          return (r = Auto(c, {"STRLEN", k})) == "1";
        },
        std::chrono::seconds(5)))
        << r;
  }
  EXPECT_GE(Delta(env, "strlen", before)[6], 10u) << "a read by the static table: n6";
  EXPECT_EQ(Delta(env, "strlen", before)[4], 0u);
  cr_client_free(c);
  for (int n = 1; n <= nodes; ++n) CliLine(Node(env, n), "ACL DELUSER cmdinfo");
  std::lock_guard<std::mutex> lock(log.mu);
  ASSERT_EQ(log.table_events.size(), 1u);
  EXPECT_EQ(log.table_events[0], "command table refused: routing by the static table");
}

}  // namespace server_commands_test
