// A server restarted with its data lost while the client holds pooled
// connections to it, against a real two-cloud Redis Cluster of
// its own (scripts/redis-harness.sh, ports 8661-8669; cloud A = 127.0.1.x,
// cloud B = 127.0.2.x; the harness keeps no RDB and no AOF, so a restarted
// server comes back empty).
//
// A master that restarts empty without a failover loses every write it
// acknowledged: Redis promises nothing else (replication is asynchronous and
// the empty master would even be copied to its replicas). So the test
// restarts the master the way an operator keeps acknowledged writes: its
// cloud-A replica takes over first (CLUSTER FAILOVER, which waits until the
// replica has caught up), then the old master — a replica now — is killed and
// restarted empty while readers hold pooled connections to it; it resyncs
// from the new master. Asserted: (a) no read fails or returns a wrong value
// (nil from the empty server included), each within a stated bound; (b)
// every write succeeds on the real master across the failover and the
// restart; (c) every write acknowledged before the fault reads back after
// it; (d) reads return to the restarted server once it has synced (its new
// connections pass the replica readiness check, net/replica_lag). Prints:
//   RECOVERY scenario=master_restarted_empty … slowest_read_ms=… recovery_ms=…
// The shard's original master is restored at the end.
//
// CR_TEST_CLUSTER_ENV names the cluster.env.
#include <gtest/gtest.h>
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "cloudroute.h"
#include "fault_kit.hpp"
#include "harness_env.hpp"

namespace recovery_test {

using crtest::Cli;
using crtest::FaultClient;
using crtest::FaultClock;
using crtest::kFaultTimeoutMs;
using crtest::MsFrom;
using crtest::PollUntil;
using crtest::Traffic;

// (a) A read that meets the dead server costs one failed attempt on a pooled
// connection (refused or reset: no timeout) and a read on the next
// candidate; the bound leaves room for a loaded 2-core CI machine.
constexpr int64_t kReadBoundMs = 3 * kFaultTimeoutMs;
constexpr uint32_t kCooldownMs = 500;

class Recovery : public crtest::ClusterTest {
 protected:
  bool IsMaster(const std::string &addr) { return Cli(addr, {"ROLE"}).rfind("master", 0) == 0; }
  bool Synced(const std::string &addr) {
    return Cli(addr, {"INFO", "replication"}).find("master_link_status:up") != std::string::npos;
  }
  // `replica` takes its shard over (CLUSTER FAILOVER) and the client writes
  // there; false (with a failure recorded) when either does not happen.
  bool FailOverTo(FaultClient &cl, const std::string &replica, const std::string &key) {
    EXPECT_EQ(Cli(replica, {"CLUSTER", "FAILOVER"}), "OK");
    EXPECT_TRUE(PollUntil(10000, [&] { return IsMaster(replica); }))
        << replica << " did not become master";
    EXPECT_TRUE(PollUntil(10000, [&] { return cl.WriteNode(key) == replica; }))
        << "the client does not write to " << replica;
    return !HasFailure();
  }
};

TEST_F(Recovery, MasterRestartedEmptyAfterFailover) {
  // Shard 2: master n4 (cloud B), replicas n5 (B) and n6 (A).
  const std::string old_master = Node(4, "ADDR"), promoted = Node(6, "ADDR");
  ASSERT_EQ(env_["SHARD2_MASTER"], old_master);
  // Replicas first: once n6 is master, reads go to n4 and n5.
  FaultClient cl(env_["SEEDS"], CR_POLICY_PREFER_REPLICA, crtest::FaultOptions(), kCooldownMs);
  ASSERT_NE(cl.c, nullptr);
  const std::vector<std::string> keys = cl.KeysOwnedBy(old_master, "restarted:", 200);
  crtest::StoreAndSettle(cl, keys);
  std::vector<std::unique_ptr<Traffic>> readers;
  for (int i = 0; i < 3; ++i)
    readers.push_back(std::make_unique<Traffic>(cl, keys, Traffic::kRead));
  Traffic writes(cl, keys, Traffic::kWrite);

  const auto t_fo = FaultClock::now();
  ASSERT_TRUE(FailOverTo(cl, promoted, keys[0]));
  const int64_t failover_ms = MsFrom(t_fo);
  ASSERT_TRUE(PollUntil(10000, [&] { return Synced(old_master); }))
      << old_master << " did not sync from " << promoted;
  const uint64_t before = cl.NodeReads(old_master);
  ASSERT_TRUE(PollUntil(10000, [&] { return cl.NodeReads(old_master) > before + 300; }))
      << "reads do not reach the demoted master " << old_master;
  for (auto &r : readers) r->ResetSlowest();
  writes.ResetSlowest();

  // Kill it and start it again with nothing: its pooled connections die,
  // and the new process answers before it has synced.
  const auto t_kill = FaultClock::now();
  KillAndRestart(4);
  if (HasFatalFailure()) return;
  const int64_t restart_ms = MsFrom(t_kill);
  const uint64_t at_restart = cl.NodeReads(old_master);
  ASSERT_TRUE(PollUntil(15000, [&] { return cl.NodeReads(old_master) > at_restart + 100; }))
      << "reads did not return to " << old_master;
  const int64_t recovery_ms = MsFrom(t_kill);
  const crtest::TrafficTotals r = crtest::StopAll(&readers);
  writes.Stop();
  const cr_client_stats st = cl.Stats();
  std::printf(
      "RECOVERY scenario=master_restarted_empty reads=%llu reads_failed=%llu wrong=%llu "
      "writes=%llu writes_failed=%llu failover_ms=%lld restart_ms=%lld slowest_read_ms=%lld "
      "slowest_write_ms=%lld recovery_ms=%lld conn_errors=%llu timeouts=%llu\n",
      (unsigned long long)r.requests, (unsigned long long)r.failed, (unsigned long long)r.wrong,
      (unsigned long long)writes.requests(), (unsigned long long)writes.failed(),
      (long long)failover_ms, (long long)restart_ms, (long long)r.slowest_ms,
      (long long)writes.slowest_ms(), (long long)recovery_ms, (unsigned long long)st.conn_errors,
      (unsigned long long)st.timeouts);
  std::fflush(stdout);
  EXPECT_EQ(r.failed, 0u) << r.first_error;
  EXPECT_EQ(r.wrong, 0u) << r.first_error;
  EXPECT_LE(r.slowest_ms, kReadBoundMs);
  EXPECT_EQ(writes.failed(), 0u) << writes.first_error();
  EXPECT_LE(writes.slowest_ms(), kReadBoundMs);
  crtest::ExpectStored(cl, keys, "master_restarted_empty");

  // Leave the cluster as it was: n4 master of shard 2 again.
  ASSERT_TRUE(PollUntil(10000, [&] { return Synced(old_master); }));
  EXPECT_TRUE(FailOverTo(cl, old_master, keys[0]));
}

}  // namespace recovery_test
