// Replica lag against a real cluster (own fixture, ports 7681-7689): a local
// replica that stops acknowledging (DEBUG SLEEP) while its master keeps
// taking writes is read last after the next refresh, and first again once it
// caught up — stale reads are bounded by cr_client_options'
// replica_max_lag_s. Only the C API (plus raw redis-cli for the fault).
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <thread>

#include "cloudroute.h"
#include "common/wait_until.hpp"
#include "harness_env.hpp"

namespace replica_lag_test {

std::string FirstCandidate(cr_router *r, const std::string &key) {
  cr_candidate c[8];
  for (cr_candidate &x : c) x.struct_size = sizeof x;
  size_t n = 0;
  if (cr_router_candidates(c, 8, &n, r, key.data(), key.size()) != CR_OK || n == 0) return "";
  return std::string(c[0].host) + ":" + std::to_string(c[0].port);
}

TEST(ReplicaLag, ASilentReplicaIsReadLastUntilItCatchesUp) {
  auto env = crtest::LoadHarnessEnv();
  ASSERT_FALSE(env["SEEDS"].empty()) << "CR_TEST_CLUSTER_ENV not set";
  // Shard 1: master 127.0.1.1 (A), replicas 127.0.1.2 (A) and 127.0.2.3 (B).
  const std::string key = env["SHARD1_KEY"];
  const std::string replica = env["NODE2_ADDR"];
  const std::string master = env["SHARD1_MASTER"];

  cr_config *cfg = nullptr;
  ASSERT_EQ(cr_config_new(&cfg), CR_OK);
  ASSERT_EQ(cr_config_add_local_cidr(cfg, "127.0.1.0/24"), CR_OK);
  cr_router_options ro = CR_ROUTER_OPTIONS_INIT;
  ro.policy = CR_POLICY_LOCAL_REPLICAS_FIRST;
  ASSERT_EQ(cr_config_set_router_options(cfg, &ro), CR_OK);
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  o.replica_max_lag_s = 1;
  o.refresh_interval_ms = 0;  // refreshes happen when the test asks
  o.command_timeout_ms[CR_TIER_LOCAL] = 300;
  cr_client *c = nullptr;
  ASSERT_EQ(cr_client_new(&c, cfg, &o, env["SEEDS"].c_str()), CR_OK) << cr_last_error();
  cr_config_free(cfg);
  cr_router *r = nullptr;
  r = cr_client_get_router(c);
  ASSERT_NE(r, nullptr);
  ASSERT_EQ(FirstCandidate(r, key), replica);

  // The replica goes silent for 4 s (no acks, no replication) while the
  // master keeps taking writes.
  const std::string cmd = "redis-cli -h " + replica.substr(0, replica.find(':')) + " -p " +
                          replica.substr(replica.find(':') + 1) +
                          " DEBUG SLEEP 4 >/dev/null 2>&1 &";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  const auto t0 = std::chrono::steady_clock::now();
  std::string demoted_after;
  while (std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(3500)) {
    const std::string v =
        "v" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
    ASSERT_EQ(cr_client_cmd_set(c, key.data(), key.size(), v.data(), v.size(), 0), CR_OK)
        << cr_last_error();
    ASSERT_EQ(cr_client_refresh(c), CR_OK) << cr_last_error();
    if (FirstCandidate(r, key) != replica) {
      demoted_after = std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                         std::chrono::steady_clock::now() - t0)
                                         .count());
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  ASSERT_FALSE(demoted_after.empty()) << "the silent replica was never demoted";
  EXPECT_EQ(FirstCandidate(r, key), master);  // the local master now serves reads
  cr_reply *reply = nullptr;
  ASSERT_EQ(cr_client_cmd_get(&reply, c, key.data(), key.size()), CR_OK) << cr_last_error();
  cr_reply_free(reply);

  // Once it wakes and catches up, it is read first again.
  std::string restored_after;
  while (std::chrono::steady_clock::now() - t0 < std::chrono::seconds(15)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
    ASSERT_EQ(cr_client_refresh(c), CR_OK) << cr_last_error();
    if (FirstCandidate(r, key) == replica) {
      restored_after = std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                          std::chrono::steady_clock::now() - t0)
                                          .count());
      break;
    }
  }
  ASSERT_FALSE(restored_after.empty()) << "the replica was never restored";
  std::printf("RECOVERY scenario=replica_lag demoted_ms=%s restored_ms=%s (DEBUG SLEEP 4)\n",
              demoted_after.c_str(), restored_after.c_str());
  cr_client_free(c);
}

// A replica restarted empty (persistence off) answers nil for every key
// until it has synced. Its master is paused (CLIENT PAUSE, so the replica
// cannot start syncing) while the replica restarts; reads of an existing key
// must never come back nil: the client refuses connections to a replica with
// no replicated data and reads the next candidate.
TEST(ReplicaLag, ARestartedEmptyReplicaIsNotRead) {
  auto env = crtest::LoadHarnessEnv();
  ASSERT_FALSE(env["SEEDS"].empty()) << "CR_TEST_CLUSTER_ENV not set";
  // A key of shard 1 of its own (the test above rewrites SHARD1_KEY).
  const std::string key = "{" + env["SHARD1_KEY"] + "}:restart", value = "kept";
  const std::string replica = env["NODE2_ADDR"], master = env["SHARD1_MASTER"];
  const std::string dir = env["HARNESS_DIR"], nd = dir + "/cluster/n2";

  cr_config *cfg = nullptr;
  ASSERT_EQ(cr_config_new(&cfg), CR_OK);
  ASSERT_EQ(cr_config_add_local_cidr(cfg, "127.0.1.0/24"), CR_OK);
  cr_router_options ro = CR_ROUTER_OPTIONS_INIT;
  ro.policy = CR_POLICY_LOCAL_REPLICAS_FIRST;
  ro.failure_threshold = 1;
  ro.down_cooldown_ms = 200;  // probe the restarted replica while the master is still paused
  ASSERT_EQ(cr_config_set_router_options(cfg, &ro), CR_OK);
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  o.refresh_interval_ms = 0;
  for (uint32_t &t : o.command_timeout_ms) t = 300;
  o.max_retries = 0;
  cr_client *c = nullptr;
  ASSERT_EQ(cr_client_new(&c, cfg, &o, env["SEEDS"].c_str()), CR_OK) << cr_last_error();
  cr_config_free(cfg);
  cr_router *r = nullptr;
  r = cr_client_get_router(c);
  ASSERT_NE(r, nullptr);
  ASSERT_EQ(FirstCandidate(r, key), replica);

  auto read = [&](std::string *got) -> cr_status {
    cr_reply *reply = nullptr;
    const cr_status s = cr_client_cmd_get(&reply, c, key.data(), key.size());
    if (s == CR_OK) {
      size_t len = 0;
      const char *p = cr_reply_get_type(reply) == CR_REPLY_TYPE_STRING
                          ? cr_reply_get_string(reply, &len)
                          : nullptr;
      *got = p == nullptr ? "(nil)" : std::string(p, len);
    }
    cr_reply_free(reply);
    return s;
  };
  ASSERT_EQ(cr_client_cmd_set(c, key.data(), key.size(), value.data(), value.size(), 0), CR_OK)
      << cr_last_error();
  std::string got;
  ASSERT_TRUE(crtest::WaitUntil([&] { return read(&got) == CR_OK && got == value; },
                                std::chrono::seconds(10)))
      << "not replicated to the local replica: read '" << got << "', " << cr_last_error();

  const std::string mhost = master.substr(0, master.find(':')),
                    mport = master.substr(master.find(':') + 1);
  ASSERT_EQ(
      std::system(
          ("redis-cli -h " + mhost + " -p " + mport + " CLIENT PAUSE 3000 ALL >/dev/null").c_str()),
      0);
  const pid_t old_pid = static_cast<pid_t>(std::stol(env["NODE2_PID"]));
  ASSERT_EQ(kill(old_pid, SIGKILL), 0);
  // Its port is free once the process is gone (the harness daemonized it, so
  // init reaps it).
  ASSERT_TRUE(crtest::WaitUntil([&] { return kill(old_pid, 0) != 0; }, std::chrono::seconds(5)))
      << "redis-server " << old_pid << " outlived kill -9";
  std::remove((nd + "/redis.pid").c_str());
  ASSERT_EQ(std::system(("redis-server " + nd + "/redis.conf >/dev/null 2>&1").c_str()), 0);
  std::string pid;
  ASSERT_TRUE(crtest::WaitUntil(
      [&] {
        std::ifstream f(nd + "/redis.pid");
        return static_cast<bool>(f >> pid);
      },
      std::chrono::seconds(5)))
      << "the restarted replica wrote no " << nd << "/redis.pid";
  std::ofstream(dir + "/pids", std::ios::app)
      << "cluster n2 " << pid << " " << env["NODE2_IP"] << " " << env["NODE2_PORT"] << "\n";

  // For the rest of the pause and a bit after: every read is the value (or a
  // clean error while the paused master times out), never nil.
  int nil = 0, ok = 0, errors = 0;
  const auto t0 = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(3500)) {
    const cr_status s = read(&got);
    if (s != CR_OK)
      ++errors;
    else if (got == value)
      ++ok;
    else
      ++nil;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::printf("RECOVERY scenario=empty_replica_restart reads_ok=%d reads_nil=%d reads_error=%d\n",
              ok, nil, errors);
  EXPECT_EQ(nil, 0) << "a restarted, empty replica answered nil";
  EXPECT_GT(ok, 0);
  cr_client_free(c);
}

}  // namespace replica_lag_test
