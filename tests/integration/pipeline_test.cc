// Pipelines (cr_pipeline_*) against a real two-cloud Redis Cluster of their
// own (scripts/redis-harness.sh on ports 8001-8009, bus ports +10000),
// because the tests change it: a slot migrates (ASK, then MOVED), a master
// pauses its writers, a replica is killed. The tests run in this file's
// order; the replica kill is last. Cluster commands (SETSLOT, MIGRATE,
// CLIENT PAUSE) go through cr_pipeline_add_node: node-targeted commands are
// part of what is under test.
//
// CR_TEST_CLUSTER_ENV names the fixture's cluster.env.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cloudroute.h"
#include "common/wait_until.hpp"
#include "harness_env.hpp"
#include "pipeline_kit.hpp"

namespace pipeline_test {

using crtest::HostOf;
using crtest::Pipe;
using crtest::PortOf;
using crtest::Result;

class Pipeline : public ::testing::Test {
 protected:
  void SetUp() override {
    env_ = crtest::LoadHarnessEnv();
    ASSERT_FALSE(env_["SEEDS"].empty()) << "CR_TEST_CLUSTER_ENV does not name a cluster.env";
  }
  void TearDown() override {
    for (cr_client *c : clients_) cr_client_free(c);
  }
  // A client in cloud A, freed when the test ends (a failed ASSERT included);
  // the breaker opens on the first failure.
  cr_client *NewClient(cr_policy policy, uint32_t timeout_ms = 1000) {
    cr_client_options o = CR_CLIENT_OPTIONS_INIT;
    o.client_name = "cr-pipeline-test";
    o.refresh_interval_ms = 0;  // the topology stays as read: redirects must do the work
    for (uint32_t &t : o.command_timeout_ms) t = timeout_ms;
    cr_router *router = nullptr;
    cr_client *c = crtest::NewCloudAClient(env_["SEEDS"], policy, 60000, o, &router);
    if (c != nullptr) clients_.push_back(c);
    return c;
  }
  static cr_client_stats Stats(cr_client *c) {
    cr_client_stats st = CR_CLIENT_STATS_INIT;
    EXPECT_EQ(cr_client_get_stats(&st, c), CR_OK);
    return st;
  }
  // The master address that serves key, as the client's router sees it.
  static std::string MasterOf(cr_client *c, const std::string &key) {
    cr_route r = CR_ROUTE_INIT;
    EXPECT_EQ(cr_router_route_write(&r, cr_client_get_router(c), key.data(), key.size()), CR_OK);
    return std::string(r.host) + ":" + std::to_string(r.port);
  }
  // A hash tag whose slot shard `shard` (1-3) serves.
  std::string TagOnShard(cr_client *c, int shard) {
    const std::string master = env_["SHARD" + std::to_string(shard) + "_MASTER"];
    for (int i = 0;; ++i) {
      const std::string tag = "{t" + std::to_string(i) + "}";
      if (MasterOf(c, tag) == master) return tag;
    }
  }
  std::map<std::string, std::string> env_;
  std::vector<cr_client *> clients_;
};

// 80 commands of every kind over all three shards: each reply lands in its
// command's place and every shard served its share.
TEST_F(Pipeline, MixedCommandsOverAllShardsComeBackInOrder) {
  cr_client *c = NewClient(CR_POLICY_LOCAL);
  ASSERT_NE(c, nullptr);
  std::set<std::string> masters;
  {
    Pipe w(c);
    for (int i = 0; i < 16; ++i) {
      const std::string n = std::to_string(i);
      ASSERT_EQ(w.Add(CR_ACCESS_WRITE, {"SET", "mix:s" + n, "v" + n}), CR_OK);
      for (const char *k : {"mix:h", "mix:z", "mix:l"}) {
        ASSERT_EQ(w.Add(CR_ACCESS_WRITE, {"DEL", k + n}), CR_OK);
      }
      masters.insert(MasterOf(c, "mix:s" + n));
    }
    std::vector<Result> r;
    ASSERT_EQ(w.Execute(&r), CR_OK) << cr_last_error();
    for (size_t i = 0; i < r.size(); i += 4) EXPECT_EQ(r[i].text, "OK") << i;
  }
  EXPECT_EQ(masters.size(), 3u) << "the keys must cover every shard";

  Pipe p(c);
  for (int i = 0; i < 16; ++i) {
    const std::string n = std::to_string(i);
    p.Add(CR_ACCESS_WRITE, {"HSET", "mix:h" + n, "f", "h" + n});
    p.Add(CR_ACCESS_WRITE, {"ZADD", "mix:z" + n, n, "m" + n});
    p.Add(CR_ACCESS_READ, {"GET", "mix:s" + n});
    p.Add(CR_ACCESS_READ, {"EXISTS", "mix:s" + n});
    p.Add(CR_ACCESS_WRITE, {"RPUSH", "mix:l" + n, "a", "b"});
  }
  ASSERT_EQ(p.count(), 80u);
  std::vector<Result> r;
  ASSERT_EQ(p.Execute(&r), CR_OK) << cr_last_error();
  ASSERT_EQ(r.size(), 80u);
  EXPECT_EQ(p.count(), 0u) << "execute empties the queue";
  for (int i = 0; i < 16; ++i) {
    const size_t b = static_cast<size_t>(i) * 5;
    EXPECT_EQ(r[b].integer, 1) << "HSET " << i;
    EXPECT_EQ(r[b + 1].integer, 1) << "ZADD " << i;
    EXPECT_EQ(r[b + 2].text, "v" + std::to_string(i)) << "GET " << i;
    EXPECT_EQ(r[b + 3].integer, 1) << "EXISTS " << i;
    EXPECT_EQ(r[b + 4].integer, 2) << "RPUSH " << i;
  }

  // The reads of the structures just written, by any candidate.
  for (int i = 0; i < 16; ++i) {
    const std::string n = std::to_string(i);
    p.Add(CR_ACCESS_READ, {"HGETALL", "mix:h" + n});
    p.Add(CR_ACCESS_READ, {"ZRANGE", "mix:z" + n, "0", "-1"});
    p.Add(CR_ACCESS_READ, {"LRANGE", "mix:l" + n, "0", "-1"});
    p.Add(CR_ACCESS_READ, {"SMEMBERS", "mix:none" + n});
  }
  // Replicas apply the writes asynchronously: read until they have.
  ASSERT_TRUE(crtest::WaitUntil(
      [&] {
        Pipe q(c);
        for (int i = 0; i < 16; ++i)
          q.Add(CR_ACCESS_READ, {"HGET", "mix:h" + std::to_string(i), "f"});
        std::vector<Result> got;
        q.Execute(&got);
        for (int i = 0; i < 16; ++i) {
          if (got[static_cast<size_t>(i)].text != "h" + std::to_string(i)) return false;
        }
        return true;
      },
      std::chrono::seconds(10)));
  ASSERT_EQ(p.Execute(&r), CR_OK) << cr_last_error();
  for (int i = 0; i < 16; ++i) {
    const size_t b = static_cast<size_t>(i) * 4;
    const std::string n = std::to_string(i);
    EXPECT_EQ(r[b].elements, (std::vector<std::string>{"f", "h" + n})) << i;
    EXPECT_EQ(r[b + 1].elements, std::vector<std::string>{"m" + n}) << i;
    EXPECT_EQ(r[b + 2].elements, (std::vector<std::string>{"a", "b"})) << i;
    EXPECT_EQ(r[b + 3].type, CR_REPLY_TYPE_ARRAY) << i;
    EXPECT_TRUE(r[b + 3].elements.empty()) << i;
  }
}

// A command that fails keeps its error in its place; the others succeed.
TEST_F(Pipeline, ErrorsStayInPlace) {
  cr_client *c = NewClient(CR_POLICY_LOCAL);
  ASSERT_NE(c, nullptr);
  Pipe p(c);
  p.Add(CR_ACCESS_WRITE, {"SET", "err:s", "1"});
  p.Add(CR_ACCESS_WRITE, {"HSET", "err:h", "f", "v"});
  p.Add(CR_ACCESS_WRITE, {"GET", "err:h"});  // WRONGTYPE (on the master: after the HSET)
  p.Add(CR_ACCESS_WRITE, {"NOSUCHCOMMAND", "err:s"});
  p.Add(CR_ACCESS_WRITE, {"INCR", "err:s"});
  ASSERT_EQ(p.AddNode(CR_ACCESS_READ, env_["SHARD2_MASTER"], {"PING"}), CR_OK);
  ASSERT_EQ(p.AddNode(CR_ACCESS_READ, env_["SHARD3_MASTER"], {"ECHO", "hi"}), CR_OK);
  std::vector<Result> r;
  ASSERT_EQ(p.Execute(&r), CR_EREDIS);
  EXPECT_NE(std::string(cr_last_error()).find("command 2 of 7"), std::string::npos)
      << cr_last_error();
  EXPECT_EQ(r[0].status, CR_OK);
  EXPECT_EQ(r[1].status, CR_OK);
  EXPECT_EQ(r[2].status, CR_EREDIS);
  EXPECT_EQ(r[2].type, CR_REPLY_TYPE_ERROR);
  EXPECT_EQ(r[2].text.rfind("WRONGTYPE", 0), 0u) << r[2].text;
  EXPECT_EQ(r[3].status, CR_EREDIS);
  EXPECT_NE(r[3].text.find("unknown command"), std::string::npos) << r[3].text;
  EXPECT_EQ(r[4].status, CR_OK);
  EXPECT_EQ(r[4].integer, 2);
  EXPECT_EQ(r[5].text, "PONG");
  EXPECT_EQ(r[6].text, "hi");

  // Refused before anything is sent: no key, an unknown node, a short buffer.
  const void *argv[] = {"PING"};
  const size_t lens[] = {4};
  cr_pipeline *raw = nullptr;
  ASSERT_EQ(cr_pipeline_new(&raw, c), CR_OK);
  EXPECT_EQ(cr_pipeline_add(raw, CR_ACCESS_READ, 1, 1, argv, lens), CR_EINVAL);
  EXPECT_NE(std::string(cr_last_error()).find("cr_pipeline_add_node"), std::string::npos);
  EXPECT_EQ(cr_pipeline_add_node(raw, CR_ACCESS_READ, "127.0.0.1", 1, 1, argv, lens), CR_ENOTFOUND);
  ASSERT_EQ(cr_pipeline_add_node(raw, CR_ACCESS_READ, HostOf(env_["SHARD1_MASTER"]).c_str(),
                                 PortOf(env_["SHARD1_MASTER"]), 1, argv, lens),
            CR_OK);
  size_t needed = 0;
  EXPECT_EQ(cr_pipeline_execute(nullptr, nullptr, 0, &needed, raw), CR_EBUFS);
  EXPECT_EQ(needed, 1u);
  EXPECT_EQ(cr_pipeline_get_count(raw), 1u) << "a refused execute keeps the queue";
  cr_pipeline_clear(raw);
  EXPECT_EQ(cr_pipeline_get_count(raw), 0u);
  cr_pipeline_free(raw);
}

// A slot of shard 1 migrates to shard 2 while the client's topology stays
// stale: keys already moved answer ASK (followed with ASKING) during the
// migration, then every command of the slot answers MOVED (followed, the
// slot patched); the other commands of the pipeline are sent once.
TEST_F(Pipeline, FollowsAskAndMovedForTheAffectedCommandsOnly) {
  // On the importing master, CLUSTER SETSLOT NODE bumps the config epoch,
  // which writes and fsyncs nodes.conf before the reply: with the disk busy
  // (the test command builds beside its tests) that once took over a second.
  // Nothing here tests a timeout.
  cr_client *c = NewClient(CR_POLICY_LOCAL, 10000);
  ASSERT_NE(c, nullptr);
  const std::string src = env_["SHARD1_MASTER"], dst = env_["SHARD2_MASTER"];
  const std::string tag = TagOnShard(c, 1), other = TagOnShard(c, 3);
  const std::string slot = std::to_string(cr_keyslot(tag.data(), tag.size()));
  Pipe p(c);
  for (int i = 0; i < 10; ++i) {
    p.Add(CR_ACCESS_WRITE, {"SET", tag + std::to_string(i), "v" + std::to_string(i)});
    p.Add(CR_ACCESS_WRITE, {"SET", other + std::to_string(i), "o" + std::to_string(i)});
  }
  std::vector<Result> r;
  ASSERT_EQ(p.Execute(&r), CR_OK) << cr_last_error();

  // Half the keys move: SETSLOT IMPORTING / MIGRATING, then MIGRATE.
  p.AddNode(CR_ACCESS_WRITE, dst,
            {"CLUSTER", "SETSLOT", slot, "IMPORTING", env_["SHARD1_MASTER_ID"]});
  ASSERT_EQ(p.Execute(&r), CR_OK) << cr_last_error();
  p.AddNode(CR_ACCESS_WRITE, src,
            {"CLUSTER", "SETSLOT", slot, "MIGRATING", env_["SHARD2_MASTER_ID"]});
  p.AddNode(CR_ACCESS_WRITE, src,
            {"MIGRATE", HostOf(dst), std::to_string(PortOf(dst)), "", "0", "5000", "KEYS",
             tag + "0", tag + "1", tag + "2", tag + "3", tag + "4"});
  ASSERT_EQ(p.Execute(&r), CR_OK) << cr_last_error();

  const cr_client_stats before = Stats(c);
  for (int i = 0; i < 10; ++i) {
    p.Add(CR_ACCESS_READ, {"GET", tag + std::to_string(i)});
    p.Add(CR_ACCESS_READ, {"GET", other + std::to_string(i)});
  }
  ASSERT_EQ(p.Execute(&r), CR_OK) << cr_last_error();
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(r[2 * static_cast<size_t>(i)].text, "v" + std::to_string(i)) << i;
    EXPECT_EQ(r[2 * static_cast<size_t>(i) + 1].text, "o" + std::to_string(i)) << i;
  }
  const cr_client_stats during = Stats(c);
  EXPECT_GE(during.ask - before.ask, 5u) << "the moved keys' reads followed ASK";
  EXPECT_EQ(during.moved, before.moved);

  // The rest moves and the slot is handed over: now MOVED, for this slot only.
  // The keys first, on their own: a pipeline sends to its nodes at once, and
  // the new owner's SETSLOT NODE reaches the old one by gossip, which could
  // then answer the MIGRATE with MOVED.
  p.AddNode(CR_ACCESS_WRITE, src,
            {"MIGRATE", HostOf(dst), std::to_string(PortOf(dst)), "", "0", "5000", "KEYS",
             tag + "5", tag + "6", tag + "7", tag + "8", tag + "9"});
  ASSERT_EQ(p.Execute(&r), CR_OK) << cr_last_error();
  for (const char *m : {"SHARD2_MASTER", "SHARD1_MASTER", "SHARD3_MASTER"}) {
    p.AddNode(CR_ACCESS_WRITE, env_[m],
              {"CLUSTER", "SETSLOT", slot, "NODE", env_["SHARD2_MASTER_ID"]});
  }
  ASSERT_EQ(p.Execute(&r), CR_OK) << cr_last_error();
  // The migration mark from the ASKs sends this slot's reads to the old
  // master, which now answers MOVED (replicas learn it by gossip later).
  for (int i = 0; i < 10; ++i) {
    p.Add(CR_ACCESS_WRITE, {"APPEND", tag + std::to_string(i), "+"});
    p.Add(CR_ACCESS_READ, {"GET", other + std::to_string(i)});
  }
  ASSERT_EQ(p.Execute(&r), CR_OK) << cr_last_error();
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(r[2 * static_cast<size_t>(i)].integer, 3) << "APPEND ran exactly once on " << i;
    EXPECT_EQ(r[2 * static_cast<size_t>(i) + 1].text, "o" + std::to_string(i)) << i;
  }
  const cr_client_stats after = Stats(c);
  EXPECT_GE(after.moved - during.moved, 1u);
  EXPECT_EQ(MasterOf(c, tag), dst) << "MOVED patched the slot";
}

// A write whose reply does not come in time may have run: it is not sent
// again, and its place says so; the rest of the pipeline completes. A Lua
// busy loop holds shard 3's master for a second (from another client): the
// INCR is sent, times out after 300 ms, and runs when the script ends.
TEST_F(Pipeline, AWriteThatMayHaveArrivedIsNeverResent) {
  cr_client *c = NewClient(CR_POLICY_LOCAL, 300);
  cr_client *blocker = NewClient(CR_POLICY_LOCAL, 5000);
  cr_client *probe = NewClient(CR_POLICY_LOCAL, 50);
  ASSERT_NE(c, nullptr);
  ASSERT_NE(blocker, nullptr);
  ASSERT_NE(probe, nullptr);
  const std::string master = env_["SHARD3_MASTER"];
  const std::string tag = TagOnShard(c, 3), other = TagOnShard(c, 1);
  Pipe p(c);
  p.Add(CR_ACCESS_WRITE, {"DEL", tag + "counter"});
  p.Add(CR_ACCESS_WRITE, {"SET", other + "x", "x"});
  std::vector<Result> r;
  ASSERT_EQ(p.Execute(&r), CR_OK) << cr_last_error();

  std::thread busy([&] {
    Pipe b(blocker);
    b.AddNode(CR_ACCESS_WRITE, master,
              {"EVAL",
               "local t0 = redis.call('TIME') repeat local t = redis.call('TIME') until "
               "(t[1] - t0[1]) * 1000000 + (t[2] - t0[2]) > 1000000 return 1",
               "0"});
    std::vector<Result> br;
    EXPECT_EQ(b.Execute(&br), CR_OK) << cr_last_error();
  });
  // The script is running once the master leaves a PING unanswered for 50 ms
  // (each probe's PING runs when the script ends).
  EXPECT_TRUE(crtest::WaitUntil(
      [&] {
        Pipe ping(probe);
        ping.AddNode(CR_ACCESS_READ, master, {"PING"});
        std::vector<Result> pr;
        return ping.Execute(&pr) != CR_OK;  // timed out (or its dial did)
      },
      std::chrono::seconds(5)))
      << "the script never held " << master;
  p.Add(CR_ACCESS_WRITE, {"INCR", tag + "counter"});
  p.Add(CR_ACCESS_WRITE, {"APPEND", other + "x", "y"});
  const cr_status st = p.Execute(&r);
  busy.join();
  EXPECT_EQ(st, CR_ETIMEOUT);
  EXPECT_EQ(r[0].status, CR_ETIMEOUT);
  EXPECT_EQ(r[0].type, CR_REPLY_TYPE_ERROR);
  EXPECT_NE(r[0].text.find("not re-sent"), std::string::npos) << r[0].text;
  EXPECT_EQ(r[1].status, CR_OK);
  EXPECT_EQ(r[1].integer, 2);

  // The script is over: the INCR ran once, not twice.
  p.Add(CR_ACCESS_WRITE, {"GET", tag + "counter"});
  ASSERT_EQ(p.Execute(&r), CR_OK) << cr_last_error();
  EXPECT_EQ(r[0].text, "1");
}

// Reads go to the local replica of shard 1; it is killed after the client
// has pooled connections to it. The pipeline's reads of shard 1 fail there
// and are served by their next candidate; nothing fails.
TEST_F(Pipeline, ReadsOfAKilledReplicaGoToTheNextCandidate) {
  cr_client *c = NewClient(CR_POLICY_LOCAL_REPLICAS_FIRST);
  ASSERT_NE(c, nullptr);
  const std::string tag = TagOnShard(c, 1);
  cr_route route = CR_ROUTE_INIT;
  ASSERT_EQ(cr_router_route_read(&route, cr_client_get_router(c), tag.data(), tag.size()), CR_OK);
  const std::string replica = std::string(route.host) + ":" + std::to_string(route.port);
  ASSERT_EQ(replica, env_["NODE2_ADDR"]) << "shard 1's local replica serves its reads";

  Pipe p(c);
  for (int i = 0; i < 8; ++i) p.Add(CR_ACCESS_WRITE, {"SET", tag + std::to_string(i), "r"});
  std::vector<Result> r;
  ASSERT_EQ(p.Execute(&r), CR_OK) << cr_last_error();
  ASSERT_TRUE(crtest::WaitUntil(
      [&] {
        for (int i = 0; i < 8; ++i) p.Add(CR_ACCESS_READ, {"GET", tag + std::to_string(i)});
        if (p.Execute(&r) != CR_OK) return false;
        for (const Result &x : r) {
          if (x.text != "r") return false;
        }
        return true;
      },
      std::chrono::seconds(10)));

  ASSERT_EQ(kill(static_cast<pid_t>(std::atol(env_["NODE2_PID"].c_str())), SIGKILL), 0);
  ASSERT_TRUE(crtest::WaitUntil([&] { return kill(std::atol(env_["NODE2_PID"].c_str()), 0) != 0; },
                                std::chrono::seconds(5)));
  const cr_client_stats before = Stats(c);
  for (int i = 0; i < 8; ++i) {
    p.Add(CR_ACCESS_READ, {"GET", tag + std::to_string(i)});
    p.Add(CR_ACCESS_READ, {"EXISTS", tag + std::to_string(i)});
  }
  ASSERT_EQ(p.Execute(&r), CR_OK) << cr_last_error();
  for (size_t i = 0; i < r.size(); i += 2) {
    EXPECT_EQ(r[i].text, "r") << i;
    EXPECT_EQ(r[i + 1].integer, 1) << i;
  }
  const cr_client_stats after = Stats(c);
  EXPECT_GE(after.fallbacks - before.fallbacks, 1u);
  EXPECT_GE(after.conn_errors - before.conn_errors, 1u);
}

}  // namespace pipeline_test
