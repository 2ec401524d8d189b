// Batches over shard groups on the engine (key_batch.hpp, fan_out.cpp), with
// fake masters on 127.0.0.1: one command per group, a result per key, and a
// write its group's master did not execute — refused as READONLY (a demoted
// master), no master known, or not dialed — tried again once the source was
// asked (GroupSource's AskFn, Sentinel's re-ask), within max_retries; a
// write that may have run is never re-sent.
#include "cloudroute/net/key_batch.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cloudroute/core/ring.hpp"
#include "cloudroute/core/shard_group.hpp"
#include "cloudroute/net/client_context.hpp"
#include "cloudroute/net/command_executor.hpp"
#include "cloudroute/net/node_pools.hpp"
#include "cloudroute/net/topology_source.hpp"
#include "fake_server.hpp"

namespace cloudroute {
namespace net {
namespace key_batch_test {

// A fake master that records the commands it got and answers each with
// answer(argv) (by default +OK / an integer / an array of nils, by command).
class Master {
 public:
  explicit Master(std::function<std::string(const std::vector<std::string> &)> answer = nullptr)
      : answer_(std::move(answer)),
        server_([this](const std::string &req) { return Respond(req); }) {}

  uint16_t port() const { return server_.port(); }
  std::vector<std::vector<std::string>> got() {
    std::lock_guard<std::mutex> lock(mu_);
    return got_;
  }
  size_t count(const std::string &cmd) {
    size_t n = 0;
    for (const auto &argv : got()) n += !argv.empty() && argv[0] == cmd ? 1 : 0;
    return n;
  }

 private:
  std::string Respond(const std::string &req) {
    size_t used = 0;
    std::string out;
    auto cmds = fake::Commands(req, &used);
    if (cmds.empty() || used != req.size()) return out;  // wait for the rest (the buffer grows)
    for (const auto &argv : cmds) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        got_.push_back(argv);
      }
      if (answer_) {
        const std::string a = answer_(argv);
        if (!a.empty()) {
          out += a;
          continue;
        }
      }
      const std::string &c = argv[0];
      if (c == "MGET") {
        out += "*" + std::to_string(argv.size() - 1) + "\r\n";
        for (size_t i = 1; i < argv.size(); ++i) out += fake::Bulk("v:" + argv[i]);
      } else if (c == "DEL" || c == "EXISTS") {
        out += ":" + std::to_string(argv.size() - 1) + "\r\n";
      } else {
        out += "+OK\r\n";
      }
    }
    return out;
  }

  std::function<std::string(const std::vector<std::string> &)> answer_;
  std::mutex mu_;
  std::vector<std::vector<std::string>> got_;
  FakeServer server_;
};

std::shared_ptr<const Ring> TwoGroupRing() {
  RingBuilder b(RingOptions{});
  EXPECT_TRUE(b.AddShard("g0", 2, 1).ok());
  EXPECT_TRUE(b.AddShard("g1", 2, 1).ok());
  return *b.Build();
}

// Two groups; ask(group) is what the engine's AskAbout calls.
struct Engine {
  explicit Engine(GroupSource::AskFn ask, uint32_t max_retries = 3)
      : groups(RouterConfig{}),
        source(&groups, std::move(ask)),
        ctx(nullptr, &source, Options(max_retries)),
        pools(&ctx,
              [](const std::string &, uint16_t, Connection *, uint32_t) { return Status::Ok(); }),
        executor(&ctx, &pools) {
    AddGroups(&groups);
  }

  static void AddGroups(ShardGroups *g) {
    EXPECT_TRUE(g->AddGroup("g0").ok());
    EXPECT_TRUE(g->AddGroup("g1").ok());
    EXPECT_TRUE(g->SetRing(TwoGroupRing()).ok());
  }
  static ClientOptions Options(uint32_t max_retries) {
    ClientOptions o;
    o.max_retries = max_retries;
    o.retry_base_ms = 1;
    o.retry_cap_ms = 5;
    o.refresh_interval_ms = 0;
    for (uint32_t &t : o.timeout_ms) t = 1000;
    return o;
  }
  // n keys, alternating between the groups: even positions group 0.
  std::vector<std::string> Keys(size_t n) {
    std::vector<std::string> out, by[2];
    for (int i = 0; by[0].size() < n || by[1].size() < n; ++i) {
      const std::string k = "k" + std::to_string(i);
      by[source.Place(k.data(), k.size())].push_back(k);
    }
    for (size_t i = 0; i < n; ++i) out.push_back(by[i % 2][i / 2]);
    return out;
  }
  KeyBatchResult Run(KeyBatchKind kind, const std::vector<std::string> &keys,
                     const std::vector<std::string> *values = nullptr) {
    return RunKeyBatch(&executor, source, kind, keys, values);
  }

  ShardGroups groups;
  GroupSource source;
  ClientContext ctx;
  NodePools pools;
  CommandExecutor executor;
};

TEST(KeyBatch, OneCommandPerGroupAndAResultPerKey) {
  Master m0, m1;
  Engine e(nullptr);
  ASSERT_TRUE(e.groups.SetMaster(0, "127.0.0.1", m0.port()).ok());
  ASSERT_TRUE(e.groups.SetMaster(1, "127.0.0.1", m1.port()).ok());
  const std::vector<std::string> keys = e.Keys(10), values(10, "v");
  KeyBatchResult w = e.Run(KeyBatchKind::kMSet, keys, &values);
  ASSERT_TRUE(w.summary.ok()) << w.summary.message();
  EXPECT_EQ(w.failed, 0u);
  ASSERT_EQ(m0.count("MSET"), 1u);
  ASSERT_EQ(m1.count("MSET"), 1u);
  EXPECT_EQ(m0.got()[0].size(), 11u);  // MSET and 5 pairs

  // No replicas: reads go to the masters.
  KeyBatchResult r = e.Run(KeyBatchKind::kMGet, keys);
  ASSERT_TRUE(r.summary.ok()) << r.summary.message();
  for (size_t i = 0; i < keys.size(); ++i) EXPECT_EQ(r.values[i]->str, "v:" + keys[i]);
  EXPECT_EQ(e.Run(KeyBatchKind::kDel, keys).count, 10);
  EXPECT_EQ(e.Run(KeyBatchKind::kExists, keys).count, 10);
  EXPECT_EQ(m0.count("DEL") + m0.count("EXISTS") + m1.count("DEL") + m1.count("EXISTS"), 4u);

  // Bad input: refused before anything is sent.
  EXPECT_EQ(e.Run(KeyBatchKind::kMGet, {}).summary.code(), Code::kInvalid);
  const std::vector<std::string> one = {"x"};
  EXPECT_EQ(e.Run(KeyBatchKind::kMSet, keys, &one).summary.code(), Code::kInvalid);
  EXPECT_EQ(e.Run(KeyBatchKind::kMSet, keys).summary.code(), Code::kInvalid);
  EXPECT_EQ(e.Run(KeyBatchKind::kDel, keys, &values).summary.code(), Code::kInvalid);
}

// A demoted master answers READONLY: the batch asks the source, which names
// the new master, and the group's MSET is sent there — the other group's
// once only.
TEST(KeyBatch, AWriteADemotedMasterRefusedGoesToTheNewOne) {
  Master demoted([](const std::vector<std::string> &argv) -> std::string {
    return argv[0] == "MSET" ? "-READONLY You can't write against a read only replica.\r\n" : "";
  });
  Master m0, promoted;
  std::atomic<int> asked{0};
  std::unique_ptr<Engine> e;
  e = std::make_unique<Engine>([&](uint32_t group) {
    ++asked;
    EXPECT_EQ(group, 1u);
    EXPECT_TRUE(e->groups.SetMaster(1, "127.0.0.1", promoted.port()).ok());
    return true;
  });
  ASSERT_TRUE(e->groups.SetMaster(0, "127.0.0.1", m0.port()).ok());
  ASSERT_TRUE(e->groups.SetMaster(1, "127.0.0.1", demoted.port()).ok());
  const std::vector<std::string> keys = e->Keys(6), values(6, "v");
  KeyBatchResult w = e->Run(KeyBatchKind::kMSet, keys, &values);
  ASSERT_TRUE(w.summary.ok()) << w.summary.message();
  EXPECT_EQ(asked.load(), 1);
  EXPECT_EQ(demoted.count("MSET"), 1u);
  EXPECT_EQ(promoted.count("MSET"), 1u);
  EXPECT_EQ(m0.count("MSET"), 1u) << "group 0's MSET was sent again";
  EXPECT_EQ(e->ctx.stats.Snapshot().retries, 1u);
}

// No master known for group 1 and the source never learns one: its keys
// fail with kUnavailable after max_retries asks, named in the summary;
// group 0's are written.
TEST(KeyBatch, AGroupWithNoMasterFailsOnlyItsKeys) {
  Master m0;
  std::atomic<int> asked{0};
  Engine e([&](uint32_t) { return ++asked, true; }, /*max_retries=*/2);
  ASSERT_TRUE(e.groups.SetMaster(0, "127.0.0.1", m0.port()).ok());
  const std::vector<std::string> keys = e.Keys(6), values(6, "v");
  KeyBatchResult w = e.Run(KeyBatchKind::kMSet, keys, &values);
  EXPECT_EQ(asked.load(), 2);
  EXPECT_EQ(w.failed, 3u);
  EXPECT_EQ(w.summary.code(), Code::kUnavailable);
  for (size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(w.status[i].ok(), i % 2 == 0) << i;
  }
  EXPECT_NE(w.summary.message().find("3 of 6 keys"), std::string::npos) << w.summary.message();
  EXPECT_NE(w.summary.message().find("keys 1, 3, 5 (group 'g1')"), std::string::npos)
      << w.summary.message();
  EXPECT_EQ(m0.count("MSET"), 1u);
}

// A master that cannot be dialed (nothing listens): not executed, asked
// about; a master that accepted the write and then dropped the connection
// may have run it: never re-sent, the error says so.
TEST(KeyBatch, NotDialedIsRetriedMaybeRunIsNot) {
  uint16_t closed_port = 0;
  {
    const int fd = fake::ListenLoopback(&closed_port);
    close(fd);  // nothing listens there now
  }
  Master m0, m1;
  std::atomic<int> asked{0};
  std::unique_ptr<Engine> e;
  e = std::make_unique<Engine>([&](uint32_t) {
    ++asked;
    EXPECT_TRUE(e->groups.SetMaster(1, "127.0.0.1", m1.port()).ok());
    return true;
  });
  ASSERT_TRUE(e->groups.SetMaster(0, "127.0.0.1", m0.port()).ok());
  ASSERT_TRUE(e->groups.SetMaster(1, "127.0.0.1", closed_port).ok());
  const std::vector<std::string> keys = e->Keys(4), values(4, "v");
  KeyBatchResult w = e->Run(KeyBatchKind::kMSet, keys, &values);
  ASSERT_TRUE(w.summary.ok()) << w.summary.message();
  EXPECT_EQ(asked.load(), 1);
  EXPECT_EQ(m1.count("MSET"), 1u);

  // Takes the write and never answers (past the 1 s timeout): it may have run.
  FakeServer dropper([](const std::string &) -> std::string { return std::string(); });
  std::atomic<int> asked2{0};
  Engine e2([&](uint32_t) { return ++asked2, true; });
  ASSERT_TRUE(e2.groups.SetMaster(0, "127.0.0.1", m0.port()).ok());
  ASSERT_TRUE(e2.groups.SetMaster(1, "127.0.0.1", dropper.port()).ok());
  KeyBatchResult lost = e2.Run(KeyBatchKind::kMSet, keys, &values);
  EXPECT_EQ(asked2.load(), 0) << "a write that may have run was tried again";
  EXPECT_EQ(lost.failed, 2u);
  EXPECT_NE(lost.summary.message().find("may have reached the server"), std::string::npos)
      << lost.summary.message();
}

}  // namespace key_batch_test
}  // namespace net
}  // namespace cloudroute
