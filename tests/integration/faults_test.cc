// The live client under faults, against real two-cloud Redis Clusters
// (scripts/redis-harness.sh; cloud A = 127.0.1.x, cloud B = 127.0.2.x). Each
// scenario runs against its own cluster (its own CTest fixture and ports),
// because it damages it: a replica is killed and restarted, a master fails
// over to the other cloud, a slot is resharded. Traffic runs throughout on
// reader (and writer) threads; every scenario asserts where reads were
// served (client statistics per node, INFO commandstats on the nodes), that
// no read failed or returned a wrong value, that every acknowledged write is
// readable afterwards, and prints one greppable line:
//   RECOVERY scenario=NAME reads=… reads_failed=0 wrong=0 …_ms=…
// Only the C API drives the client; the faults themselves go through
// redis-cli and signals, as an operator's would.
//
// CR_TEST_CLUSTER_ENV names the scenario's cluster.env.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cloudroute.h"
#include "fault_kit.hpp"
#include "harness_env.hpp"

namespace faults_test {

using Clock = std::chrono::steady_clock;

int64_t MsSince(Clock::time_point t0) { return crtest::MsFrom(t0); }

std::string HostOf(const std::string &addr) { return addr.substr(0, addr.rfind(':')); }
uint16_t PortOf(const std::string &addr) {
  return static_cast<uint16_t>(std::atoi(addr.c_str() + addr.rfind(':') + 1));
}

using crtest::Cli;

// "calls" of cmdstat_<cmd> in INFO commandstats; 0 when never called.
uint64_t CommandCalls(const std::string &addr, const std::string &cmd) {
  return crtest::CommandCalls(Cli(addr, {"INFO", "commandstats"}), cmd);
}

bool WaitFor(int64_t ms, const std::function<bool()> &pred) { return crtest::PollUntil(ms, pred); }

// A client "in cloud A" (nodes in 127.0.1.0/24 are local), with the shared
// helpers of fault_kit.hpp.
struct Client : crtest::FaultClient {
  Client(const std::string &seeds, cr_policy policy)
      : crtest::FaultClient(seeds, policy, Options(), 300) {}
  static cr_client_options Options() {
    cr_client_options o = CR_CLIENT_OPTIONS_INIT;
    o.client_name = "cr-faults";
    o.refresh_min_gap_ms = 200;
    o.refresh_interval_ms = 2000;
    o.connect_timeout_ms = 500;
    return o;
  }
  std::vector<cr_candidate> Candidates(uint32_t slot) const {
    std::vector<cr_candidate> out(16);
    for (auto &x : out) x.struct_size = sizeof(cr_candidate);
    size_t n = 0;
    if (cr_router_candidates_slot(out.data(), out.size(), &n, router, slot) != CR_OK) n = 0;
    out.resize(n);
    return out;
  }
};

std::string Addr(const cr_candidate &c) {
  return std::string(c.host) + ":" + std::to_string(c.port);
}

// Keys whose slot is owned by `master` ("host:port"), n of them.
std::vector<std::string> KeysOn(Client &cl, const std::string &master, const std::string &prefix,
                                int n) {
  return cl.KeysOwnedBy(master, prefix, static_cast<size_t>(n));
}

// Writes every key (value = "v-" + key, crtest::ValueOf), then waits until
// each reads back through the client (reads may be served by replicas, which
// acknowledge asynchronously). These are the acknowledged writes of
// scenario (f).
void WriteAndSettle(Client &cl, const std::vector<std::string> &keys) {
  crtest::StoreAndSettle(cl, keys);
}

// Scenario (f): every acknowledged write is readable after the fault.
void ExpectAllReadable(Client &cl, const std::vector<std::string> &keys, const char *scenario) {
  crtest::ExpectStored(cl, keys, scenario);
}

// Reads keys in a loop on its own thread, checking every value, and counts
// failures and wrong values (crtest::Traffic).
struct Reader : crtest::Traffic {
  Reader(Client &cl, std::vector<std::string> keys) : Traffic(cl, std::move(keys), kRead) {}
  uint64_t reads() const { return requests(); }
};

class Faults : public crtest::ClusterTest {
 protected:
  // The health CLUSTER SHARDS (asked of `ask`) reports for node id, "" when absent.
  std::string ShardsHealth(const std::string &ask, const std::string &id) {
    const std::string out = Cli(ask, {"CLUSTER", "SHARDS"});
    const size_t at = out.find(id);
    if (at == std::string::npos) return "";
    const size_t h = out.find("health\n", at);
    if (h == std::string::npos) return "";
    const size_t e = out.find('\n', h + 7);
    return out.substr(h + 7, e == std::string::npos ? std::string::npos : e - h - 7);
  }

  // Scenarios (d) and (d2): one slot resharded under traffic.
  void Reshard(cr_policy policy, const char *scenario);
};

// (a) A cloud-A client's reads reach cloud-A nodes only, as the nodes
// themselves count them (INFO commandstats), not only as the client does.
TEST_F(Faults, ReadsFromCloudAReachCloudANodesOnly) {
  Client cl(env_["NODE1_ADDR"], CR_POLICY_LOCAL);
  ASSERT_NE(cl.c, nullptr);
  std::vector<std::string> keys;
  for (int i = 0; i < 300; ++i) keys.push_back("locality:" + std::to_string(i));
  WriteAndSettle(cl, keys);
  const int nodes = std::atoi(env_["NODE_COUNT"].c_str());
  std::vector<uint64_t> before(nodes + 1);
  for (int n = 1; n <= nodes; ++n) before[n] = CommandCalls(Node(n, "ADDR"), "strlen");
  for (const std::string &k : keys) {
    const void *argv[2] = {"STRLEN", k.data()};
    const size_t lens[2] = {6, k.size()};
    cr_reply *r = nullptr;
    ASSERT_EQ(cr_client_command(&r, cl.c, CR_ACCESS_READ, 1, 2, argv, lens), CR_OK)
        << cr_last_error();
    EXPECT_EQ(cr_reply_get_integer(r), static_cast<int64_t>(2 + k.size()));
    cr_reply_free(r);
  }
  uint64_t in_a = 0;
  for (int n = 1; n <= nodes; ++n) {
    const uint64_t d = CommandCalls(Node(n, "ADDR"), "strlen") - before[n];
    if (Node(n, "CLOUD") == "A")
      in_a += d;
    else
      EXPECT_EQ(d, 0u) << "cloud-B node " << Node(n, "ADDR") << " served " << d << " STRLEN";
  }
  EXPECT_EQ(in_a, keys.size());
  EXPECT_EQ(cl.Stats().reads_by_tier[CR_TIER_LOCAL], cl.Stats().reads);
}

// (b) Killing the local replica moves reads to the next candidate; when it is
// back in CLUSTER SHARDS, reads return to it. No read fails or is wrong.
TEST_F(Faults, LocalReplicaDownAndBack) {
  // Shard 2: master n4 (B), replicas n5 (B), n6 (A): for a cloud-A client,
  // n6 is the only local candidate.
  Client cl(env_["SEEDS"], CR_POLICY_LOCAL);
  ASSERT_NE(cl.c, nullptr);
  const std::string replica = Node(6, "ADDR");
  std::vector<std::string> keys = KeysOn(cl, env_["SHARD2_MASTER"], "rd:", 200);
  std::vector<std::string> all = keys;
  for (const std::string &m : {env_["SHARD1_MASTER"], env_["SHARD3_MASTER"]}) {
    for (const std::string &k : KeysOn(cl, m, "rd-other:" + m + ":", 50)) all.push_back(k);
  }
  WriteAndSettle(cl, all);
  const uint16_t slot = cr_keyslot(keys[0].data(), keys[0].size());
  const std::vector<cr_candidate> cands = cl.Candidates(slot);
  ASSERT_GE(cands.size(), 3u);
  ASSERT_EQ(Addr(cands[0]), replica);
  const std::string next = Addr(cands[1]);
  ASSERT_GT(cl.NodeReads(replica), 0u);

  Reader reader(cl, keys);
  ASSERT_TRUE(WaitFor(2000, [&] { return reader.reads() > 100; }));
  const uint64_t next_before = cl.NodeReads(next);
  const auto t_kill = Clock::now();
  ASSERT_EQ(kill(std::atoi(Node(6, "PID").c_str()), SIGKILL), 0);
  ASSERT_TRUE(WaitFor(5000, [&] { return cl.NodeReads(next) > next_before; }))
      << "reads did not move to " << next;
  const int64_t moved_ms = MsSince(t_kill);
  // Healthy again: the breaker skips the dead node, so reads stop falling back.
  int64_t steady_ms = -1;
  {
    uint64_t fb = cl.Stats().fallbacks;
    auto quiet_since = Clock::now();
    WaitFor(5000, [&] {
      const uint64_t now = cl.Stats().fallbacks;
      if (now != fb) {
        fb = now;
        quiet_since = Clock::now();
      }
      if (MsSince(quiet_since) >= 500) {
        steady_ms =
            std::chrono::duration_cast<std::chrono::milliseconds>(quiet_since - t_kill).count();
        return true;
      }
      return false;
    });
  }
  const uint64_t replica_reads_down = cl.NodeReads(replica);
  std::this_thread::sleep_for(std::chrono::milliseconds(700));  // several breaker cooldowns
  EXPECT_EQ(cl.NodeReads(replica), replica_reads_down) << "a dead node served reads";

  const auto t_restart = Clock::now();
  Restart(6);
  const std::string id = Node(6, "ID");
  ASSERT_TRUE(WaitFor(20000, [&] { return ShardsHealth(env_["SHARD2_MASTER"], id) == "online"; }))
      << "n6 not online in CLUSTER SHARDS again";
  const int64_t shards_ms = MsSince(t_restart);
  const uint64_t replica_reads_up = cl.NodeReads(replica);
  ASSERT_TRUE(WaitFor(10000, [&] { return cl.NodeReads(replica) > replica_reads_up + 50; }))
      << "reads did not return to " << replica;
  const int64_t back_ms = MsSince(t_restart);
  reader.Stop();

  std::printf(
      "RECOVERY scenario=local_replica_down reads=%llu reads_failed=%llu wrong=%llu "
      "moved_ms=%lld steady_ms=%lld online_in_shards_ms=%lld back_ms=%lld fallbacks=%llu\n",
      (unsigned long long)reader.reads(), (unsigned long long)reader.failed(),
      (unsigned long long)reader.wrong(), (long long)moved_ms, (long long)steady_ms,
      (long long)shards_ms, (long long)back_ms, (unsigned long long)cl.Stats().fallbacks);
  EXPECT_EQ(reader.failed(), 0u) << reader.first_error();
  EXPECT_EQ(reader.wrong(), 0u) << reader.first_error();
  ExpectAllReadable(cl, all, "local_replica_down");
}

// (c) CLUSTER FAILOVER moves shard 1's master from cloud A (n1) to cloud B
// (n3). A reader and a writer run throughout: zero failed reads, the
// candidate order is rebuilt (no master in the local tier any more), and
// writes follow the master.
TEST_F(Faults, FailoverMovesMasterToCloudB) {
  Client cl(env_["SEEDS"], CR_POLICY_LOCAL);
  ASSERT_NE(cl.c, nullptr);
  const std::string old_master = env_["SHARD1_MASTER"], new_master = Node(3, "ADDR");
  std::vector<std::string> keys = KeysOn(cl, old_master, "fo:", 200);
  std::vector<std::string> all = keys;
  for (const std::string &k : KeysOn(cl, env_["SHARD2_MASTER"], "fo-other:", 50)) all.push_back(k);
  WriteAndSettle(cl, all);
  const uint16_t slot = cr_keyslot(keys[0].data(), keys[0].size());
  ASSERT_EQ(Addr(cl.Candidates(slot)[0]), old_master);

  Reader reader(cl, keys);
  // The writer rewrites the same values (so the reader's expectation holds)
  // and counts failures and the window in which they happened.
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> writes{0}, writes_failed{0};
  std::atomic<int64_t> first_write_fail_ms{-1}, last_write_fail_ms{-1};
  const auto t0 = Clock::now();
  std::thread writer([&] {
    size_t i = 0;
    while (!stop.load()) {
      const std::string &k = keys[i++ % keys.size()];
      writes.fetch_add(1);
      if (cl.Set(k, "v-" + k) != CR_OK) {
        writes_failed.fetch_add(1);
        int64_t none = -1;
        first_write_fail_ms.compare_exchange_strong(none, MsSince(t0));
        last_write_fail_ms.store(MsSince(t0));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  ASSERT_TRUE(WaitFor(2000, [&] { return reader.reads() > 100 && writes.load() > 20; }));
  const uint64_t moved_before = cl.Stats().moved;
  const auto t_fo = Clock::now();
  ASSERT_EQ(Cli(new_master, {"CLUSTER", "FAILOVER"}), "OK");
  ASSERT_TRUE(WaitFor(10000, [&] { return Cli(new_master, {"ROLE"}).rfind("master", 0) == 0; }))
      << "n3 did not become master";
  const int64_t failover_ms = MsSince(t_fo);
  // First the client learns the new master; then the reordered set is
  // complete: the local replicas (n2, and n1 once it has synced as a
  // replica) first, the remote master last.
  auto master_known = [&] {
    for (const cr_candidate &x : cl.Candidates(slot)) {
      if (x.role == CR_ROLE_MASTER) return Addr(x) == new_master;
    }
    return false;
  };
  ASSERT_TRUE(WaitFor(10000, master_known)) << "the candidate set did not follow the failover";
  const int64_t master_ms = MsSince(t_fo);
  auto reordered = [&] {
    const std::vector<cr_candidate> c = cl.Candidates(slot);
    return c.size() == 3 && master_known() && c[0].tier == CR_TIER_LOCAL &&
           c[1].tier == CR_TIER_LOCAL && Addr(c[2]) == new_master;
  };
  ASSERT_TRUE(WaitFor(10000, reordered)) << "the local replicas did not come first again";
  const int64_t reorder_ms = MsSince(t_fo);
  ASSERT_TRUE(WaitFor(5000, [&] { return cl.WriteNode(keys[0]) == new_master; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // traffic after the switch
  stop.store(true);
  writer.join();
  reader.Stop();

  const std::vector<cr_candidate> after = cl.Candidates(slot);
  EXPECT_EQ(after[0].tier, CR_TIER_LOCAL);
  EXPECT_EQ(after[0].role, CR_ROLE_REPLICA);
  EXPECT_EQ(Addr(after.back()), new_master);
  const int64_t fo_ms = std::chrono::duration_cast<std::chrono::milliseconds>(t_fo - t0).count();
  const int64_t wf = first_write_fail_ms.load(), wl = last_write_fail_ms.load();
  std::printf(
      "RECOVERY scenario=failover_to_cloud_b reads=%llu reads_failed=%llu wrong=%llu "
      "failover_ms=%lld master_ms=%lld reorder_ms=%lld writes=%llu writes_failed=%llu "
      "write_outage_ms=%lld moved=%llu refreshes=%llu\n",
      (unsigned long long)reader.reads(), (unsigned long long)reader.failed(),
      (unsigned long long)reader.wrong(), (long long)failover_ms, (long long)master_ms,
      (long long)reorder_ms, (unsigned long long)writes.load(),
      (unsigned long long)writes_failed.load(), (long long)(wf < 0 ? 0 : wl - wf),
      (unsigned long long)(cl.Stats().moved - moved_before),
      (unsigned long long)cl.Stats().refreshes);
  (void)fo_ms;
  EXPECT_EQ(reader.failed(), 0u) << reader.first_error();
  EXPECT_EQ(reader.wrong(), 0u) << reader.first_error();
  EXPECT_EQ(writes_failed.load(), 0u);
  ExpectAllReadable(cl, all, "failover_to_cloud_b");
}

// (d) A slot of shard 1 moves to shard 2 (SETSLOT MIGRATING/IMPORTING,
// MIGRATE in small batches, SETSLOT NODE) while a reader and a writer work
// on that slot: ASK during the move, MOVED after, nothing lost or wrong.
// (d2) The same with replica-first reads: the source's replicas know nothing
// of the migration and answer nil for keys already moved, so the client must
// read a migrating slot from its master (the refresh scan's CLUSTER NODES
// markers and every ASK mark it).
TEST_F(Faults, ReshardingUnderTraffic) { Reshard(CR_POLICY_LOCAL, "reshard_slot"); }
TEST_F(Faults, ReshardingUnderTrafficReplicaReads) {
  Reshard(CR_POLICY_LOCAL_REPLICAS_FIRST, "reshard_slot_replica_reads");
}

void Faults::Reshard(cr_policy policy, const char *scenario) {
  Client cl(env_["SEEDS"], policy);
  ASSERT_NE(cl.c, nullptr);
  const std::string src = env_["SHARD1_MASTER"], dst = env_["SHARD2_MASTER"];
  const std::string src_id = env_["SHARD1_MASTER_ID"], dst_id = env_["SHARD2_MASTER_ID"];
  // 200 keys in one slot of shard 1 (one hash tag).
  std::string tag;
  for (int i = 0; tag.empty(); ++i) {
    const std::string t = "{rs" + std::to_string(i) + "}";
    if (cl.WriteNode(t) == src) tag = t;
  }
  const uint16_t slot = cr_keyslot(tag.data(), tag.size());
  std::vector<std::string> keys;
  for (int i = 0; i < 200; ++i) keys.push_back(tag + ":" + std::to_string(i));
  std::vector<std::string> all = keys;
  for (const std::string &k : KeysOn(cl, env_["SHARD3_MASTER"], "rs-other:", 50)) all.push_back(k);
  WriteAndSettle(cl, all);

  const std::string src_replica = Node(2, "ADDR");  // shard 1's cloud-A replica
  const uint64_t src_replica_reads = cl.NodeReads(src_replica);
  Reader reader(cl, keys);
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> writes{0}, writes_failed{0};
  std::string write_error;
  std::thread writer([&] {
    size_t i = 0;
    while (!stop.load()) {
      const std::string &k = keys[i++ % keys.size()];
      writes.fetch_add(1);
      if (cl.Set(k, "v-" + k) != CR_OK && writes_failed.fetch_add(1) == 0)
        write_error = cr_last_error();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  ASSERT_TRUE(WaitFor(2000, [&] { return reader.reads() > 100; }));
  if (policy == CR_POLICY_LOCAL_REPLICAS_FIRST) {
    // The premise: this client reads the slot from the source's replica.
    ASSERT_GT(cl.NodeReads(src_replica), src_replica_reads + 50)
        << "reads do not reach " << src_replica;
  }
  const cr_client_stats before = cl.Stats();
  const std::string s = std::to_string(slot);
  const auto t_start = Clock::now();
  EXPECT_EQ(cr_router_get_slot_migrating(cl.router, slot), 0);
  ASSERT_EQ(Cli(dst, {"CLUSTER", "SETSLOT", s, "IMPORTING", src_id}), "OK");
  ASSERT_EQ(Cli(src, {"CLUSTER", "SETSLOT", s, "MIGRATING", dst_id}), "OK");
  // Before any key moves (so before any ASK), a refresh finds the migration
  // in the source master's CLUSTER NODES.
  ASSERT_EQ(cr_client_refresh(cl.c), CR_OK) << cr_last_error();
  EXPECT_EQ(cr_router_get_slot_migrating(cl.router, slot), 1)
      << "the refresh scan missed the migration";
  EXPECT_EQ(cl.Stats().ask, before.ask);
  for (int round = 0; round < 100; ++round) {
    std::string out = Cli(src, {"CLUSTER", "GETKEYSINSLOT", s, "10"});
    if (out.empty()) break;
    std::vector<std::string> args{"MIGRATE", HostOf(dst), std::to_string(PortOf(dst)), "", "0",
                                  "5000",    "KEYS"};
    std::istringstream lines(out);
    for (std::string k; std::getline(lines, k);) args.push_back(k);
    ASSERT_EQ(Cli(src, args), "OK");
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // traffic meets a half-moved slot
  }
  const int64_t migrate_ms = MsSince(t_start);
  const auto t_node = Clock::now();
  // Target first, then source, then the other masters (as redis-cli does).
  ASSERT_EQ(Cli(dst, {"CLUSTER", "SETSLOT", s, "NODE", dst_id}), "OK");
  ASSERT_EQ(Cli(src, {"CLUSTER", "SETSLOT", s, "NODE", dst_id}), "OK");
  ASSERT_EQ(Cli(env_["SHARD3_MASTER"], {"CLUSTER", "SETSLOT", s, "NODE", dst_id}), "OK");
  // Rerouted: the client's own write route names the new owner, and reads
  // stop being redirected.
  ASSERT_TRUE(WaitFor(10000, [&] { return cl.WriteNode(keys[0]) == dst; }));
  const int64_t reroute_ms = MsSince(t_node);
  int64_t settle_ms = -1;
  {
    uint64_t red = cl.Stats().moved + cl.Stats().ask;
    auto quiet_since = Clock::now();
    WaitFor(8000, [&] {
      const cr_client_stats st = cl.Stats();
      if (st.moved + st.ask != red) {
        red = st.moved + st.ask;
        quiet_since = Clock::now();
      }
      if (MsSince(quiet_since) >= 500) {
        settle_ms =
            std::chrono::duration_cast<std::chrono::milliseconds>(quiet_since - t_node).count();
        return true;
      }
      return false;
    });
  }
  stop.store(true);
  writer.join();
  reader.Stop();
  const cr_client_stats after = cl.Stats();
  std::printf(
      "RECOVERY scenario=%s reads=%llu reads_failed=%llu wrong=%llu writes=%llu "
      "writes_failed=%llu ask=%llu moved=%llu migrate_ms=%lld reroute_ms=%lld settle_ms=%lld\n",
      scenario, (unsigned long long)reader.reads(), (unsigned long long)reader.failed(),
      (unsigned long long)reader.wrong(), (unsigned long long)writes.load(),
      (unsigned long long)writes_failed.load(), (unsigned long long)(after.ask - before.ask),
      (unsigned long long)(after.moved - before.moved), (long long)migrate_ms,
      (long long)reroute_ms, (long long)settle_ms);
  EXPECT_GT(after.ask - before.ask, 0u) << "the traffic never met the half-moved slot";
  EXPECT_EQ(reader.failed(), 0u) << reader.first_error();
  EXPECT_EQ(reader.wrong(), 0u) << reader.first_error();
  EXPECT_EQ(writes_failed.load(), 0u) << write_error;
  EXPECT_GE(settle_ms, 0) << "reads kept being redirected";
  EXPECT_EQ(Cli(dst, {"CLUSTER", "COUNTKEYSINSLOT", s}), "200");
  ExpectAllReadable(cl, all, scenario);
  // The migration is over: the mark is gone (MOVED, then clean scans).
  EXPECT_TRUE(WaitFor(5000, [&] { return cr_router_get_slot_migrating(cl.router, slot) == 0; }));
}

}  // namespace faults_test
