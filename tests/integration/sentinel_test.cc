// The Sentinel client against real sentinels and data nodes (scripts/redis-
// harness.sh sentinel: 2 groups x 3 nodes over cloud A = 127.0.1.x and
// cloud B = 127.0.2.x, 3 sentinels). Only the C API is used.
//
// The failover test moves both masters — SENTINEL FAILOVER of group0, then a
// kill -9 of the subscribed sentinel and of group1's master — while a reader thread reads keys of
// both groups without pause, and asserts that not one read failed, that writes resume on the new
// masters, and prints greppable lines:
//   RECOVERY scenario=sentinel_failover switch_ms=… write_ms=… …
//   RECOVERY scenario=sentinel_kill9 switch_ms=… write_ms=… …
// (switch_ms: until the client routes writes to the new master; write_ms:
// until the first write succeeded there.) The harness's setup is damaged by
// it, so it runs on its own fixture and ports.
//
// SentinelEngine runs on a second harness setup of its own (ctest
// integration.sentinel_engine, ports 8751-8763): the cluster client's failure
// tests on the engine the Sentinel client shares with it — ACL users for the
// sentinels and the data nodes; a local replica
// stalled (SIGSTOP) with hedged reads, bounded read latency, the replica back
// in service after SIGCONT through the recovery prober; that replica killed;
// a failover under reads and writes that loses no acknowledged write.
//
// SentinelBatch (ctest integration.sentinel_batch, its own setup: data nodes
// 8831-8836, sentinels 8841-8843) runs the batches — MGET, MSET, DEL,
// EXISTS over 100 keys of both groups — one command per group, a group
// without a reachable master failing its keys only, a failover and a killed
// replica under streams of batches.
//
// CR_TEST_SENTINEL_ENV names the harness's sentinel.env.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cloudroute.h"
#include "common/wait_until.hpp"
#include "harness_env.hpp"

namespace sentinel_test {

using Clock = std::chrono::steady_clock;

std::map<std::string, std::string> &Env() {
  static std::map<std::string, std::string> env = crtest::LoadHarnessEnv("CR_TEST_SENTINEL_ENV");
  return env;
}

long long MsSince(Clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
}

struct Fixture {
  cr_sentinel_client *c = nullptr;
  cr_shard_groups *groups = nullptr;
  std::vector<std::string> keys[2];  // keys of group0 and group1

  // tweak: changes to the options before the client is made.
  explicit Fixture(const std::function<void(cr_sentinel_options *)> &tweak = nullptr) {
    cr_ring *ring = nullptr;
    cr_ring_options ro = CR_RING_OPTIONS_INIT;
    EXPECT_EQ(cr_ring_new(&ring, &ro), CR_OK);
    EXPECT_EQ(cr_ring_add_shard(ring, "group0", 1), CR_OK);
    EXPECT_EQ(cr_ring_add_shard(ring, "group1", 1), CR_OK);
    EXPECT_EQ(cr_ring_build(ring), CR_OK);
    cr_config *cfg = crtest::NewCloudAConfig();
    cr_router_options rop = CR_ROUTER_OPTIONS_INIT;
    rop.failure_threshold = 1;
    rop.down_cooldown_ms = 1000;
    EXPECT_EQ(cr_config_set_router_options(cfg, &rop), CR_OK);
    cr_sentinel_options o = CR_SENTINEL_OPTIONS_INIT;
    o.connect_timeout_ms = 300;
    for (uint32_t &t : o.command_timeout_ms) t = 500;
    o.sentinel_timeout_ms = 500;
    o.reask_interval_ms = 2000;
    o.client_name = "cr-sentinel-test";
    if (tweak) tweak(&o);
    const char *names[] = {"group0", "group1"};
    const cr_status s =
        cr_sentinel_client_new(&c, cfg, &o, ring, names, 2, Env()["SENTINELS"].c_str());
    EXPECT_EQ(s, CR_OK) << cr_last_error();
    cr_config_free(cfg);
    cr_ring_free(ring);  // the client keeps its own reference
    if (c == nullptr) return;
    groups = cr_sentinel_client_get_groups(c);
    EXPECT_NE(groups, nullptr);
    for (int i = 0; keys[0].size() < 50 || keys[1].size() < 50; ++i) {
      const std::string k = "sentinel:key:" + std::to_string(i);
      uint32_t g = 0;
      EXPECT_EQ(cr_shard_groups_locate(&g, groups, k.data(), k.size()), CR_OK);
      if (keys[g].size() < 50) keys[g].push_back(k);
    }
  }
  ~Fixture() { cr_sentinel_client_free(c); }

  cr_status Command(cr_access access, const std::vector<std::string> &argv,
                    std::string *out = nullptr) {
    std::vector<const void *> p;
    std::vector<size_t> l;
    for (const std::string &a : argv) {
      p.push_back(a.data());
      l.push_back(a.size());
    }
    cr_reply *r = nullptr;
    const cr_status s =
        cr_sentinel_client_command(&r, c, access, 1, argv.size(), p.data(), l.data());
    if (s == CR_OK && out != nullptr) {
      size_t len = 0;
      const char *str = cr_reply_get_string(r, &len);
      out->assign(str == nullptr ? "" : str, len);
    }
    cr_reply_free(r);
    return s;
  }

  std::string Master(const std::string &key) {
    cr_route r = CR_ROUTE_INIT;
    if (cr_shard_groups_route_write(&r, groups, key.data(), key.size()) != CR_OK) return "";
    return std::string(r.host) + ":" + std::to_string(r.port);
  }

  cr_sentinel_stats Stats() {
    cr_sentinel_stats st = CR_SENTINEL_STATS_INIT;
    EXPECT_EQ(cr_sentinel_client_get_stats(&st, c), CR_OK);
    return st;
  }

  // Reads the instance at addr answered so far (0 before it served any);
  // *all (optional) gets "addr=reads" of every instance.
  uint64_t ReadsServedBy(const std::string &addr, std::string *all = nullptr) {
    cr_client_node_stats ns[16];
    for (auto &x : ns) x = CR_CLIENT_NODE_STATS_INIT;
    size_t n = 0;
    EXPECT_EQ(cr_sentinel_client_get_node_stats(ns, 16, &n, c), CR_OK) << cr_last_error();
    uint64_t reads = 0;
    for (size_t i = 0; i < n && i < 16; ++i) {
      const std::string a = std::string(ns[i].host) + ":" + std::to_string(ns[i].port);
      if (all != nullptr) *all += a + "=" + std::to_string(ns[i].reads) + " ";
      if (a == addr) reads = ns[i].reads;
    }
    return reads;
  }
};

class SentinelLive : public ::testing::Test {
 protected:
  void SetUp() override {
    if (Env().empty()) GTEST_SKIP() << "CR_TEST_SENTINEL_ENV not set (run through ctest)";
  }
};
using SentinelEngine = SentinelLive;

TEST_F(SentinelLive, AsksTheSentinelsAndServesReadsAndWrites) {
  Fixture f;
  ASSERT_NE(f.c, nullptr);
  EXPECT_EQ(f.Master(f.keys[0][0]), Env()["GROUP0_MASTER"]);
  EXPECT_EQ(f.Master(f.keys[1][0]), Env()["GROUP1_MASTER"]);
  for (int g = 0; g < 2; ++g) {
    cr_candidate cand[8];
    for (auto &x : cand) {
      x = cr_candidate{};
      x.struct_size = sizeof x;
    }
    size_t n = 0;
    ASSERT_EQ(
        cr_shard_groups_candidates(cand, 8, &n, f.groups, f.keys[g][0].data(), f.keys[g][0].size()),
        CR_OK);
    EXPECT_EQ(n, 3u) << "master + 2 replicas from SENTINEL replicas";
    EXPECT_EQ(cand[0].tier, CR_TIER_LOCAL) << "cloud A first";
  }
  std::string v;
  ASSERT_EQ(f.Command(CR_ACCESS_WRITE, {"SET", "sentinel:basic", "1"}), CR_OK) << cr_last_error();
  ASSERT_EQ(f.Command(CR_ACCESS_WRITE, {"GET", "sentinel:basic"}, &v), CR_OK) << cr_last_error();
  EXPECT_EQ(v, "1");
  EXPECT_EQ(f.Command(CR_ACCESS_READ, {"LLEN", "sentinel:basic"}), CR_EREDIS);  // WRONGTYPE
  EXPECT_EQ(cr_sentinel_client_refresh(f.c), CR_OK) << cr_last_error();
  const cr_sentinel_stats st = f.Stats();
  EXPECT_EQ(st.subscribed, 1u);
  EXPECT_GE(st.asks, 2u);
  // Live-handle argument checks.
  cr_reply *r = nullptr;
  const void *argv[] = {"GET", "k"};
  const size_t lens[] = {3, 1};
  EXPECT_EQ(cr_sentinel_client_command(&r, f.c, CR_ACCESS_READ, 2, 2, argv, lens), CR_EINVAL);
  EXPECT_EQ(cr_sentinel_client_command(&r, f.c, CR_ACCESS_READ, 0, 0, argv, lens), CR_EINVAL);
  EXPECT_EQ(cr_sentinel_client_command(&r, f.c, (cr_access)7, 1, 2, argv, lens), CR_EINVAL);
  EXPECT_EQ(cr_sentinel_client_command(&r, f.c, CR_ACCESS_READ, 1, 2, NULL, lens), CR_EINVAL);
  EXPECT_EQ(cr_sentinel_client_command(&r, f.c, CR_ACCESS_AUTO, 1, 2, argv, lens), CR_EINVAL);
  EXPECT_NE(std::string(cr_last_error()).find("CR_ACCESS_AUTO is for the cluster client"),
            std::string::npos)
      << cr_last_error();
  EXPECT_EQ(r, nullptr);
  cr_sentinel_stats small = CR_SENTINEL_STATS_INIT;
  small.struct_size = 4;
  EXPECT_EQ(cr_sentinel_client_get_stats(&small, f.c), CR_EINVAL);
}

TEST_F(SentinelLive, UnknownMasterNameIsNotFound) {
  cr_ring *ring = nullptr;
  cr_ring_options ro = CR_RING_OPTIONS_INIT;
  ASSERT_EQ(cr_ring_new(&ring, &ro), CR_OK);
  ASSERT_EQ(cr_ring_add_shard(ring, "nosuch", 1), CR_OK);
  ASSERT_EQ(cr_ring_build(ring), CR_OK);
  const char *names[] = {"nosuch"};
  cr_sentinel_client *c = nullptr;
  EXPECT_EQ(cr_sentinel_client_new(&c, NULL, NULL, ring, names, 1, Env()["SENTINELS"].c_str()),
            CR_ENOTFOUND);
  EXPECT_NE(std::string(cr_last_error()).find("nosuch"), std::string::npos) << cr_last_error();
  EXPECT_EQ(c, nullptr);
  cr_ring_free(ring);
}

// Reads every key of both groups in a loop until stopped.
struct Reader {
  Fixture *f;
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> ok{0}, failed{0}, wrong{0};
  std::atomic<long long> max_us{0};
  std::atomic<uint64_t> slow{0};  // reads slower than 250 ms
  std::mutex mu;
  std::vector<std::string> errors;
  std::thread t;

  explicit Reader(Fixture *fx) : f(fx) {
    t = std::thread([this] {
      for (size_t i = 0; !stop.load(); ++i) {
        const std::string &k = f->keys[i % 2][(i / 2) % f->keys[i % 2].size()];
        std::string v;
        const auto t0 = Clock::now();
        const cr_status s = f->Command(CR_ACCESS_READ, {"GET", k}, &v);
        const long long us =
            std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - t0).count();
        if (us > max_us.load()) max_us.store(us);
        if (us > 250000) slow++;
        if (s != CR_OK) {
          failed++;
          std::lock_guard<std::mutex> lock(mu);
          if (errors.size() < 5)
            errors.push_back(k + ": " + cr_status_str(s) + ": " + cr_last_error());
        } else if (v != "v:" + k) {
          wrong++;
        } else {
          ok++;
        }
      }
    });
  }
  void Stop() {
    stop = true;
    if (t.joinable()) t.join();
  }
  ~Reader() { Stop(); }
};

// Writes probe (a key of the group) until a write lands on a master other
// than old_master; returns {switch_ms, write_ms} or {-1, -1} after 30 s.
std::pair<long long, long long> AwaitNewMaster(Fixture &f, const std::string &probe,
                                               const std::string &old_master,
                                               Clock::time_point t0) {
  long long switch_ms = -1;
  while (MsSince(t0) < 30000) {
    const std::string m = f.Master(probe);
    if (switch_ms < 0 && !m.empty() && m != old_master) switch_ms = MsSince(t0);
    if (switch_ms >= 0 && f.Command(CR_ACCESS_WRITE, {"SET", probe, "v:" + probe}) == CR_OK &&
        f.Master(probe) != old_master) {
      return {switch_ms, MsSince(t0)};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return {-1, -1};
}

int Shell(const std::string &cmd) { return std::system(cmd.c_str()); }

// True when every replica of the keys' group (its candidates less the
// master) holds "v:<key>" for each key.
bool ReplicasHoldValues(Fixture &f, const std::vector<std::string> &keys) {
  cr_candidate cand[8];
  for (auto &x : cand) {
    x = cr_candidate{};
    x.struct_size = sizeof x;
  }
  size_t n = 0;
  if (cr_shard_groups_candidates(cand, 8, &n, f.groups, keys[0].data(), keys[0].size()) != CR_OK) {
    return false;
  }
  std::string mget = "MGET", expected;
  for (const std::string &k : keys) {
    mget += " " + k;
    expected += (expected.empty() ? "v:" : "\nv:") + k;
  }
  const std::string master = f.Master(keys[0]);
  for (size_t i = 0; i < n; ++i) {
    const std::string addr = std::string(cand[i].host) + ":" + std::to_string(cand[i].port);
    if (addr != master && crtest::CliLine(addr, mget) != expected) return false;
  }
  return n > 1;
}

// Writes "v:<key>" to every key of both groups and waits until every
// replica holds them.
void SeedKeys(Fixture &f) {
  for (int g = 0; g < 2; ++g) {
    for (const std::string &k : f.keys[g]) {
      ASSERT_EQ(f.Command(CR_ACCESS_WRITE, {"SET", k, "v:" + k}), CR_OK) << cr_last_error();
    }
  }
  for (int g = 0; g < 2; ++g) {
    ASSERT_TRUE(crtest::WaitUntil([&] { return ReplicasHoldValues(f, f.keys[g]); },
                                  std::chrono::seconds(10), std::chrono::milliseconds(50)))
        << "the replicas of group" << g << " did not catch up";
  }
}

// The harness's node (NODE<n>_*) whose address is addr: its PID; "" if none.
std::string PidOf(const std::string &addr) {
  for (int n = 1; n <= 6; ++n) {
    if (Env()["NODE" + std::to_string(n) + "_ADDR"] == addr)
      return Env()["NODE" + std::to_string(n) + "_PID"];
  }
  return "";
}

// The local (cloud A) replica of group g, from the harness's layout.
std::string LocalReplica(int g) {
  for (int n = 1; n <= 6; ++n) {
    const std::string p = "NODE" + std::to_string(n);
    if (Env()[p + "_GROUP"] == "group" + std::to_string(g) && Env()[p + "_ROLE"] == "replica" &&
        Env()[p + "_CLOUD"] == "A")
      return Env()[p + "_ADDR"];
  }
  return "";
}

TEST_F(SentinelLive, MastersMoveWhileReadsKeepBeingServed) {
  Fixture f;
  ASSERT_NE(f.c, nullptr);
  ASSERT_NO_FATAL_FAILURE(SeedKeys(f));

  Reader reader(&f);
  ASSERT_TRUE(crtest::WaitUntil([&] { return reader.ok.load() > 0; }, std::chrono::seconds(10)))
      << "the reader read nothing: " << reader.failed.load() << " failed reads";

  // 1. SENTINEL FAILOVER of group0 (a planned move).
  const std::string sentinel = Env()["SENTINEL1_ADDR"];
  const std::string old0 = f.Master(f.keys[0][0]);
  ASSERT_EQ(old0, Env()["GROUP0_MASTER"]);
  uint64_t reads_before = reader.ok.load() + reader.failed.load();
  auto t0 = Clock::now();
  ASSERT_EQ(
      Shell("timeout 5 redis-cli -h " + sentinel.substr(0, sentinel.rfind(':')) + " -p " +
            sentinel.substr(sentinel.rfind(':') + 1) + " SENTINEL FAILOVER group0 >/dev/null"),
      0);
  auto [sw0, wr0] = AwaitNewMaster(f, f.keys[0][0], old0, t0);
  ASSERT_GE(wr0, 0) << "writes did not resume on a new master of group0";
  std::printf(
      "RECOVERY scenario=sentinel_failover switch_ms=%lld write_ms=%lld new_master=%s "
      "reads_during=%llu failed_reads=%llu\n",
      sw0, wr0, f.Master(f.keys[0][0]).c_str(),
      static_cast<unsigned long long>(reader.ok.load() + reader.failed.load() - reads_before),
      static_cast<unsigned long long>(reader.failed.load()));
  EXPECT_TRUE(
      crtest::WaitUntil([&] { return crtest::CliLine(old0, "ROLE").rfind("slave\n", 0) == 0; },
                        std::chrono::seconds(15), std::chrono::milliseconds(100)))
      << "the old master of group0 did not rejoin as a replica";

  // 2. kill -9 of the sentinel the client is subscribed to (the first that
  // answers: sentinel 1), then of group1's master (an unplanned move): the
  // client must resubscribe on another sentinel to hear of it.
  ASSERT_EQ(kill(std::stoi(Env()["SENTINEL1_PID"]), SIGKILL), 0);
  const std::string old1 = f.Master(f.keys[1][0]);
  const std::string pid = PidOf(old1);
  ASSERT_FALSE(pid.empty()) << "no PID for " << old1;
  reads_before = reader.ok.load() + reader.failed.load();
  t0 = Clock::now();
  ASSERT_EQ(kill(std::stoi(pid), SIGKILL), 0);
  auto [sw1, wr1] = AwaitNewMaster(f, f.keys[1][0], old1, t0);
  ASSERT_GE(wr1, 0) << "writes did not resume on a new master of group1";
  std::printf(
      "RECOVERY scenario=sentinel_kill9 switch_ms=%lld write_ms=%lld new_master=%s "
      "reads_during=%llu failed_reads=%llu\n",
      sw1, wr1, f.Master(f.keys[1][0]).c_str(),
      static_cast<unsigned long long>(reader.ok.load() + reader.failed.load() - reads_before),
      static_cast<unsigned long long>(reader.failed.load()));
  // Reads go on being served after both moves.
  const uint64_t ok_after = reader.ok.load();
  EXPECT_TRUE(crtest::WaitUntil([&] { return reader.ok.load() >= ok_after + 20; },
                                std::chrono::seconds(10)))
      << "reads stopped after the moves";
  reader.Stop();

  const cr_sentinel_stats st = f.Stats();
  std::printf(
      "reads ok=%llu failed=%llu wrong=%llu max_read_ms=%.1f fallbacks=%llu switch_events=%llu "
      "master_changes=%llu asks=%llu subscriptions=%llu retries=%llu\n",
      static_cast<unsigned long long>(reader.ok.load()),
      static_cast<unsigned long long>(reader.failed.load()),
      static_cast<unsigned long long>(reader.wrong.load()), reader.max_us.load() / 1000.0,
      static_cast<unsigned long long>(st.fallbacks),
      static_cast<unsigned long long>(st.switch_events),
      static_cast<unsigned long long>(st.master_changes), static_cast<unsigned long long>(st.asks),
      static_cast<unsigned long long>(st.subscriptions),
      static_cast<unsigned long long>(st.retries));
  for (const std::string &e : reader.errors) std::printf("read error: %s\n", e.c_str());
  EXPECT_EQ(reader.failed.load(), 0u) << "reads failed while the masters moved";
  EXPECT_EQ(reader.wrong.load(), 0u) << "reads returned another value";
  EXPECT_GT(reader.ok.load(), 100u);
  EXPECT_GE(st.master_changes, 2u);
  EXPECT_GE(st.subscriptions, 2u) << "did not resubscribe after its sentinel died";
  // Every key is still readable and writable through the new masters.
  for (int g = 0; g < 2; ++g) {
    std::string v;
    ASSERT_EQ(f.Command(CR_ACCESS_WRITE, {"SET", f.keys[g][1], "after"}), CR_OK) << cr_last_error();
    ASSERT_EQ(f.Command(CR_ACCESS_WRITE, {"GET", f.keys[g][1]}, &v), CR_OK) << cr_last_error();
    EXPECT_EQ(v, "after");
  }
}

// redis-cli's output for args sent to every data node, or every sentinel,
// of the harness; false when one did not answer OK.
bool OnEach(const char *kind, const std::string &args) {
  const int count = std::stoi(Env()[std::string(kind) + "_COUNT"]);
  for (int n = 1; n <= count; ++n) {
    if (crtest::CliLine(Env()[std::string(kind) + std::to_string(n) + "_ADDR"], args) != "OK")
      return false;
  }
  return true;
}

// ACL users of their own on the sentinels and on the data nodes (made at
// run time: the default user stays for the harness): the client
// authenticates as each, the data nodes' user's key pattern holds, and a
// wrong password of either is refused without appearing in the error.
TEST_F(SentinelEngine, AclUsersForTheSentinelsAndTheDataNodes) {
  ASSERT_TRUE(
      OnEach("SENTINEL", "ACL SETUSER cr-sentinel on '>sentinel-secret' allchannels +@all"));
  ASSERT_TRUE(OnEach("NODE", "ACL SETUSER cr-app on '>app-secret' '~sentinel:*' +@all"));
  auto with = [](const char *sentinel_password, const char *password) {
    return [=](cr_sentinel_options *o) {
      o->sentinel_username = "cr-sentinel";
      o->sentinel_password = sentinel_password;
      o->username = "cr-app";
      o->password = password;
    };
  };
  {
    Fixture f(with("sentinel-secret", "app-secret"));
    ASSERT_NE(f.c, nullptr);
    std::string v;
    ASSERT_EQ(f.Command(CR_ACCESS_WRITE, {"SET", f.keys[1][0], "acl"}), CR_OK) << cr_last_error();
    ASSERT_TRUE(crtest::WaitUntil(
        [&] {
          return f.Command(CR_ACCESS_READ, {"GET", f.keys[1][0]}, &v) == CR_OK && v == "acl";
        },
        std::chrono::seconds(5)))
        << cr_last_error();
    EXPECT_EQ(f.Command(CR_ACCESS_WRITE, {"SET", "other:key", "x"}), CR_EREDIS);
    EXPECT_NE(std::string(cr_last_error()).find("NOPERM"), std::string::npos) << cr_last_error();
    EXPECT_EQ(f.Stats().subscribed, 1) << "the subscription did not authenticate";
  }
  {
    cr_ring *ring = nullptr;
    cr_ring_options ro = CR_RING_OPTIONS_INIT;
    ASSERT_EQ(cr_ring_new(&ring, &ro), CR_OK);
    ASSERT_EQ(cr_ring_add_shard(ring, "group0", 1), CR_OK);
    ASSERT_EQ(cr_ring_build(ring), CR_OK);
    cr_sentinel_options o = CR_SENTINEL_OPTIONS_INIT;
    with("wrong-sentinel-secret", "app-secret")(&o);
    const char *names[] = {"group0"};
    cr_sentinel_client *c = nullptr;
    EXPECT_NE(cr_sentinel_client_new(&c, NULL, &o, ring, names, 1, Env()["SENTINELS"].c_str()),
              CR_OK);
    EXPECT_EQ(c, nullptr);
    EXPECT_EQ(std::string(cr_last_error()).find("wrong-sentinel-secret"), std::string::npos);
    cr_ring_free(ring);
  }
  {
    Fixture f(with("sentinel-secret", "wrong-app-secret"));
    ASSERT_NE(f.c, nullptr) << "the sentinels' user is right: the client starts";
    EXPECT_NE(f.Command(CR_ACCESS_WRITE, {"SET", f.keys[0][0], "x"}), CR_OK);
    const std::string err = cr_last_error();
    EXPECT_EQ(err.find("wrong-app-secret"), std::string::npos) << err;
    EXPECT_NE(f.Command(CR_ACCESS_READ, {"GET", f.keys[0][0]}), CR_OK);
  }
}

// Asynchronous calls (cr_sentinel_client_submit): 200 SETs then 200 GETs of
// both groups in flight at once, each its own value, once through the
// completion queue; then the client freed with GETs in flight: every
// callback runs once before the free returns.
struct AsyncCall {
  std::string key, want;
  std::atomic<int> calls{0};
  cr_status status = CR_OK;
  std::string got, error;
};

void RecordAsync(void *ud, cr_status status, cr_reply *reply) {
  auto *a = static_cast<AsyncCall *>(ud);
  a->status = status;
  if (status == CR_OK) {
    size_t len = 0;
    const char *p = cr_reply_get_string(reply, &len);
    a->got.assign(p == nullptr ? "" : p, len);
    cr_reply_free(reply);
  } else {
    a->error = cr_last_error();
  }
  a->calls.fetch_add(1);
}

cr_status SubmitAsync(cr_sentinel_client *c, AsyncCall *a, bool write) {
  const void *argv[] = {write ? "SET" : "GET", a->key.data(), a->want.data()};
  const size_t lens[] = {3, a->key.size(), a->want.size()};
  return cr_sentinel_client_submit(c, nullptr, write ? CR_ACCESS_WRITE : CR_ACCESS_READ, 1,
                                   write ? 3 : 2, argv, lens, &RecordAsync, a);
}

TEST_F(SentinelEngine, AsyncCallsEachGetTheirOwnReplyAndFreeRunsEveryCallbackOnce) {
  Fixture f;
  ASSERT_NE(f.c, nullptr);
  int fd = -1;
  ASSERT_EQ(cr_sentinel_client_completion_fd(&fd, f.c), CR_OK);
  std::vector<AsyncCall> sets(200), gets(200);
  for (size_t i = 0; i < sets.size(); ++i) {
    sets[i].key = gets[i].key = "sentinel:async:" + std::to_string(i);
    sets[i].want = gets[i].want = "a" + std::to_string(i);
  }
  auto run = [&](std::vector<AsyncCall> &calls) {
    return crtest::WaitUntil(
        [&] {
          size_t ran = 0;
          EXPECT_EQ(cr_sentinel_client_run_completions(&ran, f.c, 0), CR_OK);
          return std::all_of(calls.begin(), calls.end(),
                             [](const AsyncCall &a) { return a.calls.load() > 0; });
        },
        std::chrono::seconds(20));
  };
  for (AsyncCall &a : sets) ASSERT_EQ(SubmitAsync(f.c, &a, true), CR_OK) << cr_last_error();
  ASSERT_TRUE(run(sets));
  for (const AsyncCall &a : sets) {
    ASSERT_EQ(a.status, CR_OK) << a.error;
    EXPECT_EQ(a.got, "OK");
  }
  // Reads go to cloud A's instances, which may lag the write: polled.
  for (int round = 0; round < 50; ++round) {
    for (AsyncCall &a : gets) {
      a.calls = 0;
      ASSERT_EQ(SubmitAsync(f.c, &a, false), CR_OK) << cr_last_error();
    }
    ASSERT_TRUE(run(gets));
    if (std::all_of(gets.begin(), gets.end(), [](const AsyncCall &a) { return a.got == a.want; }))
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (const AsyncCall &a : gets) {
    EXPECT_EQ(a.calls.load(), 1);
    ASSERT_EQ(a.status, CR_OK) << a.error;
    EXPECT_EQ(a.got, a.want) << a.key;
  }
  const void *argv[] = {"GET", "k"};
  const size_t lens[] = {3, 1};
  EXPECT_EQ(cr_sentinel_client_submit(f.c, nullptr, CR_ACCESS_AUTO, 1, 2, argv, lens, &RecordAsync,
                                      nullptr),
            CR_EINVAL);
  for (AsyncCall &a : gets) {
    a.calls = 0;
    ASSERT_EQ(SubmitAsync(f.c, &a, false), CR_OK);
  }
  cr_sentinel_client_free(f.c);  // nothing run: every completion runs here, cancelled
  f.c = nullptr;
  for (const AsyncCall &a : gets) {
    EXPECT_EQ(a.calls.load(), 1);
    EXPECT_EQ(a.status, CR_ECONN);
    EXPECT_EQ(a.error.rfind("cancelled:", 0), 0u) << a.error;
  }
}

// A stalled local replica (SIGSTOP) under hedged reads: no read fails, none
// waits for the stalled node's timeout (hedge delay 20 ms), the replica is set
// aside; after SIGCONT the recovery prober brings it back and it serves reads
// again. Then it is killed (kill -9): still no read fails.
TEST_F(SentinelEngine, AStalledThenKilledLocalReplicaCostsNoRead) {
  Fixture f([](cr_sentinel_options *o) {
    o->hedge_mode = CR_HEDGE_MODE_FIXED;
    o->hedge_delay_ms = 20;
    o->hedge_budget_percent = 100;
  });
  ASSERT_NE(f.c, nullptr);
  ASSERT_NO_FATAL_FAILURE(SeedKeys(f));
  const std::string replica = LocalReplica(1);
  const std::string pid = PidOf(replica);
  ASSERT_FALSE(pid.empty()) << "no local replica of group1 in the harness's layout";
  Reader reader(&f);
  ASSERT_TRUE(
      crtest::WaitUntil([&] { return f.ReadsServedBy(replica) > 20; }, std::chrono::seconds(10)))
      << "the local replica of group1 (" << replica << ") served no reads: " << [&] {
           std::string all;
           f.ReadsServedBy(replica, &all);
           return all;
         }();

  // 1. Stalled.
  ASSERT_EQ(kill(std::stoi(pid), SIGSTOP), 0);
  uint64_t ok_before = reader.ok.load();
  const auto t0 = Clock::now();
  EXPECT_TRUE(crtest::WaitUntil([&] { return reader.ok.load() >= ok_before + 300; },
                                std::chrono::seconds(10)))
      << "reads stalled with the replica";
  const uint64_t served_stalled = f.ReadsServedBy(replica);
  const long long stalled_max_ms = reader.max_us.load() / 1000;
  const cr_sentinel_stats during = f.Stats();
  kill(std::stoi(pid), SIGCONT);
  std::printf(
      "RECOVERY scenario=sentinel_replica_stalled max_read_ms=%lld slow_reads=%llu "
      "hedges=%llu hedges_won=%llu stalled_ms=%lld\n",
      stalled_max_ms, static_cast<unsigned long long>(reader.slow.load()),
      static_cast<unsigned long long>(during.hedges),
      static_cast<unsigned long long>(during.hedges_won), MsSince(t0));
  EXPECT_EQ(reader.failed.load(), 0u);
  EXPECT_LT(stalled_max_ms, 250) << "a read waited for the stalled replica";
  EXPECT_GE(during.hedges_won, 1u) << "no hedge answered for the stalled replica";

  // 2. Back (SIGCONT): the prober closes its breaker; it serves reads again.
  EXPECT_TRUE(crtest::WaitUntil([&] { return f.ReadsServedBy(replica) > served_stalled + 20; },
                                std::chrono::seconds(15), std::chrono::milliseconds(50)))
      << "the replica did not serve reads again after SIGCONT";

  // 3. Killed.
  ASSERT_EQ(kill(std::stoi(pid), SIGKILL), 0);
  ok_before = reader.ok.load();
  EXPECT_TRUE(crtest::WaitUntil([&] { return reader.ok.load() >= ok_before + 300; },
                                std::chrono::seconds(10)))
      << "reads stopped with the replica killed";
  reader.Stop();
  const cr_sentinel_stats st = f.Stats();
  std::printf(
      "RECOVERY scenario=sentinel_replica_killed failed_reads=%llu max_read_ms=%lld "
      "conn_errors=%llu timeouts=%llu fallbacks=%llu\n",
      static_cast<unsigned long long>(reader.failed.load()), reader.max_us.load() / 1000,
      static_cast<unsigned long long>(st.conn_errors), static_cast<unsigned long long>(st.timeouts),
      static_cast<unsigned long long>(st.fallbacks));
  for (const std::string &e : reader.errors) std::printf("read error: %s\n", e.c_str());
  EXPECT_EQ(reader.failed.load(), 0u) << "reads failed with the replica stalled or killed";
  EXPECT_EQ(reader.wrong.load(), 0u);
  // The metrics name the instance (the engine's per-node counters).
  char text[65536];
  size_t needed = 0;
  ASSERT_EQ(cr_sentinel_client_get_metrics_text(text, sizeof text, &needed, f.c), CR_OK)
      << cr_last_error();
  EXPECT_NE(std::string(text).find("node=\"" + replica + "\""), std::string::npos);
}

// SENTINEL FAILOVER under reads and writes: no read fails; writes resume on
// the new master, and every key's last acknowledged value is there (each key
// is written again after the switch: a write the old master acknowledged
// before Sentinel demoted it may be lost by Redis itself, not by the client).
TEST_F(SentinelEngine, AFailoverUnderReadsAndWritesKeepsWritesOnTheNewMaster) {
  Fixture f;
  ASSERT_NE(f.c, nullptr);
  ASSERT_NO_FATAL_FAILURE(SeedKeys(f));
  std::vector<std::string> wkeys;  // keys of group0 the writer writes
  for (int i = 0; wkeys.size() < 20; ++i) {
    const std::string k = "sentinel:w:" + std::to_string(i);
    uint32_t g = 0;
    ASSERT_EQ(cr_shard_groups_locate(&g, f.groups, k.data(), k.size()), CR_OK);
    if (g == 0) wkeys.push_back(k);
  }
  Reader reader(&f);
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> acked{0}, refused{0};
  std::vector<std::string> last_acked(wkeys.size());
  std::thread writer([&] {
    for (uint64_t i = 0; !stop.load(); ++i) {
      const size_t k = i % wkeys.size();
      const std::string v = "w:" + std::to_string(i);
      if (f.Command(CR_ACCESS_WRITE, {"SET", wkeys[k], v}) == CR_OK) {
        last_acked[k] = v;
        acked++;
      } else {
        refused++;
      }
    }
  });
  ASSERT_TRUE(crtest::WaitUntil([&] { return acked.load() > 50; }, std::chrono::seconds(10)));
  const std::string old0 = f.Master(f.keys[0][0]);
  const std::string sentinel = Env()["SENTINEL1_ADDR"];
  const auto t0 = Clock::now();
  ASSERT_EQ(
      Shell("timeout 5 redis-cli -h " + sentinel.substr(0, sentinel.rfind(':')) + " -p " +
            sentinel.substr(sentinel.rfind(':') + 1) + " SENTINEL FAILOVER group0 >/dev/null"),
      0);
  ASSERT_TRUE(crtest::WaitUntil(
      [&] { return !f.Master(f.keys[0][0]).empty() && f.Master(f.keys[0][0]) != old0; },
      std::chrono::seconds(30)))
      << "the client did not route group0's writes to a new master";
  const uint64_t acked_at_switch = acked.load();
  EXPECT_TRUE(crtest::WaitUntil([&] { return acked.load() > acked_at_switch + 5 * wkeys.size(); },
                                std::chrono::seconds(15)))
      << "writes did not resume on the new master";
  stop = true;
  writer.join();
  reader.Stop();
  const cr_sentinel_stats st = f.Stats();
  std::printf(
      "RECOVERY scenario=sentinel_failover_writes switch_ms=%lld acked=%llu refused=%llu "
      "retries=%llu failed_reads=%llu\n",
      MsSince(t0), static_cast<unsigned long long>(acked.load()),
      static_cast<unsigned long long>(refused.load()), static_cast<unsigned long long>(st.retries),
      static_cast<unsigned long long>(reader.failed.load()));
  for (const std::string &e : reader.errors) std::printf("read error: %s\n", e.c_str());
  EXPECT_EQ(reader.failed.load(), 0u) << "reads failed during the failover";
  // Every key's last acknowledged value is on the new master (a GET sent
  // as a write goes to the master).
  for (size_t k = 0; k < last_acked.size(); ++k) {
    if (last_acked[k].empty()) continue;
    std::string v;
    ASSERT_EQ(f.Command(CR_ACCESS_WRITE, {"GET", wkeys[k]}, &v), CR_OK) << cr_last_error();
    EXPECT_EQ(v, last_acked[k]) << "an acknowledged write to " << wkeys[k] << " was lost";
  }
}

// Right after a failover Sentinel lists the old master among the group's
// replicas (flags "slave", role-reported "master") while the old master
// still answers as a master with the data it had, until Sentinel converts it
// seconds later. Not one read is served from it before then: every read
// returns the value written on the new master.
TEST_F(SentinelEngine, ADemotedMasterServesNoReadBeforeItReplicates) {
  Fixture f;
  ASSERT_NE(f.c, nullptr);
  ASSERT_NO_FATAL_FAILURE(SeedKeys(f));
  const std::vector<std::string> &keys = f.keys[0];
  const std::string old0 = f.Master(keys[0]);
  const std::string sentinel = Env()["SENTINEL1_ADDR"];
  // The previous test's failover may still hold the group: asked again.
  ASSERT_TRUE(crtest::WaitUntil(
      [&] { return crtest::CliLine(sentinel, "SENTINEL FAILOVER group0") == "OK"; },
      std::chrono::seconds(30), std::chrono::milliseconds(500)))
      << "Sentinel refused the failover of group0";
  ASSERT_TRUE(
      crtest::WaitUntil([&] { return !f.Master(keys[0]).empty() && f.Master(keys[0]) != old0; },
                        std::chrono::seconds(30)))
      << "the client did not see group0's new master";
  const std::string new0 = f.Master(keys[0]);
  std::string mget = "MGET", expected;
  for (const std::string &k : keys) {
    ASSERT_EQ(f.Command(CR_ACCESS_WRITE, {"SET", k, "after:" + k}), CR_OK) << cr_last_error();
    mget += " " + k;
    expected += (expected.empty() ? "after:" : "\nafter:") + k;
  }
  // The third instance of the group replicates from the new master once
  // Sentinel re-points it: reads are judged from then on.
  std::string third;
  for (int n = 1; n <= 6; ++n) {
    const std::string a = Env()["NODE" + std::to_string(n) + "_ADDR"];
    if (Env()["NODE" + std::to_string(n) + "_GROUP"] == "group0" && a != old0 && a != new0)
      third = a;
  }
  ASSERT_FALSE(third.empty());
  ASSERT_TRUE(crtest::WaitUntil([&] { return crtest::CliLine(third, mget) == expected; },
                                std::chrono::seconds(20), std::chrono::milliseconds(50)))
      << third << " did not replicate from the new master " << new0;
  uint64_t rounds = 0, wrong = 0;
  std::string first_wrong;
  const auto t0 = Clock::now();
  // While the old master still holds its own data (not converted yet, or
  // not synced), every read must come from elsewhere.
  while (MsSince(t0) < 20000 && crtest::CliLine(old0, "GET " + keys[0]) == "v:" + keys[0]) {
    rounds++;
    for (const std::string &k : keys) {
      std::string v;
      const cr_status st = f.Command(CR_ACCESS_READ, {"GET", k}, &v);
      if (st == CR_OK && v == "after:" + k) continue;
      if (wrong++ == 0) first_wrong = k + " = '" + v + "' (status " + std::to_string(st) + ")";
    }
  }
  std::printf(
      "RECOVERY scenario=sentinel_demoted_master old=%s new=%s stale_rounds=%llu wrong=%llu\n",
      old0.c_str(), new0.c_str(), static_cast<unsigned long long>(rounds),
      static_cast<unsigned long long>(wrong));
  EXPECT_GT(rounds, 0u) << "the old master replicated before any read was judged";
  EXPECT_EQ(wrong, 0u) << "first: " << first_wrong;
}

// ---- Batches (MGET, MSET, DEL, EXISTS over many keys), on a setup of
// their own (ctest integration.sentinel_batch, ports 8831-8843): one
// command per group per call, a result per key, a failover and a killed
// replica under a stream of batches.

// The (pointer, length) arrays of a key (or value) list.
struct Bytes {
  std::vector<const void *> p;
  std::vector<size_t> l;
  explicit Bytes(const std::vector<std::string> &v) {
    for (const std::string &s : v) {
      p.push_back(s.data());
      l.push_back(s.size());
    }
  }
};

// What a batch call left: its status, cr_last_error(), a status per key.
struct BatchOut {
  cr_status st = CR_OK;
  std::string error;
  std::vector<cr_status> statuses;
  std::vector<std::string> values;  // MGET: each key's value ("<nil>", "<error>")
  int64_t count = -1;               // DEL / EXISTS
  size_t failed() const {
    size_t n = 0;
    for (cr_status s : statuses) n += s != CR_OK ? 1 : 0;
    return n;
  }
};

// An MGET result's value: the string, "<nil>" or "<error>".
std::string ValueOf(const cr_reply *r) {
  size_t len = 0;
  const char *s = cr_reply_get_string(r, &len);
  return cr_reply_get_type(r) == CR_REPLY_TYPE_NIL     ? "<nil>"
         : cr_reply_get_type(r) == CR_REPLY_TYPE_ERROR ? "<error>"
                                                       : std::string(s, len);
}

BatchOut MSet(Fixture &f, const std::vector<std::string> &keys,
              const std::vector<std::string> &values) {
  BatchOut o;
  o.statuses.assign(keys.size(), CR_OK);
  const Bytes k(keys), v(values);
  o.st = cr_sentinel_client_mset(o.statuses.data(), f.c, k.p.data(), k.l.data(), v.p.data(),
                                 v.l.data(), keys.size());
  if (o.st != CR_OK) o.error = cr_last_error();
  return o;
}

BatchOut MGet(Fixture &f, const std::vector<std::string> &keys) {
  BatchOut o;
  o.statuses.assign(keys.size(), CR_OK);
  std::vector<cr_reply *> replies(keys.size(), nullptr);
  const Bytes k(keys);
  o.st = cr_sentinel_client_mget(replies.data(), o.statuses.data(), f.c, k.p.data(), k.l.data(),
                                 keys.size());
  if (o.st != CR_OK) o.error = cr_last_error();
  for (cr_reply *r : replies) {
    if (r == nullptr) continue;  // refused before anything was sent
    o.values.push_back(ValueOf(r));
    cr_reply_free(r);
  }
  return o;
}

// DEL (del true) or EXISTS.
BatchOut Count(Fixture &f, bool del, const std::vector<std::string> &keys) {
  BatchOut o;
  o.statuses.assign(keys.size(), CR_OK);
  const Bytes k(keys);
  o.st = del ? cr_sentinel_client_del(&o.count, o.statuses.data(), f.c, k.p.data(), k.l.data(),
                                      keys.size())
             : cr_sentinel_client_exists(&o.count, o.statuses.data(), f.c, k.p.data(), k.l.data(),
                                         keys.size());
  if (o.st != CR_OK) o.error = cr_last_error();
  return o;
}

// The calls of one command (lower case: "mset") a data node has counted.
long long Calls(const std::string &addr, const std::string &cmd) {
  return static_cast<long long>(
      crtest::CommandCalls(crtest::CliLine(addr, "INFO commandstats"), cmd));
}

// The fixture's 100 keys, 50 of each group, interleaved.
std::vector<std::string> HundredKeys(const Fixture &f) {
  std::vector<std::string> keys;
  for (size_t i = 0; i < 50; ++i) {
    keys.push_back(f.keys[0][i]);
    keys.push_back(f.keys[1][i]);
  }
  return keys;
}

using SentinelBatch = SentinelLive;

// 100 keys over both groups (binary-safe: a NUL and high bytes in keys and
// values): each call is one command per group, results in key order.
TEST_F(SentinelBatch, HundredKeysAcrossGroupsOneCommandPerGroup) {
  Fixture f;
  ASSERT_NE(f.c, nullptr);
  std::vector<std::string> keys = HundredKeys(f), values;
  keys[0] = std::string("bin\0key\xff", 8);  // some group's, binary
  for (size_t i = 0; i < keys.size(); ++i)
    values.push_back(std::string("v\0", 2) + std::to_string(i) + "\xfe");
  const std::string m0 = f.Master(f.keys[0][0]), m1 = f.Master(f.keys[1][0]);
  const long long mset0 = Calls(m0, "mset"), mset1 = Calls(m1, "mset");
  const long long set0 = Calls(m0, "set"), set1 = Calls(m1, "set");

  BatchOut w = MSet(f, keys, values);
  ASSERT_EQ(w.st, CR_OK) << w.error;
  EXPECT_EQ(w.failed(), 0u);
  EXPECT_EQ(Calls(m0, "mset"), mset0 + 1) << "not one MSET for group0";
  EXPECT_EQ(Calls(m1, "mset"), mset1 + 1) << "not one MSET for group1";
  EXPECT_EQ(Calls(m0, "set") + Calls(m1, "set"), set0 + set1) << "a key was SET on its own";

  std::vector<std::string> read_keys = keys;
  read_keys.push_back("sentinel:batch:absent");
  BatchOut r;
  ASSERT_TRUE(crtest::WaitUntil(  // replicas may serve the reads: wait for them to catch up
      [&] {
        r = MGet(f, read_keys);
        return r.st == CR_OK && r.values.size() == read_keys.size() &&
               std::equal(values.begin(), values.end(), r.values.begin());
      },
      std::chrono::seconds(10)))
      << r.error;
  EXPECT_EQ(r.values.back(), "<nil>");

  BatchOut e = Count(f, false, read_keys);
  ASSERT_EQ(e.st, CR_OK) << e.error;
  EXPECT_EQ(e.count, 100);
  BatchOut d = Count(f, true, read_keys);
  ASSERT_EQ(d.st, CR_OK) << d.error;
  EXPECT_EQ(d.count, 100);
  EXPECT_EQ(Count(f, true, keys).count, 0);

  // Binary-safe GET / SET, and a time to live.
  const std::string bk("k\0\xff", 3), bv("\0v\xff\0", 4);
  ASSERT_EQ(cr_sentinel_client_set(f.c, bk.data(), bk.size(), bv.data(), bv.size(), 0), CR_OK)
      << cr_last_error();
  cr_reply *got = nullptr;
  ASSERT_EQ(cr_sentinel_client_get(&got, f.c, bk.data(), bk.size()), CR_OK) << cr_last_error();
  size_t len = 0;
  const char *s = cr_reply_get_string(got, &len);
  EXPECT_EQ(std::string(s, len), bv);
  cr_reply_free(got);
  int set = -1;
  ASSERT_EQ(cr_sentinel_client_expire(&set, f.c, bk.data(), bk.size(), 60000), CR_OK)
      << cr_last_error();
  EXPECT_EQ(set, 1);
  const std::string absent = "sentinel:batch:absent";
  ASSERT_EQ(cr_sentinel_client_expire(&set, f.c, absent.data(), absent.size(), 1000), CR_OK);
  EXPECT_EQ(set, 0);
}

// Bad input: a clear CR_EINVAL, nothing sent, nothing written.
// A submitted batch's completion, recorded as a blocking batch's BatchOut.
struct AsyncBatch {
  std::atomic<int> calls{0};
  BatchOut out;
};

void RecordBatch(void *ud, cr_status st, size_t n, cr_reply *const *replies,
                 const cr_status *statuses, int64_t count) {
  auto *a = static_cast<AsyncBatch *>(ud);
  a->out = BatchOut();
  a->out.st = st;
  if (st != CR_OK) a->out.error = cr_last_error();
  a->out.statuses.assign(statuses, statuses + n);
  a->out.count = count;
  for (size_t i = 0; replies != nullptr && i < n; ++i) {
    a->out.values.push_back(ValueOf(replies[i]));
    cr_reply_free(replies[i]);
  }
  a->calls.fetch_add(1);
}

// 20 batches of 30 keys in flight at once, MSET then MGET (polled: cloud A's
// instances may lag the writes), EXISTS and DEL: each completes once with
// what the blocking batch gives; bad arguments are refused with no callback;
// freeing the client with batches in flight completes each once, cancelled.
TEST_F(SentinelBatch, SubmittedBatchesAnswerAsTheBlockingOnesAndFreeCancelsEachOnce) {
  Fixture f;
  ASSERT_NE(f.c, nullptr);
  int fd = -1;
  ASSERT_EQ(cr_sentinel_client_completion_fd(&fd, f.c), CR_OK);
  constexpr size_t kBatches = 20, kKeys = 30;
  std::vector<std::vector<std::string>> keys(kBatches), values(kBatches);
  for (size_t b = 0; b < kBatches; ++b) {
    for (size_t i = 0; i < kKeys; ++i) {
      keys[b].push_back("sentinel:abatch:" + std::to_string(b) + ":" + std::to_string(i));
      values[b].push_back("v" + std::to_string(b) + ":" + std::to_string(i));
    }
  }
  std::vector<AsyncBatch> done(kBatches);
  auto run = [&] {
    return crtest::WaitUntil(
        [&] {
          size_t ran = 0;
          EXPECT_EQ(cr_sentinel_client_run_completions(&ran, f.c, 0), CR_OK);
          return std::all_of(done.begin(), done.end(),
                             [](const AsyncBatch &a) { return a.calls.load() > 0; });
        },
        std::chrono::seconds(20));
  };
  auto submit = [&](const char *kind, size_t b) {
    done[b].calls = 0;
    const Bytes k(keys[b]), v(values[b]);
    const std::string what = kind;
    if (what == "mset") {
      return cr_sentinel_client_submit_mset(f.c, k.p.data(), k.l.data(), v.p.data(), v.l.data(),
                                            kKeys, &RecordBatch, &done[b]);
    }
    auto fn = what == "mget"  ? &cr_sentinel_client_submit_mget
              : what == "del" ? &cr_sentinel_client_submit_del
                              : &cr_sentinel_client_submit_exists;
    return fn(f.c, k.p.data(), k.l.data(), kKeys, &RecordBatch, &done[b]);
  };

  for (size_t b = 0; b < kBatches; ++b) ASSERT_EQ(submit("mset", b), CR_OK) << cr_last_error();
  ASSERT_TRUE(run());
  for (const AsyncBatch &a : done) {
    EXPECT_EQ(a.calls.load(), 1);
    ASSERT_EQ(a.out.st, CR_OK) << a.out.error;
    EXPECT_EQ(a.out.failed(), 0u);
    EXPECT_TRUE(a.out.values.empty());
  }
  bool all = false;
  for (int round = 0; round < 50 && !all; ++round) {
    for (size_t b = 0; b < kBatches; ++b) ASSERT_EQ(submit("mget", b), CR_OK) << cr_last_error();
    ASSERT_TRUE(run());
    all = true;
    for (size_t b = 0; b < kBatches; ++b) all = all && done[b].out.values == values[b];
    if (!all) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (size_t b = 0; b < kBatches; ++b) {
    EXPECT_EQ(done[b].calls.load(), 1);
    ASSERT_EQ(done[b].out.st, CR_OK) << done[b].out.error;
    EXPECT_EQ(done[b].out.values, values[b]) << "batch " << b;
  }
  const BatchOut blocking = MGet(f, keys[3]);
  ASSERT_EQ(blocking.st, CR_OK) << blocking.error;
  EXPECT_EQ(blocking.values, done[3].out.values);

  ASSERT_EQ(submit("exists", 0), CR_OK);
  ASSERT_EQ(submit("del", 1), CR_OK);
  for (size_t b = 2; b < kBatches; ++b) done[b].calls = 1;  // not submitted this time
  ASSERT_TRUE(run());
  EXPECT_EQ(done[0].out.st, CR_OK) << done[0].out.error;
  EXPECT_EQ(done[0].out.count, static_cast<int64_t>(kKeys));
  EXPECT_EQ(done[1].out.st, CR_OK) << done[1].out.error;
  EXPECT_EQ(done[1].out.count, static_cast<int64_t>(kKeys));
  EXPECT_TRUE(crtest::WaitUntil(
      [&] {
        const BatchOut gone = Count(f, false, keys[1]);
        return gone.st == CR_OK && gone.count == 0;
      },
      std::chrono::seconds(10)))
      << "the deleted keys still exist";

  // Refused before anything is sent: no callback.
  const Bytes k(keys[0]);
  AsyncBatch refused;
  EXPECT_EQ(cr_sentinel_client_submit_mget(f.c, k.p.data(), k.l.data(), 0, &RecordBatch, &refused),
            CR_EINVAL);
  EXPECT_EQ(cr_sentinel_client_submit_mget(f.c, k.p.data(), k.l.data(), kKeys, nullptr, &refused),
            CR_EINVAL);
  EXPECT_EQ(cr_sentinel_client_submit_del(f.c, nullptr, k.l.data(), kKeys, &RecordBatch, &refused),
            CR_EINVAL);
  EXPECT_EQ(cr_sentinel_client_submit_exists(nullptr, k.p.data(), k.l.data(), kKeys, &RecordBatch,
                                             &refused),
            CR_EINVAL);
  size_t ran = 0;
  EXPECT_EQ(cr_sentinel_client_run_completions(&ran, f.c, 0), CR_OK);
  EXPECT_EQ(refused.calls.load(), 0);

  for (size_t b = 0; b < kBatches; ++b) ASSERT_EQ(submit("mget", b), CR_OK) << cr_last_error();
  cr_sentinel_client_free(f.c);  // nothing run: every completion runs here, cancelled
  f.c = nullptr;
  for (const AsyncBatch &a : done) {
    EXPECT_EQ(a.calls.load(), 1);
    EXPECT_EQ(a.out.st, CR_ECONN);
    EXPECT_NE(a.out.error.find("cancelled"), std::string::npos) << a.out.error;
    EXPECT_EQ(a.out.failed(), kKeys);
  }
}

TEST_F(SentinelBatch, BadBatchesAreRefusedBeforeAnythingIsSent) {
  Fixture f;
  ASSERT_NE(f.c, nullptr);
  const void *keys[] = {"a", "b"};
  const size_t lens[] = {1, 1};
  cr_status st[2] = {CR_OK, CR_OK};
  cr_reply *replies[2] = {nullptr, nullptr};
  int64_t n = -1;
  EXPECT_EQ(cr_sentinel_client_mget(replies, st, f.c, keys, lens, 0), CR_EINVAL);
  EXPECT_NE(std::string(cr_last_error()).find("no keys"), std::string::npos) << cr_last_error();
  EXPECT_EQ(replies[0], nullptr);
  EXPECT_EQ(cr_sentinel_client_mget(nullptr, st, f.c, keys, lens, 2), CR_EINVAL);
  EXPECT_EQ(cr_sentinel_client_mget(replies, st, nullptr, keys, lens, 2), CR_EINVAL);
  EXPECT_EQ(cr_sentinel_client_del(&n, st, f.c, nullptr, lens, 2), CR_EINVAL);
  EXPECT_EQ(cr_sentinel_client_exists(&n, st, f.c, keys, nullptr, 2), CR_EINVAL);
  EXPECT_EQ(n, -1);
  EXPECT_EQ(cr_sentinel_client_mset(st, f.c, keys, lens, nullptr, lens, 2), CR_EINVAL);
  EXPECT_NE(std::string(cr_last_error()).find("values"), std::string::npos) << cr_last_error();
  const void *holes[] = {"a", nullptr};
  EXPECT_EQ(cr_sentinel_client_del(&n, st, f.c, holes, lens, 2), CR_EINVAL);
  EXPECT_EQ(cr_sentinel_client_expire(nullptr, f.c, "a", 1, 0), CR_EINVAL);
  EXPECT_EQ(cr_sentinel_client_get(nullptr, f.c, "a", 1), CR_EINVAL);
}

// Group1's master stopped (SIGSTOP; Sentinel told to wait, so that it is not
// replaced): an MSET batch fails group1's keys only, named by position and
// group, and writes group0's; an MGET batch is served in full by the
// replicas. After SIGCONT the batches succeed again.
TEST_F(SentinelBatch, AGroupWithoutAReachableMasterFailsOnlyItsKeys) {
  Fixture f;
  ASSERT_NE(f.c, nullptr);
  const std::vector<std::string> keys = HundredKeys(f);
  std::vector<std::string> values;
  for (const std::string &k : keys) values.push_back("v:" + k);
  ASSERT_EQ(MSet(f, keys, values).st, CR_OK);
  ASSERT_NO_FATAL_FAILURE(SeedKeys(f));
  ASSERT_TRUE(OnEach("SENTINEL", "SENTINEL SET group1 down-after-milliseconds 60000"));
  const std::string master1 = f.Master(f.keys[1][0]);
  const std::string pid = PidOf(master1);
  ASSERT_FALSE(pid.empty());
  ASSERT_EQ(kill(std::stoi(pid), SIGSTOP), 0);

  std::vector<std::string> next;
  for (const std::string &k : keys) next.push_back("n:" + k);
  BatchOut w = MSet(f, keys, next);
  BatchOut r = MGet(f, keys);
  kill(std::stoi(pid), SIGCONT);
  ASSERT_TRUE(OnEach("SENTINEL", "SENTINEL SET group1 down-after-milliseconds 1000"));

  EXPECT_NE(w.st, CR_OK);
  EXPECT_EQ(w.failed(), 50u) << w.error;
  for (size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(w.statuses[i] == CR_OK, i % 2 == 0) << "key " << i << ": " << w.error;
  }
  EXPECT_NE(w.error.find("50 of 100 keys"), std::string::npos) << w.error;
  EXPECT_NE(w.error.find("group 'group1'"), std::string::npos) << w.error;
  EXPECT_EQ(w.error.find("group 'group0'"), std::string::npos) << w.error;
  EXPECT_NE(w.error.find("keys 1, 3, 5"), std::string::npos) << w.error;
  EXPECT_EQ(r.st, CR_OK) << r.error;  // the replicas served group1's reads
  EXPECT_EQ(r.failed(), 0u);

  // Group0's keys were written; group1's were not acknowledged.
  std::string v;
  ASSERT_EQ(f.Command(CR_ACCESS_WRITE, {"GET", keys[0]}, &v), CR_OK) << cr_last_error();
  EXPECT_EQ(v, next[0]);
  // Back: the next batches succeed in full.
  BatchOut again;
  EXPECT_TRUE(crtest::WaitUntil(
      [&] {
        again = MSet(f, keys, next);
        return again.st == CR_OK;
      },
      std::chrono::seconds(15), std::chrono::milliseconds(100)))
      << again.error;
  std::printf("BATCH scenario=sentinel_master_stopped mset_failed=%zu mget_failed=%zu error=%s\n",
              w.failed(), r.failed(), w.error.substr(0, 200).c_str());
}

// SENTINEL FAILOVER of group0 during a stream of MSET batches (100 keys
// over both groups) and of MGET batches: no MGET key fails; MSET keys that
// fail are group0's, each named; batches succeed in full again on the new
// master; every key holds its last acknowledged value.
TEST_F(SentinelBatch, AFailoverDuringBatchesLosesNoAcknowledgedWrite) {
  Fixture f;
  ASSERT_NE(f.c, nullptr);
  ASSERT_NO_FATAL_FAILURE(SeedKeys(f));
  const std::vector<std::string> keys = HundredKeys(f);
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> batches{0}, full{0}, failed_keys{0}, failed_group1{0}, unnamed{0};
  std::atomic<uint64_t> read_batches{0}, failed_reads{0};
  std::vector<std::string> last_acked(keys.size());
  std::mutex mu;
  std::string example;
  std::thread writer([&] {
    const auto t0 = Clock::now();
    for (uint64_t i = 0; !stop.load() && MsSince(t0) < 60000; ++i) {
      std::vector<std::string> values;
      for (size_t k = 0; k < keys.size(); ++k) values.push_back("b" + std::to_string(i));
      BatchOut w = MSet(f, keys, values);
      batches++;
      if (w.st == CR_OK) full++;
      for (size_t k = 0; k < keys.size(); ++k) {
        if (w.statuses[k] == CR_OK) {
          last_acked[k] = values[k];
          continue;
        }
        failed_keys++;
        if (k % 2 == 1) failed_group1++;
      }
      // The error names the failed group (the statuses name the keys).
      if (w.st != CR_OK && w.error.find("group 'group0'") == std::string::npos) unnamed++;
      if (w.st != CR_OK) {
        std::lock_guard<std::mutex> lock(mu);
        if (example.empty()) example = w.error.substr(0, 300);
      }
    }
  });
  std::thread reader([&] {
    const auto t0 = Clock::now();
    while (!stop.load() && MsSince(t0) < 60000) {
      BatchOut r = MGet(f, keys);
      read_batches++;
      failed_reads += r.failed();
    }
  });
  ASSERT_TRUE(crtest::WaitUntil([&] { return full.load() > 20; }, std::chrono::seconds(10)));
  const std::string old0 = f.Master(f.keys[0][0]);
  const std::string sentinel = Env()["SENTINEL1_ADDR"];
  const auto t0 = Clock::now();
  ASSERT_EQ(crtest::CliLine(sentinel, "SENTINEL FAILOVER group0"), "OK");
  const bool moved = crtest::WaitUntil(
      [&] { return !f.Master(f.keys[0][0]).empty() && f.Master(f.keys[0][0]) != old0; },
      std::chrono::seconds(30));
  const uint64_t full_at_switch = full.load();
  const bool resumed = moved && crtest::WaitUntil([&] { return full.load() > full_at_switch + 20; },
                                                  std::chrono::seconds(15));
  stop = true;
  writer.join();
  reader.join();
  ASSERT_TRUE(moved) << "the client did not route group0's writes to a new master";
  EXPECT_TRUE(resumed) << "batches did not succeed in full on the new master";
  const cr_sentinel_stats st = f.Stats();
  std::printf(
      "BATCH scenario=sentinel_failover_batches switch_ms=%lld batches=%llu full=%llu "
      "failed_keys=%llu retries=%llu read_batches=%llu failed_reads=%llu\n  example: %s\n",
      MsSince(t0), static_cast<unsigned long long>(batches.load()),
      static_cast<unsigned long long>(full.load()),
      static_cast<unsigned long long>(failed_keys.load()),
      static_cast<unsigned long long>(st.retries),
      static_cast<unsigned long long>(read_batches.load()),
      static_cast<unsigned long long>(failed_reads.load()), example.c_str());
  EXPECT_EQ(failed_reads.load(), 0u) << "MGET keys failed during the failover";
  EXPECT_EQ(failed_group1.load(), 0u) << "group1's keys failed: its master did not move";
  EXPECT_EQ(unnamed.load(), 0u) << "a failed batch's error does not name group0: " << example;
  // Every key's last acknowledged value is on its master.
  for (size_t k = 0; k < keys.size(); ++k) {
    if (last_acked[k].empty()) continue;
    std::string v;
    ASSERT_EQ(f.Command(CR_ACCESS_WRITE, {"GET", keys[k]}, &v), CR_OK) << cr_last_error();
    EXPECT_EQ(v, last_acked[k]) << "an acknowledged write to " << keys[k] << " was lost";
  }
}

// The local replica of group1 killed (kill -9) during a stream of MGET
// batches: not one key fails.
TEST_F(SentinelBatch, AKilledReplicaCostsNoMgetRead) {
  Fixture f;
  ASSERT_NE(f.c, nullptr);
  ASSERT_NO_FATAL_FAILURE(SeedKeys(f));
  const std::vector<std::string> keys = HundredKeys(f);
  const std::string replica = LocalReplica(1);
  const std::string pid = PidOf(replica);
  ASSERT_FALSE(pid.empty()) << "no local replica of group1 in the harness's layout";
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> batches{0}, failed{0}, wrong{0};
  std::string first_error, first_wrong;
  std::thread reader([&] {
    const auto t0 = Clock::now();
    while (!stop.load() && MsSince(t0) < 30000) {
      BatchOut r = MGet(f, keys);
      batches++;
      failed += r.failed();
      if (r.st != CR_OK && first_error.empty()) first_error = r.error;
      for (size_t k = 0; k < r.values.size(); ++k) {
        if (r.statuses[k] != CR_OK || r.values[k] == "v:" + keys[k]) continue;
        if (wrong++ == 0) first_wrong = keys[k] + " = '" + r.values[k] + "'";
      }
    }
  });
  ASSERT_TRUE(
      crtest::WaitUntil([&] { return f.ReadsServedBy(replica) > 20; }, std::chrono::seconds(10)))
      << "the local replica of group1 served no reads";
  ASSERT_EQ(kill(std::stoi(pid), SIGKILL), 0);
  const uint64_t at_kill = batches.load();
  EXPECT_TRUE(
      crtest::WaitUntil([&] { return batches.load() >= at_kill + 300; }, std::chrono::seconds(20)))
      << "MGET batches stopped with the replica killed";
  stop = true;
  reader.join();
  const cr_sentinel_stats st = f.Stats();
  std::printf(
      "BATCH scenario=sentinel_replica_killed_mget batches=%llu after_kill=%llu failed_keys=%llu "
      "fallbacks=%llu conn_errors=%llu\n",
      static_cast<unsigned long long>(batches.load()),
      static_cast<unsigned long long>(batches.load() - at_kill),
      static_cast<unsigned long long>(failed.load()), static_cast<unsigned long long>(st.fallbacks),
      static_cast<unsigned long long>(st.conn_errors));
  EXPECT_EQ(failed.load(), 0u) << first_error;
  EXPECT_EQ(wrong.load(), 0u) << "first: " << first_wrong;
}

}  // namespace sentinel_test
