// The pre-sharded client (cr_sharded_client) against real standalone redis
// servers it starts itself (127.0.0.1, ports 8801-8813 and 8823-8824: tests/PORTS.md).
// Only the C API is used.
//
//  - JedisPlacement: for every Jedis ring of tests/vectors/rings.json (the
//    placements real Jedis 3.x / 2.9 ShardedJedis computed: named and
//    unnamed shards, weights, key tags, MURMUR and MD5), each key is written
//    straight to the server of its Jedis shard (a one-shard client per
//    server) and must be read back through the ring client; a key written
//    anywhere else would read nil.
//  - Commands: multi-key commands fanned out per shard, a pipeline, SCAN
//    over every shard, a script on its key's shard, node commands, and the
//    hostile inputs (bad server strings, a count mismatch) with their status.
//  - MasterKilled: a shard's master killed: reads of its keys go to its
//    replica, writes fail with CR_ECONN saying why; the other shard is
//    untouched.
//  - LiveMove: the seed's resize procedure under load (readers and a
//    writer on both shards): a new empty server, REPLICAOF the old one,
//    wait for the sync, promote it, switch the client
//    (cr_sharded_client_set_servers), stop the old one. Writes to the old
//    master are paused (CLIENT PAUSE WRITE) from the moment the copy is
//    caught up until the old server is gone, and the client reads the
//    shard from both while it switches, so no acknowledged write is lost and
//    no read fails. Prints
//      MOVE reads=… read_failures=0 writes_acked=… writes_failed=… lost=0
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "cloudroute.h"
#include "common/source_dir.hpp"
#include "common/wait_until.hpp"

namespace sharded_test {

using namespace std::chrono_literals;

const char kHost[] = "127.0.0.1";

std::string Addr(int port) { return std::string(kHost) + ":" + std::to_string(port); }

// What a shell command printed (bounded by the command itself).
std::string Output(const std::string &cmd) {
  std::string out;
  FILE *p = popen(cmd.c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  size_t n = 0;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  return out;
}

std::string Cli(int port, const std::string &args) {
  return Output("redis-cli -h " + std::string(kHost) + " -p " + std::to_string(port) + " " + args +
                " 2>&1");
}

// A field of INFO replication ("" when absent).
std::string InfoField(int port, const std::string &field) {
  const std::string info = Cli(port, "INFO replication");
  const size_t at = info.find(field + ":");
  if (at == std::string::npos) return "";
  const size_t begin = at + field.size() + 1;
  const size_t end = info.find_first_of("\r\n", begin);
  return info.substr(begin, end - begin);
}

// The standalone servers a test starts; every one is killed at the end.
class Servers {
 public:
  Servers() {
    char tmpl[] = "/tmp/cr-sharded-XXXXXX";
    const char *d = mkdtemp(tmpl);
    dir_ = d != nullptr ? d : "/tmp";
  }
  ~Servers() {
    for (const auto &[port, pid] : pids_) kill(pid, SIGKILL);
  }

  // Starts an empty server on port; false when it did not answer PING in 10 s.
  bool Start(int port) {
    const std::string p = std::to_string(port);
    const std::string cmd = "redis-server --port " + p + " --bind " + kHost +
                            " --daemonize yes --save '' --appendonly no --dir " + dir_ +
                            " --pidfile " + dir_ + "/" + p + ".pid --logfile " + dir_ + "/" + p +
                            ".log --dbfilename " + p + ".rdb";
    if (std::system(cmd.c_str()) != 0) return false;
    const bool up = crtest::WaitUntil([&] { return Cli(port, "PING").find("PONG") == 0; }, 10s);
    std::ifstream pidfile(dir_ + "/" + p + ".pid");
    pid_t pid = 0;
    if (pidfile >> pid) pids_[port] = pid;
    return up && pid > 0;
  }
  // kill -9, then waits (bounded) until the port no longer answers.
  bool Kill(int port) {
    auto it = pids_.find(port);
    if (it == pids_.end()) return false;
    kill(it->second, SIGKILL);
    pids_.erase(it);
    return crtest::WaitUntil([&] { return Cli(port, "PING").find("PONG") != 0; }, 10s);
  }

 private:
  std::string dir_;
  std::map<int, pid_t> pids_;
};

cr_ring *NamedRing(const std::vector<std::string> &names) {
  cr_ring *ring = nullptr;
  cr_ring_options ro = CR_RING_OPTIONS_INIT;
  EXPECT_EQ(cr_ring_new(&ring, &ro), CR_OK);
  for (const std::string &n : names) EXPECT_EQ(cr_ring_add_shard(ring, n.c_str(), 1), CR_OK);
  EXPECT_EQ(cr_ring_build(ring), CR_OK);
  return ring;
}

struct Client {
  cr_sharded_client *c = nullptr;
  Client(cr_ring *ring, const std::vector<std::string> &servers) {
    cr_sharded_options o = CR_SHARDED_OPTIONS_INIT;
    o.connect_timeout_ms = 300;
    for (uint32_t &t : o.command_timeout_ms) t = 1000;
    std::vector<const char *> s;
    for (const std::string &x : servers) s.push_back(x.c_str());
    const cr_status st = cr_sharded_client_new(&c, nullptr, &o, ring, s.data(), s.size());
    EXPECT_EQ(st, CR_OK) << cr_last_error();
  }
  ~Client() { cr_sharded_client_free(c); }

  cr_status Set(const std::string &k, const std::string &v) {
    const void *argv[] = {"SET", k.data(), v.data()};
    const size_t lens[] = {3, k.size(), v.size()};
    cr_reply *r = nullptr;
    const cr_status st =
        cr_sharded_client_command(&r, c, nullptr, CR_ACCESS_WRITE, 1, 3, argv, lens);
    cr_reply_free(r);
    return st;
  }
  // The value, "(nil)" for a nil reply; *st gets the status.
  std::string Get(const std::string &k, cr_status *st) {
    const void *argv[] = {"GET", k.data()};
    const size_t lens[] = {3, k.size()};
    cr_reply *r = nullptr;
    *st = cr_sharded_client_command(&r, c, nullptr, CR_ACCESS_READ, 1, 2, argv, lens);
    std::string v = "(error)";
    if (*st == CR_OK) {
      size_t len = 0;
      const char *s = cr_reply_get_string(r, &len);
      v = cr_reply_get_type(r) == CR_REPLY_TYPE_NIL ? "(nil)" : std::string(s, len);
    }
    cr_reply_free(r);
    return v;
  }
};

const nlohmann::json &RingVectors() {
  static const nlohmann::json v = [] {
    std::ifstream f(crtest::SourcePath("tests/vectors/rings.json"));
    EXPECT_TRUE(f.good()) << "tests/vectors/rings.json";
    return nlohmann::json::parse(f);
  }();
  return v;
}

std::string Unhex(const std::string &h) {
  std::string out;
  for (size_t i = 0; i + 1 < h.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(h.substr(i, 2), nullptr, 16)));
  }
  return out;
}

cr_ring *RingOfCase(const nlohmann::json &c) {
  cr_ring_options ro = CR_RING_OPTIONS_INIT;
  ro.algo = CR_RING_ALGO_JEDIS;
  ro.hash = c["hash"] == "md5" ? CR_HASH_ALGO_MD5 : CR_HASH_ALGO_MURMUR;
  ro.naming =
      c.value("naming", "jedis3") == "jedis2" ? CR_RING_NAMING_JEDIS2 : CR_RING_NAMING_JEDIS3;
  ro.key_tags = c["key_tags"].get<bool>() ? 1 : 0;
  cr_ring *ring = nullptr;
  EXPECT_EQ(cr_ring_new(&ring, &ro), CR_OK);
  for (const auto &s : c["shards"]) {
    const uint32_t w = s["weight"].get<uint32_t>();
    if (s["name"].is_null()) {
      EXPECT_EQ(cr_ring_add_shard(ring, nullptr, w), CR_OK);
    } else {
      EXPECT_EQ(cr_ring_add_shard(ring, s["name"].get<std::string>().c_str(), w), CR_OK);
    }
  }
  EXPECT_EQ(cr_ring_build(ring), CR_OK) << cr_last_error();
  return ring;
}

TEST(Sharded, JedisPlacement) {
  constexpr int kBase = 8801, kServers = 5;
  Servers servers;
  for (int i = 0; i < kServers; ++i) ASSERT_TRUE(servers.Start(kBase + i));
  // One single-shard client per server: a direct line to it.
  cr_ring *one = NamedRing({"only"});
  std::vector<std::unique_ptr<Client>> direct;
  for (int i = 0; i < kServers; ++i) {
    direct.push_back(std::make_unique<Client>(one, std::vector<std::string>{Addr(kBase + i)}));
  }
  cr_ring_free(one);
  int cases = 0, keys = 0;
  for (const auto &c : RingVectors()["rings"]) {
    if (c["algo"] != "jedis" || c["shards"].size() > static_cast<size_t>(kServers)) continue;
    SCOPED_TRACE(c["name"].get<std::string>());
    for (int i = 0; i < kServers; ++i)
      ASSERT_NE(Cli(kBase + i, "FLUSHALL").find("OK"), std::string::npos);
    cr_ring *ring = RingOfCase(c);
    std::vector<std::string> addrs;
    for (size_t i = 0; i < c["shards"].size(); ++i)
      addrs.push_back(Addr(kBase + static_cast<int>(i)));
    Client ringed(ring, addrs);
    cr_ring_free(ring);
    ASSERT_NE(ringed.c, nullptr);
    std::map<std::string, std::string> written;
    for (const auto &k : c["keys"]) {
      const std::string key = Unhex(k["key_hex"]);
      if (written.count(key) != 0) continue;
      const std::string value = "v:" + k["key_hex"].get<std::string>();
      ASSERT_EQ(direct[k["shard"].get<size_t>()]->Set(key, value), CR_OK) << cr_last_error();
      written[key] = value;
    }
    for (const auto &[key, value] : written) {
      cr_status st = CR_OK;
      EXPECT_EQ(ringed.Get(key, &st), value) << "key " << key;
      EXPECT_EQ(st, CR_OK);
      ++keys;
    }
    ++cases;
  }
  EXPECT_GE(cases, 6);
  printf("JEDIS cases=%d keys=%d\n", cases, keys);
}

TEST(Sharded, CommandsAndHostileInput) {
  constexpr int a = 8806, b = 8807;
  Servers servers;
  ASSERT_TRUE(servers.Start(a));
  ASSERT_TRUE(servers.Start(b));
  cr_ring *ring = NamedRing({"cache-a", "cache-b"});
  // Hostile input: each refused with CR_EINVAL and a message saying why.
  {
    cr_sharded_client *c = nullptr;
    const char *bad[][2] = {{"127.0.0.1", "127.0.0.1:1"},
                            {"127.0.0.1:0", "127.0.0.1:1"},
                            {"127.0.0.1:99999", "127.0.0.1:1"},
                            {"", "127.0.0.1:1"},
                            {"::1:6379", "127.0.0.1:1"}};
    for (auto &pair : bad) {
      EXPECT_EQ(cr_sharded_client_new(&c, nullptr, nullptr, ring, pair, 2), CR_EINVAL) << pair[0];
      EXPECT_NE(std::string(cr_last_error()).find("servers[0]"), std::string::npos)
          << cr_last_error();
      EXPECT_EQ(c, nullptr);
    }
    const char *three[] = {"127.0.0.1:1", "127.0.0.1:2", "127.0.0.1:3"};
    EXPECT_EQ(cr_sharded_client_new(&c, nullptr, nullptr, ring, three, 3), CR_EINVAL);
    EXPECT_NE(std::string(cr_last_error()).find("3 server entries for a ring of 2"),
              std::string::npos)
        << cr_last_error();
    const char *with_null[] = {"127.0.0.1:1", nullptr};
    EXPECT_EQ(cr_sharded_client_new(&c, nullptr, nullptr, ring, with_null, 2), CR_EINVAL);
    cr_ring *unbuilt = nullptr;
    cr_ring_options ro = CR_RING_OPTIONS_INIT;
    ASSERT_EQ(cr_ring_new(&unbuilt, &ro), CR_OK);
    EXPECT_EQ(cr_sharded_client_new(&c, nullptr, nullptr, unbuilt, three, 2), CR_EINVAL);
    cr_ring_free(unbuilt);
  }
  Client cl(ring, {Addr(a), Addr(b)});
  ASSERT_NE(cl.c, nullptr);
  // set_servers refuses a count mismatch and bad entries, changing nothing.
  const char *one[] = {"127.0.0.1:1"};
  EXPECT_EQ(cr_sharded_client_set_servers(cl.c, one, 1), CR_EINVAL);
  const std::string first = Addr(a);
  const char *bad2[] = {first.c_str(), "nope"};
  EXPECT_EQ(cr_sharded_client_set_servers(cl.c, bad2, 2), CR_EINVAL);

  // Multi-key commands: keys on both shards.
  std::vector<std::string> keys, values;
  for (int i = 0; i < 40; ++i) {
    keys.push_back("user:" + std::to_string(i));
    values.push_back("value-" + std::to_string(i));
  }
  std::vector<const void *> kp, vp;
  std::vector<size_t> kl, vl;
  for (size_t i = 0; i < keys.size(); ++i) {
    kp.push_back(keys[i].data());
    kl.push_back(keys[i].size());
    vp.push_back(values[i].data());
    vl.push_back(values[i].size());
  }
  ASSERT_EQ(cr_sharded_client_mset(cl.c, kp.data(), kl.data(), vp.data(), vl.data(), keys.size()),
            CR_OK)
      << cr_last_error();
  // Both servers got some (the ring spreads 40 keys over both).
  const long on_a = std::atol(Cli(a, "DBSIZE").c_str()), on_b = std::atol(Cli(b, "DBSIZE").c_str());
  EXPECT_GT(on_a, 0);
  EXPECT_GT(on_b, 0);
  EXPECT_EQ(on_a + on_b, 40);
  cr_reply *r = nullptr;
  ASSERT_EQ(cr_sharded_client_mget(&r, cl.c, kp.data(), kl.data(), keys.size()), CR_OK);
  ASSERT_EQ(cr_reply_get_count(r), keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    size_t len = 0;
    const char *s = cr_reply_get_string(cr_reply_get_element(r, i), &len);
    EXPECT_EQ(std::string(s, len), values[i]);
  }
  cr_reply_free(r);
  int64_t n = 0;
  ASSERT_EQ(cr_sharded_client_exists(&n, cl.c, kp.data(), kl.data(), keys.size()), CR_OK);
  EXPECT_EQ(n, 40);

  // A pipeline across both shards, in queue order.
  cr_pipeline *p = nullptr;
  ASSERT_EQ(cr_sharded_pipeline_new(&p, cl.c), CR_OK);
  for (size_t i = 0; i < 10; ++i) {
    const void *argv[] = {"GET", keys[i].data()};
    const size_t lens[] = {3, keys[i].size()};
    ASSERT_EQ(cr_pipeline_add(p, CR_ACCESS_READ, 1, 2, argv, lens), CR_OK);
  }
  cr_reply *replies[10] = {};
  size_t needed = 0;
  ASSERT_EQ(cr_pipeline_execute(replies, nullptr, 10, &needed, p), CR_OK) << cr_last_error();
  for (size_t i = 0; i < 10; ++i) {
    size_t len = 0;
    const char *s = cr_reply_get_string(replies[i], &len);
    EXPECT_EQ(std::string(s, len), values[i]);
    cr_reply_free(replies[i]);
  }
  // CR_ACCESS_AUTO needs a cluster client's command table: refused with
  // CR_EINVAL on every path of the pre-sharded client, nothing queued.
  {
    const void *argv[] = {"GET", keys[0].data()};
    const size_t lens[] = {3, keys[0].size()};
    EXPECT_EQ(cr_sharded_client_command(&r, cl.c, nullptr, CR_ACCESS_AUTO, 1, 2, argv, lens),
              CR_EINVAL);
    EXPECT_NE(std::string(cr_last_error()).find("CR_ACCESS_AUTO"), std::string::npos);
    EXPECT_EQ(cr_pipeline_add(p, CR_ACCESS_AUTO, 0, 2, argv, lens), CR_EINVAL);
    EXPECT_NE(std::string(cr_last_error()).find("CR_ACCESS_AUTO"), std::string::npos);
    EXPECT_EQ(
        cr_pipeline_add_node(p, CR_ACCESS_AUTO, kHost, static_cast<uint16_t>(a), 2, argv, lens),
        CR_EINVAL);
    EXPECT_NE(std::string(cr_last_error()).find("cr_pipeline_add_node: the server's command table"),
              std::string::npos)
        << cr_last_error();
    EXPECT_EQ(cr_pipeline_get_count(p), 0u);
  }
  cr_pipeline_free(p);

  // SCAN over every shard finds each key once.
  cr_scan *sc = nullptr;
  ASSERT_EQ(cr_sharded_scan_new(&sc, cl.c, nullptr), CR_OK);
  std::map<std::string, int> seen;
  for (int rounds = 0; rounds < 1000; ++rounds) {
    cr_reply *batch = nullptr;
    ASSERT_EQ(cr_scan_next(&batch, sc), CR_OK) << cr_last_error();
    if (batch == nullptr) break;
    for (size_t i = 0; i < cr_reply_get_count(batch); ++i) {
      size_t len = 0;
      const char *s = cr_reply_get_string(cr_reply_get_element(batch, i), &len);
      ++seen[std::string(s, len)];
    }
    cr_reply_free(batch);
  }
  cr_scan_free(sc);
  EXPECT_EQ(seen.size(), 40u);
  for (const auto &[k, count] : seen) EXPECT_EQ(count, 1) << k;

  // A script on its key's shard; keys on two shards refused before sending.
  cr_script *script = nullptr;
  const char body[] = "return redis.call('GET', KEYS[1])";
  ASSERT_EQ(cr_script_new(&script, body, sizeof body - 1), CR_OK);
  const void *k0[] = {keys[0].data()};
  const size_t k0l[] = {keys[0].size()};
  ASSERT_EQ(cr_sharded_client_eval(&r, cl.c, nullptr, script, 1, 1, k0, k0l, 0, nullptr, nullptr),
            CR_OK)
      << cr_last_error();
  size_t len = 0;
  const char *s = cr_reply_get_string(r, &len);
  EXPECT_EQ(std::string(s, len), values[0]);
  cr_reply_free(r);
  EXPECT_EQ(cr_sharded_client_eval(&r, cl.c, nullptr, script, 1, keys.size(), kp.data(), kl.data(),
                                   0, nullptr, nullptr),
            CR_EINVAL);
  EXPECT_NE(std::string(cr_last_error()).find("different shards"), std::string::npos);
  cr_script_free(script);

  // Node commands: every master answers DBSIZE, in ring order.
  cr_node_replies *nr = nullptr;
  const void *dbsize[] = {"DBSIZE"};
  const size_t dbl[] = {6};
  ASSERT_EQ(cr_sharded_client_command_nodes(&nr, cl.c, nullptr, CR_TARGET_MASTERS, nullptr, 1,
                                            dbsize, dbl),
            CR_OK);
  ASSERT_EQ(cr_node_replies_get_count(nr), 2u);
  EXPECT_EQ(std::string(cr_node_replies_get_address(nr, 0)), Addr(a));
  EXPECT_EQ(cr_reply_get_integer(cr_node_replies_get_reply(nr, 0)), on_a);
  EXPECT_EQ(cr_reply_get_integer(cr_node_replies_get_reply(nr, 1)), on_b);
  cr_node_replies_free(nr);

  ASSERT_EQ(cr_sharded_client_del(&n, cl.c, kp.data(), kl.data(), keys.size()), CR_OK);
  EXPECT_EQ(n, 40);
  cr_client_stats st = CR_CLIENT_STATS_INIT;
  ASSERT_EQ(cr_sharded_client_get_stats(&st, cl.c), CR_OK);
  EXPECT_GT(st.reads, 0u);
  EXPECT_GT(st.writes, 0u);
  char text[1];
  size_t need = 0;
  EXPECT_EQ(cr_sharded_client_get_metrics_text(text, 1, &need, cl.c), CR_EBUFS);
  EXPECT_GT(need, 100u);
  cr_ring_free(ring);
}

TEST(Sharded, MasterKilled) {
  constexpr int m0 = 8808, r0 = 8809, m1 = 8810;
  Servers servers;
  ASSERT_TRUE(servers.Start(m0));
  ASSERT_TRUE(servers.Start(r0));
  ASSERT_TRUE(servers.Start(m1));
  ASSERT_NE(Cli(r0, "REPLICAOF 127.0.0.1 " + std::to_string(m0)).find("OK"), std::string::npos);
  ASSERT_TRUE(crtest::WaitUntil([&] { return InfoField(r0, "master_link_status") == "up"; }, 20s));
  cr_ring *ring = NamedRing({"s0", "s1"});
  Client cl(ring, {Addr(m0) + "," + Addr(r0), Addr(m1)});
  cr_ring_free(ring);
  ASSERT_NE(cl.c, nullptr);
  cr_shard_groups *groups = cr_sharded_client_get_groups(cl.c);
  std::vector<std::string> keys0, keys1;
  for (int i = 0; keys0.size() < 20 || keys1.size() < 20; ++i) {
    const std::string k = "k" + std::to_string(i);
    uint32_t g = 0;
    ASSERT_EQ(cr_shard_groups_locate(&g, groups, k.data(), k.size()), CR_OK);
    (g == 0 ? keys0 : keys1).push_back(k);
  }
  for (const std::string &k : keys0) ASSERT_EQ(cl.Set(k, "v" + k), CR_OK) << cr_last_error();
  for (const std::string &k : keys1) ASSERT_EQ(cl.Set(k, "v" + k), CR_OK);
  // The replica has shard 0's keys before its master dies.
  ASSERT_TRUE(crtest::WaitUntil(
      [&] { return InfoField(r0, "slave_repl_offset") == InfoField(m0, "master_repl_offset"); },
      10s));
  ASSERT_TRUE(servers.Kill(m0));
  for (int round = 0; round < 3; ++round) {
    for (const std::string &k : keys0) {
      cr_status st = CR_OK;
      EXPECT_EQ(cl.Get(k, &st), "v" + k) << cr_last_error();
    }
    for (const std::string &k : keys1) {
      cr_status st = CR_OK;
      EXPECT_EQ(cl.Get(k, &st), "v" + k);
    }
  }
  const cr_status wst = cl.Set(keys0[0], "new");
  EXPECT_TRUE(wst == CR_ECONN || wst == CR_ETIMEOUT) << cr_status_str(wst);
  EXPECT_NE(std::string(cr_last_error()).find(Addr(m0)), std::string::npos) << cr_last_error();
  EXPECT_EQ(cl.Set(keys1[0], "new"), CR_OK);
  cr_status st = CR_OK;
  EXPECT_EQ(cl.Get(keys0[0], &st), "v" + keys0[0]);  // not written anywhere
}

// What a submitted call completed with.
struct Completed {
  std::atomic<int> calls{0};
  cr_status st = CR_OK;
  std::string error;
  cr_reply *reply = nullptr;
};

void Record(void *ud, cr_status st, cr_reply *reply) {
  auto *c = static_cast<Completed *>(ud);
  c->st = st;
  c->reply = reply;
  if (st != CR_OK) c->error = cr_last_error();
  c->calls.fetch_add(1);
}

// Asynchronous calls: 200 single-key SETs and GETs and 10 MGETs in flight at
// once, each completed once with its own reply (through the completion
// queue); MSET, DEL and EXISTS as the blocking calls; AUTO and bad
// arguments refused with no callback; freeing the client with calls in
// flight completes each once, cancelled.
TEST(Sharded, AsyncCallsEachGetTheirOwnReplyAndFreeCancelsEachOnce) {
  constexpr int s0 = 8823, s1 = 8824;
  Servers servers;
  ASSERT_TRUE(servers.Start(s0));
  ASSERT_TRUE(servers.Start(s1));
  cr_ring *ring = NamedRing({"s0", "s1"});
  Client cl(ring, {Addr(s0), Addr(s1)});
  cr_ring_free(ring);
  ASSERT_NE(cl.c, nullptr);
  int fd = -1;
  ASSERT_EQ(cr_sharded_client_completion_fd(&fd, cl.c), CR_OK);
  std::vector<std::string> keys;
  for (int i = 0; i < 200; ++i) keys.push_back("async:" + std::to_string(i));
  std::vector<Completed> done(keys.size());
  auto run = [&](size_t n) {
    return crtest::WaitUntil(
        [&] {
          size_t ran = 0;
          EXPECT_EQ(cr_sharded_client_run_completions(&ran, cl.c, 0), CR_OK);
          return std::all_of(done.begin(), done.begin() + static_cast<long>(n),
                             [](const Completed &c) { return c.calls.load() > 0; });
        },
        20s);
  };
  auto submit = [&](size_t i, bool write) {
    done[i].calls = 0;
    const std::string v = "v" + keys[i];
    const void *argv[] = {write ? "SET" : "GET", keys[i].data(), v.data()};
    const size_t lens[] = {3, keys[i].size(), v.size()};
    return cr_sharded_client_submit(cl.c, nullptr, write ? CR_ACCESS_WRITE : CR_ACCESS_READ, 1,
                                    write ? 3 : 2, argv, lens, &Record, &done[i]);
  };
  auto text = [](const Completed &c) {
    size_t len = 0;
    const char *p = cr_reply_get_string(c.reply, &len);
    return p == nullptr ? std::string("(none)") : std::string(p, len);
  };
  for (size_t i = 0; i < keys.size(); ++i) ASSERT_EQ(submit(i, true), CR_OK) << cr_last_error();
  ASSERT_TRUE(run(keys.size()));
  for (Completed &c : done) {
    EXPECT_EQ(c.calls.load(), 1);
    ASSERT_EQ(c.st, CR_OK) << c.error;
    EXPECT_EQ(text(c), "OK");
    cr_reply_free(c.reply);
  }
  for (size_t i = 0; i < keys.size(); ++i) ASSERT_EQ(submit(i, false), CR_OK) << cr_last_error();
  ASSERT_TRUE(run(keys.size()));
  for (size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(done[i].calls.load(), 1);
    ASSERT_EQ(done[i].st, CR_OK) << done[i].error;
    EXPECT_EQ(text(done[i]), "v" + keys[i]);
    cr_reply_free(done[i].reply);
  }
  // Multi-key calls over both shards: MGET in key order, as the blocking one.
  std::vector<const void *> kp;
  std::vector<size_t> kl;
  for (const std::string &k : keys) {
    kp.push_back(k.data());
    kl.push_back(k.size());
  }
  for (size_t b = 0; b < 10; ++b) {
    done[b].calls = 0;
    ASSERT_EQ(cr_sharded_client_submit_mget(cl.c, kp.data() + b * 20, kl.data() + b * 20, 20,
                                            &Record, &done[b]),
              CR_OK);
  }
  ASSERT_TRUE(run(10));
  for (size_t b = 0; b < 10; ++b) {
    ASSERT_EQ(done[b].st, CR_OK) << done[b].error;
    ASSERT_EQ(cr_reply_get_type(done[b].reply), CR_REPLY_TYPE_ARRAY);
    ASSERT_EQ(cr_reply_get_count(done[b].reply), 20u);
    for (size_t i = 0; i < 20; ++i) {
      size_t len = 0;
      const char *p = cr_reply_get_string(cr_reply_get_element(done[b].reply, i), &len);
      EXPECT_EQ(std::string(p, len), "v" + keys[b * 20 + i]);
    }
    cr_reply_free(done[b].reply);
  }
  const void *mv[] = {"1", "2"};
  const size_t mvl[] = {1, 1};
  done[0].calls = 0;
  ASSERT_EQ(
      cr_sharded_client_submit_mset(cl.c, kp.data(), kl.data(), mv, mvl, 2, &Record, &done[0]),
      CR_OK);
  ASSERT_TRUE(run(1));
  EXPECT_EQ(done[0].st, CR_OK) << done[0].error;
  EXPECT_EQ(text(done[0]), "OK");
  cr_reply_free(done[0].reply);
  done[0].calls = 0;
  done[1].calls = 0;
  ASSERT_EQ(cr_sharded_client_submit_exists(cl.c, kp.data(), kl.data(), 200, &Record, &done[0]),
            CR_OK);
  ASSERT_EQ(cr_sharded_client_submit_del(cl.c, kp.data(), kl.data(), 100, &Record, &done[1]),
            CR_OK);
  ASSERT_TRUE(run(2));
  ASSERT_EQ(done[0].st, CR_OK) << done[0].error;
  ASSERT_EQ(done[1].st, CR_OK) << done[1].error;
  EXPECT_EQ(cr_reply_get_integer(done[1].reply), 100);
  // EXISTS ran beside the DEL: all 200, or the ones DEL had not reached.
  const int64_t n = cr_reply_get_integer(done[0].reply);
  EXPECT_GE(n, 100);
  EXPECT_LE(n, 200);
  cr_reply_free(done[0].reply);
  cr_reply_free(done[1].reply);

  // Refused before anything is sent: no callback.
  Completed refused;
  const void *auto_argv[] = {"GET", "k"};
  const size_t auto_lens[] = {3, 1};
  EXPECT_EQ(cr_sharded_client_submit(cl.c, nullptr, CR_ACCESS_AUTO, 1, 2, auto_argv, auto_lens,
                                     &Record, &refused),
            CR_EINVAL);
  EXPECT_EQ(cr_sharded_client_submit_mget(cl.c, kp.data(), kl.data(), 0, &Record, &refused),
            CR_EINVAL);
  EXPECT_EQ(cr_sharded_client_submit_del(cl.c, kp.data(), kl.data(), 2, nullptr, &refused),
            CR_EINVAL);
  EXPECT_EQ(cr_sharded_client_submit_exists(nullptr, kp.data(), kl.data(), 2, &Record, &refused),
            CR_EINVAL);
  size_t ran = 0;
  EXPECT_EQ(cr_sharded_client_run_completions(&ran, cl.c, 0), CR_OK);
  EXPECT_EQ(refused.calls.load(), 0);

  for (size_t i = 0; i < keys.size(); ++i) ASSERT_EQ(submit(i, false), CR_OK);
  cr_sharded_client_free(cl.c);  // nothing run: every completion runs here, cancelled
  cl.c = nullptr;
  for (const Completed &c : done) {
    EXPECT_EQ(c.calls.load(), 1);
    EXPECT_EQ(c.st, CR_ECONN);
    EXPECT_EQ(c.error.rfind("cancelled:", 0), 0u) << c.error;
  }
}

TEST(Sharded, LiveMove) {
  constexpr int old0 = 8811, s1 = 8812, fresh = 8813;
  Servers servers;
  ASSERT_TRUE(servers.Start(old0));
  ASSERT_TRUE(servers.Start(s1));
  cr_ring *ring = NamedRing({"s0", "s1"});
  Client cl(ring, {Addr(old0), Addr(s1)});
  cr_ring_free(ring);
  ASSERT_NE(cl.c, nullptr);
  constexpr int kKeys = 200;
  for (int i = 0; i < kKeys; ++i) {
    ASSERT_EQ(cl.Set("key:" + std::to_string(i), "0"), CR_OK) << cr_last_error();
  }
  // Load: two readers, one writer (each key's last acknowledged value),
  // bounded in time and count.
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> reads{0}, read_failures{0}, writes_failed{0};
  std::mutex mu;
  std::vector<long> acked(kKeys, 0);
  std::string first_failure;
  auto reader = [&](int seed) {
    for (uint64_t i = static_cast<uint64_t>(seed); !stop && reads < 2000000; i += 7) {
      cr_status st = CR_OK;
      cl.Get("key:" + std::to_string(i % kKeys), &st);
      ++reads;
      if (st != CR_OK) {
        std::lock_guard<std::mutex> lock(mu);
        if (read_failures++ == 0) first_failure = cr_last_error();
      }
    }
  };
  std::thread writer([&] {
    for (long n = 1; !stop && n < 1000000; ++n) {
      const int k = static_cast<int>(n % kKeys);
      if (cl.Set("key:" + std::to_string(k), std::to_string(n)) == CR_OK) {
        std::lock_guard<std::mutex> lock(mu);
        acked[static_cast<size_t>(k)] = n;
      } else {
        ++writes_failed;
      }
    }
  });
  std::thread r1(reader, 1), r2(reader, 2);
  auto stop_load = [&] {
    stop = true;
    writer.join();
    r1.join();
    r2.join();
  };

  // The move: a new empty server replicates the old one.
  bool moved = servers.Start(fresh);
  moved = moved && Cli(fresh, "REPLICAOF 127.0.0.1 " + std::to_string(old0)).find("OK") == 0;
  moved = moved &&
          crtest::WaitUntil([&] { return InfoField(fresh, "master_link_status") == "up"; }, 20s);
  // Writes to the old master stop; the copy catches up to its last one.
  moved = moved && Cli(old0, "CLIENT PAUSE 20000 WRITE").find("OK") == 0;
  moved = moved && crtest::WaitUntil(
                       [&] {
                         return InfoField(fresh, "slave_repl_offset") ==
                                InfoField(old0, "master_repl_offset");
                       },
                       10s);
  moved = moved && Cli(fresh, "REPLICAOF NO ONE").find("OK") == 0;
  // The client switches: the new server takes writes at once; the old one
  // still serves reads (it holds the same data) while commands routed
  // before the switch finish there.
  const std::string both = Addr(fresh) + "," + Addr(old0), s1a = Addr(s1), only = Addr(fresh);
  const char *step1[] = {both.c_str(), s1a.c_str()};
  moved = moved && cr_sharded_client_set_servers(cl.c, step1, 2) == CR_OK;
  moved = moved && cr_sharded_client_set_servers(cl.c, step1, 2) == CR_OK;  // idempotent
  const char *step2[] = {only.c_str(), s1a.c_str()};
  moved = moved && cr_sharded_client_set_servers(cl.c, step2, 2) == CR_OK;
  // Load on the new layout before the old server goes.
  const uint64_t reads_at_switch = reads;
  moved = moved && crtest::WaitUntil([&] { return reads > reads_at_switch + 1000; }, 10s);
  moved = moved && servers.Kill(old0);
  const uint64_t reads_at_stop = reads;
  moved = moved && crtest::WaitUntil([&] { return reads > reads_at_stop + 1000; }, 10s);
  stop_load();
  ASSERT_TRUE(moved) << cr_last_error();

  EXPECT_EQ(read_failures.load(), 0u) << first_failure;
  long lost = 0, acked_writes = 0;
  for (int k = 0; k < kKeys; ++k) {
    cr_status st = CR_OK;
    const std::string v = cl.Get("key:" + std::to_string(k), &st);
    ASSERT_EQ(st, CR_OK) << cr_last_error();
    if (acked[static_cast<size_t>(k)] > 0) ++acked_writes;
    if (std::atol(v.c_str()) < acked[static_cast<size_t>(k)]) ++lost;
  }
  EXPECT_EQ(lost, 0);
  EXPECT_GT(acked_writes, kKeys / 2);
  printf("MOVE reads=%llu read_failures=%llu keys_written=%ld writes_failed=%llu lost=%ld\n",
         static_cast<unsigned long long>(reads.load()),
         static_cast<unsigned long long>(read_failures.load()), acked_writes,
         static_cast<unsigned long long>(writes_failed.load()), lost);
}

}  // namespace sharded_test
