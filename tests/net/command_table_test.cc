// The server's command table (command_table.hpp): real COMMAND INFO replies
// of Valkey 9.1.2 and redis 7.0.15 (tests/fuzz/seeds/command_table/, taken
// with COMMAND INFO of the commands below) parsed and used to class and
// place commands; the static fallback; hostile replies refused with kParse;
// a live client whose node answers COMMAND with garbage or refuses it,
// which routes by the static table and says so once; and a client that
// re-learns the table when a refresh finds the server upgraded.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cloudroute.h"
#include "cloudroute/net/client.hpp"
#include "cloudroute/net/command_table.hpp"
#include "cloudroute/net/connection.hpp"
#include "common/source_dir.hpp"
#include "common/wait_until.hpp"
#include "fake_server.hpp"
#include "reply_build.hpp"

namespace command_table_test {

using cloudroute::Code;
using cloudroute::RespType;
using cloudroute::net::Access;
using cloudroute::net::CommandRoute;
using cloudroute::net::CommandTable;
using cloudroute::net::Reply;
using cloudroute::net::ReplyPtr;

std::string ReadSeed(const std::string &name) {
  std::ifstream in(crtest::SourcePath("tests/fuzz/seeds/command_table/" + name), std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// bytes as the client's reader builds them (max_depth 10, as the table's
// own connection reads it).
ReplyPtr Served(const std::string &bytes) {
  FakeServer server(Always(bytes));
  cloudroute::net::ConnectOptions o;
  o.limits.max_depth = 10;
  auto c = cloudroute::net::Connection::Open("127.0.0.1", server.port(), o, 2000);
  EXPECT_TRUE(c.ok()) << c.status().message();
  if (!c.ok()) return nullptr;
  auto r = (*c)->Command({"COMMAND"}, 2000);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? std::move(*r) : nullptr;
}

std::shared_ptr<const CommandTable> TableOf(const std::string &seed) {
  const std::string bytes = ReadSeed(seed);
  EXPECT_FALSE(bytes.empty()) << seed;
  ReplyPtr r = Served(bytes);
  if (r == nullptr) return nullptr;
  auto t = CommandTable::Parse(*r);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? *t : nullptr;
}

CommandRoute Classify(const CommandTable &t, std::vector<std::string_view> argv) {
  return t.Classify(argv);
}

using Keys = std::vector<size_t>;

TEST(CommandTable, Valkey91HashFieldExpiryReadsAndWrites) {
  auto t = TableOf("command_info_valkey_9.1.2.resp");
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(t->from_server());
  for (const char *read : {"HTTL", "hpttl", "HExpireTime"}) {
    const CommandRoute r = Classify(*t, {read, "h", "FIELDS", "1", "f"});
    EXPECT_TRUE(r.known) << read;
    EXPECT_EQ(r.access, Access::kRead) << read;
    EXPECT_EQ(r.keys, Keys{1}) << read;
  }
  for (const char *write : {"HGETEX", "HSETEX", "HGETDEL", "GETEX"}) {
    const CommandRoute r = Classify(*t, {write, "h", "FIELDS", "1", "f"});
    EXPECT_TRUE(r.known) << write;
    EXPECT_EQ(r.access, Access::kWrite) << write;
    EXPECT_EQ(r.keys, Keys{1}) << write;
  }
}

TEST(CommandTable, KeySpecsPlaceScriptsObjectStreamsAndMigrate) {
  for (const char *seed : {"command_info_valkey_9.1.2.resp", "command_info_redis_7.0.15.resp"}) {
    SCOPED_TRACE(seed);
    auto t = TableOf(seed);
    ASSERT_NE(t, nullptr);
    CommandRoute r = Classify(*t, {"EVAL_RO", "return 1", "2", "{a}1", "{a}2", "arg"});
    EXPECT_EQ(r.access, Access::kRead);
    EXPECT_EQ(r.keys, (Keys{3, 4}));
    r = Classify(*t, {"evalsha_ro", "abc", "0", "arg"});
    EXPECT_EQ(r.access, Access::kRead);
    EXPECT_TRUE(r.keys.empty());
    r = Classify(*t, {"FCALL_RO", "fn", "1", "k", "arg"});
    EXPECT_EQ(r.access, Access::kRead);
    EXPECT_EQ(r.keys, Keys{3});
    r = Classify(*t, {"EVAL", "return 1", "1", "k"});
    EXPECT_EQ(r.access, Access::kWrite);
    EXPECT_EQ(r.keys, Keys{3});
    r = Classify(*t, {"OBJECT", "ENCODING", "k"});
    EXPECT_TRUE(r.known);
    EXPECT_EQ(r.access, Access::kRead);
    EXPECT_EQ(r.keys, Keys{2});
    r = Classify(*t, {"OBJECT", "NOSUCH", "k"});
    EXPECT_FALSE(r.known);
    EXPECT_EQ(r.access, Access::kWrite);
    EXPECT_EQ(r.keys, Keys{2});
    r = Classify(*t, {"XREAD", "COUNT", "5", "STREAMS", "s1", "s2", "0", "0"});
    EXPECT_EQ(r.access, Access::kRead);
    EXPECT_EQ(r.keys, (Keys{4, 5}));
    r = Classify(*t, {"XREADGROUP", "GROUP", "g", "c", "STREAMS", "s1", ">"});
    EXPECT_EQ(r.access, Access::kWrite);
    EXPECT_EQ(r.keys, Keys{5});
    r = Classify(*t, {"MIGRATE", "h", "1", "", "0", "100", "KEYS", "k1", "k2"});
    EXPECT_EQ(r.access, Access::kWrite);
    EXPECT_EQ(r.keys, (Keys{7, 8}));
    r = Classify(*t, {"MIGRATE", "h", "1", "k", "0", "100"});
    EXPECT_EQ(r.keys, Keys{3});
    r = Classify(*t, {"MGET", "a", "b", "c"});
    EXPECT_EQ(r.access, Access::kRead);
    EXPECT_EQ(r.keys, (Keys{1, 2, 3}));
    r = Classify(*t, {"PING"});
    EXPECT_TRUE(r.known);
    EXPECT_TRUE(r.keys.empty());
    r = Classify(*t, {"ZUNION", "2", "a", "b", "WITHSCORES"});
    EXPECT_EQ(r.access, Access::kRead);
    EXPECT_EQ(r.keys, (Keys{2, 3}));
    r = Classify(*t, {"LCS", "a", "b"});
    EXPECT_EQ(r.access, Access::kRead);
    EXPECT_EQ(r.keys, (Keys{1, 2}));
    // A numkeys that is not a number, or runs past the end: no key, or the
    // keys there are (the server refuses the command itself).
    EXPECT_TRUE(Classify(*t, {"EVAL_RO", "s", "x", "k"}).keys.empty());
    EXPECT_EQ(Classify(*t, {"EVAL_RO", "s", "9", "k"}).keys, Keys{3});
  }
}

TEST(CommandTable, Redis70DoesNotKnowHashFieldExpiry) {
  auto t = TableOf("command_info_redis_7.0.15.resp");
  ASSERT_NE(t, nullptr);
  const CommandRoute r = Classify(*t, {"HTTL", "h", "FIELDS", "1", "f"});
  EXPECT_FALSE(r.known);
  EXPECT_EQ(r.access, Access::kWrite);
  EXPECT_EQ(r.keys, Keys{1});
  EXPECT_EQ(Classify(*t, {"GETEX", "k"}).access, Access::kWrite);
  EXPECT_EQ(Classify(*t, {"GET", "k"}).access, Access::kRead);
}

TEST(CommandTable, StaticFallbackKnowsTheCommonReadsAndPositions) {
  auto t = CommandTable::Static();
  EXPECT_FALSE(t->from_server());
  EXPECT_EQ(Classify(*t, {"HTTL", "h", "FIELDS", "1", "f"}).access, Access::kRead);
  EXPECT_EQ(Classify(*t, {"GETEX", "k"}).access, Access::kWrite);
  EXPECT_EQ(Classify(*t, {"HGETEX", "k"}).access, Access::kWrite);
  EXPECT_EQ(Classify(*t, {"EVAL_RO", "s", "1", "k"}).keys, Keys{3});
  EXPECT_EQ(Classify(*t, {"object", "encoding", "k"}).keys, Keys{2});
  EXPECT_EQ(Classify(*t, {"XREAD", "STREAMS", "a", "0"}).keys, Keys{2});
  EXPECT_EQ(Classify(*t, {"MGET", "a", "b"}).keys, (Keys{1, 2}));
  EXPECT_EQ(Classify(*t, {"SET", "k", "v"}).keys, Keys{1});
}

// Hostile replies: each one refused with kParse, none crashes.
using reply_build::A;
using reply_build::Arr;
using reply_build::Int;
using reply_build::Str;

// An entry "name" with the given begin_search / find_keys.
ReplyPtr Entry(const std::string &name, ReplyPtr begin, ReplyPtr find, ReplyPtr subs = nullptr) {
  ReplyPtr e = A(Str(name), Int(-2), A(Str("readonly")), Int(1), Int(1), Int(1), A(), A(),
                 A(A(Str("flags"), A(Str("RO")), Str("begin_search"), std::move(begin),
                     Str("find_keys"), std::move(find))));
  if (subs != nullptr) e->elements.push_back(std::move(subs));
  return e;
}
ReplyPtr Index(int64_t i) {
  return A(Str("type"), Str("index"), Str("spec"), A(Str("index"), Int(i)));
}
ReplyPtr Range(int64_t last, int64_t step, int64_t limit) {
  return A(Str("type"), Str("range"), Str("spec"),
           A(Str("lastkey"), Int(last), Str("keystep"), Int(step), Str("limit"), Int(limit)));
}

TEST(CommandTable, HostileRepliesAreRefusedWithWhy) {
  std::vector<std::pair<const char *, ReplyPtr>> cases;
  cases.emplace_back("an integer", Int(3));
  cases.emplace_back("an empty list", A());
  cases.emplace_back("an entry that is a string", A(Str("get")));
  cases.emplace_back("a short entry", A(A(Str("get"), Int(2))));
  cases.emplace_back("a name that is an integer",
                     A(A(Int(1), Int(2), A(), Int(1), Int(1), Int(1))));
  cases.emplace_back("an empty name", A(A(Str(""), Int(2), A(), Int(1), Int(1), Int(1))));
  cases.emplace_back("flags not a list",
                     A(A(Str("get"), Int(2), Str("readonly"), Int(1), Int(1), Int(1))));
  cases.emplace_back("a flag that is a list",
                     A(A(Str("get"), Int(2), A(A()), Int(1), Int(1), Int(1))));
  cases.emplace_back("a huge first key",
                     A(A(Str("get"), Int(2), A(), Int(int64_t{1} << 40), Int(1), Int(1))));
  cases.emplace_back("step 0 without key specs",
                     A(A(Str("get"), Int(2), A(), Int(1), Int(1), Int(0))));
  cases.emplace_back("begin_search index 0", A(Entry("get", Index(0), Range(0, 1, 0))));
  cases.emplace_back("begin_search index past every bound",
                     A(Entry("get", Index(int64_t{1} << 31), Range(0, 1, 0))));
  cases.emplace_back("keystep 0", A(Entry("get", Index(1), Range(0, 0, 0))));
  cases.emplace_back("a negative limit", A(Entry("get", Index(1), Range(-1, 1, -2))));
  cases.emplace_back(
      "a begin_search of another type",
      A(Entry("get", A(Str("type"), Str("sideways"), Str("spec"), A()), Range(0, 1, 0))));
  cases.emplace_back("a begin_search with an odd field list",
                     A(Entry("get", A(Str("type")), Range(0, 1, 0))));
  cases.emplace_back("startfrom 0",
                     A(Entry("xread",
                             A(Str("type"), Str("keyword"), Str("spec"),
                               A(Str("keyword"), Str("STREAMS"), Str("startfrom"), Int(0))),
                             Range(-1, 1, 2))));
  cases.emplace_back(
      "keynum with a negative index",
      A(Entry("eval_ro", Index(2),
              A(Str("type"), Str("keynum"), Str("spec"),
                A(Str("keynumidx"), Int(-1), Str("firstkey"), Int(1), Str("keystep"), Int(1))))));
  cases.emplace_back("a subcommand of another command",
                     A(Entry("object", Index(2), Range(0, 1, 0),
                             A(Entry("config|get", Index(2), Range(0, 1, 0))))));
  cases.emplace_back("a subcommand with subcommands",
                     A(Entry("object", Index(2), Range(0, 1, 0),
                             A(Entry("object|x", Index(2), Range(0, 1, 0),
                                     A(Entry("object|x|y", Index(2), Range(0, 1, 0))))))));
  cases.emplace_back("subcommands that are a string",
                     A(Entry("object", Index(2), Range(0, 1, 0), Str("object|encoding"))));
  cases.emplace_back("a command twice", A(Entry("get", Index(1), Range(0, 1, 0)),
                                          Entry("GET", Index(1), Range(0, 1, 0))));
  for (auto &c : cases) {
    auto t = CommandTable::Parse(*c.second);
    EXPECT_FALSE(t.ok()) << c.first;
    if (!t.ok()) {
      EXPECT_EQ(t.status().code(), Code::kParse) << c.first;
      EXPECT_FALSE(t.status().message().empty()) << c.first;
    }
  }
  auto refused = std::make_unique<Reply>();
  refused->type = RespType::kError;
  refused->str = "NOPERM this user has no permissions to run the 'command' command";
  auto t = CommandTable::Parse(*refused);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), Code::kServerError);
  EXPECT_NE(t.status().message().find("NOPERM"), std::string::npos);
}

// A live client whose one node answers COMMAND with `command` (garbage, a
// refusal, or a table from the server): CR_ACCESS_AUTO commands still run,
// routed by the static table, and the fallback is logged once.
struct TableLog {
  std::mutex mu;
  std::vector<std::string> messages;
  static void Callback(cr_log_level, const char *message, const cr_log_field *, size_t,
                       void *payload) {
    if (std::strstr(message, "command table") == nullptr) return;
    auto *self = static_cast<TableLog *>(payload);
    std::lock_guard<std::mutex> lock(self->mu);
    self->messages.push_back(message);
  }
};

class CommandAnswer : public ::testing::TestWithParam<std::string> {};

TEST_P(CommandAnswer, AutoCommandsRunByTheStaticTableAndTheFallbackIsLoggedOnce) {
  std::atomic<int> asked{0};
  FakeServer server([&](const std::string &req) {
    size_t used = 0;
    std::string out;
    for (const auto &argv : fake::Commands(req, &used)) {
      if (!argv.empty() && (argv[0] == "COMMAND" || argv[0] == "command")) {
        ++asked;
        out += GetParam();
      } else {
        std::string one = "*" + std::to_string(argv.size()) + "\r\n";
        for (const std::string &a : argv) one += fake::Bulk(a);
        out += fake::ClusterNode([&] { return fake::OneNodeSlots(server.port()); })(one);
      }
    }
    return out;
  });
  TableLog log;
  cr_config *cfg = nullptr;
  ASSERT_EQ(cr_config_new(&cfg), CR_OK);
  ASSERT_EQ(cr_config_set_log_callback(cfg, CR_LOG_LEVEL_WARN, TableLog::Callback, &log), CR_OK);
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  cr_client *c = nullptr;
  const std::string seed = "127.0.0.1:" + std::to_string(server.port());
  ASSERT_EQ(cr_client_new(&c, cfg, &o, seed.c_str()), CR_OK) << cr_last_error();
  cr_config_free(cfg);
  for (int i = 0; i < 3; ++i) {
    const void *argv[2] = {"GET", "k"};
    const size_t lens[2] = {3, 1};
    cr_reply *r = nullptr;
    ASSERT_EQ(cr_client_command(&r, c, CR_ACCESS_AUTO, 0, 2, argv, lens), CR_OK) << cr_last_error();
    size_t len = 0;
    const char *v = cr_reply_get_string(r, &len);
    EXPECT_EQ(std::string(v == nullptr ? "" : v, len), "v");
    cr_reply_free(r);
  }
  // A keyless command has nothing to route it by, whichever table.
  const void *ping[1] = {"PING"};
  const size_t ping_len[1] = {4};
  cr_reply *r = nullptr;
  EXPECT_EQ(cr_client_command(&r, c, CR_ACCESS_AUTO, 0, 1, ping, ping_len), CR_EINVAL);
  EXPECT_NE(std::string(cr_last_error()).find("names no key"), std::string::npos);
  // A state change is refused as such, whatever the table says of its keys.
  const void *sub[2] = {"SUBSCRIBE", "ch"};
  const size_t sub_len[2] = {9, 2};
  EXPECT_EQ(cr_client_command(&r, c, CR_ACCESS_AUTO, 0, 2, sub, sub_len), CR_EINVAL);
  EXPECT_NE(std::string(cr_last_error()).find("SUBSCRIBE is not sent"), std::string::npos)
      << cr_last_error();
  cr_client_free(c);
  EXPECT_EQ(asked.load(), 1) << "the table is asked for once";
  std::lock_guard<std::mutex> lock(log.mu);
  ASSERT_EQ(log.messages.size(), 1u);
  EXPECT_EQ(log.messages[0], "command table refused: routing by the static table");
}

INSTANTIATE_TEST_SUITE_P(
    Hostile, CommandAnswer,
    ::testing::Values("-NOPERM this user has no permissions to run the 'command' command\r\n",
                      ":42\r\n", "*1\r\n$3\r\nget\r\n",
                      "*1\r\n*6\r\n:1\r\n:2\r\n*0\r\n:1\r\n:1\r\n:1\r\n",
                      // Nested deeper than the table's connection reads.
                      "*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n*1\r\n:1\r\n",
                      "$5\r\nhello\r\n"));

// A rolling upgrade, scripted: the cluster's master answers as redis 7.0.15
// (whose table does not know HTTL: a write, for the master), until it is
// "restarted" as Valkey 9.1.2 and a replica joins. A refresh that changes no
// node asks nothing more; the refresh that sees the new node asks the
// master's version again and learns its table: HTTL is a read.
TEST(CommandTables, ARefreshAfterAServerUpgradeLearnsTheNewTable) {
  const std::string redis7 = ReadSeed("command_info_redis_7.0.15.resp");
  const std::string valkey9 = ReadSeed("command_info_valkey_9.1.2.resp");
  ASSERT_FALSE(redis7.empty());
  ASSERT_FALSE(valkey9.empty());
  std::atomic<bool> upgraded{false};
  std::atomic<int> tables{0};
  FakeServer server([&](const std::string &req) {
    size_t used = 0;
    std::string out;
    for (const auto &argv : fake::Commands(req, &used)) {
      const std::string cmd = argv.empty() ? "" : argv[0];
      if (cmd == "COMMAND") {
        ++tables;
        out += upgraded ? valkey9 : redis7;
      } else if (cmd == "INFO") {
        out += fake::Bulk(upgraded ? "# Server\r\nserver_name:valkey\r\nvalkey_version:9.1.2\r\n"
                                   : "# Server\r\nredis_version:7.0.15\r\n");
      } else {
        const std::string master = fake::Bulk("127.0.0.1") + ":" + std::to_string(server.port()) +
                                   "\r\n" + fake::Bulk(std::string(40, 'a'));
        const std::string replica =
            fake::Bulk("127.0.9.1") + ":21000\r\n" + fake::Bulk(std::string(40, 'b'));
        const std::string slots =
            upgraded ? "*1\r\n*4\r\n:0\r\n:16383\r\n*3\r\n" + master + "*3\r\n" + replica
                     : "*1\r\n*3\r\n:0\r\n:16383\r\n*3\r\n" + master;
        out += fake::ClusterNode([slots] { return slots; })(fake::Command(argv));
      }
    }
    return out;
  });
  cloudroute::Router router(cloudroute::RouterConfig{});
  cloudroute::net::ClientOptions o;
  o.refresh_interval_ms = 0;
  auto c = cloudroute::net::Client::Create(&router,
                                           {cloudroute::net::Seed{"127.0.0.1", server.port()}}, o);
  ASSERT_TRUE(c.ok()) << c.status().message();
  const std::vector<std::string_view> httl{"HTTL", "h", "FIELDS", "1", "f"};
  EXPECT_FALSE((*c)->Classify(httl).known);
  EXPECT_EQ((*c)->Classify(httl).access, Access::kWrite);
  ASSERT_TRUE((*c)->Refresh().ok());  // the same nodes: nothing asked
  EXPECT_EQ(tables.load(), 1);
  upgraded = true;
  ASSERT_TRUE((*c)->Refresh().ok());  // a replica joined: the version is asked again
  EXPECT_TRUE((*c)->Classify(httl).known);
  EXPECT_EQ((*c)->Classify(httl).access, Access::kRead);
  EXPECT_EQ(tables.load(), 2);
  // At most one recheck in CommandTables::kRecheckGapMs, however the nodes
  // move; a change seen within the gap is asked about once it has passed,
  // at a refresh that sees no change itself (back to redis 7.0.15: its
  // table, learned before, is reused).
  upgraded = false;
  ASSERT_TRUE((*c)->Refresh().ok());
  EXPECT_EQ((*c)->Classify(httl).access, Access::kRead);
  EXPECT_EQ(tables.load(), 2);
  EXPECT_TRUE(crtest::WaitUntil(
      [&] {
        EXPECT_TRUE((*c)->Refresh().ok());
        return (*c)->Classify(httl).access == Access::kWrite;
      },
      std::chrono::milliseconds(cloudroute::net::CommandTables::kRecheckGapMs + 5000),
      std::chrono::milliseconds(200)))
      << "the change seen within the gap was forgotten";
  EXPECT_EQ(tables.load(), 2);
}

}  // namespace command_table_test
