// Atomic slot migration under load (Valkey 9.1): two slot ranges are moved
// back and forth between shard 1's master (n1, cloud A) and shard 2's master
// (n4, cloud B) with CLUSTER MIGRATESLOTS, one move at a time with a short
// pause between moves, for a bounded time, while one live client in zone
// az-a (client_zone only; policy local-replicas-first) runs single-key
// GET/SET, MGETs over several slots and pipelines of GETs and SETs on three
// threads. Both shards have a replica in az-a (n2, n6).
//
// Asserts: no request fails, every key's last acknowledged write is what
// its master holds at the end, and reads stay in az-a: at least 95 % of them
// as the client counts per node (cr_client_get_node_stats) and as the
// servers count them (INFO commandstats), over the whole run and over the
// windows right after each move (the client still routes by the old owner
// until a MOVED or a refresh tells it otherwise), and no read finds nil (every
// key is written before the load). Valkey's atomic slot migration hands the
// slots over once the target master holds their keys, not its replicas, so
// for a moment a replica of the new owner answers nil for a key that exists
// (0 to 40 such reads in ~500 000 per run before the client confirmed them):
// the client asks the master again for a replica's nil of a slot that moved
// a moment ago (NilToConfirm, net/outcome).
//
// Prints one line: MIGRATION moves=... reads=... in_zone=... failed=... lost=...
//
// CR_TEST_CLUSTER_ENV names the harness's cluster.env (ports 9121-9129).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cloudroute.h"
#include "common/wait_until.hpp"
#include "fault_kit.hpp"
#include "harness_env.hpp"

namespace migrate9_test {

using Clock = std::chrono::steady_clock;

constexpr auto kLoad = std::chrono::seconds(12);         // no move starts after this
constexpr auto kPause = std::chrono::milliseconds(250);  // between moves
constexpr int kKeysPerRange = 24;
constexpr int kStableKeysPerShard = 8;

// A slot range that moves, and the masters it moves between.
struct Range {
  uint16_t first;
  uint16_t last;
  int home;  // harness node number of the master that holds it at the start
  int away;
};

bool InRange(uint16_t slot, const Range &r) { return slot >= r.first && slot <= r.last; }

// Read counts of the nodes, by "host:port".
using Counts = std::map<std::string, uint64_t>;

bool InCloudA(const std::string &addr) { return addr.rfind("127.0.1.", 0) == 0; }

// The reads each node answered, as the client counts them.
Counts ClientReads(const cr_client *c) {
  std::vector<cr_client_node_stats> st(64);
  for (auto &s : st) s = CR_CLIENT_NODE_STATS_INIT;
  size_t needed = 0;
  Counts out;
  if (cr_client_get_node_stats(st.data(), st.size(), &needed, c) != CR_OK) {
    ADD_FAILURE() << "cr_client_get_node_stats: " << cr_last_error();
    return out;
  }
  for (size_t i = 0; i < needed; ++i)
    out[std::string(st[i].host) + ":" + std::to_string(st[i].port)] = st[i].reads;
  return out;
}

// The GET and MGET calls a node executed (redirects are not counted there).
uint64_t ServerReads(const std::string &addr) {
  const std::string info = crtest::Cli(addr, {"INFO", "commandstats"});
  return crtest::CommandCalls(info, "get") + crtest::CommandCalls(info, "mget");
}

// Reads between two counts: {in cloud A, all}.
std::pair<uint64_t, uint64_t> Delta(const Counts &before, const Counts &after) {
  uint64_t a = 0, all = 0;
  for (const auto &kv : after) {
    auto b = before.find(kv.first);
    const uint64_t d = kv.second - (b == before.end() ? 0 : b->second);
    all += d;
    if (InCloudA(kv.first)) a += d;
  }
  return {a, all};
}

double Share(std::pair<uint64_t, uint64_t> p) {
  return p.second == 0 ? 1.0 : static_cast<double>(p.first) / static_cast<double>(p.second);
}

// CLUSTER GETSLOTMIGRATIONS of a node as (name, state) pairs, in its order.
std::vector<std::pair<std::string, std::string>> Migrations(const std::string &addr) {
  std::istringstream in(crtest::Cli(addr, {"--raw", "CLUSTER", "GETSLOTMIGRATIONS"}));
  std::vector<std::pair<std::string, std::string>> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line == "name" && std::getline(in, line)) out.emplace_back(line, "");
    if (line == "state" && std::getline(in, line) && !out.empty()) out.back().second = line;
  }
  return out;
}

class Migrate9 : public crtest::ClusterTest {
 protected:
  // Every node in cloud A is in zone az-a, in cloud B az-b; returns once
  // every node's CLUSTER SHARDS shows all nine zones.
  void PutNodesInZones() {
    const int nodes = std::atoi(env_["NODE_COUNT"].c_str());
    for (int n = 1; n <= nodes; ++n) {
      const std::string zone = Node(n, "CLOUD") == "A" ? "az-a" : "az-b";
      ASSERT_EQ(crtest::Cli(Node(n, "ADDR"), {"CONFIG", "SET", "availability-zone", zone}), "OK");
    }
    for (int n = 1; n <= nodes; ++n) {
      std::string shards;
      EXPECT_TRUE(crtest::WaitUntil(
          [&] {
            shards = crtest::Cli(Node(n, "ADDR"), {"CLUSTER", "SHARDS"});
            size_t zones = 0;
            for (size_t at = shards.find("az-"); at != std::string::npos;
                 at = shards.find("az-", at + 1))
              ++zones;
            return zones == static_cast<size_t>(nodes);
          },
          std::chrono::seconds(15)))
          << Node(n, "ADDR") << " does not show every zone: " << shards;
    }
  }

  // Moves r to the master `to` from the master `from` and waits for the
  // move to end; "" on success, else what went wrong.
  std::string Move(const Range &r, int from, int to) {
    const std::string src = Node(from, "ADDR");
    std::set<std::string> before;
    for (const auto &m : Migrations(src)) before.insert(m.first);
    const std::string ok =
        crtest::Cli(src, {"CLUSTER", "MIGRATESLOTS", "SLOTSRANGE", std::to_string(r.first),
                          std::to_string(r.last), "NODE", Node(to, "ID")});
    if (ok != "OK") return "MIGRATESLOTS on " + src + ": " + ok;
    std::string state;
    const bool ended = crtest::WaitUntil(
        [&] {
          for (const auto &m : Migrations(src)) {
            if (before.count(m.first) == 0) state = m.second;
          }
          return state == "success" || state == "failed" || state == "cancelled" ||
                 state == "canceled";
        },
        std::chrono::seconds(10), std::chrono::milliseconds(20));
    if (!ended || state != "success") {
      return "move of " + std::to_string(r.first) + "-" + std::to_string(r.last) + " from " + src +
             " ended in state '" + state + "'";
    }
    return "";
  }
};

TEST_F(Migrate9, SlotRangesMovedBackAndForthUnderLoad) {
  ASSERT_NO_FATAL_FAILURE(PutNodesInZones());
  ASSERT_EQ(Node(1, "ROLE"), "master");
  ASSERT_EQ(Node(4, "ROLE"), "master");
  ASSERT_EQ(Node(1, "CLOUD"), "A");
  ASSERT_EQ(Node(2, "SHARD"), "1");  // n2: shard 1's replica in cloud A
  ASSERT_EQ(Node(6, "SHARD"), "2");  // n6: shard 2's replica in cloud A
  const Range ranges[2] = {{0, 511, 1, 4}, {5461, 5972, 4, 1}};

  // Keys in both moving ranges and in slots of both shards that stay.
  std::vector<std::string> keys;
  {
    int per[4] = {0, 0, 0, 0};  // range 0, range 1, stays on shard 1, stays on shard 2
    for (int i = 0; keys.size() < 2 * (kKeysPerRange + kStableKeysPerShard); ++i) {
      const std::string k = "mig9:" + std::to_string(i);
      const uint16_t slot = cr_keyslot(k.data(), k.size());
      int kind = InRange(slot, ranges[0])   ? 0
                 : InRange(slot, ranges[1]) ? 1
                 : slot <= 5460             ? 2
                 : slot <= 10922            ? 3
                                            : -1;
      if (kind < 0 || per[kind] == (kind < 2 ? kKeysPerRange : kStableKeysPerShard)) continue;
      ++per[kind];
      keys.push_back(k);
    }
  }
  const size_t n_keys = keys.size();

  cr_config *cfg = nullptr;
  ASSERT_EQ(cr_config_new(&cfg), CR_OK);
  ASSERT_EQ(cr_config_set_client_zone(cfg, "az-a"), CR_OK);
  cr_router_options ro = CR_ROUTER_OPTIONS_INIT;
  ro.policy = CR_POLICY_LOCAL_REPLICAS_FIRST;
  ASSERT_EQ(cr_config_set_router_options(cfg, &ro), CR_OK);
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  // The source master holds writes to the moving slots during the hand-off
  // (they are answered, with MOVED, once the target owns the slots); on a
  // loaded machine that took longer than the local tier's default 500 ms.
  for (uint32_t &ms : o.command_timeout_ms) ms = 3000;
  cr_client *c = nullptr;
  ASSERT_EQ(cr_client_new(&c, cfg, &o, env_["SEEDS"].c_str()), CR_OK) << cr_last_error();
  cr_config_free(cfg);
  // Both moving ranges are read first from their shard's replica in az-a.
  for (const Range &r : ranges) {
    cr_candidate cand[8];
    for (auto &x : cand) x.struct_size = sizeof x;
    size_t count = 0;
    ASSERT_EQ(cr_router_candidates_slot(cand, 8, &count, cr_client_get_router(c), r.first), CR_OK);
    ASSERT_GE(count, 1u);
    EXPECT_EQ(std::string(cand[0].host) + ":" + std::to_string(cand[0].port),
              Node(r.home == 1 ? 2 : 6, "ADDR"));
  }

  // Every key written once before the load: a read that finds none is wrong.
  std::vector<std::string> acked(n_keys);
  for (size_t i = 0; i < n_keys; ++i) {
    acked[i] = keys[i] + "#0";
    ASSERT_EQ(
        cr_client_cmd_set(c, keys[i].data(), keys[i].size(), acked[i].data(), acked[i].size(), 0),
        CR_OK)
        << cr_last_error();
  }

  const int nodes = std::atoi(env_["NODE_COUNT"].c_str());
  Counts server_before;
  for (int n = 1; n <= nodes; ++n) server_before[Node(n, "ADDR")] = ServerReads(Node(n, "ADDR"));
  const Counts client_before = ClientReads(c);

  std::atomic<bool> stop{false};
  std::atomic<uint64_t> failed{0}, missing{0}, reads{0}, writes{0};
  std::atomic<int64_t> slowest_ms{0};  // the longest call (a SET, GET, MGET or pipeline)
  auto timed = [&](Clock::time_point since) {
    const int64_t ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - since).count();
    int64_t seen = slowest_ms.load();
    while (ms > seen && !slowest_ms.compare_exchange_weak(seen, ms)) {
    }
  };
  std::mutex mu;
  std::vector<std::string> errors;  // the first few failures, for the report
  std::vector<std::string> missed;  // the first few reads that found no value
  auto fail = [&](const std::string &what) {
    failed.fetch_add(1);
    std::lock_guard<std::mutex> lock(mu);
    if (errors.size() < 5) errors.push_back(what);
  };
  // A read finds a value the key was given; nil is counted as missing (and
  // fails the test, see the top), anything else — another key's value,
  // another type — fails at once.
  auto expect_value = [&](const cr_reply *r, const std::string &key, const char *path) {
    size_t len = 0;
    const char *s = r == nullptr ? nullptr : cr_reply_get_string(r, &len);
    if (r != nullptr && cr_reply_get_type(r) == CR_REPLY_TYPE_STRING &&
        std::string(s, len).rfind(key + "#", 0) == 0) {
      return;
    }
    if (r == nullptr || cr_reply_get_type(r) != CR_REPLY_TYPE_NIL) {
      fail(std::string(path) + " of " + key + " found " +
           (s == nullptr ? "no string" : "'" + std::string(s, len) + "'"));
      return;
    }
    missing.fetch_add(1);
    std::lock_guard<std::mutex> lock(mu);
    if (missed.size() < 5) missed.push_back(std::string(path) + " of " + key);
  };

  // Single-key GET and SET; writes the keys of even index.
  std::thread single([&] {
    std::mt19937 rng(1);
    uint64_t seq = 0;
    while (!stop.load()) {
      const size_t i = rng() % n_keys;
      if (rng() % 3 == 0 && i % 2 == 0) {
        const std::string v = keys[i] + "#" + std::to_string(++seq);
        const auto t = Clock::now();
        const cr_status st =
            cr_client_cmd_set(c, keys[i].data(), keys[i].size(), v.data(), v.size(), 0);
        timed(t);
        if (st == CR_OK) {
          acked[i] = v;
          writes.fetch_add(1);
        } else {
          fail("SET " + keys[i] + ": " + cr_last_error());
        }
        continue;
      }
      cr_reply *r = nullptr;
      const auto t = Clock::now();
      const cr_status st = cr_client_cmd_get(&r, c, keys[i].data(), keys[i].size());
      timed(t);
      if (st != CR_OK) {
        fail("GET " + keys[i] + ": " + cr_last_error());
        continue;
      }
      reads.fetch_add(1);
      expect_value(r, keys[i], "GET");
      cr_reply_free(r);
    }
  });

  // MGET of 8 keys in several slots (and both shards).
  std::thread mget([&] {
    std::mt19937 rng(2);
    while (!stop.load()) {
      std::vector<size_t> pick;
      while (pick.size() < 8) {
        const size_t i = rng() % n_keys;
        if (std::find(pick.begin(), pick.end(), i) == pick.end()) pick.push_back(i);
      }
      std::vector<const void *> kp;
      std::vector<size_t> kl;
      for (size_t i : pick) {
        kp.push_back(keys[i].data());
        kl.push_back(keys[i].size());
      }
      cr_reply *r = nullptr;
      const auto t = Clock::now();
      const cr_status st = cr_client_cmd_mget(&r, c, kp.data(), kl.data(), kp.size());
      timed(t);
      if (st != CR_OK) {
        fail(std::string("MGET: ") + cr_last_error());
        continue;
      }
      reads.fetch_add(pick.size());
      for (size_t j = 0; j < pick.size(); ++j) {
        expect_value(j < cr_reply_get_count(r) ? cr_reply_get_element(r, j) : nullptr,
                     keys[pick[j]], "MGET");
      }
      cr_reply_free(r);
    }
  });

  // Pipelines of 10: 7 GETs, then 3 SETs of keys of odd index (a read after
  // a write of its slot in one pipeline goes to the master: reads first).
  std::thread pipe([&] {
    std::mt19937 rng(3);
    cr_pipeline *p = nullptr;
    if (cr_pipeline_new(&p, c) != CR_OK) {
      fail(std::string("cr_pipeline_new: ") + cr_last_error());
      return;
    }
    uint64_t seq = 0;
    static const char kSet[] = "SET", kGet[] = "GET";
    while (!stop.load()) {
      std::vector<size_t> idx(10);
      std::vector<std::string> vals(10);  // sized once: add borrows the bytes
      std::vector<std::array<const void *, 3>> argv(10);
      std::vector<std::array<size_t, 3>> lens(10);
      for (size_t j = 0; j < 10; ++j) {
        const bool set = j >= 7;
        size_t i = rng() % n_keys;
        if (set && i % 2 == 0) i = (i + 1) % n_keys;
        // One write per key per pipeline: its last acknowledged value is clear.
        while (set && std::find(idx.begin() + 7, idx.begin() + j, i) != idx.begin() + j)
          i = (i + 2) % n_keys;
        idx[j] = i;
        argv[j] = {set ? kSet : kGet, keys[i].data(), nullptr};
        lens[j] = {3, keys[i].size(), 0};
        if (set) {
          vals[j] = keys[i] + "#" + std::to_string(++seq);
          argv[j][2] = vals[j].data();
          lens[j][2] = vals[j].size();
        }
        if (cr_pipeline_add(p, set ? CR_ACCESS_WRITE : CR_ACCESS_READ, 1, set ? 3 : 2,
                            argv[j].data(), lens[j].data()) != CR_OK) {
          fail(std::string("cr_pipeline_add: ") + cr_last_error());
        }
      }
      cr_reply *rep[10] = {nullptr};
      cr_status st[10];
      size_t needed = 0;
      const auto t = Clock::now();
      cr_pipeline_execute(rep, st, 10, &needed, p);
      timed(t);
      for (size_t j = 0; j < needed && j < 10; ++j) {
        if (st[j] != CR_OK) {
          size_t len = 0;
          const char *msg = rep[j] == nullptr ? "" : cr_reply_get_string(rep[j], &len);
          fail("pipeline " + std::string(j >= 7 ? "SET " : "GET ") + keys[idx[j]] + ": " +
               std::string(msg == nullptr ? "" : msg, len));
        } else if (j >= 7) {
          acked[idx[j]] = vals[j];
          writes.fetch_add(1);
        } else {
          reads.fetch_add(1);
          expect_value(rep[j], keys[idx[j]], "PIPE");
        }
        cr_reply_free(rep[j]);
      }
    }
    cr_pipeline_free(p);
  });

  // The mover: range 0 out and home, range 1 out and home, again and again
  // (a whole cycle at a time, so both end at home); after each move the
  // client's reads are counted over the pause that follows it.
  int moves = 0;
  std::pair<uint64_t, uint64_t> after_moves{0, 0};
  double worst_window = 1.0;
  std::string move_error;
  const auto t0 = Clock::now();
  while (move_error.empty() && Clock::now() - t0 < kLoad) {
    for (int step = 0; step < 4 && move_error.empty(); ++step) {
      const Range &r = ranges[step / 2];
      const bool out = step % 2 == 0;
      move_error = Move(r, out ? r.home : r.away, out ? r.away : r.home);
      if (!move_error.empty()) break;
      ++moves;
      const Counts at_move = ClientReads(c);
      std::this_thread::sleep_for(kPause);  // the load runs; no assertion waits on this
      const auto window = Delta(at_move, ClientReads(c));
      after_moves.first += window.first;
      after_moves.second += window.second;
      if (window.second >= 20) worst_window = std::min(worst_window, Share(window));
    }
  }
  stop.store(true);
  single.join();
  mget.join();
  pipe.join();
  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();

  const auto client_total = Delta(client_before, ClientReads(c));
  Counts server_after;
  for (int n = 1; n <= nodes; ++n) server_after[Node(n, "ADDR")] = ServerReads(Node(n, "ADDR"));
  const auto server_total = Delta(server_before, server_after);
  uint64_t at_masters = 0;
  std::string per_node;  // the reads each node executed
  for (int n = 1; n <= nodes; ++n) {
    const uint64_t d = server_after[Node(n, "ADDR")] - server_before[Node(n, "ADDR")];
    per_node += " n" + std::to_string(n) + "=" + std::to_string(d);
    if (Node(n, "ROLE") == "master") at_masters += d;
  }

  // Every key's last acknowledged value, read from its master (both ranges
  // are home again): one redis-cli per master, GETs on its stdin.
  std::map<int, std::vector<size_t>> by_master;
  for (size_t i = 0; i < n_keys; ++i)
    by_master[cr_keyslot(keys[i].data(), keys[i].size()) <= 5460 ? 1 : 4].push_back(i);
  uint64_t lost = 0;
  std::vector<std::string> lost_examples;
  for (const auto &m : by_master) {
    std::string script;
    for (size_t i : m.second) script += "GET " + keys[i] + "\n";
    const std::string addr = Node(m.first, "ADDR");
    const std::string out = crtest::CommandOutput(
        "printf '" + script + "' | timeout 10 redis-cli --raw -h " +
        addr.substr(0, addr.rfind(':')) + " -p " + addr.substr(addr.rfind(':') + 1) + " 2>&1");
    std::istringstream lines(out);
    for (size_t i : m.second) {
      std::string got;
      std::getline(lines, got);
      if (got != acked[i]) {
        ++lost;
        if (lost_examples.size() < 5)
          lost_examples.push_back(keys[i] + " acked " + acked[i] + ", master has '" + got + "'");
      }
    }
  }

  cr_client_stats st = CR_CLIENT_STATS_INIT;
  ASSERT_EQ(cr_client_get_stats(&st, c), CR_OK);
  std::printf(
      "MIGRATION moves=%d seconds=%.1f reads=%llu writes=%llu in_zone=%.4f after_moves=%.4f "
      "worst_window=%.4f server_in_zone=%.4f server_reads_at_masters=%llu failed=%llu "
      "missing=%llu lost=%llu moved=%llu refreshes=%llu slowest_ms=%lld\n",
      moves, seconds, static_cast<unsigned long long>(reads.load()),
      static_cast<unsigned long long>(writes.load()), Share(client_total), Share(after_moves),
      worst_window, Share(server_total), static_cast<unsigned long long>(at_masters),
      static_cast<unsigned long long>(failed.load()),
      static_cast<unsigned long long>(missing.load()), static_cast<unsigned long long>(lost),
      static_cast<unsigned long long>(st.moved), static_cast<unsigned long long>(st.refreshes),
      static_cast<long long>(slowest_ms.load()));
  std::printf("MIGRATION server reads per node:%s\n", per_node.c_str());
  for (const std::string &m : missed) std::printf("MIGRATION read without value: %s\n", m.c_str());
  std::fflush(stdout);
  cr_client_free(c);

  EXPECT_EQ(move_error, "");
  EXPECT_GE(moves, 8) << "too few moves to test anything";
  EXPECT_EQ(failed.load(), 0u);
  EXPECT_EQ(missing.load(), 0u) << "reads found nil for keys that exist";
  EXPECT_EQ(lost, 0u) << (lost_examples.empty() ? "" : lost_examples.front());
  EXPECT_GT(writes.load(), 0u);
  EXPECT_GE(Share(client_total), 0.95);
  EXPECT_GE(Share(after_moves), 0.95);
  EXPECT_GE(Share(server_total), 0.95);
  for (const std::string &e : errors) ADD_FAILURE() << e;
}

}  // namespace migrate9_test
