// Asynchronous calls through the C API (cr_client_submit) against two
// scripted nodes — a master A and its replica B, both fake::ClusterNode for
// the handshake and the topology — where a real server cannot misbehave on
// cue: A holds its replies, then drops the connection with many calls in
// flight (reads move on to B, writes say they may have run, every callback
// runs once with its own reply); a call's own timeout leaves the shared
// connection in sync; cr_client_free with calls in flight runs every
// callback once, cancelled, before it returns; the completion queue runs
// callbacks on the thread that asks, woken through its fd. The same for
// fan-outs (cr_client_submit_mget, cr_pipeline_submit): A drops its
// connection with their legs in flight — the MGETs and the pipelines' reads
// are answered by B, each its own, the pipelines' writes say they may have
// run.
#include <gtest/gtest.h>
#include <poll.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cloudroute.h"
#include "common/wait_until.hpp"
#include "fake_server.hpp"

namespace async_calls_test {

using fake::Bulk;

// A node: GET k answers k, MGET each key, SET +OK, PING its argument —
// unless hold is set,
// when data commands get no answer (nor does anything after them on that
// connection) until hold is cleared and the next bytes arrive.
class Node {
 public:
  explicit Node(std::function<std::string()> slots)
      : slots_(std::move(slots)), server_([this](const std::string &req) { return Answer(req); }) {}
  uint16_t port() const { return server_.port(); }
  std::string address() const { return "127.0.0.1:" + std::to_string(port()); }
  int accepted() const { return server_.accepted(); }
  int Drop() { return server_.Drop(); }

  std::atomic<bool> hold{false};
  std::atomic<int> held{0};  // data commands seen while holding, per buffer

 private:
  std::string Answer(const std::string &req) {
    size_t used = 0;
    std::string out;
    int data = 0;
    for (const auto &argv : fake::Commands(req, &used)) {
      const std::string cmd = argv.empty() ? "" : argv[0];
      if (cmd == "GET" || cmd == "SET" || cmd == "MGET") ++data;
      if (hold && data > 0) continue;
      if (cmd == "GET") {
        out += Bulk(argv.size() > 1 ? argv[1] : "");
      } else if (cmd == "MGET") {  // each key's value is the key
        out += "*" + std::to_string(argv.size() - 1) + "\r\n";
        for (size_t i = 1; i < argv.size(); ++i) out += Bulk(argv[i]);
      } else {
        out += fake::ClusterNode(slots_)("*" + std::to_string(argv.size()) + "\r\n" + [&] {
          std::string s;
          for (const std::string &a : argv) s += Bulk(a);
          return s;
        }());
      }
    }
    if (hold && data > 0) {
      held = data;
      return std::string();  // the buffer grows until hold is cleared
    }
    return out;
  }

  std::function<std::string()> slots_;
  FakeServer server_;
};

// Both nodes and a client of them (reads: master first — the default
// policy with no locations —, then the replica).
struct Pair {
  Pair() : a([this] { return Slots(); }), b([this] { return Slots(); }) {}
  std::string Slots() const {
    return "*1\r\n*4\r\n:0\r\n:16383\r\n*3\r\n" + Bulk("127.0.0.1") + ":" +
           std::to_string(a.port()) + "\r\n" + Bulk(std::string(40, 'a')) + "*3\r\n" +
           Bulk("127.0.0.1") + ":" + std::to_string(b.port()) + "\r\n" + Bulk(std::string(40, 'b'));
  }
  cr_client *Client(uint32_t shared = 0) const {
    cr_client_options o = CR_CLIENT_OPTIONS_INIT;
    o.shared_connections = shared;
    cr_client *c = nullptr;
    EXPECT_EQ(cr_client_new(&c, nullptr, &o, a.address().c_str()), CR_OK) << cr_last_error();
    return c;
  }
  Node a;
  Node b;
};

// One call's completion, recorded.
struct Done {
  std::string key;
  std::atomic<int> calls{0};
  cr_status status = CR_OK;
  std::string value;
  std::string error;
  std::thread::id thread;
};

void Record(void *ud, cr_status status, cr_reply *reply) {
  auto *d = static_cast<Done *>(ud);
  d->status = status;
  d->thread = std::this_thread::get_id();
  if (status == CR_OK) {
    size_t len = 0;
    const char *p = cr_reply_get_string(reply, &len);
    d->value.assign(p == nullptr ? "" : p, len);
    cr_reply_free(reply);
  } else {
    d->error = cr_last_error();
  }
  d->calls.fetch_add(1);
}

cr_status SubmitGet(cr_client *c, Done *d, uint32_t timeout_ms = 0) {
  const void *argv[] = {"GET", d->key.data()};
  const size_t lens[] = {3, d->key.size()};
  cr_call_options o = CR_CALL_OPTIONS_INIT;
  o.timeout_ms = timeout_ms;
  return cr_client_submit(c, &o, CR_ACCESS_READ, 1, 2, argv, lens, &Record, d);
}

cr_status SubmitSet(cr_client *c, Done *d) {
  const void *argv[] = {"SET", d->key.data(), "v"};
  const size_t lens[] = {3, d->key.size(), 1};
  return cr_client_submit(c, nullptr, CR_ACCESS_WRITE, 1, 3, argv, lens, &Record, d);
}

bool AllDone(const std::vector<Done> &ds) {
  for (const Done &d : ds) {
    if (d.calls.load() == 0) return false;
  }
  return true;
}

TEST(AsyncCalls, ADroppedConnectionRetriesReadsAndReportsWritesEachToItsOwnCallback) {
  Pair p;
  cr_client *c = p.Client();
  ASSERT_NE(c, nullptr);
  p.a.hold = true;
  std::vector<Done> reads(20), writes(6);
  for (size_t i = 0; i < reads.size(); ++i) {
    reads[i].key = "r" + std::to_string(i);
    ASSERT_EQ(SubmitGet(c, &reads[i]), CR_OK) << cr_last_error();
  }
  for (size_t i = 0; i < writes.size(); ++i) {
    writes[i].key = "w" + std::to_string(i);
    ASSERT_EQ(SubmitSet(c, &writes[i]), CR_OK) << cr_last_error();
  }
  // Every call sits on A's one shared connection, unanswered.
  ASSERT_TRUE(crtest::WaitUntil([&] { return p.a.held.load() == 26; }, std::chrono::seconds(10)))
      << p.a.held.load();
  EXPECT_EQ(reads[0].calls.load(), 0);
  p.a.hold = false;
  ASSERT_GE(p.a.Drop(), 1);  // the shared connection (and the seed's)
  ASSERT_TRUE(crtest::WaitUntil([&] { return AllDone(reads) && AllDone(writes); },
                                std::chrono::seconds(10)));
  for (const Done &d : reads) {
    EXPECT_EQ(d.calls.load(), 1) << d.key;
    EXPECT_EQ(d.status, CR_OK) << d.key << ": " << d.error;
    EXPECT_EQ(d.value, d.key);  // its own reply, from the replica
  }
  for (const Done &d : writes) {
    EXPECT_EQ(d.calls.load(), 1) << d.key;
    EXPECT_EQ(d.status, CR_ECONN) << d.key;
    EXPECT_NE(d.error.find("may have reached the server and was not re-sent"), std::string::npos)
        << d.error;
  }
  cr_client_stats st = CR_CLIENT_STATS_INIT;
  ASSERT_EQ(cr_client_get_stats(&st, c), CR_OK);
  EXPECT_EQ(st.fallbacks, reads.size());
  // The write goes to A again, on a new connection.
  Done again;
  again.key = "w-after";
  ASSERT_EQ(SubmitSet(c, &again), CR_OK);
  ASSERT_TRUE(crtest::WaitUntil([&] { return again.calls.load() == 1; }, std::chrono::seconds(10)));
  EXPECT_EQ(again.status, CR_OK) << again.error;
  cr_client_free(c);
  for (const Done &d : reads) EXPECT_EQ(d.calls.load(), 1);
}

// A fan-out's completion: an MGET's values, or a pipeline's results.
struct FanDone {
  std::vector<std::string> keys;
  std::atomic<int> calls{0};
  cr_status status = CR_OK;
  std::string error;
  std::vector<std::string> values;
  std::vector<cr_status> statuses;
};

void RecordMGet(void *ud, cr_status status, cr_reply *reply) {
  auto *d = static_cast<FanDone *>(ud);
  d->status = status;
  if (status == CR_OK) {
    for (size_t i = 0; i < cr_reply_get_count(reply); ++i) {
      size_t len = 0;
      const char *v = cr_reply_get_string(cr_reply_get_element(reply, i), &len);
      d->values.emplace_back(v == nullptr ? "" : v, len);
    }
    cr_reply_free(reply);
  } else {
    d->error = cr_last_error();
  }
  d->calls.fetch_add(1);
}

void RecordPipeline(void *ud, cr_status status, size_t n, cr_reply *const *replies,
                    const cr_status *statuses) {
  auto *d = static_cast<FanDone *>(ud);
  d->status = status;
  if (status != CR_OK) d->error = cr_last_error();
  for (size_t i = 0; i < n; ++i) {
    size_t len = 0;
    const char *v = cr_reply_get_string(replies[i], &len);
    d->values.emplace_back(v == nullptr ? "" : v, len);
    d->statuses.push_back(statuses[i]);
    cr_reply_free(replies[i]);
  }
  d->calls.fetch_add(1);
}

TEST(AsyncCalls, ADroppedConnectionMidFanOutRetriesReadsAndReportsWritesToTheirOwnCallers) {
  Pair p;
  cr_client *c = p.Client();
  ASSERT_NE(c, nullptr);
  p.a.hold = true;
  // 8 MGETs of 5 keys each (one MGET per slot on the wire), and 4 pipelines
  // of GET, SET, GET: every command sits on A's shared connection.
  std::vector<FanDone> mgets(8), pipes(4);
  int commands = 0;
  for (size_t i = 0; i < mgets.size(); ++i) {
    std::vector<const void *> ptrs;
    std::vector<size_t> lens;
    std::vector<uint16_t> slots;
    for (size_t j = 0; j < 5; ++j) {
      mgets[i].keys.push_back("m" + std::to_string(i) + "-" + std::to_string(j));
    }
    for (const std::string &k : mgets[i].keys) {
      ptrs.push_back(k.data());
      lens.push_back(k.size());
      const uint16_t slot = cr_keyslot(k.data(), k.size());
      if (std::find(slots.begin(), slots.end(), slot) == slots.end()) slots.push_back(slot);
    }
    commands += static_cast<int>(slots.size());
    ASSERT_EQ(
        cr_client_submit_mget(c, ptrs.data(), lens.data(), ptrs.size(), &RecordMGet, &mgets[i]),
        CR_OK)
        << cr_last_error();
  }
  for (size_t i = 0; i < pipes.size(); ++i) {
    FanDone &d = pipes[i];
    d.keys = {"pr" + std::to_string(i), "pw" + std::to_string(i), "pq" + std::to_string(i)};
    cr_pipeline *pl = nullptr;
    ASSERT_EQ(cr_pipeline_new(&pl, c), CR_OK);
    const void *get1[] = {"GET", d.keys[0].data()};
    const size_t get1_lens[] = {3, d.keys[0].size()};
    const void *set[] = {"SET", d.keys[1].data(), "v"};
    const size_t set_lens[] = {3, d.keys[1].size(), 1};
    const void *get2[] = {"GET", d.keys[2].data()};
    const size_t get2_lens[] = {3, d.keys[2].size()};
    ASSERT_EQ(cr_pipeline_add(pl, CR_ACCESS_READ, 1, 2, get1, get1_lens), CR_OK);
    ASSERT_EQ(cr_pipeline_add(pl, CR_ACCESS_WRITE, 1, 3, set, set_lens), CR_OK);
    ASSERT_EQ(cr_pipeline_add(pl, CR_ACCESS_READ, 1, 2, get2, get2_lens), CR_OK);
    ASSERT_EQ(cr_pipeline_submit(pl, &RecordPipeline, &d), CR_OK) << cr_last_error();
    cr_pipeline_free(pl);  // the submit copied the commands
    commands += 3;
  }
  ASSERT_TRUE(
      crtest::WaitUntil([&] { return p.a.held.load() == commands; }, std::chrono::seconds(10)))
      << p.a.held.load() << " of " << commands;
  EXPECT_EQ(mgets[0].calls.load(), 0);
  p.a.hold = false;
  ASSERT_GE(p.a.Drop(), 1);
  ASSERT_TRUE(crtest::WaitUntil(
      [&] {
        for (const FanDone &d : mgets) {
          if (d.calls.load() == 0) return false;
        }
        for (const FanDone &d : pipes) {
          if (d.calls.load() == 0) return false;
        }
        return true;
      },
      std::chrono::seconds(10)));
  for (const FanDone &d : mgets) {
    EXPECT_EQ(d.calls.load(), 1);
    ASSERT_EQ(d.status, CR_OK) << d.error;
    EXPECT_EQ(d.values, d.keys);  // its own values, from the replica
  }
  for (const FanDone &d : pipes) {
    EXPECT_EQ(d.calls.load(), 1);
    EXPECT_EQ(d.status, CR_ECONN) << d.error;
    ASSERT_EQ(d.statuses.size(), 3u);
    EXPECT_EQ(d.statuses[0], CR_OK);
    EXPECT_EQ(d.values[0], d.keys[0]);
    EXPECT_EQ(d.statuses[1], CR_ECONN);
    EXPECT_NE(d.values[1].find("may have reached the server and was not re-sent"),
              std::string::npos)
        << d.values[1];
    EXPECT_NE(d.error.find("command 1 of 3"), std::string::npos) << d.error;
    EXPECT_EQ(d.statuses[2], CR_OK);
    EXPECT_EQ(d.values[2], d.keys[2]);
  }
  cr_client_free(c);
  for (const FanDone &d : mgets) EXPECT_EQ(d.calls.load(), 1);
}

TEST(AsyncCalls, FreeWithFanOutsInFlightRunsEveryCallbackOnceCancelled) {
  Pair p;
  p.a.hold = true;
  p.b.hold = true;
  cr_client *c = p.Client();
  ASSERT_NE(c, nullptr);
  std::vector<FanDone> ds(10);
  for (size_t i = 0; i < ds.size(); ++i) {
    ds[i].keys = {"f" + std::to_string(i) + "a", "f" + std::to_string(i) + "b"};
    const void *ptrs[] = {ds[i].keys[0].data(), ds[i].keys[1].data()};
    const size_t lens[] = {ds[i].keys[0].size(), ds[i].keys[1].size()};
    ASSERT_EQ(cr_client_submit_mget(c, ptrs, lens, 2, &RecordMGet, &ds[i]), CR_OK);
  }
  ASSERT_TRUE(crtest::WaitUntil([&] { return p.a.held.load() >= 10; }, std::chrono::seconds(10)));
  cr_client_free(c);
  for (const FanDone &d : ds) {
    EXPECT_EQ(d.calls.load(), 1);
    EXPECT_EQ(d.status, CR_ECONN);
    EXPECT_EQ(d.error.rfind("cancelled:", 0), 0u) << d.error;
  }
}

TEST(AsyncCalls, ACallsOwnTimeoutLeavesTheSharedConnectionInSync) {
  Pair p;
  cr_client *c = p.Client(1);
  ASSERT_NE(c, nullptr);
  p.a.hold = true;
  Done late;
  late.key = "late";
  ASSERT_EQ(SubmitGet(c, &late, 100), CR_OK);
  ASSERT_TRUE(crtest::WaitUntil([&] { return late.calls.load() == 1; }, std::chrono::seconds(10)));
  EXPECT_EQ(late.status, CR_ETIMEOUT) << late.error;
  EXPECT_NE(late.error.find("the node is not marked"), std::string::npos) << late.error;
  const int accepted = p.a.accepted();
  p.a.hold = false;
  // The late reply comes first on the same connection and is dropped; the
  // next call gets its own.
  Done next;
  next.key = "next";
  ASSERT_EQ(SubmitGet(c, &next), CR_OK);
  ASSERT_TRUE(crtest::WaitUntil([&] { return next.calls.load() == 1; }, std::chrono::seconds(10)));
  EXPECT_EQ(next.status, CR_OK) << next.error;
  EXPECT_EQ(next.value, "next");
  EXPECT_EQ(p.a.accepted(), accepted);
  EXPECT_EQ(late.calls.load(), 1);
  cr_client_free(c);
}

TEST(AsyncCalls, FreeWithCallsInFlightRunsEveryCallbackOnceCancelled) {
  Pair p;
  p.a.hold = true;
  p.b.hold = true;
  cr_client *c = p.Client();
  ASSERT_NE(c, nullptr);
  std::vector<Done> ds(30);
  for (size_t i = 0; i < ds.size(); ++i) {
    ds[i].key = "k" + std::to_string(i);
    ASSERT_EQ(i % 3 == 0 ? SubmitSet(c, &ds[i]) : SubmitGet(c, &ds[i]), CR_OK);
  }
  ASSERT_TRUE(crtest::WaitUntil([&] { return p.a.held.load() == 30; }, std::chrono::seconds(10)));
  cr_client_free(c);
  for (const Done &d : ds) {
    EXPECT_EQ(d.calls.load(), 1) << d.key;
    EXPECT_EQ(d.status, CR_ECONN) << d.key;
    EXPECT_EQ(d.error.rfind("cancelled:", 0), 0u) << d.error;
  }
}

TEST(AsyncCalls, TheCompletionQueueRunsCallbacksOnTheThreadThatAsks) {
  Pair p;
  cr_client *c = p.Client();
  ASSERT_NE(c, nullptr);
  int fd = -1;
  ASSERT_EQ(cr_client_completion_fd(&fd, c), CR_OK);
  int again = -1;
  ASSERT_EQ(cr_client_completion_fd(&again, c), CR_OK);
  EXPECT_EQ(again, fd);
  // In rounds of 25: FakeServer answers what one read of 4 KiB holds, and
  // a command cut at that boundary would go unanswered.
  std::vector<Done> ds(200);
  size_t ran = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (size_t i = 0; i < ds.size(); ++i) {
    ds[i].key = "q" + std::to_string(i);
  }
  size_t submitted = 0;
  while (ran < ds.size() && std::chrono::steady_clock::now() < until) {
    if (submitted == ran) {
      for (size_t i = 0; i < 25; ++i, ++submitted) ASSERT_EQ(SubmitGet(c, &ds[submitted]), CR_OK);
    }
    pollfd pfd{fd, POLLIN, 0};
    if (poll(&pfd, 1, 100) <= 0) continue;
    size_t n = 0;
    ASSERT_EQ(cr_client_run_completions(&n, c, 7), CR_OK);
    EXPECT_LE(n, 7u);
    ran += n;
  }
  ASSERT_EQ(ran, ds.size());
  for (const Done &d : ds) {
    EXPECT_EQ(d.calls.load(), 1);
    EXPECT_EQ(d.value, d.key);
    EXPECT_EQ(d.thread, std::this_thread::get_id());
  }
  cr_client_stats st = CR_CLIENT_STATS_INIT;
  ASSERT_EQ(cr_client_get_stats(&st, c), CR_OK);
  EXPECT_EQ(st.fallbacks, 0u);  // every call answered on its first attempt
  // Nothing waits: the fd is not readable.
  pollfd pfd{fd, POLLIN, 0};
  EXPECT_EQ(poll(&pfd, 1, 0), 0);
  cr_client_free(c);
}

TEST(AsyncCalls, BadSubmissionsAreRefusedAndNeverCalledBack) {
  Pair p;
  cr_client *c = p.Client();
  ASSERT_NE(c, nullptr);
  Done d;
  d.key = "k";
  const void *sub[] = {"SUBSCRIBE", "k"};
  const size_t sub_lens[] = {9, 1};
  EXPECT_EQ(cr_client_submit(c, nullptr, CR_ACCESS_READ, 1, 2, sub, sub_lens, &Record, &d),
            CR_EINVAL);
  const void *get[] = {"GET", "k"};
  const size_t get_lens[] = {3, 1};
  EXPECT_EQ(cr_client_submit(c, nullptr, CR_ACCESS_READ, 2, 2, get, get_lens, &Record, &d),
            CR_EINVAL);
  EXPECT_EQ(cr_client_submit(c, nullptr, CR_ACCESS_READ, 1, 2, get, get_lens, nullptr, &d),
            CR_EINVAL);
  EXPECT_EQ(cr_client_submit(nullptr, nullptr, CR_ACCESS_READ, 1, 2, get, get_lens, &Record, &d),
            CR_EINVAL);
  EXPECT_EQ(cr_client_completion_fd(nullptr, c), CR_EINVAL);
  EXPECT_EQ(cr_client_run_completions(nullptr, nullptr, 0), CR_EINVAL);
  cr_client_free(c);
  EXPECT_EQ(d.calls.load(), 0);
}

}  // namespace async_calls_test
