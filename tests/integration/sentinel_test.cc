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
// CR_TEST_SENTINEL_ENV names the harness's sentinel.env.
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cloudroute.h"
#include "common/wait_until.hpp"
#include "harness_env.hpp"

namespace {

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

  Fixture() {
    cr_ring *ring = nullptr;
    cr_ring_options ro = CR_RING_OPTIONS_INIT;
    EXPECT_EQ(cr_ring_new(&ring, &ro), CR_OK);
    EXPECT_EQ(cr_ring_add_shard(ring, "group0", 1), CR_OK);
    EXPECT_EQ(cr_ring_add_shard(ring, "group1", 1), CR_OK);
    EXPECT_EQ(cr_ring_build(ring), CR_OK);
    cr_config *cfg = nullptr;
    EXPECT_EQ(cr_config_new(&cfg), CR_OK);
    EXPECT_EQ(cr_config_add_local_cidr(cfg, "127.0.1.0/24"), CR_OK);
    EXPECT_EQ(cr_config_add_location_rule(cfg, "127.0.2.0/24", "cloud-b"), CR_OK);
    EXPECT_EQ(cr_config_set_client_location(cfg, "cloud-a"), CR_OK);
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
};

class SentinelLive : public ::testing::Test {
 protected:
  void SetUp() override {
    if (Env().empty()) GTEST_SKIP() << "CR_TEST_SENTINEL_ENV not set (run through ctest)";
  }
};

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

// What redis-cli prints for `args` sent to addr ("" when it cannot run).
std::string RedisCli(const std::string &addr, const std::string &args) {
  const size_t colon = addr.rfind(':');
  const std::string cmd = "timeout 5 redis-cli -h " + addr.substr(0, colon) + " -p " +
                          addr.substr(colon + 1) + " " + args + " 2>/dev/null";
  std::string out;
  FILE *p = popen(cmd.c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

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
    expected += "v:" + k + "\n";
  }
  const std::string master = f.Master(keys[0]);
  for (size_t i = 0; i < n; ++i) {
    const std::string addr = std::string(cand[i].host) + ":" + std::to_string(cand[i].port);
    if (addr != master && RedisCli(addr, mget) != expected) return false;
  }
  return n > 1;
}

TEST_F(SentinelLive, MastersMoveWhileReadsKeepBeingServed) {
  Fixture f;
  ASSERT_NE(f.c, nullptr);
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
  EXPECT_TRUE(crtest::WaitUntil([&] { return RedisCli(old0, "ROLE").rfind("slave\n", 0) == 0; },
                                std::chrono::seconds(15), std::chrono::milliseconds(100)))
      << "the old master of group0 did not rejoin as a replica";

  // 2. kill -9 of the sentinel the client is subscribed to (the first that
  // answers: sentinel 1), then of group1's master (an unplanned move): the
  // client must resubscribe on another sentinel to hear of it.
  ASSERT_EQ(kill(std::stoi(Env()["SENTINEL1_PID"]), SIGKILL), 0);
  const std::string old1 = f.Master(f.keys[1][0]);
  std::string pid;
  for (int n = 1; n <= 6; ++n) {
    if (Env()["NODE" + std::to_string(n) + "_ADDR"] == old1)
      pid = Env()["NODE" + std::to_string(n) + "_PID"];
  }
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

}  // namespace
