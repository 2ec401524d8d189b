// A live upgrade of the servers under a client that classes commands by the
// server's COMMAND table (CR_ACCESS_AUTO, net/command_table): the harness's
// cluster started on redis 7.0, then shard 1 — the shard of slot 0, whose
// master the client asks first — upgraded to Valkey 9.1 the way a rolling
// upgrade goes, one node at a time, each shut down (SIGTERM) and started
// again keeping its nodes.conf: its replica n2 (cloud A) restarted on
// Valkey 9.1, a CLUSTER FAILOVER to n2, then the old master n1 and the
// replica n3 (cloud B) restarted on Valkey 9.1 as replicas of n2. A
// client in cloud A (local-replicas-first, a refresh every 250 ms) sends
// HTTL, which Valkey 9.1 lists as read-only and redis 7.0 does not know:
//  - before the upgrade the client goes by redis 7.0's table: HTTL is no
//    read, so it goes to the master n1 (and the server refuses it);
//  - after it, a refresh that saw the failover re-learns the table (one info
//    event "command table re-learned: the server version changed") and HTTL
//    is a read, served by n1, shard 1's replica in cloud A now (the client's
//    node stats and n1's INFO commandstats agree); nothing goes to n2.
// The other shards stay on redis 7.0: a cluster mid-upgrade.
//
// CR_TEST_CLUSTER_ENV names the harness's cluster.env; CR_TEST_VALKEY9_SERVER
// the Valkey 9.1 binary (scripts/valkey9-path.sh; the test is skipped, saying
// so, without it).
#include <gtest/gtest.h>
#include <signal.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "cloudroute.h"
#include "command_kit.hpp"
#include "common/wait_until.hpp"
#include "fault_kit.hpp"
#include "harness_env.hpp"

namespace command_table_upgrade_test {

using crtest::Auto;
using crtest::Sent;
using std::chrono::seconds;

// calls= of cmdstat_<name> in the node's INFO commandstats (0: never run).
uint64_t Calls(const std::string &addr, const std::string &name) {
  return crtest::CommandCalls(crtest::Cli(addr, {"INFO", "commandstats"}), name);
}

class CommandTableUpgrade : public crtest::ClusterTest {
 protected:
  std::string Addr(int n) { return Node(n, "ADDR"); }
  // Node n runs on Valkey 9.1 and, a replica, has caught up with its master.
  bool Upgraded(int n, bool replica) {
    if (crtest::Cli(Addr(n), {"INFO", "server"}).find("valkey_version:9.") == std::string::npos) {
      return false;
    }
    const std::string repl = crtest::Cli(Addr(n), {"INFO", "replication"});
    return !replica || (repl.find("role:slave") != std::string::npos &&
                        repl.find("master_link_status:up") != std::string::npos &&
                        repl.find("master_sync_in_progress:0") != std::string::npos);
  }
  // Node n is restarted on Valkey 9.1 and serves its old role again.
  void Upgrade(int n, const std::string &server, bool replica) {
    ASSERT_NO_FATAL_FAILURE(KillAndRestart(n, server, SIGTERM));
    ASSERT_TRUE(crtest::WaitUntil([&] { return Upgraded(n, replica); }, seconds(20)))
        << "n" << n << ": " << crtest::Cli(Addr(n), {"INFO", "replication"});
  }
};

TEST_F(CommandTableUpgrade, ARefreshAfterAShardIsUpgradedLearnsItsTableAndHttlBecomesARead) {
  const char *v9 = std::getenv("CR_TEST_VALKEY9_SERVER");
  if (v9 == nullptr || *v9 == '\0') {
    GTEST_SKIP() << "Valkey 9.1 not found (scripts/valkey9-path.sh; scripts/deps.sh installs it): "
                    "the live command-table upgrade is not tested";
  }
  const std::string valkey9 = v9;
  ASSERT_NE(crtest::Cli(Addr(1), {"INFO", "server"}).find("redis_version:7.0."), std::string::npos);
  crtest::TableLog log;
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  o.refresh_interval_ms = 250;
  // Generous timeouts: a slow answer on a loaded machine must not open a
  // node's breaker and send reads elsewhere (not what this test is about).
  o.connect_timeout_ms = 3000;
  for (uint32_t &t : o.command_timeout_ms) t = 3000;
  o.refresh_min_gap_ms = 100;
  cr_client *raw = crtest::NewTableClient(env_["SEEDS"], &log, o);
  ASSERT_NE(raw, nullptr);
  std::unique_ptr<cr_client, void (*)(cr_client *)> client(raw, cr_client_free);
  cr_client *c = client.get();

  const std::string h = "{" + env_["SHARD1_KEY"] + "}upgrade:h";
  ASSERT_EQ(Auto(c, {"HSET", h, "f", "v"}).find("(error)"), std::string::npos);
  const std::vector<std::string> httl = {"HTTL", h, "FIELDS", "1", "f"};
  // redis 7.0's table: HTTL is unknown, so no read: the master n1 gets it.
  auto sent = Sent(c);
  for (int i = 0; i < 5; ++i) {
    const std::string r = Auto(c, httl);
    EXPECT_NE(r.find("unknown command"), std::string::npos) << r;
  }
  auto now = Sent(c);
  EXPECT_EQ(now[Addr(1)].second - sent[Addr(1)].second, 5u) << "n1, the master, got each one";
  EXPECT_EQ(now[Addr(2)].first, sent[Addr(2)].first) << "n2, the local replica, got none";
  ASSERT_EQ(log.Events(), std::vector<std::string>{"command table learned from the server"});

  // Shard 1 upgraded node by node: n2, a failover to it, then n1 and n3,
  // each once every node of the shard follows n2.
  ASSERT_NO_FATAL_FAILURE(Upgrade(2, valkey9, true));
  // A manual failover's election between the versions sometimes counts one
  // vote of three (seen once in four runs: the redis 7.0 masters granted
  // theirs): after 8 s, TAKEOVER, which needs no votes.
  ASSERT_EQ(crtest::Cli(Addr(2), {"CLUSTER", "FAILOVER"}), "OK");
  auto is_master = [&] { return crtest::Cli(Addr(2), {"ROLE"}).rfind("master", 0) == 0; };
  if (!crtest::WaitUntil(is_master, seconds(8))) {
    ASSERT_EQ(crtest::Cli(Addr(2), {"CLUSTER", "FAILOVER", "TAKEOVER"}), "OK");
    ASSERT_TRUE(crtest::WaitUntil(is_master, seconds(10)));
  }
  auto follows_n2 = [&](int n) {
    const std::string repl = crtest::Cli(Addr(n), {"INFO", "replication"});
    return repl.find("role:slave") != std::string::npos &&
           repl.find("master_port:" + Node(2, "PORT")) != std::string::npos &&
           repl.find("master_link_status:up") != std::string::npos;
  };
  ASSERT_TRUE(crtest::WaitUntil([&] { return follows_n2(1) && follows_n2(3); }, seconds(20)))
      << crtest::Cli(Addr(1), {"INFO", "replication"});
  ASSERT_NO_FATAL_FAILURE(Upgrade(1, valkey9, true));
  ASSERT_NO_FATAL_FAILURE(Upgrade(3, valkey9, true));
  ASSERT_TRUE(follows_n2(1) && follows_n2(3));

  ASSERT_TRUE(crtest::WaitUntil(
      [&] {
        for (const std::string &e : log.Events()) {
          if (e == "command table re-learned: the server version changed") return true;
        }
        return false;
      },
      seconds(20)))
      << "the client kept redis 7.0's table";
  // The field has no expiry (-1). A round of 10 HTTLs, all read from n1,
  // once the nodes agree that n1, restarted a moment ago, is a healthy
  // replica (until then the topology a refresh gets may list it loading,
  // and reads go to the next candidate, the master n2: a read still).
  std::string where;
  uint64_t calls1 = 0, calls2 = 0;
  const bool settled = crtest::WaitUntil(
      [&] {
        sent = Sent(c);
        calls1 = Calls(Addr(1), "httl");
        calls2 = Calls(Addr(2), "httl");
        for (int i = 0; i < 10; ++i) {
          const std::string r = Auto(c, httl);
          if (r != "[1]:-1") {
            where = "HTTL answered " + r;
            return false;
          }
        }
        now = Sent(c);
        where = "reads/writes per node:";
        for (const auto &[addr, rw] : now) {
          where += " " + addr + "=" + std::to_string(rw.first) + "/" + std::to_string(rw.second);
        }
        return now[Addr(1)].first - sent[Addr(1)].first == 10;
      },
      seconds(20), std::chrono::milliseconds(200));
  ASSERT_TRUE(settled) << "n1, the local replica, did not read a round of 10; the last " << where;
  EXPECT_EQ(now[Addr(2)], sent[Addr(2)]) << "n2, the master, got none";
  EXPECT_EQ(Calls(Addr(1), "httl") - calls1, 10u);
  EXPECT_EQ(Calls(Addr(2), "httl"), calls2);
}

}  // namespace command_table_upgrade_test
