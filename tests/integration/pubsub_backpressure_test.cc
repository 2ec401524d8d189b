// Back-pressure of a subscription against a real cluster (the harness's
// layout; a client in cloud A, local-replicas-first): a shard channel of
// shard 1 is subscribed (on its cloud-A replica n2) and nobody reads it
// while 160 MiB of messages (64 KiB each, pipelined 64 at a time) are
// published on the master.
// The subscription's queue holds at most 64 MiB; past that its thread stops
// reading the socket, and the server keeps the rest in the subscriber's
// output buffer (the fixture sets `client-output-buffer-limit pubsub 0 0 0`,
// so the server never drops it). Required:
//  - while nobody reads, the server's buffer for the subscriber (omem of
//    CLIENT LIST) grows past 32 MiB (the client stopped reading), and the heap the
//    process uses grows by at most the queue's limit and 8 MiB;
//  - then every message is read, in the order published, none lost, with
//    no event (the connection was never dropped), and the heap stays under
//    the same bound while the reader catches up.
// The heap in use is the allocator's own count (ASan's allocated bytes in
// the sanitizer tree, glibc's mallinfo2 elsewhere, with one arena so that it
// counts every thread's allocations): what the library holds, free of the
// quarantine and page reuse RSS would add; outside ASan the RSS is bounded
// too. Prints one BACKPRESSURE line with what it measured.
//
// CR_TEST_CLUSTER_ENV names the harness's cluster.env.
#include <gtest/gtest.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "cloudroute.h"
#include "common/wait_until.hpp"
#include "fault_kit.hpp"
#include "harness_env.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define CR_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CR_TEST_ASAN 1
#endif
#endif
#ifdef CR_TEST_ASAN
#include <sanitizer/allocator_interface.h>
#endif

namespace pubsub_backpressure_test {

using std::chrono::seconds;

constexpr size_t kMiB = size_t{1} << 20;
constexpr size_t kQueueLimit = 64 * kMiB;  // PubSubQueue's, as documented
constexpr size_t kPayload = 64 * 1024;
constexpr size_t kBatch = 64;  // SPUBLISHes per pipeline
constexpr size_t kPublished = 160 * kMiB;
constexpr size_t kMessages = kPublished / kPayload;
// What the process may hold beyond the queue's limit: the one message that
// takes the queue past it, the reader's buffer, the publisher's batch of
// 64 messages and their replies, allocator rounding.
constexpr size_t kSlack = 8 * kMiB;
// What the subscriber's server must hold once all is published: far more
// than the kernel's socket buffers (a few MiB each way), less than the
// 96 MiB the queue leaves to it, as what is not in the queue also sits in
// those socket buffers and the reader's.
constexpr size_t kServerHolds = 32 * kMiB;

// The resident set of the process, from /proc/self/statm.
size_t Rss() {
  size_t pages = 0, resident = 0;
  FILE *f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return 0;
  if (std::fscanf(f, "%zu %zu", &pages, &resident) != 2) resident = 0;
  std::fclose(f);
  return resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

size_t HeapInUse() {
#ifdef CR_TEST_ASAN
  return __sanitizer_get_current_allocated_bytes();
#else
  const struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
#endif
}

// The omem (output buffer bytes) of the pubsub clients of node addr.
size_t ServerBuffered(const std::string &addr) {
  const std::string list = crtest::Cli(addr, {"CLIENT", "LIST", "TYPE", "pubsub"});
  size_t total = 0;
  for (size_t at = list.find("omem="); at != std::string::npos; at = list.find("omem=", at + 5)) {
    total += std::strtoull(list.c_str() + at + 5, nullptr, 10);
  }
  return total;
}

// "<seq>:" and filler, kPayload bytes.
std::string Payload(size_t seq) {
  std::string p = std::to_string(seq) + ":";
  p.resize(kPayload, static_cast<char>('a' + seq % 26));
  return p;
}

// SPUBLISHes messages first..first+count-1 (Payload) on channel through
// one pipeline; false (with a test failure) when one fails.
bool PublishBatch(cr_pipeline *pipe, const std::string &channel, size_t first, size_t count) {
  std::vector<std::string> payloads;
  for (size_t k = first; k < first + count; ++k) payloads.push_back(Payload(k));
  for (const std::string &p : payloads) {
    const void *argv[] = {"SPUBLISH", channel.data(), p.data()};
    const size_t argvlen[] = {8, channel.size(), p.size()};
    if (cr_pipeline_add(pipe, CR_ACCESS_WRITE, 1, 3, argv, argvlen) != CR_OK) {
      ADD_FAILURE() << cr_last_error();
      return false;
    }
  }
  std::vector<cr_reply *> replies(payloads.size());
  size_t needed = 0;
  const cr_status st = cr_pipeline_execute(replies.data(), nullptr, replies.size(), &needed, pipe);
  for (size_t k = 0; k < needed && k < replies.size(); ++k) cr_reply_free(replies[k]);
  EXPECT_EQ(st, CR_OK) << first << ": " << cr_last_error();
  return st == CR_OK;
}

TEST(PubSubBackpressure, AReaderThatStopsCostsTheServersBufferNotTheClientsMemory) {
#ifndef CR_TEST_ASAN
  // mallinfo2 counts the main arena only: every thread allocates there.
  ASSERT_EQ(mallopt(M_ARENA_MAX, 1), 1);
#endif
  auto env = crtest::LoadHarnessEnv();
  ASSERT_FALSE(env["SEEDS"].empty()) << "CR_TEST_CLUSTER_ENV does not name a cluster.env";
  cr_client_options o = CR_CLIENT_OPTIONS_INIT;
  // What is measured is memory, not timeouts: while ~96 MiB drains from a
  // server to a reader under ASan on a busy machine, a server or this
  // process may stall for longer than the local tier's 500 ms.
  for (uint32_t &t : o.command_timeout_ms) t = 5000;
  cr_router *router = nullptr;
  std::unique_ptr<cr_client, void (*)(cr_client *)> client(
      crtest::NewCloudAClient(env["SEEDS"], CR_POLICY_LOCAL_REPLICAS_FIRST, 2000, o, &router, 3),
      cr_client_free);
  ASSERT_NE(client, nullptr);
  cr_client *c = client.get();
  cr_subscription *s = nullptr;
  ASSERT_EQ(cr_client_subscribe(&s, c), CR_OK) << cr_last_error();
  std::unique_ptr<cr_subscription, void (*)(cr_subscription *)> sub(s, cr_subscription_free);
  const std::string ch = "{" + env["SHARD1_KEY"] + "}bp";
  const void *names[] = {ch.data()};
  const size_t lens[] = {ch.size()};
  ASSERT_EQ(cr_subscription_add(s, CR_CHANNEL_KIND_SHARD, 1, names, lens), CR_OK);
  cr_message *m = nullptr;
  ASSERT_EQ(cr_subscription_next(&m, s, 10000), CR_OK);
  ASSERT_NE(m, nullptr) << "not subscribed within 10 s";
  ASSERT_EQ(cr_message_get_type(m), CR_MESSAGE_TYPE_SUBSCRIBED);
  const std::string node = cr_message_get_node(m);
  cr_message_free(m);
  ASSERT_NE(crtest::Cli(node, {"CONFIG", "GET", "client-output-buffer-limit"}).find("pubsub 0 0 0"),
            std::string::npos)
      << "the fixture sets client-output-buffer-limit pubsub 0 0 0";

  std::unique_ptr<cr_pipeline, void (*)(cr_pipeline *)> pipe(nullptr, cr_pipeline_free);
  {
    cr_pipeline *raw = nullptr;
    ASSERT_EQ(cr_pipeline_new(&raw, c), CR_OK) << cr_last_error();
    pipe.reset(raw);
  }
  // A batch on a channel nobody hears first: the buffers the publishing
  // side keeps for its connections are in the baseline.
  ASSERT_TRUE(PublishBatch(pipe.get(), ch + ":warm-up", 0, kBatch));
  const size_t heap0 = HeapInUse(), rss0 = Rss();
  size_t peak = heap0, rss_peak = rss0;
  auto sample = [&] {
    peak = std::max(peak, HeapInUse());
    rss_peak = std::max(rss_peak, Rss());
  };
  const auto t0 = std::chrono::steady_clock::now();
  for (size_t i = 0; i < kMessages; i += kBatch) {
    ASSERT_TRUE(PublishBatch(pipe.get(), ch, i, std::min(kBatch, kMessages - i)));
    sample();
  }
  const double publish_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // The subscriber stopped reading: the server holds what the queue may not.
  size_t buffered = 0;
  EXPECT_TRUE(crtest::WaitUntil(
      [&] {
        sample();
        return (buffered = ServerBuffered(node)) >= kServerHolds;
      },
      seconds(20), std::chrono::milliseconds(50)))
      << "the server buffers " << buffered / kMiB << " MiB for the subscriber";
  sample();
  const size_t peak_idle = peak;
  EXPECT_LE(peak_idle - heap0, kQueueLimit + kSlack)
      << "the heap grew by " << (peak_idle - heap0) / kMiB << " MiB while nobody read";

  // Everything arrives, in order, with no event between.
  size_t next = 0, events = 0;
  const auto until = std::chrono::steady_clock::now() + seconds(60);
  while (next < kMessages && std::chrono::steady_clock::now() < until) {
    ASSERT_EQ(cr_subscription_next(&m, s, 1000), CR_OK);
    if (m == nullptr) continue;
    if (cr_message_get_type(m) != CR_MESSAGE_TYPE_MESSAGE) {
      ADD_FAILURE() << "event " << cr_message_get_type(m) << " on " << cr_message_get_node(m)
                    << ": " << cr_message_get_reason(m);
      ++events;
      cr_message_free(m);
      continue;
    }
    size_t len = 0;
    const char *p = cr_message_get_payload(m, &len);
    const std::string want = Payload(next);
    if (len != want.size() || std::string(p, len) != want) {
      const std::string got(p, std::min<size_t>(len, 12)), from = cr_message_get_node(m);
      cr_message_free(m);
      FAIL() << "message " << next << " expected, got " << got << " (" << len << " bytes) from "
             << from << " (subscribed on " << node << ")";
    }
    cr_message_free(m);
    ++next;
    if (next % 64 == 0) sample();
  }
  EXPECT_EQ(next, kMessages) << "messages lost";
  EXPECT_EQ(events, 0u);
  EXPECT_LE(peak - heap0, kQueueLimit + kSlack)
      << "the heap grew by " << (peak - heap0) / kMiB << " MiB while the reader caught up";
#ifndef CR_TEST_ASAN
  // The RSS also keeps pages freed meanwhile: a looser bound.
  EXPECT_LE(rss_peak - rss0, kQueueLimit + 4 * kSlack)
      << "the RSS grew by " << (rss_peak - rss0) / kMiB << " MiB";
#endif
  EXPECT_EQ(ServerBuffered(node), 0u);
  std::printf(
      "BACKPRESSURE published=%zu MiB in %.1f s messages=%zu server_buffered=%zu MiB "
      "heap_growth_idle=%.1f MiB heap_growth_peak=%.1f MiB rss_growth_peak=%.1f MiB\n",
      kPublished / kMiB, publish_s, next, buffered / kMiB,
      static_cast<double>(peak_idle - heap0) / static_cast<double>(kMiB),
      static_cast<double>(peak - heap0) / static_cast<double>(kMiB),
      static_cast<double>(rss_peak - rss0) / static_cast<double>(kMiB));
}

}  // namespace pubsub_backpressure_test
