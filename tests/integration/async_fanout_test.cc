// Asynchronous fan-outs (cr_client_submit_mget / _mset / _del / _exists,
// cr_pipeline_submit) against a real two-cloud Redis Cluster of their own
// (scripts/redis-harness.sh, ports 9011-9019; cloud A = 127.0.1.x, cloud B
// = 127.0.2.x):
//  - hundreds of MGETs and pipelines in flight at once from one thread,
//    each over its own keys with its own values: every call gets exactly
//    its own replies, once — completed on the engine thread and through the
//    completion queue; MSET, DEL and EXISTS answer as the blocking calls;
//  - a local replica SIGKILLed under asynchronous MGET load (policy
//    local-replicas-first, so it is the first candidate of its shard's
//    reads): no MGET fails or reads a wrong value (its legs in flight on the
//    replica move on to their next candidate), then it is restarted;
//  - the client freed with fan-outs in flight: every callback runs exactly
//    once, before the free returns, a reply or "cancelled".
//
// CR_TEST_CLUSTER_ENV names the cluster.env.
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "async_kit.hpp"
#include "cloudroute.h"
#include "fault_kit.hpp"
#include "harness_env.hpp"

namespace async_fanout_test {

constexpr size_t kKeys = 600;  // keys of every shard, each with its own value

std::string Key(size_t i) { return "fan:" + std::to_string(i); }
std::string Value(size_t i) { return "value-" + std::to_string(i); }

// One asynchronous fan-out: what it asked for, what it got, how often its
// callback ran.
struct Fan {
  std::vector<std::string> keys;  // MGET: the keys; a pipeline: its GETs' keys
  std::vector<std::string> want;  // per key
  std::atomic<int> calls{0};
  cr_status status = CR_OK;
  std::string error;
  std::vector<std::string> got;  // per key ("<nil>" for NIL)
  std::vector<cr_status> statuses;
  int64_t integer = -1;
};

std::string Text(const cr_reply *r) {
  if (cr_reply_get_type(r) == CR_REPLY_TYPE_NIL) return "<nil>";
  size_t len = 0;
  const char *p = cr_reply_get_string(r, &len);
  return std::string(p == nullptr ? "" : p, len);
}

// A multi-key call's completion: an MGET's array, or MSET's status, or DEL /
// EXISTS's integer.
void RecordMulti(void *ud, cr_status status, cr_reply *reply) {
  auto *f = static_cast<Fan *>(ud);
  f->status = status;
  if (status == CR_OK) {
    if (cr_reply_get_type(reply) == CR_REPLY_TYPE_ARRAY) {
      for (size_t i = 0; i < cr_reply_get_count(reply); ++i) {
        f->got.push_back(Text(cr_reply_get_element(reply, i)));
      }
    } else if (cr_reply_get_type(reply) == CR_REPLY_TYPE_INTEGER) {
      f->integer = cr_reply_get_integer(reply);
    } else {
      f->got.push_back(Text(reply));
    }
    cr_reply_free(reply);
  } else {
    f->error = cr_last_error();
  }
  f->calls.fetch_add(1);
}

void RecordPipeline(void *ud, cr_status status, size_t n, cr_reply *const *replies,
                    const cr_status *statuses) {
  auto *f = static_cast<Fan *>(ud);
  f->status = status;
  if (status != CR_OK) f->error = cr_last_error();
  for (size_t i = 0; i < n; ++i) {
    f->got.push_back(Text(replies[i]));
    f->statuses.push_back(statuses[i]);
    cr_reply_free(replies[i]);
  }
  f->calls.fetch_add(1);
}

struct Views {
  std::vector<const void *> ptrs;
  std::vector<size_t> lens;
  explicit Views(const std::vector<std::string> &v) {
    for (const std::string &s : v) {
      ptrs.push_back(s.data());
      lens.push_back(s.size());
    }
  }
};

cr_status SubmitMGet(cr_client *cl, Fan *f) {
  Views k(f->keys);
  return cr_client_submit_mget(cl, k.ptrs.data(), k.lens.data(), f->keys.size(), &RecordMulti, f);
}

// A pipeline of, per key, SET key <its value> then GET key: the GETs read
// this call's own writes (on the master, after the write).
cr_status SubmitPipeline(cr_client *cl, Fan *f) {
  cr_pipeline *p = nullptr;
  if (cr_status s = cr_pipeline_new(&p, cl); s != CR_OK) return s;
  std::unique_ptr<cr_pipeline, void (*)(cr_pipeline *)> owned(p, cr_pipeline_free);
  for (size_t i = 0; i < f->keys.size(); ++i) {
    const void *set[] = {"SET", f->keys[i].data(), f->want[i].data()};
    const size_t set_lens[] = {3, f->keys[i].size(), f->want[i].size()};
    if (cr_status s = cr_pipeline_add(p, CR_ACCESS_WRITE, 1, 3, set, set_lens); s != CR_OK) {
      return s;
    }
    const void *get[] = {"GET", f->keys[i].data()};
    const size_t get_lens[] = {3, f->keys[i].size()};
    if (cr_status s = cr_pipeline_add(p, CR_ACCESS_READ, 1, 2, get, get_lens); s != CR_OK) {
      return s;
    }
  }
  // The arguments were borrowed until here: the submit copies them, and the
  // pipeline is freed at once.
  return cr_pipeline_submit(p, &RecordPipeline, f);
}

bool AllDone(const std::vector<std::unique_ptr<Fan>> &fans) {
  for (const auto &f : fans) {
    if (f->calls.load() == 0) return false;
  }
  return true;
}

// Runs the client's completions until every call completed or 30 s passed.
bool Finish(cr_client *cl, const std::vector<std::unique_ptr<Fan>> &fans, int queue_fd) {
  return crtest::RunCompletionsUntil(cl, queue_fd, 30000, [&] { return AllDone(fans); });
}

class AsyncFanOut : public crtest::ClusterTest {
 protected:
  cr_client *NewClient(cr_policy policy, uint32_t command_timeout_ms = 0) {
    return crtest::NewAsyncClient(env_["SEEDS"], policy, "cr-async-fanout", command_timeout_ms);
  }

  // Every key stored with its value (a blocking MSET).
  void Store(cr_client *cl) {
    std::vector<std::string> keys, values;
    for (size_t i = 0; i < kKeys; ++i) {
      keys.push_back(Key(i));
      values.push_back(Value(i));
    }
    Views k(keys), v(values);
    ASSERT_EQ(
        cr_client_cmd_mset(cl, k.ptrs.data(), k.lens.data(), v.ptrs.data(), v.lens.data(), kKeys),
        CR_OK)
        << cr_last_error();
  }
};

// Call c's keys: 30 keys of every shard, a window that starts at c*7 so no
// two calls in a row ask the same list.
void MGetKeys(size_t c, Fan *f) {
  for (size_t j = 0; j < 30; ++j) {
    const size_t i = (c * 7 + j * 19) % kKeys;
    f->keys.push_back(Key(i));
    f->want.push_back(Value(i));
  }
}

TEST_F(AsyncFanOut, HundredsInFlightEachGetExactlyTheirOwnReplies) {
  for (const bool queue : {false, true}) {
    cr_client *cl = NewClient(CR_POLICY_LOCAL, 10000);
    ASSERT_NE(cl, nullptr);
    // Freed on every way out, before the calls it may still complete.
    std::unique_ptr<cr_client, void (*)(cr_client *)> owned(cl, cr_client_free);
    Store(cl);
    int fd = -1;
    if (queue) {
      ASSERT_EQ(cr_client_completion_fd(&fd, cl), CR_OK);
    }
    const std::string tag = queue ? "q" : "e";
    std::vector<std::unique_ptr<Fan>> mgets, pipes;
    for (size_t c = 0; c < 300; ++c) {
      mgets.push_back(std::make_unique<Fan>());
      MGetKeys(c, mgets.back().get());
      ASSERT_EQ(SubmitMGet(cl, mgets.back().get()), CR_OK) << cr_last_error();
      if (c % 3 == 0) {
        // A pipeline over keys of its own, values of its own.
        pipes.push_back(std::make_unique<Fan>());
        Fan &p = *pipes.back();
        for (size_t j = 0; j < 12; ++j) {
          p.keys.push_back("fan:pipe:" + tag + std::to_string(c) + ":" + std::to_string(j));
          p.want.push_back("p-" + tag + std::to_string(c) + "-" + std::to_string(j));
        }
        ASSERT_EQ(SubmitPipeline(cl, &p), CR_OK) << cr_last_error();
      }
    }
    ASSERT_TRUE(Finish(cl, mgets, fd));
    ASSERT_TRUE(Finish(cl, pipes, fd));
    for (const auto &f : mgets) {
      EXPECT_EQ(f->calls.load(), 1);
      ASSERT_EQ(f->status, CR_OK) << f->error;
      ASSERT_EQ(f->got, f->want);
    }
    for (const auto &p : pipes) {
      EXPECT_EQ(p->calls.load(), 1);
      ASSERT_EQ(p->status, CR_OK) << p->error;
      ASSERT_EQ(p->got.size(), 2 * p->keys.size());
      for (size_t j = 0; j < p->keys.size(); ++j) {
        EXPECT_EQ(p->statuses[2 * j], CR_OK);
        EXPECT_EQ(p->got[2 * j], "OK");
        EXPECT_EQ(p->got[2 * j + 1], p->want[j]) << p->keys[j];
      }
    }
  }
}

TEST_F(AsyncFanOut, MSetDelExistsAnswerAsTheBlockingCalls) {
  cr_client *cl = NewClient(CR_POLICY_LOCAL, 10000);
  ASSERT_NE(cl, nullptr);
  std::unique_ptr<cr_client, void (*)(cr_client *)> owned(cl, cr_client_free);
  std::vector<std::string> keys, values;
  for (size_t i = 0; i < 40; ++i) {
    keys.push_back("fan:mset:" + std::to_string(i));
    values.push_back("m" + std::to_string(i));
  }
  Views k(keys), v(values);
  std::vector<std::unique_ptr<Fan>> one;
  one.push_back(std::make_unique<Fan>());
  ASSERT_EQ(cr_client_submit_mset(cl, k.ptrs.data(), k.lens.data(), v.ptrs.data(), v.lens.data(),
                                  keys.size(), &RecordMulti, one[0].get()),
            CR_OK);
  ASSERT_TRUE(Finish(cl, one, -1));
  ASSERT_EQ(one[0]->status, CR_OK) << one[0]->error;
  EXPECT_EQ(one[0]->got, std::vector<std::string>{"OK"});
  // A key named twice counts twice, as EXISTS does; one missing key.
  std::vector<std::string> probe = keys;
  probe.push_back(keys[0]);
  probe.push_back("fan:mset:missing");
  Views p(probe);
  one[0] = std::make_unique<Fan>();
  ASSERT_EQ(cr_client_submit_exists(cl, p.ptrs.data(), p.lens.data(), probe.size(), &RecordMulti,
                                    one[0].get()),
            CR_OK);
  ASSERT_TRUE(Finish(cl, one, -1));
  ASSERT_EQ(one[0]->status, CR_OK) << one[0]->error;
  EXPECT_EQ(one[0]->integer, static_cast<int64_t>(keys.size() + 1));
  one[0] = std::make_unique<Fan>();
  ASSERT_EQ(cr_client_submit_del(cl, k.ptrs.data(), k.lens.data(), 30, &RecordMulti, one[0].get()),
            CR_OK);
  ASSERT_TRUE(Finish(cl, one, -1));
  ASSERT_EQ(one[0]->status, CR_OK) << one[0]->error;
  EXPECT_EQ(one[0]->integer, 30);
  int64_t left = -1;
  ASSERT_EQ(cr_client_cmd_del(&left, cl, k.ptrs.data(), k.lens.data(), keys.size()), CR_OK);
  EXPECT_EQ(left, 10);
  // Refused before anything is sent: done never runs.
  EXPECT_EQ(cr_client_submit_mget(cl, k.ptrs.data(), k.lens.data(), 0, &RecordMulti, nullptr),
            CR_EINVAL);
  EXPECT_EQ(cr_client_submit_mget(cl, k.ptrs.data(), k.lens.data(), 1, nullptr, nullptr),
            CR_EINVAL);
  cr_pipeline *empty = nullptr;
  ASSERT_EQ(cr_pipeline_new(&empty, cl), CR_OK);
  EXPECT_EQ(cr_pipeline_submit(empty, &RecordPipeline, nullptr), CR_EINVAL);
  cr_pipeline_free(empty);
}

TEST_F(AsyncFanOut, AReplicaKilledUnderMGetLoadCostsNoReadAndNoWrongValue) {
  cr_client *cl = NewClient(CR_POLICY_LOCAL_REPLICAS_FIRST);
  ASSERT_NE(cl, nullptr);
  Store(cl);
  // Rounds of 100 MGETs (30 keys of every shard each) in flight; n6 (shard
  // 2's cloud-A replica) is killed after the third round was submitted.
  uint64_t reads = 0;
  for (int round = 0; round < 10; ++round) {
    std::vector<std::unique_ptr<Fan>> mgets;
    for (size_t c = 0; c < 100; ++c) {
      mgets.push_back(std::make_unique<Fan>());
      MGetKeys(c + static_cast<size_t>(round) * 100, mgets.back().get());
      ASSERT_EQ(SubmitMGet(cl, mgets.back().get()), CR_OK);
    }
    if (round == 3) {
      std::string pid;
      const std::string nd = env_["HARNESS_DIR"] + "/cluster/n6";
      ASSERT_TRUE(static_cast<bool>(std::ifstream(nd + "/redis.pid") >> pid));
      ASSERT_EQ(kill(std::atoi(pid.c_str()), SIGKILL), 0);
    }
    ASSERT_TRUE(Finish(cl, mgets, -1));
    for (const auto &f : mgets) {
      EXPECT_EQ(f->calls.load(), 1);
      ASSERT_EQ(f->status, CR_OK) << "round " << round << ": " << f->error;
      ASSERT_EQ(f->got, f->want);
      ++reads;
    }
  }
  cr_client_stats st = CR_CLIENT_STATS_INIT;
  ASSERT_EQ(cr_client_get_stats(&st, cl), CR_OK);
  EXPECT_GT(st.fallbacks, 0u);  // the legs in flight on n6 moved on
  std::printf("ASYNC FANOUT kill mgets=%llu fallbacks=%llu\n",
              static_cast<unsigned long long>(reads),
              static_cast<unsigned long long>(st.fallbacks));
  cr_client_free(cl);
  Restart(6);
}

TEST_F(AsyncFanOut, FreeWithFanOutsInFlightRunsEveryCallbackOnce) {
  for (const bool queue : {false, true}) {
    cr_client *cl = NewClient(CR_POLICY_LOCAL, 10000);
    ASSERT_NE(cl, nullptr);
    Store(cl);
    int fd = -1;
    if (queue) {
      ASSERT_EQ(cr_client_completion_fd(&fd, cl), CR_OK);
    }
    std::vector<std::unique_ptr<Fan>> fans;
    for (size_t c = 0; c < 200; ++c) {
      fans.push_back(std::make_unique<Fan>());
      Fan &f = *fans.back();
      if (c % 4 == 0) {
        f.keys = {"fan:free:" + std::to_string(c)};
        f.want = {"x"};
        ASSERT_EQ(SubmitPipeline(cl, &f), CR_OK) << cr_last_error();
      } else {
        MGetKeys(c, &f);
        ASSERT_EQ(SubmitMGet(cl, &f), CR_OK) << cr_last_error();
      }
    }
    cr_client_free(cl);  // no completion run: the queued ones run here
    size_t cancelled = 0;
    for (const auto &f : fans) {
      ASSERT_EQ(f->calls.load(), 1);
      if (f->status == CR_OK) {  // completed before the free began
        if (f->statuses.empty()) {
          EXPECT_EQ(f->got, f->want);
        } else {
          EXPECT_EQ(f->got, (std::vector<std::string>{"OK", f->want[0]}));
        }
        continue;
      }
      ASSERT_EQ(f->status, CR_ECONN) << f->error;
      EXPECT_NE(f->error.find("cancelled"), std::string::npos) << f->error;
      for (cr_status s : f->statuses) EXPECT_EQ(s, CR_ECONN);
      ++cancelled;
    }
    // With the queue on and nothing run, every one was still queued or in
    // flight when the free began.
    if (queue) {
      EXPECT_EQ(cancelled, fans.size());
    }
  }
}

}  // namespace async_fanout_test
