// Asynchronous calls (cr_client_submit) against a real two-cloud Redis
// Cluster of their own (scripts/redis-harness.sh, ports 8861-8869; cloud A =
// 127.0.1.x, cloud B = 127.0.2.x):
//  - 2 000 SETs then 2 000 GETs in flight at once from one thread, each
//    value its own, completed on the engine thread and through the
//    completion queue;
//  - a local replica SIGKILLed under asynchronous read load (policy
//    local-replicas-first, so it is the first candidate of its shard's
//    reads): no read fails or reads a wrong value (the ones in flight on it
//    move on to their next candidate), then it is restarted.
//
// CR_TEST_CLUSTER_ENV names the cluster.env.
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "async_kit.hpp"
#include "cloudroute.h"
#include "fault_kit.hpp"
#include "harness_env.hpp"

namespace async_test {

// One call: its key, what it expects, what it got.
struct Call {
  std::string key;
  std::string want;
  std::atomic<int> calls{0};
  cr_status status = CR_OK;
  std::string got;
  std::string error;
};

void Record(void *ud, cr_status status, cr_reply *reply) {
  auto *c = static_cast<Call *>(ud);
  c->status = status;
  if (status == CR_OK) {
    size_t len = 0;
    const char *p = cr_reply_get_string(reply, &len);
    c->got.assign(p == nullptr ? "" : p, len);
    cr_reply_free(reply);
  } else {
    c->error = cr_last_error();
  }
  c->calls.fetch_add(1);
}

cr_status Submit(cr_client *cl, Call *c, bool write) {
  if (write) {
    const void *argv[] = {"SET", c->key.data(), c->want.data()};
    const size_t lens[] = {3, c->key.size(), c->want.size()};
    return cr_client_submit(cl, nullptr, CR_ACCESS_WRITE, 1, 3, argv, lens, &Record, c);
  }
  const void *argv[] = {"GET", c->key.data()};
  const size_t lens[] = {3, c->key.size()};
  return cr_client_submit(cl, nullptr, CR_ACCESS_READ, 1, 2, argv, lens, &Record, c);
}

bool AllDone(const std::vector<Call> &calls) {
  for (const Call &c : calls) {
    if (c.calls.load() == 0) return false;
  }
  return true;
}

// Runs the client's completions until every call completed or 20 s passed.
bool Finish(cr_client *cl, const std::vector<Call> &calls, int queue_fd) {
  return crtest::RunCompletionsUntil(cl, queue_fd, 20000, [&] { return AllDone(calls); });
}

class Async : public crtest::ClusterTest {
 protected:
  // command_timeout_ms: each tier's; 0 keeps the fault tests' short one.
  cr_client *NewClient(cr_policy policy, uint32_t command_timeout_ms = 0) {
    return crtest::NewAsyncClient(env_["SEEDS"], policy, "cr-async", command_timeout_ms);
  }
};

TEST_F(Async, TwoThousandCallsInFlightEachGetItsOwnValue) {
  for (const bool queue : {false, true}) {
    const std::string tag = queue ? "q" : "e";
    std::vector<Call> sets(2000), gets(2000);
    for (size_t i = 0; i < sets.size(); ++i) {
      sets[i].key = gets[i].key = "async:" + tag + std::to_string(i);
      sets[i].want = "OK";
      gets[i].want = "value-" + tag + std::to_string(i);
    }
    // 2 000 calls queue on one connection a node: what is asserted is that
    // each gets its own reply, not how fast (an ASan build on a loaded
    // machine took longer than the fault tests' timeout for the last ones).
    cr_client *cl = NewClient(CR_POLICY_LOCAL, 10000);
    ASSERT_NE(cl, nullptr);
    // Freed on every way out, before the calls it may still complete (an
    // assertion that fails returns with the engine running).
    std::unique_ptr<cr_client, void (*)(cr_client *)> owned(cl, cr_client_free);
    int fd = -1;
    if (queue) {
      ASSERT_EQ(cr_client_completion_fd(&fd, cl), CR_OK);
    }
    // SET with the GET's expected value: both vectors share keys.
    for (size_t i = 0; i < sets.size(); ++i) {
      Call &c = sets[i];
      const void *argv[] = {"SET", c.key.data(), gets[i].want.data()};
      const size_t lens[] = {3, c.key.size(), gets[i].want.size()};
      ASSERT_EQ(cr_client_submit(cl, nullptr, CR_ACCESS_WRITE, 1, 3, argv, lens, &Record, &c),
                CR_OK)
          << cr_last_error();
    }
    ASSERT_TRUE(Finish(cl, sets, fd));
    for (const Call &c : sets) {
      ASSERT_EQ(c.status, CR_OK) << c.key << ": " << c.error;
      ASSERT_EQ(c.got, "OK");
    }
    for (Call &c : gets) ASSERT_EQ(Submit(cl, &c, false), CR_OK) << cr_last_error();
    ASSERT_TRUE(Finish(cl, gets, fd));
    for (const Call &c : gets) {
      EXPECT_EQ(c.calls.load(), 1);
      ASSERT_EQ(c.status, CR_OK) << c.key << ": " << c.error;
      ASSERT_EQ(c.got, c.want) << c.key;
    }
  }
}

TEST_F(Async, AReplicaKilledUnderLoadCostsNoReadAndNoWrongValue) {
  cr_client *cl = NewClient(CR_POLICY_LOCAL_REPLICAS_FIRST);
  ASSERT_NE(cl, nullptr);
  // Keys of every shard, stored.
  std::vector<Call> stored(300);
  for (size_t i = 0; i < stored.size(); ++i) {
    stored[i].key = "async:kill" + std::to_string(i);
    stored[i].want = "v" + std::to_string(i);
    ASSERT_EQ(Submit(cl, &stored[i], true), CR_OK);
  }
  ASSERT_TRUE(Finish(cl, stored, -1));
  for (const Call &c : stored) ASSERT_EQ(c.status, CR_OK) << c.error;
  // Rounds of 300 GETs in flight; n6 (shard 2's cloud-A replica) is killed
  // after the third round was submitted.
  uint64_t reads = 0;
  for (int round = 0; round < 12; ++round) {
    std::vector<Call> gets(stored.size());
    for (size_t i = 0; i < gets.size(); ++i) {
      gets[i].key = stored[i].key;
      gets[i].want = stored[i].want;
      ASSERT_EQ(Submit(cl, &gets[i], false), CR_OK);
    }
    if (round == 3) {
      std::string pid;
      const std::string nd = env_["HARNESS_DIR"] + "/cluster/n6";
      ASSERT_TRUE(static_cast<bool>(std::ifstream(nd + "/redis.pid") >> pid));
      ASSERT_EQ(kill(std::atoi(pid.c_str()), SIGKILL), 0);
    }
    ASSERT_TRUE(Finish(cl, gets, -1));
    for (const Call &c : gets) {
      EXPECT_EQ(c.calls.load(), 1);
      ASSERT_EQ(c.status, CR_OK) << "round " << round << " " << c.key << ": " << c.error;
      ASSERT_EQ(c.got, c.want) << c.key;
      ++reads;
    }
  }
  cr_client_stats st = CR_CLIENT_STATS_INIT;
  ASSERT_EQ(cr_client_get_stats(&st, cl), CR_OK);
  EXPECT_GT(st.fallbacks, 0u);  // the reads in flight on n6 moved on
  std::printf("ASYNC kill reads=%llu fallbacks=%llu\n", static_cast<unsigned long long>(reads),
              static_cast<unsigned long long>(st.fallbacks));
  cr_client_free(cl);
  Restart(6);
}

}  // namespace async_test
